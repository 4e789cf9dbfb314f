"""Ren, Rodrigues, Chen, Vega, Stumm and Yuan, "An Analysis of Performance
Evolution of Linux's Core Operations", SOSP 2019 (LEBench; code in the
public repository LinuxPerfStudy/LEBench).

* ``paper``: what the paper and its repository publish (the test slowdowns
  across kernels, the tests' definitions, the eleven root causes and how
  each is disabled; ``data/papers/ren2019/``) and the rules this package
  reads them with (no measurement).
* ``cells``: LEBench's tests as this project measures them, declared once.
* ``causes``: which causes are in force on this kernel, read from sysfs,
  the command line and the kernel's configuration.
* ``measure``: this machine's row of every test, and the paired cost of
  every switch that can change while the machine runs.
* ``figures``: the paper's heatmap redrawn, the switch costs, the shares.

Notebook: ``notebooks/ren2019.ipynb``; tests: ``tests/papers/test_ren2019*.py``.
"""
