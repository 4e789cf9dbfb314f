"""Small statistics shared by notebooks and benchmark scripts."""
from __future__ import annotations

import functools
from typing import Sequence

import numpy as np


def relative_spread(values: Sequence[float]) -> float:
    """(max - min) / median: how far apart repeated medians are."""
    v = np.asarray(values, dtype=float)
    return float((v.max() - v.min()) / np.median(v))


def ratio_summary(ours: float, theirs: float) -> dict:
    """ours / theirs, and whether it lies within the usual 0.85-1.15 band."""
    ratio = ours / theirs
    return {"ours": ours, "theirs": theirs, "ratio": ratio, "within_15pct": 0.85 <= ratio <= 1.15}


# ---------------------------------------------------------------- bootstrap

N_BOOTSTRAP = 2000
#: Up to this many samples, a bootstrap's medians are taken by sorting rows
#: (and its resampling is kept for the next call).
SORT_UP_TO = 64


def _rng(seed):
    return np.random.default_rng(seed)


def resample_indices(n: int, n_boot: int = N_BOOTSTRAP, seed: int | None = 0) -> np.ndarray:
    """The one resampling of every bootstrap here: ``n_boot`` rows of ``n``
    indices drawn with replacement (deterministic for a given seed).  For a
    few dozen samples and an integer seed, the last few are kept, read-only
    (a sweep asks for the same ones at every point); larger draws, and
    seed None (a fresh draw each time), are made anew."""
    if n <= SORT_UP_TO and isinstance(seed, int):
        return _kept_indices(n, n_boot, seed)
    return _rng(seed).integers(0, n, size=(n_boot, n))


@functools.lru_cache(maxsize=16)
def _kept_indices(n: int, n_boot: int, seed: int) -> np.ndarray:
    idx = _rng(seed).integers(0, n, size=(n_boot, n))
    idx.setflags(write=False)
    return idx


