"""Chen and Patterson, "A New Approach to I/O Performance Evaluation:
Self-Scaling I/O Benchmarks, Predicted Performance", ACM TOCS 12(4), 1994.

* ``paper``: the numbers its figures print (``data/papers/chen1994/``; no measurement).
* ``measure``: the self-scaling search, its predictions and baselines (the
  workload is ``benchlib.measuring.benchmarks.iowork``; the fits are pure functions in
  ``benchlib.analysis.self_scaling_model``).

Notebook: ``notebooks/chen1994.ipynb``; tests: ``tests/papers/test_chen1994*.py``.
The table machinery (``TableRows``, ``beside_paper``) is ``benchlib.papers``'s.
"""
