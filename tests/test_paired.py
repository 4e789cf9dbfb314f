"""The paired per-round ratio of bench/compare_perf.py, on simulated data."""
import numpy as np
import pytest

from benchlib.stats.paired import paired_ratio
from benchlib.stats.summary import bootstrap_median_ci


def test_a_common_drift_cancels_in_the_per_round_ratio():
    # the host's phase multiplies both tools alike; ours is 10% slower
    phase = np.array([1.0, 1.6, 1.1, 2.0, 1.3, 1.0, 1.7])
    theirs = 0.1 * phase
    ours = 0.11 * phase
    r = paired_ratio(ours, theirs)
    assert r["ratio_median"] == pytest.approx(1.1)
    assert r["ci_low"] == pytest.approx(1.1) and r["ci_high"] == pytest.approx(1.1)
    assert r["ci_inside_band"] is True
    # each tool alone spreads by its phases: a 100% range, not 0
    assert np.ptp(ours) / np.median(ours) > 0.5


def test_interval_covers_the_true_ratio_and_leaves_the_band_when_it_should():
    rng = np.random.default_rng(1)
    theirs = rng.uniform(1, 2, 15)
    ours = theirs * 1.3 * rng.lognormal(0, 0.05, 15)
    r = paired_ratio(ours, theirs)
    assert r["ci_low"] < 1.3 < r["ci_high"]
    assert r["ci_high"] - r["ci_low"] < 0.15
    assert r["ci_inside_band"] is False


def test_bootstrap_interval_is_within_the_sample_and_around_the_median():
    v = [3.0, 1.0, 2.0, 5.0, 4.0]
    lo, hi = bootstrap_median_ci(v)
    assert 1.0 <= lo <= 3.0 <= hi <= 5.0
    assert bootstrap_median_ci([7.0]) == (7.0, 7.0)


def test_the_summary_is_the_median_of_the_per_round_ratios():
    # ratios 1.0, 1.1, 1.2, 1.3 and 9.0 (one round hit by a stall): median 1.2, mean 2.72
    r = paired_ratio([1.0, 2.2, 3.6, 5.2, 45.0], [1.0, 2.0, 3.0, 4.0, 5.0])
    assert r["ratios"] == pytest.approx([1.0, 1.1, 1.2, 1.3, 9.0])
    assert r["ratio_median"] == pytest.approx(1.2) and r["ci_low"] <= 1.2 <= r["ci_high"]


@pytest.mark.parametrize("ours,theirs", [([], []), ([1.0], [1.0, 2.0]), ([1.0], [0.0])])
def test_bad_input_is_refused(ours, theirs):
    with pytest.raises(ValueError):
        paired_ratio(ours, theirs)
