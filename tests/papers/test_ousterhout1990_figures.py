"""Ousterhout 1990's Table 10 sweep: its points carry their 95% intervals,
lined up with their rows although measured in random order, and its figure
draws them (structure, not pixels).  No measurement: the sweep is replaced
by recorded-shape results."""
from types import SimpleNamespace

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402

from benchlib.papers.ousterhout1990 import figures as of  # noqa: E402
from benchlib.papers.ousterhout1990 import measure as ous  # noqa: E402


def _fake_sweep(name, grid, results=None, **kw):
    """Rows in grid order, results in the reverse (as a shuffled sweep
    hands them back); each point's median 1 ms per kbyte (x10 with fsync)."""
    rows, res = [], []
    for b in grid["file_bytes"]:
        for s in grid["fsync"]:
            m = b / 1024 * (10 if s == "yes" else 1)
            rows.append({"benchmark": name, "file_bytes": b, "fsync": s, "median": m, "min": m / 2,
                         "max": m * 3, "unit": "ms"})
            res.append(SimpleNamespace(params={"file_bytes": b, "fsync": s}, median=m,
                                       samples=[m] * 5,
                                       diagnostics={"median_ci95": [0.9 * m, 1.2 * m], "stable": True}))
    results.extend(reversed(res))
    return pd.DataFrame(rows)


def test_table10_sweep_rows_carry_their_own_intervals(monkeypatch):
    monkeypatch.setattr(ous, "sweep", _fake_sweep)
    df = ous.table10_sweep("smoke")
    assert len(df) == 20
    assert np.allclose(df["median_ci95_lo"], 0.9 * df["median"])
    assert np.allclose(df["median_ci95_hi"], 1.2 * df["median"])


def test_table10_sweep_figure_two_curves_and_their_intervals(monkeypatch):
    monkeypatch.setattr(ous, "sweep", _fake_sweep)
    df = ous.table10_sweep("smoke")
    fig = of.table10_sweep_figure(df, "Some CPU, 2 CPUs")
    ax = fig.axes[0]
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    caps = {id(x) for c in bars for x in c.lines[1]}
    curves = sorted((list(line.get_xdata()), list(line.get_ydata())) for line in ax.lines
                    if id(line) not in caps and len(line.get_xdata()))   # not the legend's handles
    assert len(curves) == 2 and curves[0][0] == list(range(1, 11))
    assert curves[0][1] == pytest.approx(list(range(1, 11)))        # the medians, 1 ms per kbyte
    segs = [s for c in bars for s in c.lines[2][0].get_segments()]
    assert len(segs) == 20
    at_10k = sorted(tuple(sorted(p[1] for p in s)) for s in segs if s[0][0] == 10)
    assert at_10k == [pytest.approx((9.0, 12.0)), pytest.approx((90.0, 120.0))]   # the 95% interval, not min-max
    assert ax.get_ylabel() == "create-use-delete time (ms, log scale)" and ax.get_xlabel() == "file size (kbytes)"
    assert "95% interval" in ax.get_title() and ax.get_title().endswith("Some CPU, 2 CPUs")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [w for w, _ in of.FSYNC.values()]
    plt.close("all")
