"""Does a primitive get faster as fast as the processor?  Ousterhout's
question as a number: the exponent b in  speed = a * cpu^b, fitted on
log-log axes (ordinary least squares on log10), with a t-based 95%
interval (and a bootstrap one as a check).  b = 1: the primitive keeps pace
with the CPU; b < 1: it falls behind; b > 1: it outpaces it.

Speed is the primitive's rate: a bandwidth as it is, a time inverted
(1 / latency).  Pure functions of data; nothing here measures.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from benchlib.stats.summary import interval_side, percentile_interval, resample_indices


@dataclass(frozen=True)
class Exponent:
    slope: float          # the exponent b
    low: float            # 95% interval (or the requested level)
    high: float
    intercept: float      # log10 a
    n: int
    r2: float
    reason: str = ""      # why there is no fit, when slope is NaN

    @property
    def ok(self) -> bool:
        return not math.isnan(self.slope)


def speed(value, higher_is_better: bool):
    """A rate from a figure: bandwidth as is, 1 / time for a latency."""
    v = np.asarray(value, dtype=float)
    return v if higher_is_better else 1.0 / v


def _clean(cpu, spd) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(cpu, dtype=float)
    y = np.asarray(spd, dtype=float)
    if x.shape != y.shape:
        raise ValueError("cpu and speed must have the same length")
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    return np.log10(x[keep]), np.log10(y[keep])


def fit_exponent(cpu, spd, level: float = 0.95) -> Exponent:
    """OLS of log10(speed) on log10(cpu); t-based interval on the slope.
    Needs three points and two distinct CPU speeds; otherwise a NaN fit
    with the reason."""
    lx, ly = _clean(cpu, spd)
    n = len(lx)
    if n < 3:
        return Exponent(math.nan, math.nan, math.nan, math.nan, n, math.nan,
                        f"{n} point(s) with a CPU rating; a slope and its interval need 3")
    if np.ptp(lx) == 0:
        return Exponent(math.nan, math.nan, math.nan, math.nan, n, math.nan,
                        "every point has the same CPU rating")
    res = stats.linregress(lx, ly)
    t = stats.t.ppf(0.5 + level / 2, n - 2)
    half = t * res.stderr
    return Exponent(float(res.slope), float(res.slope - half), float(res.slope + half),
                    float(res.intercept), n, float(res.rvalue ** 2))


def bootstrap_exponent(cpu, spd, level: float = 0.95, n_boot: int = 2000,
                       seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the slope over resamples of the points (pairs
    bootstrap, drawn by ``benchlib.stats.summary.resample_indices``);
    resamples with a single CPU speed are skipped."""
    lx, ly = _clean(cpu, spd)
    if len(lx) < 3 or np.ptp(lx) == 0:
        return math.nan, math.nan
    idx = resample_indices(len(lx), n_boot, seed)
    x, y = lx[idx], ly[idx]
    dx = x - x.mean(axis=1, keepdims=True)
    sxx = (dx * dx).sum(axis=1)
    keep = np.ptp(x, axis=1) > 0
    slopes = (dx * (y - y.mean(axis=1, keepdims=True))).sum(axis=1)[keep] / sxx[keep]
    return percentile_interval(slopes, level)


#: An interval that holds 1 and also reaches one of these says nothing: 0
#: is "no faster on a faster CPU", 2 "twice as fast as the CPU's gain".
NO_GAIN, DOUBLE_GAIN = 0.0, 2.0
CANNOT_TELL = "cannot tell (the interval holds 1 and reaches 0 or 2)"


def verdict(e: Exponent) -> str:
    """What the interval says against 1 (keeping pace with the CPU), by the
    one interval rule (``benchlib.stats.summary.interval_side``).  An
    interval that holds 1 but is so wide that it also holds 0 (no gain at
    all) or 2 cannot tell keeping pace from those: three scattered points
    of one era give such intervals, and "keeps pace" would be read from
    the absence of evidence."""
    return interval_verdict(e.low, e.high) if e.ok else "no fit"


def interval_verdict(low: float, high: float) -> str:
    """:func:`verdict` of a fitted exponent's interval."""
    side = interval_side(low, high, 1.0)
    if side is False:
        return "falls behind"
    if side is True:
        return "outpaces the CPU"
    if low <= NO_GAIN or high >= DOUBLE_GAIN:
        return CANNOT_TELL
    return "keeps pace (1 inside the interval)"


