"""The comp.os.mach thread "Mach performance?" (December 1989).

* ``paper``: its tables, the CPU ratings and the normalisation (``data/papers/mach1989/``; no measurement).
* ``measure``: this machine's rows and curves (runs benchmarks).
* ``figures``: its figures (the RPC ranking normalised, the IPC tests' MIPS-relative speeds).

Notebook: ``notebooks/mach1989.ipynb``; tests: ``tests/papers/test_mach1989*.py``.
The table machinery (``TableRows``, ``beside_paper``) is ``benchlib.papers``'s.
"""
