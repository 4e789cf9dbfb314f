"""McVoy and Staelin, "lmbench: Portable Tools for Performance Analysis",
USENIX 1996.

* ``paper``: its tables and the context-switch figure, parsed from the paper's tbl/pic sources (``data/papers/mcvoy1996/``; no measurement).
* ``measure``: this machine's rows and curves (runs benchmarks).

Notebook: ``notebooks/mcvoy1996.ipynb``; tests: ``tests/papers/test_mcvoy1996*.py``.
The table machinery (``TableRows``, ``beside_paper``) is ``benchlib.papers``'s.
"""
