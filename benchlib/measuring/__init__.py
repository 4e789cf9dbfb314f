"""Measuring: what a measurement is and how it is taken.

Owns the ``Result`` type every measurement returns (``result``), the benchmark registry (``registry``: every benchmark once, with its
parameters, unit and description), the profiles table (``profiles``: what
smoke, quick and full mean for every benchmark and analysis), the harness
(``harness``: ``run`` and ``sweep``, calibration, warm-up, samples), the
single-threaded measuring process (``worker``) and the process state it
records (``process``), the machine description (``metadata``), the noise
snapshots around a run (``diagnostics``) and the kernel's run-time switches
with the guard that puts them back (``switches``).  The benchmark families live in
``benchlib.measuring.benchmarks`` (one module per ``csrc/<family>.c``) and belong to
this layer.

May import: ``benchlib.errors``, ``benchlib.progress``, the native binding
(``benchlib._native``), ``benchlib.measuring.benchmarks`` and ``benchlib.stats``.  The worker, the
registry, the profiles and the benchmark families import no numerical
library (an import-linter contract): the process that runs a timed loop
starts no thread pool."""
