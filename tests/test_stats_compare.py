"""Bootstrap intervals, Mann-Whitney, the verdict and the stability flag on
simulated data with known answers (no live timing)."""
import numpy as np
import pytest

from benchlib.stats import noise
from benchlib.stats.summary import (bootstrap_median_ci, bootstrap_ratio_ci, equivalence_bounds,
                                     interval_side, mann_whitney_p, ratio_verdict, rel_ci_halfwidth,
                                     ratio_summary, relative_spread)
from benchlib.results.compare import compare_samples


def lognormal(rng, n, median=1.0, sigma=0.05):
    return median * np.exp(rng.normal(0, sigma, n))


def test_median_interval_covers_the_true_median_about_95_percent():
    rng = np.random.default_rng(1)
    hits = 0
    for i in range(300):
        lo, hi = bootstrap_median_ci(lognormal(rng, 41, median=2.0), seed=i)
        hits += lo <= 2.0 <= hi
    # the percentile bootstrap of a median is a little liberal at n=41
    assert 0.88 <= hits / 300 <= 0.99


def test_median_interval_narrows_with_more_samples():
    rng = np.random.default_rng(2)
    small = rel_ci_halfwidth(lognormal(rng, 15, sigma=0.1))
    large = rel_ci_halfwidth(lognormal(rng, 1500, sigma=0.1))
    assert large < small / 4  # ~1/sqrt(n): 10x narrower expected
    lo, hi = bootstrap_median_ci([3.0])
    assert lo == hi == 3.0


def test_ratio_interval_is_centred_on_the_true_ratio():
    rng = np.random.default_rng(3)
    a, b = lognormal(rng, 400, 1.0, 0.02), lognormal(rng, 400, 1.25, 0.02)
    ci = bootstrap_ratio_ci(a, b)
    assert ci["ratio"] == pytest.approx(1.25, rel=0.01)
    assert ci[0.95][0] < 1.25 < ci[0.95][1]
    assert ci[0.90][0] >= ci[0.95][0] and ci[0.90][1] <= ci[0.95][1]


def test_ratio_interval_covers_the_true_ratio_at_quick_profile_size():
    """15 samples a side, 5% spread, true ratio 1.5: the 95% interval of the
    ratio of medians is honest for independent samples (what is left of an
    A/A pair's disagreement is between runs, not in this interval)."""
    rng = np.random.default_rng(12)
    hits = sum(lo <= 1.5 <= hi for lo, hi in
               (bootstrap_ratio_ci(lognormal(rng, 15, 1.0), lognormal(rng, 15, 1.5), seed=i)[0.95]
                for i in range(200)))
    assert hits / 200 >= 0.93   # 192 here; 200 pairs pin a coverage to about ±1.5%


def test_mann_whitney():
    assert mann_whitney_p([0.0] * 6, [1.0] * 6) < 0.01     # two values, every one apart
    rng = np.random.default_rng(4)
    assert mann_whitney_p(rng.normal(0, 1, 50), rng.normal(1, 1, 50)) < 1e-4
    same = [mann_whitney_p(rng.normal(0, 1, 30), rng.normal(0, 1, 30)) for _ in range(200)]
    assert 0.02 <= np.mean(np.array(same) < 0.05) <= 0.10  # the nominal 5% false-positive rate
    assert mann_whitney_p([1.0] * 5, [1.0] * 5) == 1.0


@pytest.mark.parametrize("ratio, ci95, ci90, p, hib, expected", [
    (1.00, (0.98, 1.02), (0.985, 1.015), 0.8, False, "no difference"),
    (1.30, (1.20, 1.40), (1.22, 1.38), 1e-5, False, "slower"),     # time went up
    (1.30, (1.20, 1.40), (1.22, 1.38), 1e-5, True, "faster"),      # bandwidth went up
    (0.70, (0.60, 0.80), (0.62, 0.78), 1e-5, False, "faster"),
    (1.30, (0.90, 1.70), (0.95, 1.60), 0.2, False, "inconclusive"),  # too wide
    (1.03, (1.01, 1.06), (1.015, 1.055), 0.01, False, "inconclusive"),  # real, under the margin
    (1.30, (1.20, 1.40), (1.22, 1.38), 0.2, False, "inconclusive"),  # the rank test disagrees
    # at the edges: the 90% interval wholly inside, its ends on the margin, count
    (0.97, (0.90, 1.03), (0.92, 1.02), 0.3, False, "inconclusive"),   # only its top end inside
    (1.00, (0.94, 1.06), (1 / 1.05, 1.05), 0.5, False, "no difference"),
    (1.30, (0.95, 1.60), (1.00, 1.50), 1e-3, False, "inconclusive"),  # the 95% interval holds 1
    (1.30, (1.20, 1.40), (1.22, 1.38), 0.05, False, "inconclusive"),  # p must be below alpha
    (1.05, (1.02, 1.08), (1.03, 1.07), 1e-3, False, "inconclusive"),  # a ratio on the margin
    (1 / 1.05, (0.92, 0.98), (0.93, 0.97), 1e-3, False, "inconclusive"),
])
def test_verdict_rules(ratio, ci95, ci90, p, hib, expected):
    assert ratio_verdict(ratio, ci95, ci90, p, 0.05, hib) == expected


