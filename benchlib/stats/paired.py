"""Paired, interleaved comparison of two tools: one ratio per round.

Each round measures benchlib and the other tool back to back, so a slow
phase of a shared host hits both; the per-round ratio cancels it.  The
summary is the median of the per-round ratios with a percentile bootstrap
95% interval of that median, and whether the interval lies inside a band
(the issue's 0.85-1.15)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchlib.stats.summary import bootstrap_median_ci


def paired_ratio(ours: Sequence[float], theirs: Sequence[float], band: tuple[float, float] = (0.85, 1.15),
                 n_boot: int = 10_000, seed: int | None = 0) -> dict:
    """Per-round ratios ours/theirs, their median and its bootstrap 95%
    interval, and whether the interval lies inside ``band``."""
    a, b = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError("paired_ratio needs two equally long, non-empty series (one value per round)")
    if np.any(b <= 0) or np.any(a <= 0):
        raise ValueError("paired_ratio needs positive values")
    ratios = a / b
    lo, hi = bootstrap_median_ci(ratios, n_boot=n_boot, seed=seed)
    return {"ratios": ratios.tolist(), "ratio_median": float(np.median(ratios)),
            "ci_low": lo, "ci_high": hi, "rounds": int(a.size),
            "ci_inside_band": bool(band[0] <= lo and hi <= band[1]), "band": list(band)}
