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


# ------------------------------------------------ interval_plot, the one interval plot

def _errorbars(ax):
    return [c for c in ax.containers if isinstance(c, ErrorbarContainer)]


def _segments(container):
    """Each interval drawn: its two ends, each (x, y)."""
    return list(container.lines[2][0].get_segments())


def _points(ax):
    """The points drawn (the scatter's, not the error bars' collections)."""
    from matplotlib.collections import PathCollection

    return np.concatenate([c.get_offsets() for c in ax.collections if isinstance(c, PathCollection)])


def _curves(ax):
    """The lines drawn that are not an error bar's caps."""
    caps = {id(x) for c in _errorbars(ax) for x in c.lines[1]}
    return [line for line in ax.lines if id(line) not in caps and len(line.get_xdata())]   # not a legend's handle


def test_points_with_their_intervals_coloured_by_hue_first_row_on_top():
    import matplotlib.pyplot as plt

    df = pd.DataFrame({"name": ["a", "b", "c", "d"], "ratio": [1.0, 2.0, 0.5, 1.5],
                       "lo": [0.9, 1.5, 0.4, np.nan], "hi": [1.2, 2.5, 0.7, np.nan],
                       "kind": ["x", "y", "x", "y"]})
    _, ax = plt.subplots()
    f.interval_plot(ax, df, "ratio", "name", "lo", "hi", hue="kind",
                    palette={"x": "tab:green", "y": "tab:red"})
    # one point per row, in the rows' order from the top; seaborn's own estimate nowhere
    xy = _points(ax)
    assert sorted(map(tuple, xy)) == [(0.5, 2.0), (1.0, 0.0), (1.5, 3.0), (2.0, 1.0)]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c", "d"] and ax.yaxis_inverted()
    # the intervals given, in the colour of their hue; none where an end is missing
    bars = {matplotlib.colors.to_hex(c.lines[2][0].get_color()[0]): _segments(c) for c in _errorbars(ax)}
    assert set(bars) == {matplotlib.colors.to_hex("tab:green"), matplotlib.colors.to_hex("tab:red")}
    green = sorted((tuple(sorted(p[0] for p in s)), s[0][1]) for s in bars[matplotlib.colors.to_hex("tab:green")])
    assert green == [((0.4, 0.7), 2.0), ((0.9, 1.2), 0.0)]
    assert len(bars[matplotlib.colors.to_hex("tab:red")]) == 1          # d has no interval
    assert ax.get_xscale() == "log"
    plt.close("all")


def test_a_curve_per_hue_against_a_number():
    import matplotlib.pyplot as plt

    df = pd.DataFrame({"kb": [1, 2, 3, 1, 2, 3], "ms": [1.0, 1.1, 1.2, 10.0, 11.0, 12.0],
                       "s": ["p", "p", "p", "q", "q", "q"]})
    iv.put(df, "ms", [iv.Measured(v, v * 0.9, v * 1.2) for v in df["ms"]])
    _, ax = plt.subplots()
    f.interval_plot(ax, df, "ms", "kb", orient="v", hue="s", palette={"p": "C0", "q": "C1"},
                    join=True, legend=True)
    curves = _curves(ax)
    assert sorted(list(line.get_ydata()) for line in curves) == [[1.0, 1.1, 1.2], [10.0, 11.0, 12.0]]
    segs = [s for c in _errorbars(ax) for s in _segments(c)]   # the 95% interval columns by default
    assert len(segs) == 6 and all(s[0][0] == s[1][0] for s in segs)        # vertical
    assert sorted(tuple(sorted(p[1] for p in s)) for s in segs)[0] == pytest.approx((0.9, 1.2))
    assert ax.get_yscale() == "log" and [t.get_text() for t in ax.get_legend().get_texts()] == ["p", "q"]
    plt.close("all")


# ------------------------------------------------ benchlib compare's figure

def _compared():
    from pathlib import Path

    from benchlib.results import compare as bc

    data = Path(__file__).parent / "data" / "compare"
    return bc.compare(data / "aa_a.json", data / "aa_b.json")


def test_compare_figure_one_point_and_interval_per_benchmark(tmp_path):
    df = _compared()
    fig = f.compare_figure(df)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and len(ax.get_yticks()) == len(df)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0].startswith(f"{df.benchmark[0]} {df.params[0]}: ") and labels[0].endswith(df.unit[0])
    assert len(_points(ax)) == len(df)
    segs = {s[0][1]: sorted(p[0] for p in s) for c in _errorbars(ax) for s in _segments(c)}
    assert len(segs) == len(df)
    assert segs[0.0] == pytest.approx([df.ratio_ci95_lo[0], df.ratio_ci95_hi[0]])
    # each point in its verdict's colour
    colours = {matplotlib.colors.to_hex(c.lines[2][0].get_color()[0]) for c in _errorbars(ax)}
    assert colours == {matplotlib.colors.to_hex(f.VERDICT_COLOURS[v]) for v in set(df.verdict)}
    assert "unitless" in ax.get_xlabel() and "95%" in ax.get_xlabel()
    # the machine the recorded runs came from (a 2-vCPU KVM guest), both sides
    assert ax.get_title().endswith("both on Intel Xeon Processor, 2 CPUs, Linux 6.18.44, VM")
    fig.savefig(tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 1000


def test_compare_figure_keeps_the_largest_differences():
    df = _compared()
    fig = f.compare_figure(df, max_rows=5)
    ax = fig.axes[0]
    assert len(ax.get_yticks()) == 5 and f"(5 largest of {len(df)})" in ax.get_title()
    biggest = df.loc[np.abs(np.log(df.ratio)).idxmax()]
    assert any(t.get_text().startswith(f"{biggest.benchmark} {biggest.params}:") for t in ax.get_yticklabels())
    import matplotlib.pyplot as plt
    plt.close("all")
