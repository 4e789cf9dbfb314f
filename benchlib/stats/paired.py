"""Paired, interleaved comparison of two tools: one ratio per round.

Each round measures benchlib and the other tool back to back, so a slow
phase of a shared host hits both; the per-round ratio cancels it.  The
summary is the median of the per-round ratios with percentile bootstrap
95% and 90% intervals of that median, and whether the ratio is shown to lie
inside a band: two one-sided tests at alpha 0.05 (TOST), the 90% interval
inside the band -- the rule ``benchlib compare`` uses for "no difference"
(``benchlib.stats.summary.ratio_verdict``)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchlib.stats.summary import bootstrap_medians, interval_inside, percentile_interval


def paired_ratio(ours: Sequence[float], theirs: Sequence[float], band: tuple[float, float] = (0.85, 1.15),
                 n_boot: int = 10_000, seed: int | None = 0) -> dict:
    """Per-round ratios ours/theirs, their median and its bootstrap 95% and
    90% intervals; ``ci_inside_band``: the 95% interval inside ``band``;
    ``equivalent``: the 90% interval inside it (TOST at alpha 0.05)."""
    a, b = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError("paired_ratio needs two equally long, non-empty series (one value per round)")
    if np.any(b <= 0) or np.any(a <= 0):
        raise ValueError("paired_ratio needs positive values")
    ratios = a / b
    meds = bootstrap_medians(ratios, n_boot=n_boot, seed=seed)   # one bootstrap, two intervals
    lo, hi = percentile_interval(meds, 0.95)
    lo90, hi90 = percentile_interval(meds, 0.90)
    return {"ratios": ratios.tolist(), "ratio_median": float(np.median(ratios)),
            "ci_low": lo, "ci_high": hi, "ci90_low": lo90, "ci90_high": hi90,
            "rounds": int(a.size), "ci_inside_band": interval_inside((lo, hi), band),
            "equivalent": interval_inside((lo90, hi90), band), "band": list(band)}
