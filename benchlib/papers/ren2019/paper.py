"""What LEBench (Ren et al., SOSP 2019) and its repository publish, as
transcribed in ``data/papers/ren2019/`` (its README says from where and how),
and the rules this package reads them with.  No measurement here.

* ``heatmap_e5_2630v3``: every test's latency change (%) against Linux 4.0
  on the paper's machine, 3.7 to 4.15 (the repository's heatmap);
* ``fig01_linux_3_0_to_4_20``: the paper's Figure 1 for the 15 tests its
  text layer gives, 3.0 to 4.20;
* ``tests``: what each test times (the repository's OS_Eval.c);
* ``root_causes``: the eleven changes and how each is disabled
  (the repository's EXPERIMENTS.md); ``setup``: the paper's machine.
"""
from __future__ import annotations

import math
import re

import pandas as pd

from benchlib.papers import load_table

PAPER = "ren2019"
TABLES = ("heatmap_e5_2630v3", "fig01_linux_3_0_to_4_20", "tests", "root_causes", "setup")
BASELINE_KERNEL = "4.0"      # "Test Slowdown Relative to 4.0": every cell is against it

# The heatmap's rows and the tests (tests.csv) each stands for.  A starred
# row ("mmap *", "send & recv *") stands for several tests of one kind.
FIGURE_TESTS = {
    "contextswitch": ["context siwtch"],
    "small-read": ["small read"], "med-read": ["mid read"], "big-read": ["big read"],
    "small-write": ["small write"], "med-write": ["mid write"], "big-write": ["big write"],
    "mmap *": ["small mmap", "mid mmap", "big mmap", "huge mmap"],
    "small-munmap": ["small munmap"], "med-munmap": ["mid munmap"],
    "big-munmap": ["big munmap"],
    "fork": ["fork"], "big-fork": ["big fork"], "thrcreate": ["thr create"],
    "send & recv *": ["send", "recv", "big send", "big recv"],
    "select": ["select"], "poll": ["poll"], "epoll": ["epoll"],
    "big-select": ["select big"], "big-poll": ["poll big"], "big-epoll": ["epoll big"],
    "small-pagefault": ["small page fault"], "med-pagefault": ["mid page fault"],
    "big-pagefault": ["big page fault"],
}


def load(table: str) -> pd.DataFrame:
    """One of ``TABLES`` as transcribed."""
    return load_table(PAPER, table)


def kernel_of(column: str) -> str:
    """``linux_4_15_pct`` -> "4.15"."""
    m = re.fullmatch(r"linux_(\d+)_(\d+)_pct", column)
    if not m:
        raise ValueError(f"not a kernel column: {column!r}")
    return f"{m.group(1)}.{m.group(2)}"


def column_of(kernel: str) -> str:
    """"4.15" -> ``linux_4_15_pct``."""
    major, minor = kernel.split(".")
    return f"linux_{int(major)}_{int(minor)}_pct"


def kernels(table: str = "heatmap_e5_2630v3") -> list[str]:
    """The kernels a slowdown table covers, oldest first."""
    return [kernel_of(c) for c in load(table).columns[1:]]


def slowdowns(table: str = "heatmap_e5_2630v3") -> pd.DataFrame:
    """A slowdown table in long form: test, kernel, slowdown_pct (latency
    change against 4.0, %), kernel_index (0 the oldest)."""
    df = load(table)
    long = df.melt(id_vars="test", var_name="column", value_name="slowdown_pct")
    long["kernel"] = long["column"].map(kernel_of)
    order = {k: i for i, k in enumerate(kernels(table))}
    long["kernel_index"] = long["kernel"].map(order)
    return long.drop(columns="column")[["test", "kernel", "kernel_index", "slowdown_pct"]]


def slowdown(test: str, kernel: str, table: str = "heatmap_e5_2630v3") -> float:
    """One cell: the test's latency change (%) at ``kernel`` against 4.0."""
    df = load(table).set_index("test")
    return float(df.loc[test, column_of(kernel)])


def as_ratio(slowdown_pct: float) -> float:
    """A slowdown in % as the ratio of latencies (40 % -> 1.4)."""
    return 1.0 + slowdown_pct / 100.0


def latest_jump(test: str, before: str, after: str,
                table: str = "heatmap_e5_2630v3") -> float:
    """How many times slower ``after`` is than ``before`` for one test
    (both read against 4.0, so the ratio of their ratios)."""
    return as_ratio(slowdown(test, after, table)) / as_ratio(slowdown(test, before, table))


def figure_row_of(test: str) -> str | None:
    """The heatmap row a test of tests.csv is read in (None: not drawn)."""
    for row, tests in FIGURE_TESTS.items():
        if test in tests:
            return row
    return None


# ------------------------------------------------------------ rules for this machine's costs

def share_of_cost(ratio: float) -> float:
    """The share of an operation's time a switch in force accounts for,
    from the ratio t(switch off) / t(as found): 1 - ratio (0.8 -> 20 %)."""
    if not ratio > 0 or math.isinf(ratio):
        raise ValueError(f"a ratio of times must be positive and finite; got {ratio!r}")
    return 1.0 - ratio


def extra_cost(ratio: float) -> float:
    """What a switch adds when turned on, from t(on) / t(as found): ratio - 1."""
    if not ratio > 0 or math.isinf(ratio):
        raise ValueError(f"a ratio of times must be positive and finite; got {ratio!r}")
    return ratio - 1.0
