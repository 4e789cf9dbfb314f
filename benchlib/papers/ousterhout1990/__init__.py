"""Ousterhout, "Why Aren't Operating Systems Getting Faster As Fast as
Hardware?", USENIX Summer 1990.

* ``paper``: its tables, Table 7's recovery and the MIPS-relative speed (``data/papers/ousterhout1990/``; no measurement).
* ``measure``: this machine's rows and curves (runs benchmarks).
* ``figures``: its figures (Figure 1, the round trip's parts, Table 10's sweep).

Notebook: ``notebooks/ousterhout1990.ipynb``; tests: ``tests/papers/test_ousterhout1990*.py``.
The table machinery (``TableRows``, ``beside_paper``) is ``benchlib.papers``'s.
"""
