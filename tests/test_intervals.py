"""benchlib.stats.intervals: a figure and its 95% interval carried through
a table's arithmetic, its columns, its display and a verdict's evidence.  On
made-up and simulated samples with known answers; no live timing."""
import math
from types import SimpleNamespace

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from benchlib.stats import intervals as iv  # noqa: E402
from benchlib.stats.intervals import Measured, exact, gmean, of_result, of_samples  # noqa: E402
from benchlib.stats.summary import bootstrap_ratio_ci, median_ci  # noqa: E402
from benchlib.papers.verdict import read_verdicts, verdict  # noqa: E402

A = Measured(2.0, 1.9, 2.1)
B = Measured(4.0, 3.8, 4.4, ("spread",))


def test_of_samples_is_the_median_and_its_interval():
    x = [5.0, 1.0, 3.0, 2.0, 4.0, 9.0, 3.5]
    m = of_samples(x)
    assert m.value == 3.5 and (m.lo, m.hi) == median_ci(x) == (1.0, 9.0)   # 7 samples: the range
    assert m.lo <= m.value <= m.hi and m.stable and not m.propagated
    assert math.isnan(of_samples([]).value)
    one = of_samples([4.0], unstable=("too_few_samples",))   # nothing to resample
    assert one.value == 4.0 and math.isnan(one.lo) and one.text() == "4 [no interval]†"


def _result(samples, diagnostics):
    return SimpleNamespace(samples=samples, diagnostics=diagnostics)


def test_of_result_takes_the_recorded_interval_and_the_unstable_reasons():
    r = _result([1.0, 2.0, 3.0], {"median_ci95": [1.5, 2.5], "stable": False,
                                  "unstable_reasons": ["spread", "steal"]})
    m = of_result(r)
    assert (m.value, m.lo, m.hi, m.unstable) == (2.0, 1.5, 2.5, ("spread", "steal"))
    # a stable result has no marks; without a recorded interval it is computed
    m = of_result(_result([1.0, 2.0, 3.0], {"stable": True, "unstable_reasons": []}), scale=1e3)
    assert m.value == 2000.0 and m.stable
    assert (m.lo, m.hi) == tuple(1e3 * v for v in median_ci([1.0, 2.0, 3.0]))


def test_a_monotone_map_of_one_figure_maps_its_endpoints():
    ms = A / 1e3
    assert (ms.value, ms.lo, ms.hi) == pytest.approx((2e-3, 1.9e-3, 2.1e-3))
    assert not ms.propagated                      # still the bootstrap interval, exactly
    speed = 10.0 / A                              # decreasing: the endpoints swap
    assert (speed.lo, speed.hi) == pytest.approx((10 / 2.1, 10 / 1.9)) and not speed.propagated
    neg = -A
    assert (neg.lo, neg.hi) == (-2.1, -1.9)
    assert (A + 1).hi == pytest.approx(3.1) and (5 - A).lo == pytest.approx(2.9)
    assert A.map(math.log).contains(math.log(2.0))


def test_two_figures_combine_by_their_endpoints():
    r = A / B
    assert r.value == 0.5
    assert (r.lo, r.hi) == pytest.approx((1.9 / 4.4, 2.1 / 3.8))
    assert r.propagated and r.unstable == ("spread",)
    d = B - A
    assert (d.lo, d.hi) == pytest.approx((3.8 - 2.1, 4.4 - 1.9))
    p = A * B
    assert (p.lo, p.hi) == pytest.approx((1.9 * 3.8, 2.1 * 4.4))
    # a divisor whose interval holds 0: no bound
    z = A / Measured(0.1, -0.1, 0.3)
    assert z.lo == -math.inf and z.hi == math.inf
    z = A / Measured(1.0, 0.0, 2.0)               # one that reaches 0, too
    assert z.lo == -math.inf and z.hi == math.inf
    # constants are exact: they neither widen nor mark; a missing one gives no interval
    assert not (A * exact(3.0)).propagated
    gone = math.nan / A
    assert math.isnan(gone.value) and not gone.propagated
    df = pd.DataFrame({"x": [0]})
    iv.put(df, "r", [gone])
    assert list(df.columns) == ["x", "r"]


def test_an_endpoint_ratio_is_conservative_on_simulated_runs():
    """Two runs of 15 samples, true medians 2 and 1 (ratio 2): the ratio's
    interval from the two medians' endpoints is wider than the bootstrap
    interval of the ratio (half again, typically: 1.53 here) and covers the
    true ratio at least as often, above 95%."""
    rng = np.random.default_rng(11)
    covered, covered_boot, widths = 0, 0, []
    for i in range(200):
        a = 2.0 * np.exp(rng.normal(0, 0.05, 15))
        b = 1.0 * np.exp(rng.normal(0, 0.05, 15))
        r = of_samples(a) / of_samples(b)
        lo, hi = bootstrap_ratio_ci(b, a, seed=i)[0.95]
        covered += r.contains(2.0)
        covered_boot += lo <= 2.0 <= hi
        widths.append((r.hi - r.lo) / (hi - lo))
    assert covered / 200 >= 0.97 and covered >= covered_boot
    # simulated, seeded samples (no live timing): endpoint arithmetic is wider
    # than the bootstrap interval of the ratio by construction
    assert np.median(widths) > 1.3