def percentile_interval(estimates, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile interval of bootstrap estimates: their (1-c)/2 and
    (1+c)/2 quantiles (estimates that are not finite are left out)."""
    est = np.asarray(estimates, dtype=float)
    est = est[np.isfinite(est)]
    if est.size == 0:
        raise ValueError("percentile_interval needs at least one finite estimate")
    a = (1 - confidence) / 2
    lo, hi = np.quantile(est, [a, 1 - a])
    return float(lo), float(hi)


def bootstrap_median_ci(samples: Sequence[float], confidence: float = 0.95,
                        n_boot: int = N_BOOTSTRAP, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the median: resample the samples with
    replacement n_boot times, take the (1-c)/2 and (1+c)/2 quantiles of the
    resampled medians.  Deterministic for a given seed.  One sample gives a
    zero-width interval at that sample (nothing to resample).  Since
    2026-11-28 the interval of a result's median is :func:`median_ci`; this
    one is the median over rounds' (``benchlib compare``'s paired runs, the
    peers' per-round ratios through :func:`bootstrap_medians`), kept so
    that those verdicts need no more rounds than they had (at 7 rounds the
    order statistics' 90 % interval is their range)."""
    return percentile_interval(bootstrap_medians(samples, n_boot, seed), confidence)


def bootstrap_medians(samples: Sequence[float], n_boot: int = N_BOOTSTRAP,
                      seed: int = 0) -> np.ndarray:
    """The n_boot resampled medians behind :func:`bootstrap_median_ci`, for
    a caller that wants intervals at several confidences from one bootstrap
    (one sample: that sample, n_boot times)."""
    x = np.asarray(samples, dtype=float)
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("bootstrap_median_ci needs finite values (no samples, or a NaN or inf)")
    if x.size == 1:
        return np.full(n_boot, x[0])
    resampled = x[resample_indices(x.size, n_boot, seed)]
    if x.size > SORT_UP_TO:
        return np.median(resampled, axis=1)
    # a few dozen samples: sorting each row and taking its middle gives
    # np.median's values exactly, about 5 times faster (every point of a
    # sweep pays for this bootstrap)
    resampled.sort(axis=1)
    k = x.size // 2
    return resampled[:, k] if x.size % 2 else (resampled[:, k - 1] + resampled[:, k]) / 2


# ------------------------------------------------- the median's interval

def _ranks(n: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """k and the coverage of [x(k), x(n-k+1)] for each sample count in
    ``n`` (:func:`median_ci_ranks`): the largest k with P(Bin(n, 1/2) <=
    k-1) <= (1-c)/2, found among eight candidates around the normal
    approximation n/2 - z sqrt(n)/2 by the binomial CDF itself."""
    from scipy.special import bdtr, ndtri   # without scipy.stats' import time

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1; got {confidence}")
    tail = 0.5 * (1 - confidence)
    z = float(ndtri(1 - tail))
    j0 = np.maximum(0, np.floor(n / 2 - z * np.sqrt(n) / 2).astype(int) - 3)
    j = j0[:, None] + np.arange(8)
    ok = (bdtr(j, n[:, None], 0.5) <= tail) & (j <= (n // 2)[:, None])
    k = np.maximum(1, j0 + ok.sum(axis=1))      # the j below j0 are all inside
    return k, 1.0 - 2.0 * bdtr(k - 1, n, 0.5)


def median_ci_rank_table(n_max: int, confidence: float = 0.95) -> np.ndarray:
    """k for every sample count 0..n_max (:func:`median_ci_ranks`), 0 where
    no interval at that confidence exists (fewer than 6 samples at 95 %):
    the table the C core's adaptive stop reads (``bl_opts.stop_ranks``)."""
    k, cover = _ranks(np.arange(1, int(n_max) + 1), confidence)
    table = np.zeros(int(n_max) + 1, dtype=np.int32)
    table[1:] = np.where(cover >= confidence, k, 0)
    return table


def median_ci_ranks(n: int, confidence: float = 0.95) -> tuple[int, int, float]:
    """The ranks (1-based) of the order statistics that bound the median's
    distribution-free interval from ``n`` samples, and its exact coverage:
    [x(k), x(n-k+1)] for the largest k with P(Binomial(n, 1/2) <= k-1) <=
    (1-c)/2, so that the coverage 1 - 2 P(Bin <= k-1) is at least c for
    any continuous distribution (the textbook interval for a median:
    Le Boudec, *Performance Evaluation of Computer and Communication
    Systems*, 2010, section 2.2; Hoefler and Belli, SC'15).  Six samples
    are the fewest with a 95 % interval (their range, 96.9 %); from fewer
    the range is returned with its lower coverage (93.8 % at 5, 75 % at 3).
    One sample: (1, 1, 0)."""
    if n < 1:
        raise ValueError("median_ci_ranks needs at least one sample")
    k, cover = _ranks(np.array([int(n)]), confidence)
    return int(k[0]), int(n) - int(k[0]) + 1, float(cover[0])


def median_ci(samples: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """The median's distribution-free interval (:func:`median_ci_ranks`): two
    order statistics of the samples, exact for any continuous distribution
    and conservative for tied or discrete ones (a clock's ticks), where a
    percentile bootstrap of a median undercovers below a few dozen samples
    (about 92 % for 15 samples of a skewed distribution,
    ``tests/test_summary.py``).  The one interval of a median of
    independent values: a result's samples, the stopping rule of an
    adaptive run, a figure's interval (``benchlib.stats.intervals``)."""
    x = np.sort(np.asarray(samples, dtype=float))
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("median_ci needs finite values (no samples, or a NaN or inf)")
    k, m, _ = median_ci_ranks(x.size, confidence)
    return float(x[k - 1]), float(x[m - 1])


def halves_agree(samples: Sequence[float], rel: float) -> bool:
    """Whether the medians of the first and the last half of ``samples`` (in
    the order they were taken) differ by at most 2 ``rel`` of the median of
    all: the adaptive stop's guard against drift.  Where the median's
    interval has just narrowed to +-rel, iid samples pass it about 95 % of
    the time (the halves' medians differ by about 2 / 1.96 of that
    half-width, one standard deviation), and a run whose first samples are
    faster or slower than its later ones, still settling, does not stop on
    them (a ring of 8 processes whose first 25 samples read 3.1 us and the
    rest 3.5).  ``bl_halves_agree`` in C is the same test."""
    x = np.asarray(samples, dtype=float)
    n = x.size
    if n < 2:
        return False
    h = n // 2
    return bool(abs(np.median(x[:h]) - np.median(x[n - h:])) <= 2 * rel * abs(np.median(x)))


def rel_ci_halfwidth(samples: Sequence[float], confidence: float = 0.95) -> float:
    """Half the median's interval (:func:`median_ci`) over the median (0.03 =
    3%); infinite when the samples are too few to give an interval at that
    confidence (fewer than 6 at 95 %), so that an adaptive run never stops
    on the range of three samples."""
    if median_ci_ranks(len(samples), confidence)[2] < confidence:
        return float("inf")
    lo, hi = median_ci(samples, confidence)
    med = float(np.median(samples))
    return float((hi - lo) / 2 / abs(med)) if med else float("inf")


def _boot_medians(groups: list[np.ndarray], n_boot: int, rng) -> np.ndarray:
    """Bootstrap medians of pooled groups (runs).  One group: resample its
    samples.  Several: resample the runs, then the samples within each chosen
    run (a two-level bootstrap), so that the spread between runs counts and
    not only the spread within them."""
    if len(groups) == 1:
        x = groups[0]
        return np.median(x[rng.integers(0, x.size, size=(n_boot, x.size))], axis=1)
    g = len(groups)
    sizes = np.array([x.size for x in groups])
    table = np.full((g, sizes.max()), np.nan)
    for j, x in enumerate(groups):
        table[j, :x.size] = x
    chosen = rng.integers(0, g, size=(n_boot, g))                     # runs, with replacement
    n = sizes[chosen]                                                 # (n_boot, g)
    pick = (rng.random((n_boot, g, sizes.max())) * n[..., None]).astype(int)
    values = table[chosen[..., None], pick]                           # (n_boot, g, max size)
    if (sizes == sizes[0]).all():
        return np.median(values.reshape(n_boot, -1), axis=1)
    # a run of fewer samples contributes only as many: the rest is masked
    values[np.arange(sizes.max())[None, None, :] >= n[..., None]] = np.nan
    return np.nanmedian(values.reshape(n_boot, -1), axis=1)


def _as_groups(x) -> list[np.ndarray]:
    if len(x) and isinstance(x[0], (list, tuple, np.ndarray)):
        groups = [np.asarray(g, dtype=float) for g in x if len(g)]
    else:
        groups = [np.asarray(x, dtype=float)]
    if not groups or groups[0].size == 0:
        raise ValueError("no samples")
    return groups


def bootstrap_ratio_ci(a, b, confidences=(0.95, 0.90), n_boot: int = N_BOOTSTRAP,
                       seed: int = 0) -> dict:
    """median(b) / median(a) and its percentile bootstrap intervals, a and b
    resampled independently.  a and b are samples, or lists of runs' samples
    (pooled for the median, resampled at two levels for the interval).
    Returns {"ratio": r, 0.95: (lo, hi), 0.90: (lo, hi)}."""
    ga, gb = _as_groups(a), _as_groups(b)
    rng = _rng(seed)
    ma, mb = _boot_medians(ga, n_boot, rng), _boot_medians(gb, n_boot, rng)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = mb / ma
    out: dict = {"ratio": float(np.median(np.concatenate(gb)) / np.median(np.concatenate(ga)))}
    for c in confidences:
        lo, hi = np.quantile(ratios, [(1 - c) / 2, (1 + c) / 2])
        out[c] = (float(lo), float(hi))
    return out


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided Mann-Whitney U p-value (1.0 when every value is the same)."""
    from scipy.stats import mannwhitneyu

    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if np.ptp(np.concatenate([xa, xb])) == 0:
        return 1.0
    p = float(mannwhitneyu(xa, xb, alternative="two-sided").pvalue)
    return 1.0 if np.isnan(p) else p


# ---------------------------------------------------------------- verdicts

VERDICTS = ("faster", "slower", "no difference", "inconclusive")


def interval_side(lo: float, hi: float, threshold: float) -> bool | None:
    """The one interval rule: True if the whole interval [lo, hi] lies above
    ``threshold``, False if below, None if it straddles it (this run cannot
    tell which side).  ``ratio_verdict`` (compare) and ``Measured.compare``
    (the notebooks' relations and verdicts) both decide with it."""
    if lo > threshold:
        return True
    if hi < threshold:
        return False
    return None


def equivalence_bounds(margin: float) -> tuple[float, float]:
    """The ratios counted as "no difference" at a relative margin, symmetric
    on a log scale: margin 0.05 gives [1/1.05, 1.05]."""
    if not margin > 0:
        raise ValueError(f"margin must be > 0; got {margin}")
    return 1 / (1 + margin), 1 + margin


def interval_inside(ci: tuple[float, float], bounds: tuple[float, float]) -> bool:
    """Whether the interval ``ci`` lies wholly inside ``bounds``: with a 90%
    interval, the ratio shown inside the bounds by two one-sided tests at
    alpha 0.05 (TOST).  The one reading of "the same within a margin":
    ``ratio_verdict``'s "no difference" and the peers' "agree"."""
    return bool(bounds[0] <= ci[0] and ci[1] <= bounds[1])


def ratio_verdict(ratio: float, ci95: tuple[float, float], ci90: tuple[float, float],
                  p_value: float, margin: float, higher_is_better: bool,
                  alpha: float = 0.05) -> str:
    """Is B (the numerator) faster or slower than A, or the same within the margin?

    - "no difference": the 90% interval of the ratio lies inside the margin
      (two one-sided tests at alpha 0.05, TOST, on the ratio);
    - "faster" / "slower": the 95% interval excludes 1, the Mann-Whitney
      p-value is below alpha, and the ratio itself lies outside the margin
      (a difference that is both real and large enough to matter);
    - "inconclusive": neither (a wide interval, or a real difference smaller
      than the margin that still cannot be shown to lie inside it)."""
    lo_eq, hi_eq = equivalence_bounds(margin)
    if interval_inside(ci90, (lo_eq, hi_eq)):
        return "no difference"
    differs = (interval_side(ci95[0], ci95[1], 1.0) is not None and p_value < alpha
               and not lo_eq <= ratio <= hi_eq)
    if not differs:
        return "inconclusive"
    b_larger = ratio > 1
    return "faster" if b_larger == higher_is_better else "slower"