def fit_table(df: pd.DataFrame, groups: dict[str, pd.Series], level: float = 0.95,
              n_boot: int = 2000) -> pd.DataFrame:
    """One fit per primitive and per group of rows (``groups``: name ->
    boolean mask over ``df``).  ``df`` needs ``primitive``, ``cpu_rating``
    (a ratio to the VAX-11/780: VAX-MIPS or SPECint92), ``value_std``,
    ``unit_std`` and ``higher_is_better``.  ``intercept`` is log10 of the
    rate (``rate``: operations/s or MB/s) at a rating of 1."""
    out = []
    for prim, sub in df.groupby("primitive", sort=False):
        for name, mask in groups.items():
            s = sub[mask.reindex(sub.index, fill_value=False)]
            spd, unit = rate(s["value_std"], str(sub["unit_std"].iloc[0]),
                             bool(sub["higher_is_better"].iloc[0]))
            e = fit_exponent(s["cpu_rating"], spd, level)
            blo, bhi = bootstrap_exponent(s["cpu_rating"], spd, level, n_boot) if e.ok \
                else (math.nan, math.nan)
            rated = s["cpu_rating"][(s["cpu_rating"] > 0) & (s["value_std"] > 0)]
            out.append({"primitive": prim, "systems": name, "n": e.n,
                        "distinct_cpus": int(rated.nunique()), "exponent": e.slope,
                        "ci_low": e.low, "ci_high": e.high, "boot_low": blo, "boot_high": bhi,
                        "r2": e.r2, "intercept": e.intercept, "rate_unit": unit,
                        "verdict": verdict(e), "note": e.reason})
    return pd.DataFrame(out)


def trend(early: Exponent, overall: Exponent) -> str:
    """How a primitive moved between the early systems and the whole span:
    'caught up' when the early fit fell behind but the whole span does not,
    'fell behind' when the early fit did not but the whole span does."""
    if not (early.ok and overall.ok):
        return "undetermined"
    ve, vo = verdict(early), verdict(overall)
    if CANNOT_TELL in (ve, vo):
        return "undetermined"
    if ve == "falls behind" and vo != "falls behind":
        return "caught up"
    if ve != "falls behind" and vo == "falls behind":
        return "fell behind"
    return {"falls behind": "behind throughout",
            "outpaces the CPU": "ahead throughout"}.get(vo, "kept pace throughout")


def rank_of(values, ours: float, higher_is_better: bool) -> tuple[int, int]:
    """(rank, of how many) of ``ours`` among ``values`` plus itself, 1 the
    fastest; ties share the better rank."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    better = (v > ours) if higher_is_better else (v < ours)
    return int(better.sum()) + 1, len(v) + 1


def per_mips(value_std, cpu_mips, higher_is_better: bool):
    """Speed per VAX-MIPS (the papers' normalisation, up to a constant):
    a flat line against CPU speed means the primitive keeps pace."""
    return speed(value_std, higher_is_better) / np.asarray(cpu_mips, dtype=float)


_PER_SECOND = {"us": 1e6, "ms": 1e3, "ns": 1e9, "s": 1.0}


def rate(value_std, unit_std: str, higher_is_better: bool) -> tuple[np.ndarray, str]:
    """The figure as a rate with its unit: a bandwidth as it is, a time as
    operations per second (the exponent does not depend on the constant)."""
    v = np.asarray(value_std, dtype=float)
    if higher_is_better:
        return v, unit_std
    try:
        return _PER_SECOND[unit_std] / v, "operations/s"
    except KeyError:
        raise ValueError(f"no time unit {unit_std!r}; known: {', '.join(_PER_SECOND)}") from None


def trend_table(fits: pd.DataFrame, early: str, overall: str) -> pd.DataFrame:
    """Per primitive, ``trend`` between the fits named ``early`` and
    ``overall`` (the ``systems`` column of ``fit_table``)."""
    def exp(row) -> Exponent:
        return Exponent(row["exponent"], row["ci_low"], row["ci_high"], math.nan,
                        int(row["n"]), row["r2"])
    out = []
    for prim, sub in fits.groupby("primitive", sort=False):
        by = {r["systems"]: r for _, r in sub.iterrows()}
        if early not in by or overall not in by:
            continue
        e, o = exp(by[early]), exp(by[overall])
        out.append({"primitive": prim, f"exponent {early}": e.slope,
                    f"exponent {overall}": o.slope, "trend": trend(e, o)})
    return pd.DataFrame(out)
