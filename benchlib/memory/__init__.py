"""The memory hierarchy, one pipeline: plan -> measure -> fit -> result
(modules ``plan``, ``measure``, ``fit``, ``hierarchy``).

``plan`` says what to measure (and where the random walk and the slow
revisit go, from a first look at what was measured before them);
``measure`` takes the measurements (random ring and walk, stride curves,
load pairs, line-size strides, TLB chase, revisit) into a
:class:`dataset.MemoryData`; ``fit.fit_memory`` is the one fit over
everything measured, with ``levels`` (the staircase), ``line_tlb``,
``walk``, ``cache_model`` and ``segments`` as its parts (``stride``: the
joint fit of other tools' sequential stride chases, which the fit calls for
a table of stride-order rows, e.g. lat_mem_rd text); ``hierarchy``
holds the result: the frozen fit and what it means beside the system's
reports.
``dataset`` saves a measurement and ``curve_readers`` reads it back (or
another tool's curve), so ``benchlib memory``, ``benchlib fit-memory`` and
the memory notebook all fit with ``fit.fit_memory``; ``synthetic`` draws
curves with known answers for tests.

May import: ``benchlib.errors``, ``benchlib.units``, ``benchlib.profiles``, ``benchlib.stats`` and, in ``measure``
only, ``benchlib.measuring`` and ``benchlib.results``.  Every other module
here is pure (an import-linter contract) and never measures."""
