"""The Mach thread's figures (benchlib.papers.mach1989.figures): structure
on the paper's own tables with a made-up row for this machine (bars per
row, the intervals drawn the ones given, units, the machine named), not
pixels.  No measurement."""
import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402

from benchlib.papers.mach1989 import figures as mf  # noqa: E402
from benchlib.papers.mach1989 import measure as mm  # noqa: E402
from benchlib.papers.mach1989 import paper  # noqa: E402
from benchlib.report.figures import HIGHLIGHT  # noqa: E402
from benchlib.stats import intervals as iv  # noqa: E402


def _bars(ax):
    return [p for c in ax.containers if isinstance(c, BarContainer) for p in c]


def _intervals(ax):
    """{row: (lo, hi)} of every error bar on a horizontal axis."""
    return {round(s[0][1]): tuple(sorted(p[0] for p in s)) for c in ax.containers
            if isinstance(c, ErrorbarContainer) for s in c.lines[2][0].get_segments()}


def _ranking():
    extra = pd.DataFrame({"system": ["here"], "hardware": ["this machine"],
                          "path": ["one machine, two processes"], "mips": [1000.0],
                          "mips_low": [500.0], "mips_high": [2000.0]})
    iv.put(extra, "time_ms", [iv.Measured(0.005, 0.004, 0.006)])
    return paper.rpc_ranking(extra)


def test_rpc_ranking_figure_bars_ranges_and_hatching():
    r = _ranking()
    fig = mf.rpc_ranking_figure(r, "Some CPU, 2 CPUs")
    raw, norm = fig.axes
    assert len(_bars(raw)) == len(_bars(norm)) == len(r)
    mine = r.index[r.source == "this machine"][0]
    # left: as measured, this machine's 95% interval only; right: every row's ratings' range
    assert _intervals(raw) == {mine: pytest.approx((0.004, 0.006))}
    right = _intervals(norm)
    assert sorted(right) == list(r.index)
    assert right[0] == pytest.approx((r.vax780_ms_low[0], r.vax780_ms_high[0]))
    red = [b for b in _bars(norm) if matplotlib.colors.to_hex(b.get_facecolor()) == HIGHLIGHT]
    assert len(red) == 1 and round(red[0].get_y() + red[0].get_height() / 2) == mine
    one_machine = (~r.path.str.startswith("between")).sum()
    assert sum(bool(b.get_hatch()) for b in _bars(raw)) == one_machine > 0
    # units, the order of the table from the top, the machine named, the leader computed
    assert "ms per call" in raw.get_xlabel() and "ms on a VAX-11/780" in norm.get_xlabel()
    assert raw.get_yticklabels()[0].get_text().startswith(r.system[0]) and raw.yaxis_inverted()
    net = r[r.path.str.startswith("between") & (r.source == "paper")].sort_values("time_ms")
    assert raw.get_title() == f"as measured: {net.system.iloc[0]} leads 1989's network RPCs"
    assert "Some CPU, 2 CPUs" in fig._suptitle.get_text()
    plt.close("all")


def test_mips_relative_figure_range_over_the_ratings():
    per_call = pd.DataFrame({"test": ["localNull", "localAdd", "remoteNull", "syscall"]})
    iv.put(per_call, "median_us", [iv.Measured(v, v * 0.9, v * 1.1) for v in (0.001, 0.002, 2.0, 0.1)])
    norm = mm.normalised_ipc(per_call, rating=1200.0)
    fig = mf.mips_relative_figure(norm, 1200.0, 600.0, 2400.0, machine="Some CPU")
    ax = fig.axes[0]
    shown = norm.dropna(subset=["mips_relative_speed"]).reset_index(drop=True)
    assert len(shown) == 3 and len(_bars(ax)) == 3           # localNull: no 1989 figure
    got = _intervals(ax)
    for i, s in enumerate(shown.mips_relative_speed):         # the speed scales as 1/rating
        assert got[i] == pytest.approx((s / 2, s * 2))
    colours = {round(b.get_y() + b.get_height() / 2): matplotlib.colors.to_hex(b.get_facecolor())
               for b in _bars(ax)}
    assert [t for i, t in enumerate(shown.test) if colours[i] == HIGHLIGHT] == ["remoteNull", "syscall"]
    assert ax.get_xscale() == "log" and "unitless" in ax.get_xlabel()
    assert ax.get_title().endswith("Some CPU") and len(ax.get_legend().get_texts()) == 2
    assert any(list(line.get_xdata()) == [1.0, 1.0] for line in ax.lines)   # 1.0: kept pace
    plt.close("all")