def test_margin_is_symmetric_on_a_log_scale():
    lo, hi = equivalence_bounds(0.05)
    assert lo * hi == pytest.approx(1.0) and hi == pytest.approx(1.05)
    with pytest.raises(ValueError):
        equivalence_bounds(0)


def test_simulated_comparisons_give_the_known_answer():
    rng = np.random.default_rng(5)
    a = lognormal(rng, 200, 10.0, 0.02)
    assert compare_samples(a, lognormal(rng, 200, 10.0, 0.02))["verdict"] == "no difference"
    assert compare_samples(a, lognormal(rng, 200, 12.0, 0.02))["verdict"] == "slower"
    assert compare_samples(a, lognormal(rng, 200, 12.0, 0.02), higher_is_better=True)["verdict"] == "faster"
    assert compare_samples(lognormal(rng, 5, 10, 0.3), lognormal(rng, 5, 10, 0.3))["verdict"] == "inconclusive"


def test_aa_false_positive_rate_is_small():
    """Same distribution on both sides, quick-profile sized: a verdict of
    faster or slower is a false positive."""
    rng = np.random.default_rng(6)
    for sigma, min_no_difference in ((0.02, 0.95), (0.05, 0.25)):
        verdicts = [compare_samples(lognormal(rng, 15, 1, sigma),
                                    lognormal(rng, 15, 1, sigma))["verdict"] for _ in range(200)]
        wrong = sum(v in ("faster", "slower") for v in verdicts) / len(verdicts)
        assert wrong <= 0.05
        # 15 samples 5% apart cannot pin a ratio within 5% (inconclusive), 2% apart can
        assert verdicts.count("no difference") / len(verdicts) >= min_no_difference


@pytest.mark.parametrize("kwargs, reasons", [
    (dict(n_samples=15, rel_stdev=0.02, steal_fraction=0.0, clock_change=0.01), []),
    (dict(n_samples=3, rel_stdev=0.02, steal_fraction=None, clock_change=None), ["too_few_samples"]),
    (dict(n_samples=15, rel_stdev=0.25, steal_fraction=0.0, clock_change=0.0), ["spread"]),
    (dict(n_samples=15, rel_stdev=0.02, steal_fraction=0.08, clock_change=0.0), ["steal"]),
    (dict(n_samples=15, rel_stdev=0.02, steal_fraction=0.0, clock_change=-0.12), ["clock_moved"]),
])
def test_stability_reasons(kwargs, reasons):
    stable, codes, words = noise.assess(**kwargs)
    assert codes == reasons and stable == (not reasons) and len(words) == len(codes)


def test_clock_before_after_uses_the_quarters():
    before, after = noise.clock_before_after([3.0] * 8 + [2.0] * 8)
    assert (before, after) == (3.0, 2.0)
    assert noise.clock_before_after(None) == (None, None)


def test_several_runs_are_resampled_at_two_levels():
    """Three runs 10% apart on side A: pooled as one sample the median looks
    pinned at the middle run and equal to B's; resampling the runs shows
    that three runs this far apart do not pin it within 5%."""
    rng = np.random.default_rng(7)
    runs_a = [lognormal(rng, 50, m, 0.01) for m in (1.0, 1.1, 1.2)]
    b = lognormal(rng, 150, 1.1, 0.01)
    pooled = bootstrap_ratio_ci(np.concatenate(runs_a), b)
    two_level = bootstrap_ratio_ci(runs_a, b)
    assert pooled["ratio"] == two_level["ratio"]
    width = lambda ci: ci[0.95][1] - ci[0.95][0]  # noqa: E731
    assert width(two_level) > 3 * width(pooled)
    assert compare_samples(np.concatenate(runs_a), b)["verdict"] == "no difference"
    assert compare_samples(runs_a, b)["verdict"] == "inconclusive"


def test_summaries_of_skewed_samples_are_of_the_median():
    """Known answers on samples whose median (3) and mean (6.3) differ."""
    x = [1.0, 2.0, 2.5, 3.0, 3.5, 12.0, 20.0]
    assert relative_spread(x) == pytest.approx(19.0 / 3.0)
    # seven samples: the median's 95 % interval is their range (99.2 %)
    assert rel_ci_halfwidth(x) == pytest.approx((20.0 - 1.0) / 2 / 3.0)
    # at 50 %: the 3rd and 5th (55 %)
    assert rel_ci_halfwidth(x, 0.5) == pytest.approx((3.5 - 2.5) / 2 / 3.0)
    assert rel_ci_halfwidth([-1.0, 0.0, 1.0]) == float("inf")     # a median of 0
    # median(b) / median(a): 6 / 3, where the means would give 6 / 6.3
    assert bootstrap_ratio_ci(x, [6.0] * 7)["ratio"] == pytest.approx(2.0)
    assert bootstrap_ratio_ci([2.0], [4.0])["ratio"] == 2.0