def test_geometric_mean_of_figures():
    g = gmean([A, B])
    assert g.value == pytest.approx(math.sqrt(8.0))
    assert (g.lo, g.hi) == pytest.approx((math.sqrt(1.9 * 3.8), math.sqrt(2.1 * 4.4)))
    assert g.propagated and g.unstable == ("spread",)
    assert not gmean([A, 3.0]).propagated                 # one measurement, one constant
    three = gmean([A, B, Measured(8.0, 7.0, 9.0, ("steal",))])
    assert three.value == pytest.approx(4.0) and three.unstable == ("spread", "steal")
    assert gmean([2.0, 8.0]) == pytest.approx(4.0)         # plain numbers stay numbers


def test_text_and_format():
    assert f"{A:.2f}" == "2.00 [1.90, 2.10]"
    assert str(A / B) == "0.500 [0.432, 0.553]‡†"
    # as many digits as it takes to tell the three numbers apart
    assert iv.short(Measured(0.07676, 0.0756, 0.07764)) == "0.0768 [0.0756, 0.0776]"
    assert iv.short(Measured(2.0, 2.0, 2.001)) == "2.000 [2.000, 2.001]"
    assert iv.short(Measured(246000.0, 245000.0, 251000.0)) == "246,000 [245,000, 251,000]"
    assert A.compare(1.5) is True and A.compare(3.0) is False and A.compare(2.0) is None


def test_columns_round_trip():
    df = pd.DataFrame({"name": ["here", "paper"]})
    iv.put(df, "us", [B, 7.0])
    assert list(df.columns) == ["name", "us", "us_ci95_lo", "us_ci95_hi", "us_ci95_note"]
    assert df.us.tolist() == [4.0, 7.0] and df.us_ci95_note.tolist() == ["unstable: spread", ""]
    assert iv.get(df, "us", 0) == B and iv.get(df, "us", 1) == 7.0
    assert iv.interval_columns(df) == ["us"]
    assert list(iv.strip(df).columns) == ["name", "us"]
    assert list(iv.select(df, ["us"]).columns) == ["us", "us_ci95_lo", "us_ci95_hi", "us_ci95_note"]
    assert list(iv.rename(df, {"us": "t"}).columns) == ["name", "t", "t_ci95_lo", "t_ci95_hi",
                                                        "t_ci95_note"]
    assert iv.cells(df, "us", "name") == {"here": B, "paper": 7.0}
    # a flagged figure without an interval keeps its flag through the columns
    iv.put(df, "n", [Measured(1.0, math.nan, math.nan, ("too_few_samples",)), 2.0])
    assert iv.get(df, "n", 0).unstable == ("too_few_samples",) and iv.get(df, "n", 1) == 2.0
    plain = pd.DataFrame({"name": ["x"]})
    iv.put(plain, "us", [1.0])                    # no Measured: no interval columns
    assert list(plain.columns) == ["name", "us"]


def test_table_display_shows_this_machine_s_intervals():
    from benchlib.papers import TableRows, beside_paper
    from benchlib.report.figures import highlight_machine, interval_styler

    t = TableRows("t", pd.DataFrame([{"system": "this machine", "us": A, "ms": B / 1e3}]))
    assert t.rows.us.tolist() == [2.0] and t.rows.dtypes["us"] == float   # the CSV's figure
    assert t.cell("us") == A and t.cell("us", "this machine") == A
    joined = beside_paper(pd.DataFrame({"system": ["old"], "us": [30.0], "ms": [0.5]}), t, "us")
    styler = highlight_machine(joined)
    shown = styler.data.set_index("system")
    assert shown.loc["this machine", "us"] == "2.00 [1.90, 2.10]"
    assert shown.loc["this machine", "ms"] == "0.00400 [0.00380, 0.00440]†"
    assert shown.loc["old", "us"] == "30.000"                 # the paper's as before
    assert not any(c.endswith(iv.SUFFIXES) for c in shown.columns)
    assert "95% interval of the median" in styler.caption and "unstable: this machine (spread)" in styler.caption
    s = interval_styler(t.with_intervals(), {"us": "{:.1f}"}, caption="mine")
    assert s.data.us.iloc[0] == "2.0 [1.9, 2.1]" and s.caption.startswith("mine ")


def test_bars_carry_the_interval_of_this_machine_only():
    from benchlib.papers import TableRows, beside_paper
    from benchlib.report.figures import table_bars

    t = TableRows("t", pd.DataFrame([{"configuration": "this machine", "us": A}]))
    df = beside_paper(pd.DataFrame({"configuration": ["old"], "us": [30.0]}), t, "us")
    fig = table_bars(df, {"us": "µs"}, "title")
    bars = fig.axes[0].containers
    errors = [c for c in bars if isinstance(c, matplotlib.container.ErrorbarContainer)]
    assert len(errors) == 1
    segs = errors[0].lines[2][0].get_segments()
    assert len(segs) == 1 and sorted(p[0] for p in segs[0]) == pytest.approx([1.9, 2.1])


def test_verdict_records_its_figures_with_their_intervals(tmp_path):
    v = verdict(tmp_path, "p", "c", holds=True, evidence="e", if_true="yes",
                figures={"ratio": A / B, "constant": 3.0})
    assert v.evidence == "e; 95% intervals: ratio 0.500 [0.432, 0.553]‡†; constant 3 (no interval)"
    rec = read_verdicts(tmp_path)[0]
    assert rec["figures"][0]["ci95"] == pytest.approx([1.9 / 4.4, 2.1 / 3.8])
    assert rec["figures"][0]["note"] == "unstable: spread; propagated"
    assert rec["figures"][1]["ci95"] is None
