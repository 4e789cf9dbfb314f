"""benchlib.report.figures, the seaborn-drawn ones: structure on made-up
tables (bars per row, this machine's interval drawn from the numbers given,
axes with units, one panel per parameter, files written), not pixels."""
import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402

from benchlib.report import figures as f  # noqa: E402
from benchlib.stats import intervals as iv  # noqa: E402


def _table():
    """A paper table with a repeated name and an empty cell, and this
    machine's row with an interval that is not symmetric."""
    df = pd.DataFrame({"configuration": ["Sun-4", "DS3100", "this machine", "DS3100"],
                       "us": [30.0, 20.0, 2.0, np.nan], "ms": [1.0, 2.0, 0.5, 3.0],
                       "source": ["paper", "paper", "this machine", "paper"]})
    df["us" + iv.LO] = [np.nan, np.nan, 1.5, np.nan]
    df["us" + iv.HI] = [np.nan, np.nan, 2.6, np.nan]
    return df


def _bar_widths(ax):
    return sorted(p.get_width() for c in ax.containers if isinstance(c, BarContainer) for p in c
                  if np.isfinite(p.get_width()))


def test_one_bar_per_row_in_order_with_this_machine_red():
    fig = f.table_bars(_table(), {"us": "getpid (µs)", "ms": "round trip (ms)"}, "Table 2 on M")
    us, ms = fig.axes
    assert fig._suptitle.get_text() == "Table 2 on M"
    assert (us.get_xlabel(), ms.get_xlabel()) == ("getpid (µs)", "round trip (ms)")
    # the repeated name keeps its own row (no averaging), the empty cell no bar
    assert [t.get_text() for t in us.get_yticklabels()] == ["Sun-4", "DS3100", "this machine", "DS3100"]
    assert _bar_widths(us) == [2.0, 20.0, 30.0] and _bar_widths(ms) == [0.5, 1.0, 2.0, 3.0]
    red = [p for c in ms.containers if isinstance(c, BarContainer) for p in c
           if matplotlib.colors.to_hex(p.get_facecolor()) == f.HIGHLIGHT]
    assert len(red) == 1 and red[0].get_width() == 0.5
    assert red[0].get_y() + red[0].get_height() / 2 == pytest.approx(2)   # third row
    assert us.get_xscale() == "log" and us.yaxis_inverted()            # first row on top


def test_the_interval_drawn_is_the_one_given():
    fig = f.table_bars(_table(), {"us": "µs", "ms": "ms"}, "t")
    us, ms = fig.axes
    errors = [c for c in us.containers if isinstance(c, ErrorbarContainer)]
    assert len(errors) == 1 and not any(isinstance(c, ErrorbarContainer) for c in ms.containers)
    (seg,) = errors[0].lines[2][0].get_segments()
    assert sorted(p[0] for p in seg) == pytest.approx([1.5, 2.6]) and seg[0][1] == pytest.approx(2)
    assert not us.lines or all(line in errors[0].lines[1] for line in us.lines)  # no estimate of seaborn's


def test_bar_table_names_the_unit_and_another_highlight():
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    f.bar_table(ax, _table(), "configuration", "ms", "ms", "Table 3", log=False)
    assert (ax.get_xlabel(), ax.get_title(), ax.get_xscale()) == ("ms (ms)", "Table 3", "linear")
    _, ax = plt.subplots()
    t = _table().assign(source=["paper", "class", "paper", "paper"])
    f.bars(ax, t, "configuration", "ms", highlight="class", colour="tab:orange")
    colours = [matplotlib.colors.to_hex(p.get_facecolor()) for c in ax.containers
               if isinstance(c, BarContainer) for p in c]
    assert colours.count(matplotlib.colors.to_hex("tab:orange")) == 1
    assert not any(isinstance(c, ErrorbarContainer) for c in ax.containers)  # intervals: this machine's only
    plt.close("all")


def test_error_by_parameter_one_panel_per_parameter(tmp_path):
    from benchlib.analysis.self_scaling_model import PARAMS

    rng = np.random.default_rng(0)
    n = 12
    df = pd.DataFrame({"unique_bytes": 2.0 ** rng.integers(20, 30, n),
                       "size_mean_bytes": 2.0 ** rng.integers(10, 20, n),
                       "read_frac": rng.uniform(0, 1, n), "seq_frac": rng.uniform(0, 1, n),
                       "process_num": rng.integers(1, 8, n), "mb_s": np.full(n, 100.0)})
    df["predicted_mb_s"] = 100.0 + np.arange(n)          # errors 0, 1, ... 11 %
    fig = f.error_by_parameter(df, title="Figure 13 on M")
    assert len(fig.axes) == len(PARAMS) and fig._suptitle.get_text() == "Figure 13 on M"
    for ax, p in zip(fig.axes, PARAMS):
        xy = ax.collections[0].get_offsets()
        assert len(xy) == n and sorted(xy[:, 1]) == pytest.approx(np.arange(n))
        assert list(xy[:, 0]) == pytest.approx(df[p].to_numpy(float))
    assert fig.axes[0].get_ylabel() == "prediction error (%)"
    assert fig.axes[0].get_xlabel() == "uniqueBytes (bytes, log scale)" and fig.axes[0].get_xscale() == "log"
    paths = f.save_figure(fig, tmp_path, "fig13_error_by_parameter")
    assert [p.name for p in paths] == ["fig13_error_by_parameter.png", "fig13_error_by_parameter.svg"]
    assert all(p.stat().st_size > 0 for p in paths)
