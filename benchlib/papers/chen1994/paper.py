"""Chen and Patterson, "A New Approach to I/O Performance Evaluation:
Self-Scaling I/O Benchmarks, Predicted Performance", ACM TOCS 12(4), 1994:
the numbers it prints (see ``data/papers/chen1994/README.md``)."""
from __future__ import annotations

import pandas as pd

from benchlib.stats import intervals as iv
from benchlib.papers import beside_paper, load_table

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
    model, again = ("product of single-parameter functions",
                    "repeatability (the same workloads run again)")
    mine = pd.DataFrame({"system": [f"{machine} (this machine)"]})
    # each with its interval columns where ``ours`` has them (accuracy_table)
    iv.put(mine, "median_error_pct", [iv.get(by, "median_error_pct", model)])
    iv.put(mine, "enhanced_error_pct", [by.loc[model, "enhanced_median_error_pct"]])
    iv.put(mine, "repeatability_error_pct", [iv.get(by, "median_error_pct", again)])
    return beside_paper(load("fig15"), mine)
