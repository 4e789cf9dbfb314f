"""The memory hierarchy: plan -> measure -> fit -> result.

``measure`` plans and takes the measurements (random ring and walk, load
pairs, strides, revisit) and calls the one fit; ``fit`` turns any latency
curve (benchlib's own or another tool's, read by ``curve_readers``) into
levels, latencies, line size and TLB reach, with ``segments``, ``walk``,
``cache_model`` and ``line_tlb`` as its parts; ``synthetic`` draws curves
with known answers for tests.  ``benchlib memory``, ``benchlib
fit-memory`` and the memory notebook all call the same fit.

May import: ``benchlib.errors``, ``benchlib.stats`` and, in ``measure``
only, ``benchlib.measuring`` and ``benchlib.results``.  The fitting modules
are pure (an import-linter contract) and never measure."""
