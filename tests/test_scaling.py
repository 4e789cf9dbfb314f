"""The exponent of speed against CPU speed: fits on data with known answers."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchlib.analysis import scaling as s


def test_exact_power_law_gives_its_exponent():
    x = np.array([1.0, 2.0, 5.0, 10.0, 20.0])
    e = s.fit_exponent(x, 3.0 * x ** 0.7)
    assert e.slope == pytest.approx(0.7) and e.intercept == pytest.approx(math.log10(3.0))
    assert e.low == pytest.approx(0.7) and e.high == pytest.approx(0.7) and e.n == 5


def test_interval_is_the_t_interval_of_the_slope():
    rng = np.random.default_rng(1)
    x = np.logspace(0, 2, 12)
    y = 10 ** (0.5 + 0.8 * np.log10(x) + rng.normal(0, 0.1, x.size))
    e = s.fit_exponent(x, y)
    lx, ly = np.log10(x), np.log10(y)
    b, a = np.polyfit(lx, ly, 1)
    resid = ly - (a + b * lx)
    se = math.sqrt(resid @ resid / (x.size - 2) / ((lx - lx.mean()) ** 2).sum())
    half = stats.t.ppf(0.975, x.size - 2) * se
    assert e.slope == pytest.approx(b) and e.high - e.slope == pytest.approx(half)
    assert e.low < 0.8 < e.high
    assert s.fit_exponent(x, y, level=0.5).high < e.high
    assert 0.5 < e.r2 < 1 and e.r2 == pytest.approx(np.corrcoef(lx, ly)[0, 1] ** 2)


def test_no_fit_says_why():
    e = s.fit_exponent([1, 2], [1, 2])
    assert not e.ok and "3" in e.reason
    e = s.fit_exponent([4, 4, 4], [1, 2, 3])
    assert not e.ok and "same CPU" in e.reason
    assert s.verdict(e) == "no fit"
    # non-positive and missing values are dropped, not fitted
    assert s.fit_exponent([1, 2, np.nan, 0, 8], [1, 2, 3, 4, 8]).n == 3


def test_speed_and_rate():
    assert s.speed([2.0], False)[0] == 0.5 and s.speed([2.0], True)[0] == 2.0
    r, unit = s.rate([2.0], "us", False)
    assert r[0] == pytest.approx(5e5) and unit == "operations/s"
    assert s.rate([100.0], "MB/s", True) == (pytest.approx([100.0]), "MB/s")
    with pytest.raises(ValueError, match="no time unit"):
        s.rate([1.0], "furlongs", False)


def test_a_time_that_scales_with_the_cpu_has_exponent_one():
    mips = np.array([0.9, 2.5, 8, 12, 20])
    time_us = 200.0 / mips                    # exactly as fast as the CPU
    spd, _ = s.rate(time_us, "us", False)
    assert s.fit_exponent(mips, spd).slope == pytest.approx(1.0)
    flat = s.fit_exponent(mips, s.rate(np.full(5, 7.0), "us", False)[0])
    assert flat.slope == pytest.approx(0.0)


def _e(slope, lo, hi):
    return s.Exponent(slope, lo, hi, 0.0, 10, 0.9)


def test_verdict_against_one():
    assert s.verdict(_e(0.8, 0.7, 0.9)) == "falls behind"
    assert s.verdict(_e(1.2, 1.1, 1.3)) == "outpaces the CPU"
    assert s.verdict(_e(0.95, 0.8, 1.1)).startswith("keeps pace")
    # an interval that reaches 1 holds 1: it keeps pace (the one interval rule)
    assert s.verdict(_e(1.1, 1.0, 1.2)).startswith("keeps pace")
    assert s.verdict(_e(0.9, 0.8, 1.0)).startswith("keeps pace")
    # three scattered points: an interval from below 0 to above 2 tells nothing
    assert s.verdict(_e(0.3, -3.0, 3.5)) == s.CANNOT_TELL
    assert s.verdict(_e(0.7, 0.0, 1.4)) == s.CANNOT_TELL
    assert s.verdict(_e(1.4, 0.6, 2.2)) == s.CANNOT_TELL
    assert s.trend(_e(0.5, 0.3, 0.7), _e(0.3, -3.0, 3.5)) == "undetermined"


def test_trend():
    assert s.trend(_e(0.5, 0.3, 0.7), _e(0.95, 0.9, 1.05)) == "caught up"
    assert s.trend(_e(1.0, 0.8, 1.2), _e(0.8, 0.7, 0.9)) == "fell behind"
    assert s.trend(_e(0.5, 0.3, 0.7), _e(0.8, 0.7, 0.9)) == "behind throughout"
    nan = s.Exponent(math.nan, math.nan, math.nan, math.nan, 2, math.nan, "few")
    assert s.trend(nan, _e(0.8, 0.7, 0.9)) == "undetermined"


def test_rank():
    assert s.rank_of([5, 3, 9], 1, higher_is_better=False) == (1, 4)
    assert s.rank_of([5, 3, 9], 4, higher_is_better=False) == (2, 4)
    assert s.rank_of([5, 3, 9], 4, higher_is_better=True) == (3, 4)
    assert s.rank_of([5, 5, np.nan], 5, higher_is_better=True) == (1, 3)   # ties share


def test_bootstrap_brackets_the_slope_and_is_reproducible():
    rng = np.random.default_rng(2)
    x = np.logspace(0, 3, 30)
    y = 10 ** (0.6 * np.log10(x) + rng.normal(0, 0.15, x.size))
    lo, hi = s.bootstrap_exponent(x, y, n_boot=400, seed=3)
    assert lo < 0.6 < hi and hi - lo < 0.3
    assert (lo, hi) == s.bootstrap_exponent(x, y, n_boot=400, seed=3)
    assert all(math.isnan(v) for v in s.bootstrap_exponent([1, 1, 1], [1, 2, 3]))
    # the level is the interval's central share: for errors this close to normal a
    # 50 % interval is about 0.674 / 1.96 = 0.34 of the 95 % one's width
    lo50, hi50 = s.bootstrap_exponent(x, y, level=0.5, n_boot=400, seed=3)
    assert lo < lo50 < hi50 < hi and 0.2 < (hi50 - lo50) / (hi - lo) < 0.5


def test_speed_per_mips():
    # a time of 2 us on a 4-MIPS machine: 0.5 operations per us, 0.125 per MIPS
    assert s.per_mips([2.0], [4.0], False)[0] == pytest.approx(0.125)
    assert s.per_mips([100.0], [4.0], True)[0] == pytest.approx(25.0)


def test_fit_table_by_group():
    mips = np.array([1, 2, 4, 8, 1000.0])
    df = pd.DataFrame({"primitive": "kernel_entry", "cpu_rating": mips,
                       "value_std": 100.0 / mips ** 0.5, "unit_std": "us",
                       "higher_is_better": False, "year": [1990] * 4 + [2026]})
    groups = {"old": df.year <= 1990, "all": df.year > 0, "none": df.year < 0}
    t = s.fit_table(df, groups, n_boot=50).set_index("systems")
    assert t.loc["old", "exponent"] == pytest.approx(0.5) and t.loc["old", "n"] == 4
    assert t.loc["old", "distinct_cpus"] == 4 and t.loc["all", "distinct_cpus"] == 5
    assert t.loc["all", "exponent"] == pytest.approx(0.5) and t.loc["all", "n"] == 5
    assert t.loc["all", "verdict"] == "falls behind"
    assert t.loc["all", "intercept"] == pytest.approx(math.log10(1e6 / 100.0))
    assert t.loc["none", "n"] == 0 and t.loc["none", "verdict"] == "no fit"
    tr = s.trend_table(t.reset_index(), "old", "all")
    assert tr["trend"].tolist() == ["behind throughout"]
