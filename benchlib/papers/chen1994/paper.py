"""Chen and Patterson, "A New Approach to I/O Performance Evaluation:
Self-Scaling I/O Benchmarks, Predicted Performance", ACM TOCS 12(4), 1994:
the numbers it prints (see ``data/papers/chen1994/README.md``)."""
from __future__ import annotations

import pandas as pd

from .. import beside_paper, load_table

PAPER = "chen1994"


def load(name: str) -> pd.DataFrame:
    """One figure's numbers as printed (``fig02``, ``fig15``, ``focal_points``, ...)."""
    return load_table(PAPER, name)


def focal_points(benchmark: str = "self-scaling") -> pd.DataFrame:
    df = load("focal_points")
    return df[df["benchmark"] == benchmark].reset_index(drop=True)


def paper_table(ours: pd.DataFrame, machine: str) -> pd.DataFrame:
    """Figure 15 with this machine's row: median, enhanced and repeatability
    errors (percent), from the ``accuracy_table`` of a run; ``source`` says
    which row is which."""
    by = ours.set_index("predictor")
    row = {"system": f"{machine} (this machine)",
           "median_error_pct": by.loc["product of single-parameter functions",
                                      "median_error_pct"],
           "enhanced_error_pct": by.loc["product of single-parameter functions",
                                        "enhanced_median_error_pct"],
           "repeatability_error_pct": by.loc["repeatability (the same workloads run again)",
                                             "median_error_pct"]}
    return beside_paper(load("fig15"), pd.DataFrame([row]))