def test_every_sample_and_every_run_can_be_drawn():
    """Two samples 1 and 3 (or runs of them): a resample's median is 1, 2 or
    3, so the 95% interval of 2 over it is [2/3, 2], with both ends."""
    assert bootstrap_median_ci([1.0, 3.0]) == (1.0, 3.0)
    for a in ([1.0, 3.0], [[1.0] * 5, [3.0] * 5], [[1.0, 3.0], [1.0, 3.0]]):
        ci = bootstrap_ratio_ci(a, [2.0, 2.0])
        assert ci[0.95] == (pytest.approx(2 / 3), pytest.approx(2.0)), a
    with pytest.raises(ValueError, match="finite"):
        bootstrap_median_ci([1.0, float("nan")])


def test_the_bootstraps_are_deterministic_for_a_seed():
    rng = np.random.default_rng(13)
    a, b = lognormal(rng, 40), lognormal(rng, 40, 1.1)   # even: medians of pairs, many values
    assert bootstrap_median_ci(a) == bootstrap_median_ci(a) != bootstrap_median_ci(a, seed=1)
    assert bootstrap_ratio_ci(a, b) == bootstrap_ratio_ci(a, b) != bootstrap_ratio_ci(a, b, seed=1)


@pytest.mark.parametrize("n", [2, 3, 20, 21, 64, 65, 200])
def test_the_bootstraps_medians_are_the_resamples_medians(n):
    """The sorted-row medians (a few dozen samples) and np.median (more) are
    the medians of the very resamples resample_indices draws; a few dozen
    samples' draws are kept, read-only, between calls."""
    from benchlib.stats.summary import SORT_UP_TO, bootstrap_medians, resample_indices
    x = lognormal(np.random.default_rng(n), n)
    idx = resample_indices(n, 500, 3)
    kept = n <= SORT_UP_TO
    assert (not idx.flags.writeable) == kept and (resample_indices(n, 500, 3) is idx) == kept
    assert np.array_equal(resample_indices(n, 500, 3), idx)
    assert not np.array_equal(resample_indices(n, 500, None), resample_indices(n, 500, None))
    assert np.array_equal(bootstrap_medians(x, 500, 3), np.median(x[idx], axis=1))
    assert np.array_equal(x, lognormal(np.random.default_rng(n), n))   # the samples untouched


def test_a_run_of_fewer_samples_counts_only_as_many():
    """Runs of 4 samples at 1 and 5 at 3: a resample of both runs holds 4 ones
    and 5 threes (median 3), so the median is 3 three times in four and the
    ratio 2 / median is 2/3 at the 40th to 60th percentiles.  Were the short
    run padded to 5 values, a resample of both would have median 2."""
    ci = bootstrap_ratio_ci([[1.0] * 4, [3.0] * 5], [2.0] * 9, confidences=(0.95, 0.2))
    assert ci[0.2] == (pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert ci[0.95] == (pytest.approx(2 / 3), pytest.approx(2.0))


def test_the_15_percent_band_includes_its_edges():
    assert ratio_summary(1.15, 1.0)["within_15pct"] and ratio_summary(0.85, 1.0)["within_15pct"]
    assert not ratio_summary(1.2, 1.0)["within_15pct"] and not ratio_summary(0.8, 1.0)["within_15pct"]
    assert ratio_summary(3.0, 2.0) == {"ours": 3.0, "theirs": 2.0, "ratio": 1.5, "within_15pct": False}


def test_the_interval_rule_reads_a_touching_endpoint_as_undecided():
    # [lo, hi] is closed: an interval that reaches the threshold does not lie above or below it
    assert interval_side(1.0, 1.2, 1.0) is None and interval_side(0.8, 1.0, 1.0) is None
    assert interval_side(1.01, 1.2, 1.0) is True and interval_side(0.8, 0.99, 1.0) is False


@pytest.mark.parametrize("n, rel_stdev, steal, clock, reasons", [
    (4, 0.02, None, None, ["too_few_samples"]),     # fewer than 5
    (5, 0.02, None, None, []),
    (15, 0.105, None, None, ["spread"]),             # pyperf's 10 % of the mean
    (15, 0.095, None, None, []),
    (15, 0.02, 0.021, None, ["steal"]),              # more than 2 % stolen
    (15, 0.02, 0.019, 0.049, []),
    (15, 0.02, None, 0.051, ["clock_moved"]),        # more than 5 %
])
def test_stability_thresholds_at_their_edges(n, rel_stdev, steal, clock, reasons):
    assert noise.assess(n, rel_stdev, steal, clock)[1] == reasons


def test_the_clock_is_read_in_the_first_and_last_quarters():
    # the halves' medians would be 2.9 and 2.1
    assert noise.clock_before_after([3.0, 3.0, 2.8, 2.8, 2.2, 2.2, 2.0, 2.0]) == (3.0, 2.0)
