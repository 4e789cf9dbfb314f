"""The then-and-now facets (benchlib.papers.across_figures) on a made-up
dataset: one panel per rated primitive with every era on one axis, the
unrated systems in a strip at their speed, this machine a star, the fit
lines drawn from the exponents given (not refitted), units on the axes.
Structure, not pixels."""
import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from benchlib.papers import across_figures as af  # noqa: E402

HOST = "here"


def _dataset():
    rows = [("ousterhout1990", f"m{i}", 1990, mips, "kernel_entry", 100.0 / mips)
            for i, mips in enumerate((1.0, 2.0, 5.0, 10.0))]
    rows += [("mach1989", "pmax", 1989, 12.0, "kernel_entry", 9.0),
             ("mcvoy1996", "sun", 1996, 250.0, "kernel_entry", 1.0),        # SPECint92
             ("mcvoy1996", "hp", 1996, np.nan, "kernel_entry", 3.0),        # unrated
             ("laibaker1996", "pc", 1996, np.nan, "kernel_entry", 2.0),     # unrated
             ("today", HOST, 2026, 2e4, "kernel_entry", 0.05),
             ("ousterhout1990", "m0", 1990, 1.0, "memory_copy_cached", 4.0),
             ("ousterhout1990", "m1", 1990, 10.0, "memory_copy_cached", 30.0),
             ("today", HOST, 2026, 2e4, "memory_copy_cached", 5e4),
             ("mcvoy1996", "hp", 1996, np.nan, "memory_copy_cached", 40.0),    # no rating
             ("mcvoy1996", "sun", 1995, np.nan, "context_switch", 20.0)]
    return pd.DataFrame(rows, columns=["paper", "machine", "year", "cpu_rating", "primitive",
                                       "value_std"])


FITS = pd.DataFrame([
    {"primitive": "kernel_entry", "systems": "1989-90", "n": 5, "exponent": 0.8, "intercept": 1.5,
     "ci_low": 0.6, "ci_high": 1.0},
    {"primitive": "kernel_entry", "systems": "all eras", "n": 7, "exponent": 0.9,
     "intercept": 1.4, "ci_low": 0.7, "ci_high": 1.1},
    {"primitive": "kernel_entry", "systems": "1995-96", "n": 1, "exponent": np.nan,
     "intercept": np.nan, "ci_low": np.nan, "ci_high": np.nan},
    {"primitive": "memory_copy_cached", "systems": "1989-90", "n": 2, "exponent": np.nan,
     "intercept": np.nan, "ci_low": np.nan, "ci_high": np.nan}])


def _points(ax):
    return sum(len(c.get_offsets()) for c in ax.collections)


def _strip(ax):
    """The unrated systems' strip: the collections drawn with the '_' marker."""
    return [c for c in ax.collections if len(c.get_offsets())
            and np.ptp(c.get_offsets()[:, 0]) == 0 and c.get_paths()
            and len(c.get_paths()[0].vertices) == 2]


