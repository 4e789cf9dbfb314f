"""Lai and Baker, "A Performance Comparison of UNIX Operating Systems on
the Pentium" (slides, 1996).

* ``paper``: its slide tables and the "normalized to best" rule (``data/papers/laibaker1996/``; no measurement).
* ``measure``: this machine's rows and curves (runs benchmarks).

Notebook: ``notebooks/laibaker1996.ipynb``; tests: ``tests/papers/test_laibaker1996*.py``.
The table machinery (``TableRows``, ``beside_paper``) is ``benchlib.papers``'s.
"""
