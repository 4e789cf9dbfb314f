"""How far to trust one result: the `stable` flag and its reasons, from the
samples and from what the machine did during the run.  Pure functions: the
facts are collected by benchlib.measuring.diagnostics.

The thresholds follow the spirit of pyperf's checks (pyperf warns when the
standard deviation exceeds 10% of the mean and when a run has too few
values); steal and the clock are a virtual machine's two other ways of
moving a figure without the code changing:

  too_few_samples  fewer than 5 samples: no usable interval of the median
  spread           standard deviation > 10% of the mean (pyperf's check)
  steal            the hypervisor took > 2% of the measuring CPUs' time
  clock_moved      the core clock probed in the last quarter of the samples
                   differs from the first quarter's by > 5%
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from benchlib.stats.summary import median_ci

THRESHOLDS = {"min_samples": 5, "max_rel_stdev": 0.10, "max_steal_fraction": 0.02,
              "max_clock_change": 0.05}


def clock_before_after(clock_ghz: Sequence[float] | None) -> tuple[float | None, float | None]:
    """The core clock at the start and end of a run: medians of the per-sample
    probes over the first and last quarter of the samples (at least one each)."""
    if not clock_ghz:
        return None, None
    c = np.asarray(clock_ghz, dtype=float)
    q = max(1, c.size // 4)
    return float(np.median(c[:q])), float(np.median(c[-q:]))


def sample_statistics(samples: Sequence[float]) -> dict:
    """The samples' own part of the diagnostics: the median's 95% interval
    (``median_ci``), its relative half-width, relative stdev and IQR."""
    x = np.asarray(samples, dtype=float)
    med = float(np.median(x))
    lo, hi = median_ci(x)
    mean = float(np.mean(x))
    rel_stdev = float(np.std(x, ddof=1) / abs(mean)) if x.size > 1 and mean else 0.0
    q1, q3 = np.percentile(x, [25, 75])
    return {"n_samples": int(x.size), "median": med, "median_ci95": [lo, hi],
            "ci95_rel_halfwidth": float((hi - lo) / 2 / abs(med)) if med else math.inf,
            "rel_stdev": rel_stdev, "rel_iqr": float((q3 - q1) / abs(med)) if med else math.nan}


def assess(n_samples: int, rel_stdev: float, steal_fraction: float | None,
           clock_change: float | None, thresholds: dict = THRESHOLDS) -> tuple[bool, list[str], list[str]]:
    """(stable, reason codes, one readable sentence per reason).  A fact that
    was not measured (None) cannot make a result unstable."""
    t = thresholds
    codes, words = [], []
    if n_samples < t["min_samples"]:
        codes.append("too_few_samples")
        words.append(f"{n_samples} samples < {t['min_samples']}")
    if rel_stdev > t["max_rel_stdev"]:
        codes.append("spread")
        words.append(f"stdev {100 * rel_stdev:.1f}% of the mean > {100 * t['max_rel_stdev']:.0f}%")
    if steal_fraction is not None and steal_fraction > t["max_steal_fraction"]:
        codes.append("steal")
        words.append(f"steal {100 * steal_fraction:.1f}% of CPU time > "
                     f"{100 * t['max_steal_fraction']:.0f}%")
    if clock_change is not None and abs(clock_change) > t["max_clock_change"]:
        codes.append("clock_moved")
        words.append(f"core clock moved {100 * clock_change:+.1f}% > "
                     f"{100 * t['max_clock_change']:.0f}%")
    return not codes, codes, words
