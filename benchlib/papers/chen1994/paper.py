"""Chen and Patterson, "A New Approach to I/O Performance Evaluation:
Self-Scaling I/O Benchmarks, Predicted Performance", ACM TOCS 12(4), 1994:
the numbers it prints (see ``data/papers/chen1994/README.md``)."""
from __future__ import annotations

import pandas as pd

from benchlib.papers import load_table

PAPER = "chen1994"


def load(name: str) -> pd.DataFrame:
    """One figure's numbers as printed (``fig02``, ``fig15``, ``focal_points``, ...)."""
    return load_table(PAPER, name)


def focal_points(benchmark: str = "self-scaling") -> pd.DataFrame:
    df = load("focal_points")
    return df[df["benchmark"] == benchmark].reset_index(drop=True)


def first_try_points() -> pd.DataFrame:
    """The first try's focal points (Figure 4: each parameter at its
    performance point, ``method("performance_point_fraction")``)."""
    df = load("focal_points")
    return df[df["benchmark"].str.startswith("first try")].reset_index(drop=True)


def method(parameter: str) -> float:
    """A number of the paper's method (``method.csv``: the first try's
    performance-point fraction ...)."""
    df = load("method").set_index("parameter")
    return float(df.loc[parameter, "value"])