def test_speed_vs_cpu_every_era_on_one_axis_with_the_given_fits():
    fig = af.speed_vs_cpu(_dataset(), FITS, HOST, "Speed on M")
    axes = {ax.get_title(): ax for ax in fig.axes}
    assert list(axes) == ["kernel entry", "memory copy cached"]   # context switch has no rating
    assert fig._suptitle.get_text() == "Speed on M"
    k, m = axes["kernel entry"], axes["memory copy cached"]
    assert (_points(k), _points(m)) == (9, 4)                     # the unrated ones too
    assert k.get_xlabel() == "CPU rating (VAX-11/780 = 1: VAX-MIPS, SPECint92)"
    assert (k.get_ylabel(), m.get_ylabel()) == ("speed (operations/s)", "speed (MB/s)")
    assert k.get_xscale() == k.get_yscale() == "log"
    # a time becomes a rate: 100 us at 1 MIPS is 10,000 operations/s
    assert 1e4 in np.concatenate([c.get_offsets() for c in k.collections])[:, 1]
    # the two unrated kernel entries stand in the strip left of every rated point, at their speed
    (strip,) = _strip(k)
    xy = strip.get_offsets()
    assert sorted(xy[:, 1]) == pytest.approx([1e6 / 3.0, 1e6 / 2.0])
    assert xy[0, 0] < 1.0 and k.get_xlim()[0] < xy[0, 0]
    (mstrip,) = _strip(m)
    assert list(mstrip.get_offsets()[:, 1]) == [40.0]
    # one CPU axis: every panel spans every era's ratings, the strip at the same place
    assert k.get_xlim() == m.get_xlim() and m.get_xlim()[1] > 2e4
    assert mstrip.get_offsets()[0, 0] == xy[0, 0]
    lines = [ln for ln in k.get_lines() if ln.get_label().startswith(("1989", "all"))]
    assert len(lines) == 2 and not [ln for ln in m.get_lines() if ln.get_label()[:1].isdigit()]
    for line, b, a, x0, x1 in zip(lines, (0.8, 0.9), (1.5, 1.4), (1.0, 1.0), (12.0, 2e4)):
        x, y = line.get_data()
        assert np.diff(np.log10(y)) / np.diff(np.log10(x)) == pytest.approx(b)   # the given exponent
        assert np.log10(y[0]) - b * np.log10(x[0]) == pytest.approx(a)
        assert (x[0], x[-1]) == pytest.approx((x0, x1))        # over its own systems' range
    assert [t.get_text() for t in k.get_legend().get_texts()] == [
        "1989-90: b = 0.80 [0.60, 1.00]", "all eras: b = 0.90 [0.70, 1.10]"]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["1989-90", "1995-96", "this machine", "unrated: ranked, not fitted"]


def test_speed_vs_cpu_one_line_for_two_fits_of_the_same_points():
    same = FITS.copy()
    same.loc[1, ["n", "exponent", "intercept"]] = [5, 0.8, 1.5]
    fig = af.speed_vs_cpu(_dataset(), same, HOST, "t")
    k = {ax.get_title(): ax for ax in fig.axes}["kernel entry"]
    assert [t.get_text() for t in k.get_legend().get_texts()] == [
        "all eras = 1989-90: b = 0.80 [0.60, 1.00]"]


def test_value_by_year_every_row_this_machine_a_star(tmp_path):
    from benchlib.report.figures import HIGHLIGHT, save_figure

    d = _dataset()
    fig = af.value_by_year(d, HOST, "By year on M")
    axes = {ax.get_title(): ax for ax in fig.axes}
    assert list(axes) == ["kernel entry", "context switch", "memory copy cached"]
    for prim, ax in axes.items():
        assert _points(ax) == (d["primitive"] == prim.replace(" ", "_")).sum()
        assert ax.get_xlabel() == "year of the figure" and ax.get_yscale() == "log"
    assert axes["memory copy cached"].get_ylabel() == "MB/s (higher is better)"
    assert axes["kernel entry"].get_ylabel() == "us (lower is better)"
    stars = [c for c in axes["kernel entry"].collections if len(c.get_offsets())
             and matplotlib.colors.to_hex(c.get_facecolor()[0]) == HIGHLIGHT]
    assert len(stars) == 1 and list(stars[0].get_offsets()[0]) == [2026, 0.05]
    # seaborn's jitter moves the years by a quarter at most, never the values
    xy = np.concatenate([c.get_offsets() for c in axes["kernel entry"].collections if c not in stars])
    assert sorted(xy[:, 1]) == [1, 2, 3, 9, 10, 20, 50, 100]
    year = {1: 1996, 2: 1996, 3: 1996, 9: 1989}
    assert np.all(np.abs(xy[:, 0] - [year.get(v, 1990) for v in xy[:, 1]]) <= 0.25)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [
        "ousterhout1990", "mach1989", "mcvoy1996", "laibaker1996", "this machine"]
    paths = save_figure(fig, tmp_path, "then_and_now_by_year", svg=False)
    assert [p.name for p in paths] == ["then_and_now_by_year.png"] and paths[0].stat().st_size > 0
