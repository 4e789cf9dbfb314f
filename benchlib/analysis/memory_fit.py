"""The memory hierarchy from a pointer-chase latency sweep.

Input is a tidy table (ours, another tool's, or digitised from a paper):
``size_bytes``, ``stride_bytes``, ``latency_ns``, optionally ``pattern``
("stride"/"random") and ``huge_pages``.  Latency against log(size) is a
staircase: one plateau per level (L1, L2, [L3 ...], main memory).  This module
finds the plateaus, their latencies and where each one ends (the cache size),
plus the line size and the TLB levels from their own tables.  Everything is a
pure function of DataFrames: nothing here measures.

Method of :func:`fit_levels`, in short:

1. x = log2(size), y = ln(latency); repeated sizes are reduced to their median.
2. Noise sigma from the second differences of y (robust to steps and to
   slowly rising plateaus), floored at 0.5 %.
3. Optimal piecewise-constant segmentation of y by dynamic programming with a
   BIC-like penalty per segment (``3 sigma^2 ln n``).
4. Adjacent segments whose medians differ by less than ``min_ratio`` are
   merged (closest pair first).  Transition points are dropped: segments of
   fewer than two points, inner segments spanning less than half an octave,
   and short inner segments as steep inside as the step they sit in.
5. Gradual (random-replacement) transitions leave slow tails that can look
   like a level of their own.  Each inner plateau is kept only if the data
   need it: a hit-rate model (fraction served by the faster level
   (C/S)**a, any a, plus a common slope) with one step from the plateau
   before to the plateau after is compared, by BIC, with the same model with
   two steps and this plateau between them.
6. Each plateau's latency is the median of its settled points (leading points
   that have not yet covered 90 % of the step from the previous level, and
   trailing points already rising more than 3 sigma above a robust line
   through the plateau, are left out).  Its size is where the latency has
   risen 10 % of the way (linear ns) from this plateau to the next, measured
   against a robust line through the plateau's last points (so slowly rising
   plateaus are not cut short) and interpolated in log2(size) between the two
   grid points that bracket it; the bracket, widened over neighbouring points
   within 2 sigma of the threshold, gives size_bytes_low/high.  The last
   plateau is main memory.

Known limits: the 10 % rule puts a random-replacement cache (hit fraction
C/S) about 11 % above C (LRU-like caches: 1-3 %); between grid points the
size is interpolated linearly, so a sparse grid costs up to about half a grid
step; a plateau shorter than half an octave, or a level that a gradual
transition never lets settle, is not resolved; a TLB step inside main memory
(4 KiB pages, sizes in GiB) is a step like any other and is reported as a
level (use huge pages, or read the TLB from :func:`fit_tlb`).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from ..errors import BenchlibError

__all__ = [
    "Level", "MemoryFit", "fit_memory", "fit_levels", "choose_curve",
    "line_size_from_pairs", "line_size_from_strides", "fit_tlb",
    "compare_with_reported", "check_columns", "synthetic_curve",
]

#: Fraction of the gap to the next plateau that marks the end of a plateau.
STEP_FRACTION = 0.10
#: Fraction of the gap from the previous plateau a point must have covered to
#: count as "settled" on its plateau (for the plateau latency).
SETTLED_FRACTION = 0.9
MAX_LEVELS = 6
_MIN_SIGMA = 0.005


# --------------------------------------------------------------------- results

@dataclass
class Level:
    """One plateau of the staircase.  ``size_bytes`` is None for main memory."""
    name: str
    size_bytes: float | None
    size_bytes_low: float | None
    size_bytes_high: float | None
    latency_ns: float
    latency_ns_err: float
    latency_cycles: float | None
    n_points: int

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "size_bytes": _json_num(self.size_bytes),
            "size_bytes_low": _json_num(self.size_bytes_low),
            "size_bytes_high": _json_num(self.size_bytes_high),
            "latency_ns": _json_num(self.latency_ns),
            "latency_ns_err": _json_num(self.latency_ns_err),
            "latency_cycles": _json_num(self.latency_cycles),
            "n_points": int(self.n_points),
        }


@dataclass
class MemoryFit:
    """Levels smallest first, main memory last."""
    levels: list[Level]
    line_size_bytes: int | None
    tlb: list[dict]
    stride_bytes_used: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "levels": [lv.to_dict() for lv in self.levels],
            "line_size_bytes": None if self.line_size_bytes is None else int(self.line_size_bytes),
            "tlb": [{k: _json_num(v) for k, v in t.items()} for t in self.tlb],
            "stride_bytes_used": int(self.stride_bytes_used),
            "notes": [str(n) for n in self.notes],
        }

    def table(self) -> pd.DataFrame:
        cols = ["name", "size_bytes", "size_bytes_low", "size_bytes_high", "latency_ns",
                "latency_ns_err", "latency_cycles", "n_points"]
        return pd.DataFrame([lv.to_dict() for lv in self.levels], columns=cols)


def _json_num(v):
    """Plain Python numbers for JSON; NaN and inf become None."""
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return v if math.isfinite(v) else None
    return v


# ---------------------------------------------------------------------- input

def check_columns(df, required: Iterable[str], *, positive: bool = True) -> None:
    """Raise BenchlibError unless ``df`` is a non-empty DataFrame with every
    column in ``required``, each numeric, without NaN, and (``positive``)
    strictly positive."""
    required = list(required)
    if not isinstance(df, pd.DataFrame):
        raise BenchlibError(f"expected a pandas DataFrame with columns {', '.join(required)}; "
                            f"got {type(df).__name__}")
    missing = [c for c in required if c not in df.columns]
    if missing:
        present = ", ".join(map(str, df.columns)) or "(no columns)"
        raise BenchlibError(f"missing columns: {', '.join(missing)}; the table has: {present}")
    if len(df) == 0:
        raise BenchlibError(f"the table is empty (no rows); it needs rows with "
                            f"{', '.join(required)}")
    for c in required:
        col = pd.to_numeric(df[c], errors="coerce")
        bad_type = col.isna() & df[c].notna()
        if bad_type.any():
            example = df[c][bad_type].iloc[0]
            raise BenchlibError(f"column {c!r} has {int(bad_type.sum())} non-numeric value(s), "
                                f"e.g. {example!r}")
        if col.isna().any():
            raise BenchlibError(f"column {c!r} has {int(col.isna().sum())} missing (NaN) value(s)")
        if not np.isfinite(col.to_numpy(dtype=float)).all():
            raise BenchlibError(f"column {c!r} has infinite value(s)")
        if positive and (col <= 0).any():
            bad = col[col <= 0]
            raise BenchlibError(f"column {c!r} has {len(bad)} non-positive value(s), e.g. "
                                f"{bad.iloc[0]:g}; sizes, strides and latencies must be > 0")


def _as_bool(col: pd.Series) -> pd.Series:
    """Booleans from a column that may hold bools, 0/1 or strings ("True",
    "false", "yes" ...) as read from a CSV; missing values are False."""
    if col.dtype == bool:
        return col
    return col.map(lambda v: str(v).strip().lower() in ("true", "1", "1.0", "yes", "y", "t"))


def _median_by(df: pd.DataFrame, key: str, value: str) -> pd.DataFrame:
    out = (df.assign(**{key: df[key].astype(float), value: df[value].astype(float)})
           .groupby(key, as_index=False)[value].median()
           .sort_values(key, ignore_index=True))
    return out


# -------------------------------------------------------------- choose_curve

def _large_size_latency(curves: dict[int, pd.DataFrame]) -> dict[int, float]:
    """Median latency of each curve over the largest sizes they share (the
    top quarter of the common sizes, at least 2); curves that share no size
    use their own largest sizes."""
    common = None
    for c in curves.values():
        s = set(c["size_bytes"].to_numpy().tolist())
        common = s if common is None else common & s
    common = sorted(common or [])
    out = {}
    if len(common) >= 2:
        k = max(2, len(common) // 4)
        top = set(common[-k:])
        for st, c in curves.items():
            out[st] = float(c.loc[c["size_bytes"].isin(top), "latency_ns"].median())
    else:
        for st, c in curves.items():
            k = max(2, len(c) // 4)
            out[st] = float(c["latency_ns"].iloc[-k:].median())
    return out


def choose_curve(df: pd.DataFrame, stride_bytes: int | None = None
                 ) -> tuple[int, pd.DataFrame, list[str]]:
    """Pick the one latency-vs-size curve to fit.

    ``stride_bytes`` given: that stride (BenchlibError if absent).  Otherwise
    random-order rows when there are any (huge pages preferred; among several
    strides the one with most distinct sizes, tie -> smallest >= 64).
    Otherwise, among strides <= 4096, the one whose latency at the largest
    sizes is highest (small strides are flattened by prefetchers); ties
    (within 5 %) -> the smaller stride.  Repeated sizes are reduced to their
    median.  Returns (stride, curve with size_bytes and latency_ns sorted by
    size, notes)."""
    chosen, curve, notes, _ = _choose_curve(df, stride_bytes)
    return chosen, curve, notes


def _choose_curve(df, stride_bytes):
    """choose_curve, plus the strides that looked prefetch-flattened."""
    check_columns(df, ["size_bytes", "latency_ns"])
    notes: list[str] = []
    flattened: list[int] = []
    d = df.copy()
    if "stride_bytes" not in d.columns:
        notes.append("no stride_bytes column: the table was treated as one curve (stride 0)")
        d["stride_bytes"] = 0
    else:
        check_columns(d, ["stride_bytes"])
    d["stride_bytes"] = d["stride_bytes"].astype(float).round().astype(np.int64)

    def prefer_random(rows: pd.DataFrame) -> pd.DataFrame:
        if "pattern" in rows.columns:
            pat = rows["pattern"].astype(str).str.lower()
            if (pat == "random").any():
                if (pat != "random").any():
                    notes.append("used the random-order rows (stride-order rows ignored)")
                rows = rows[pat == "random"]
        if "huge_pages" in rows.columns:
            hp = _as_bool(rows["huge_pages"])
            if hp.any():
                if (~hp).any():
                    notes.append("used the huge-page rows (fewer TLB misses)")
                rows = rows[hp]
        return rows

    strides = sorted(d["stride_bytes"].unique().tolist())
    if stride_bytes is not None:
        sel = d[d["stride_bytes"] == int(stride_bytes)]
        if sel.empty:
            raise BenchlibError(f"stride_bytes={stride_bytes} is not in the table; "
                                f"strides present: {', '.join(map(str, strides))}")
        sel = prefer_random(sel)
        chosen = int(stride_bytes)
    else:
        has_random = ("pattern" in d.columns
                      and (d["pattern"].astype(str).str.lower() == "random").any())
        if has_random:
            sel = prefer_random(d)
            counts = sel.groupby("stride_bytes")["size_bytes"].nunique()
            best = counts[counts == counts.max()].index.tolist()
            big = [s for s in best if s >= 64]
            chosen = int(min(big) if big else min(best))
            if len(counts) > 1:
                notes.append(f"random-order rows at strides {', '.join(map(str, counts.index))}; "
                             f"used {chosen} (most sizes)")
            sel = sel[sel["stride_bytes"] == chosen]
        else:
            cand = [s for s in strides if s <= 4096] or strides
            curves = {s: _median_by(d[d["stride_bytes"] == s], "size_bytes", "latency_ns")
                      for s in cand}
            lat = _large_size_latency(curves)
            top = max(lat.values())
            chosen = int(min(s for s in cand if lat[s] >= 0.95 * top))
            flattened = [s for s in cand if s < chosen and lat[s] < 0.8 * top]
            if flattened:
                notes.append(
                    "stride " + ", ".join(map(str, flattened))
                    + " looked prefetch-flattened (latency at the largest sizes "
                    + ", ".join(f"{lat[s]:.3g}" for s in flattened)
                    + f" ns against {lat[chosen]:.3g} ns); used {chosen}")
            elif len(cand) > 1:
                notes.append(f"strides {', '.join(map(str, cand))} available; used {chosen} "
                             f"(highest latency at the largest sizes, smallest such stride)")
            sel = d[d["stride_bytes"] == chosen]
    curve = _median_by(sel, "size_bytes", "latency_ns")
    return chosen, curve, notes, flattened


# ------------------------------------------------------------ segmentation

def _noise_sigma(y: np.ndarray) -> float:
    """Robust per-point noise of y from its second differences (insensitive to
    slow trends; steps are outliers the MAD ignores)."""
    y = np.asarray(y, float)
    if len(y) < 4:
        return _MIN_SIGMA
    d2 = y[2:] - 2 * y[1:-1] + y[:-2]
    mad = np.median(np.abs(d2 - np.median(d2)))
    return max(_MIN_SIGMA, 1.4826 * mad / math.sqrt(6.0))


def _dp_segments(y: np.ndarray, beta: float) -> list[tuple[int, int]]:
    """Optimal piecewise-constant segmentation (least squares + beta per
    segment).  Returns half-open index ranges [a, b)."""
    n = len(y)
    cs = np.concatenate([[0.0], np.cumsum(y)])
    cs2 = np.concatenate([[0.0], np.cumsum(y * y)])
    best = np.full(n + 1, np.inf)
    best[0] = -beta
    prev = np.zeros(n + 1, dtype=int)
    for j in range(1, n + 1):
        i = np.arange(j)
        m = j - i
        s = cs[j] - cs[i]
        cost = cs2[j] - cs2[i] - s * s / m
        tot = best[:j] + cost + beta
        k = int(np.argmin(tot))
        best[j], prev[j] = tot[k], k
    segs = []
    j = n
    while j > 0:
        segs.append((int(prev[j]), j))
        j = prev[j]
    return segs[::-1]


def _plateaus(x: np.ndarray, y: np.ndarray, sigma: float, too_close, min_span: float = 0.5
              ) -> list[tuple[int, int]]:
    """Plateaus of y(x) as index ranges (gaps between them are transition
    points)."""
    n = len(y)
    beta = 3.0 * sigma ** 2 * math.log(max(n, 3))
    segs = _dp_segments(y, beta)
    segs = _merge_runs(segs, y, too_close)
    # a plateau needs two points; an inner one also needs to span half an octave
    # (shorter runs between two steps are transition points)
    last = len(segs) - 1
    segs = [s for k, s in enumerate(segs) if s[1] - s[0] >= 2
            and (k in (0, last) or x[s[1] - 1] - x[s[0]] >= min_span - 1e-9)]
    segs = _merge_runs(segs, y, too_close)
    segs = _drop_ramps(segs, x, y, sigma)
    segs = _merge_runs(segs, y, too_close)
    return segs


def _merge_runs(segs, y, too_close):
    """Repeatedly merge the adjacent pair of segments whose medians are
    closest while ``too_close(range_a, range_b)`` says they are one level.
    A merged range spans any transition points between the two."""
    segs = list(segs)
    while len(segs) > 1:
        med = [np.median(y[a:b]) for a, b in segs]
        gaps = [abs(med[k + 1] - med[k]) for k in range(len(segs) - 1)]
        for k in np.argsort(gaps, kind="stable"):
            if too_close(segs[k], segs[k + 1]):
                segs[k:k + 2] = [(segs[k][0], segs[k + 1][1])]
                break
        else:
            break
    return segs


def _robust_slope(x: np.ndarray, y: np.ndarray) -> float:
    """Theil-Sen slope (median of pairwise slopes)."""
    if len(x) < 2:
        return 0.0
    i, j = np.triu_indices(len(x), 1)
    dx = x[j] - x[i]
    ok = dx > 0
    if not ok.any():
        return 0.0
    return float(np.median((y[j] - y[i])[ok] / dx[ok]))


def _drop_ramps(segs, x, y, sigma, max_span=1.25, frac=0.5):
    """Drop inner segments that are a piece of a gradual transition rather than
    a plateau: short (under ``max_span`` octaves), rising inside by more than
    the noise, and as steep inside (at least ``frac`` of it) as from the point
    before them to the point after them.  A true plateau, even a short one,
    is much flatter than the steps at its edges.  Repeats until none is
    dropped, steepest first."""
    segs = list(segs)
    n_all = len(y)
    while len(segs) >= 3:
        worst, worst_k = 0.0, None
        for k in range(1, len(segs) - 1):
            a, b = segs[k]
            n = b - a
            span = x[b - 1] - x[a]
            if span >= max_span or span <= 0 or a == 0 or b >= n_all:
                continue
            rise = _robust_slope(x[a:b], y[a:b]) * span if n > 2 else y[b - 1] - y[a]
            noise = 2.5 * sigma * (math.sqrt(2.0) if n <= 2 else math.sqrt(12.0 / (n + 1)))
            outer = (y[b] - y[a - 1]) / (x[b] - x[a - 1])
            if outer <= 0 or rise <= noise:
                continue
            score = (rise / span) / outer
            if score > frac and score > worst:
                worst, worst_k = score, k
        if worst_k is None:
            break
        del segs[worst_k]
    return segs


def _staircase(x, logL, c, a):
    """ln latency of the cumulative hit model: levels exp(logL[0..m]), steps at
    log2 sizes c[0..m-1] with sharpness a (the fraction served by levels <= j
    is min(1, 2**(-a_j (x - c_j))), kept monotone).  c and a may hold arrays
    that broadcast against x (a batch of models)."""
    lat = 0.0
    F_prev = 0.0
    for j in range(len(logL)):
        if j < len(c):
            F = np.minimum(1.0, np.exp2(-a[j] * np.maximum(x - c[j], 0.0)))
            F = np.maximum(F, F_prev)
        else:
            F = 1.0
        lat = lat + np.exp(logL[j]) * (F - F_prev)
        F_prev = F
    return np.log(np.maximum(lat, 1e-300))


def _fit_steps(x, y, levels0, c_grids, a_grid=(0.7, 1.5, 4.0, 12.0), n_starts=3):
    """Least-squares fit of the staircase model plus a common slope (ln per
    octave, for slowly rising plateaus) to (x, y).  The fit has local minima,
    so the step positions (one candidate array of log2 sizes per step in
    ``c_grids``) and sharpness (``a_grid``) are first searched on a grid with
    the levels held at ``levels0``; the best ``n_starts`` grid points are
    refined.  Returns the smallest residual sum of squares."""
    from scipy.optimize import least_squares   # lazy: only needed here

    m = len(levels0) - 1
    xm = float(np.mean(x))
    # grid search (vectorised over the combinations)
    combos = []
    for cs in itertools.product(*c_grids):
        if any(cs[i] >= cs[i + 1] for i in range(m - 1)):
            continue
        for As in itertools.product(a_grid, repeat=m):
            combos.append(cs + As)
    if not combos:
        return np.inf
    P = np.array(combos, float)                       # (B, 2m)
    cB = [P[:, i:i + 1] for i in range(m)]
    aB = [P[:, m + i:m + i + 1] for i in range(m)]
    with np.errstate(all="ignore"):
        pred = _staircase(x[None, :], levels0, cB, aB)
        cost = np.sum((y[None, :] - pred) ** 2, axis=1)
    order = np.argsort(cost)[:n_starts]

    def resid(p):
        logL = p[:m + 1]
        c = np.sort(p[m + 1:2 * m + 1])
        a = np.exp(np.clip(p[2 * m + 1:3 * m + 1], -3.0, 4.0))
        return y - _staircase(x, logL, c, a) - p[-1] * (x - xm)

    best = float(cost[order[0]])
    for i in order:
        p0 = np.concatenate([levels0, P[i, :m], np.log(P[i, m:]), [0.0]])
        try:
            with np.errstate(all="ignore"):
                r = least_squares(resid, p0, method="lm", max_nfev=200 * (m + 1))
        except (ValueError, FloatingPointError):
            continue
        if np.all(np.isfinite(r.fun)):
            best = min(best, float(np.sum(r.fun ** 2)))
    return best


def _gap_grid(x, i0, i1, max_n=12):
    """Candidate step positions from data point i0 to data point i1 (indices
    into x, clipped): midpoints between neighbouring points, so that no
    candidate sits on a data point (a kink there hides the gradient)."""
    i0 = max(i0, 0)
    i1 = min(i1, len(x) - 1)
    pts = x[i0:i1 + 1]
    if len(pts) < 2:
        return np.array([x[i0]])
    mids = 0.5 * (pts[:-1] + pts[1:])
    if len(mids) > max_n:                 # dense sweeps: keep the grid search small
        mids = mids[np.unique(np.round(np.linspace(0, len(mids) - 1, max_n)).astype(int))]
    return mids


def _drop_unneeded(segs, x, y, sigma):
    """Drop inner plateaus that the data do not need: if one gradual step
    (hit fraction (C/S)**a, any a) from the plateau before to the plateau
    after explains the points about as well as two steps with this plateau
    between them (BIC with the noise sigma), the "plateau" is the slow tail of
    a random-replacement transition.  Short plateaus are tested first."""
    segs = list(segs)
    changed = True
    while changed and len(segs) >= 3:
        changed = False
        order = sorted(range(1, len(segs) - 1), key=lambda k: segs[k][1] - segs[k][0])
        for k in order:
            (pa, pb), (a, b), (na, nb) = segs[k - 1], segs[k], segs[k + 1]
            # the end of the plateau before (1.5 octaves: less of the tail of the
            # transition before it) and up to 3 octaves of the plateau after
            lo = max(pa, int(np.searchsorted(x, x[pb - 1] - 1.5)))
            hi = min(nb, int(np.searchsorted(x, x[na] + 3.0, side="right")))
            xs, ys = x[lo:hi], y[lo:hi]
            n = len(xs)
            l0 = float(np.median(y[max(lo, pa):pb]))
            l1 = float(np.median(y[a:b]))
            l2 = float(np.median(y[na:min(nb, hi)]))
            # a long, flat plateau is not the tail of a transition
            span = x[b - 1] - x[a]
            if span >= 2.0 and abs(_robust_slope(x[a:b], y[a:b])) < 0.04:
                continue
            rss1 = _fit_steps(xs, ys, np.array([l0, l2]), [_gap_grid(x, pb - 2, na + 1)])
            rss2 = _fit_steps(xs, ys, np.array([l0, l1, l2]),
                              [_gap_grid(x, pb - 2, a + 1), _gap_grid(x, b - 2, na + 1)])
            var = sigma ** 2
            bic1 = rss1 / var + 5 * math.log(n)      # 2 levels, C, a, slope
            bic2 = rss2 / var + 8 * math.log(n)      # 3 levels, 2 C, 2 a, slope
            if bic1 <= bic2:
                del segs[k]
                changed = True
                break
    return segs


# ---------------------------------------------------------------- fit_levels

def _crossing(x, v, lo_idx, hi_idx, thr, band):
    """Where v rises through thr(x) (both arrays over the index range), scanning
    back from hi_idx (first point of the next plateau) to lo_idx (first point of
    this plateau).  Returns (x_cross, x_low, x_high)."""
    d = v - thr
    j = None
    for k in range(hi_idx - 1, lo_idx - 1, -1):
        if d[k] <= 0:
            j = k
            break
    if j is None:                        # even the plateau's first point is above
        j = lo_idx
        return x[j], x[j], x[min(j + 1, hi_idx)]
    k1 = j + 1
    den = d[k1] - d[j]
    f = 0.5 if den <= 0 else float(np.clip(-d[j] / den, 0.0, 1.0))
    xc = x[j] + f * (x[k1] - x[j])
    lo, hi = j, k1
    while lo - 1 >= lo_idx and d[lo - 1] > -band[lo - 1]:
        lo -= 1
    while hi + 1 <= hi_idx and d[hi + 1] < band[hi + 1] and d[hi] < band[hi]:
        hi += 1
    return xc, x[lo], x[hi]


def _settled(y, a, b, prev_level, frac=SETTLED_FRACTION):
    """Index range of a plateau without its leading points still rising from
    the previous level (y in ln latency; prev_level in ln)."""
    if prev_level is None or b - a <= 2:
        return a, b
    start = a
    for _ in range(3):
        m = np.median(y[start:b])
        if m <= prev_level:
            break
        thr = np.log(np.exp(prev_level) + frac * (np.exp(m) - np.exp(prev_level)))
        s = a
        while s < b and y[s] < thr:
            s += 1
        s = min(s, b - max(2, (b - a) // 2))
        if s == start:
            break
        start = s
    return start, b


def _trim_tail(x, y, s, e, sigma):
    """End of a plateau without its trailing points that already rise toward
    the next level (more than 3 sigma above a robust line through the
    plateau): the merge step lets such points in when their ratio to the
    plateau is below min_ratio."""
    if e - s < 4:
        return e
    slope = float(np.clip(_robust_slope(x[s:e], y[s:e]), -0.05, 0.15))
    icpt = float(np.median(y[s:e] - slope * x[s:e]))
    r = y[s:e] - (icpt + slope * x[s:e])
    n_keep = max(2, (e - s + 1) // 2)
    while e - s > n_keep and r[e - 1 - s] > 3.0 * sigma:
        e -= 1
    return e


def _latency_err(lat: np.ndarray) -> float:
    n = len(lat)
    if n < 2:
        return float("nan")
    if n < 4:
        return float((lat.max() - lat.min()) / 2 / math.sqrt(n))
    mad = np.median(np.abs(lat - np.median(lat)))
    return float(1.253 * 1.4826 * mad / math.sqrt(n))


def _fit_levels(curve: pd.DataFrame, min_ratio: float = 1.3
                ) -> tuple[list[Level], list[str], float]:
    check_columns(curve, ["size_bytes", "latency_ns"])
    if min_ratio <= 1.0:
        raise BenchlibError(f"min_ratio must be > 1 (got {min_ratio})")
    c = _median_by(curve, "size_bytes", "latency_ns")
    if len(c) < 4:
        raise BenchlibError(f"need at least 4 distinct sizes to find plateaus; got {len(c)}")
    notes: list[str] = []
    x = np.log2(c["size_bytes"].to_numpy(float))
    lat = c["latency_ns"].to_numpy(float)
    y = np.log(lat)
    sigma = _noise_sigma(y)
    lmr = math.log(min_ratio)

    def too_close(ra, rb):
        return abs(np.median(y[rb[0]:rb[1]]) - np.median(y[ra[0]:ra[1]])) < lmr

    segs = _plateaus(x, y, sigma, too_close)
    segs = _drop_unneeded(segs, x, y, sigma)
    if not segs:
        raise BenchlibError("no plateau found in the curve")
    while len(segs) > MAX_LEVELS:
        med = [np.median(y[a:b]) for a, b in segs]
        k = int(np.argmin(np.abs(np.diff(med))))
        segs[k:k + 2] = [(segs[k][0], segs[k + 1][1])]
        notes.append(f"more than {MAX_LEVELS} plateaus: merged the two closest")
    if segs[-1][1] < len(y):
        notes.append(f"the largest sizes (above {2 ** x[segs[-1][1] - 1]:.4g} bytes) are not on "
                     f"the last plateau: main memory may not be reached")
    if segs[0][0] > 0:
        notes.append("the smallest sizes are not on a plateau")

    # settled points and latency of each plateau
    core = []
    prev = None
    for k, (a, b) in enumerate(segs):
        s, e = _settled(y, a, b, prev)
        if k < len(segs) - 1:
            e = _trim_tail(x, y, s, e, sigma)
        core.append((s, e))
        prev = float(np.median(y[s:e]))
    lat_med = [float(np.median(lat[s:e])) for s, e in core]

    levels: list[Level] = []
    ncache = len(segs) - 1
    for k, (a, b) in enumerate(segs):
        s, e = core[k]
        name = f"L{k + 1}" if k < ncache else "memory"
        size = lo = hi = None
        if k < ncache:
            # baseline: robust line (ln latency vs log2 size) through this
            # plateau's last settled points, extrapolated over the transition
            m = min(e - s, 8)
            bx, by = x[e - m:e], y[e - m:e]
            slope = _robust_slope(bx, by) if m >= 4 else 0.0
            slope = float(np.clip(slope, -0.05, 0.15))
            x_end = x[e - 1]
            icpt = float(np.median(by - slope * (bx - x_end)))
            na = segs[k + 1][0]
            rng = np.arange(s, na + 1)
            base = np.exp(icpt + slope * (x[rng] - x_end))
            top = lat_med[k + 1]
            if top <= lat_med[k]:
                notes.append(f"latency falls from {name} to the next level: check the data")
            thr = base + STEP_FRACTION * (top - base)
            band = 2.0 * sigma * base
            xa = x[s:na + 1]
            xc, xl, xh = _crossing(xa, lat[s:na + 1], 0, na - s, thr, band)
            size, lo, hi = 2.0 ** xc, 2.0 ** xl, 2.0 ** xh
        levels.append(Level(name=name, size_bytes=size, size_bytes_low=lo, size_bytes_high=hi,
                            latency_ns=lat_med[k], latency_ns_err=_latency_err(lat[s:e]),
                            latency_cycles=None, n_points=int(e - s)))
    return levels, notes, sigma


def fit_levels(curve: pd.DataFrame, min_ratio: float = 1.3) -> list[Level]:
    """Plateaus of one latency-vs-size curve (columns size_bytes, latency_ns),
    smallest first; the last is main memory (size None).  The number of levels
    comes from the data (at most 6)."""
    return _fit_levels(curve, min_ratio)[0]


# ----------------------------------------------------------------- line size

def line_size_from_pairs(pairs: pd.DataFrame) -> int | None:
    """Line size from dependent load pairs (columns distance_bytes,
    latency_ns): the smallest distance whose latency is above the midpoint
    between the short-distance and long-distance levels; None if there is no
    clear step (high/low < 1.2)."""
    check_columns(pairs, ["distance_bytes", "latency_ns"])
    p = _median_by(pairs, "distance_bytes", "latency_ns")
    if len(p) < 3:
        return None
    lat = p["latency_ns"].to_numpy(float)
    dist = p["distance_bytes"].to_numpy(float)
    k = max(1, len(p) // 4)
    low = float(np.median(lat[:k]))
    high = float(np.median(lat[-k:]))
    if high / low < 1.2:
        return None
    mid = 0.5 * (low + high)
    # scan down from the largest distance: the step is just above the last
    # (largest) distance below the midpoint, so a noisy small distance above
    # the midpoint does not count
    below = np.nonzero(lat <= mid)[0]
    if len(below) == 0:
        return None
    j = int(below.max())
    if j + 1 >= len(p):
        return None
    return int(round(dist[j + 1]))


def line_size_from_strides(df: pd.DataFrame) -> int | None:
    """Line size from stride curves at sizes well beyond the last cache:
    latency grows with the stride until the line size, then flattens.  Returns
    the smallest stride reaching 80 % of the flat level, rounded to a power of
    two, or None if unclear: no growth, or smaller strides whose latency is
    not in proportion to stride/line (the mark of a prefetcher).  Less
    reliable than :func:`line_size_from_pairs`."""
    check_columns(df, ["size_bytes", "stride_bytes", "latency_ns"])
    d = df
    if "pattern" in d.columns:
        pat = d["pattern"].astype(str).str.lower()
        if (pat != "random").any():
            d = d[pat != "random"]
    strides = sorted(int(s) for s in d["stride_bytes"].unique())
    cand = [s for s in strides if s <= 4096]
    if len(cand) < 3:
        cand = strides
    if len(cand) < 3:
        return None
    curves = {s: _median_by(d[d["stride_bytes"] == s], "size_bytes", "latency_ns") for s in cand}
    lat = _large_size_latency(curves)
    v = np.array([lat[s] for s in cand])
    flat = float(np.median(v[len(v) // 2:]))
    if not np.isfinite(flat) or flat <= 0 or v.min() / flat > 0.8:
        return None
    reach = [i for i, s in enumerate(cand) if v[i] >= 0.8 * flat]
    i = reach[0]
    if i == 0:
        return None
    line = int(2 ** round(math.log2(cand[i])))
    # without prefetching, a stride s < line misses on a fraction s/line of the
    # loads; prefetchers break that proportion (a stride-8 curve that barely
    # rises, then a jump): then the estimate is not to be trusted
    all_sizes = np.sort(d["size_bytes"].astype(float).unique())
    small = d[d["size_bytes"].astype(float) <= all_sizes[min(2, len(all_sizes) - 1)]]
    base = float(small["latency_ns"].astype(float).median())   # L1: every load hits
    if flat > base:
        for s, vi in zip(cand, v):
            if s < line:
                frac = (vi - base) / (flat - base)
                if abs(frac - s / line) > 0.1 and not 0.5 <= frac / (s / line) <= 2.0:
                    return None
    return line


# ----------------------------------------------------------------------- TLB

def fit_tlb(tlb: pd.DataFrame, page_bytes: int = 4096, min_ratio: float = 1.3) -> list[dict]:
    """TLB levels from a page-touching chase (columns pages, latency_ns,
    control_ns).  The penalty latency - control is segmented against
    log2(pages); each upward step is a TLB level whose ``entries`` is where
    the penalty has risen 10 % of the step.  A step counts when
    (control + penalty after) / (control + penalty before) >= min_ratio and it
    stands out of the noise.  Returns a list of dicts: level, entries,
    entries_low, entries_high, reach_bytes, miss_penalty_ns; [] if no step."""
    check_columns(tlb, ["pages", "latency_ns", "control_ns"])
    t = (tlb.assign(pages=tlb["pages"].astype(float),
                    penalty=tlb["latency_ns"].astype(float) - tlb["control_ns"].astype(float),
                    control=tlb["control_ns"].astype(float))
         .groupby("pages", as_index=False)[["penalty", "control"]].median()
         .sort_values("pages", ignore_index=True))
    if len(t) < 4:
        return []
    x = np.log2(t["pages"].to_numpy(float))
    pen = t["penalty"].to_numpy(float)
    ctl = t["control"].to_numpy(float)
    lat = pen + ctl
    # noise is multiplicative: a relative sigma for each series, then the
    # absolute noise of the penalty at each point
    rel = max(_noise_sigma(np.log(np.maximum(lat, 1e-12))),
              _noise_sigma(np.log(np.maximum(ctl, 1e-12))))
    sig_k = rel * np.sqrt(lat ** 2 + ctl ** 2)
    sigma = float(np.median(sig_k))

    def too_close(ra, rb):
        ma, mb = float(np.median(pen[ra[0]:ra[1]])), float(np.median(pen[rb[0]:rb[1]]))
        # the control latency and the noise where the two segments meet
        near = slice(max(ra[1] - 2, ra[0]), rb[0] + 2)
        c = float(np.median(ctl[near]))
        lo, hi = min(ma, mb), max(ma, mb)
        return (hi - lo) < 4.0 * float(np.median(sig_k[near])) \
            or (c + hi) / max(c + lo, 1e-12) < min_ratio

    segs = _plateaus(x, pen, sigma, too_close)
    out = []
    for k in range(len(segs) - 1):
        a, b = segs[k]
        na, nb = segs[k + 1]
        before = float(np.median(pen[a:b]))
        after = float(np.median(pen[na:nb]))
        if after <= before:
            continue
        rng = slice(a, na + 1)
        thr = np.full(na + 1 - a, before + STEP_FRACTION * (after - before))
        band = 2.0 * sig_k[rng]
        xc, xl, xh = _crossing(x[rng], pen[rng], 0, na - a, thr, band)
        entries = 2.0 ** xc
        out.append({
            "level": len(out) + 1,
            "entries": int(round(entries)),
            "entries_low": int(round(2.0 ** xl)),
            "entries_high": int(round(2.0 ** xh)),
            "reach_bytes": int(round(entries)) * int(page_bytes),
            "miss_penalty_ns": after - before,
        })
    return out


# ------------------------------------------------------------------- compare

def compare_with_reported(fit: MemoryFit, caches: list[dict]) -> pd.DataFrame:
    """Fitted cache sizes beside the ones the system reports (e.g. sysfs:
    dicts with level, type, size_bytes; instruction caches are ignored).
    Fitted level ``Lk`` is compared with reported level k.  For the last
    fitted cache level the fit is also compared with the sum of the last two
    reported levels: an exclusive (victim) last-level cache shows up in the
    latency curve at L2+L3.  ``matches`` names the closer candidate (in
    log size); ``resolved`` is False when the two candidates are too close
    for this method to tell apart (less than 10 % apart, or both inside the
    fitted level's size bracket), as with a small L2 beside a large L3.
    Columns: level, fitted_size_bytes, reported_size_bytes, ratio,
    reported_sum_bytes, ratio_vs_sum, matches, resolved, note."""
    rep: dict[int, float] = {}
    for c in caches:
        if str(c.get("type", "")).lower().startswith("instr"):
            continue
        try:
            lvl = int(c["level"])
            size = float(c["size_bytes"])
        except (KeyError, TypeError, ValueError):
            raise BenchlibError(f"each reported cache needs level and size_bytes; got {c!r}") \
                from None
        rep[lvl] = max(rep.get(lvl, 0.0), size)
    cache_levels = [lv for lv in fit.levels if lv.size_bytes is not None]
    rows = []
    rep_levels = sorted(rep)
    for i, lv in enumerate(cache_levels):
        k = i + 1
        reported = rep.get(k)
        row = {"level": lv.name, "fitted_size_bytes": lv.size_bytes,
               "reported_size_bytes": reported,
               "ratio": None if reported is None else lv.size_bytes / reported,
               "reported_sum_bytes": None, "ratio_vs_sum": None, "matches": None,
               "resolved": None, "note": ""}
        if reported is not None:
            row["matches"] = f"L{k}"
        if reported is None:
            row["note"] = "no reported cache at this level"
        last = i == len(cache_levels) - 1
        if last and reported is not None and k == max(rep) and k - 1 in rep:
            total = rep[k - 1] + reported
            row["reported_sum_bytes"] = total
            row["ratio_vs_sum"] = lv.size_bytes / total
            e_own = abs(math.log(lv.size_bytes / reported))
            e_sum = abs(math.log(lv.size_bytes / total))
            apart = abs(math.log(total / reported))
            if e_sum < e_own:
                row["matches"] = f"L{k - 1}+L{k}"
                row["note"] = (f"matches L{k - 1}+L{k} better than L{k}: "
                               f"looks exclusive/victim")
            else:
                row["note"] = f"matches L{k} better than L{k - 1}+L{k}: looks inclusive"
            lo = lv.size_bytes_low if lv.size_bytes_low is not None else lv.size_bytes
            hi = lv.size_bytes_high if lv.size_bytes_high is not None else lv.size_bytes
            both_inside = lo <= reported <= hi and lo <= total <= hi
            row["resolved"] = bool(apart >= math.log(1.10) and not both_inside)
            if not row["resolved"]:
                row["note"] += (f" (weakly: L{k} and L{k - 1}+L{k} differ by only "
                                f"{100 * (math.exp(apart) - 1):.0f} %, within this method's "
                                f"resolution)")
        rows.append(row)
    if len(cache_levels) < len(rep_levels):
        missing = [f"L{k}" for k in rep_levels if k > len(cache_levels)]
        rows.append({"level": "/".join(missing), "fitted_size_bytes": None,
                     "reported_size_bytes": sum(rep[k] for k in rep_levels
                                                if k > len(cache_levels)),
                     "ratio": None, "reported_sum_bytes": None, "ratio_vs_sum": None,
                     "matches": None, "resolved": None,
                     "note": "reported but not found as a separate plateau in the curve"})
    return pd.DataFrame(rows, columns=["level", "fitted_size_bytes", "reported_size_bytes",
                                       "ratio", "reported_sum_bytes", "ratio_vs_sum",
                                       "matches", "resolved", "note"])


# ---------------------------------------------------------------- fit_memory

def fit_memory(df: pd.DataFrame, *, clock_ghz: float | None = None,
               stride_bytes: int | None = None, min_ratio: float = 1.3,
               pairs: pd.DataFrame | None = None, tlb: pd.DataFrame | None = None,
               page_bytes: int = 4096) -> MemoryFit:
    """choose_curve + fit_levels (+ cycles when ``clock_ghz``) + line size
    (from ``pairs`` if given, else from the stride curves) + TLB levels (from
    ``tlb`` if given)."""
    stride, curve, notes, flattened = _choose_curve(df, stride_bytes)
    levels, lnotes, _ = _fit_levels(curve, min_ratio)
    notes = list(notes) + lnotes
    if len(levels) == 1:
        notes.append("no cache step found: the curve is flat (prefetch-flattened, or the "
                     "sizes do not span a cache)")
    if clock_ghz is not None:
        if not clock_ghz > 0:
            raise BenchlibError(f"clock_ghz must be > 0 (got {clock_ghz})")
        for lv in levels:
            lv.latency_cycles = lv.latency_ns * clock_ghz
    line = None
    if pairs is not None:
        line = line_size_from_pairs(pairs)
        if line is None:
            notes.append("line size: no clear step in the load-pair table")
    elif "stride_bytes" in df.columns and df["stride_bytes"].nunique() >= 3:
        line = line_size_from_strides(df)
        if line is not None:
            notes.append("line size from stride curves (less reliable than load pairs: "
                         "prefetchers hide misses at small strides)")
        elif flattened:
            notes.append("line size not estimated: the small strides look prefetch-flattened "
                         "(latency does not grow in proportion to the stride); measure load "
                         "pairs")
        else:
            notes.append("line size: unclear from the stride curves")
    tlb_levels = fit_tlb(tlb, page_bytes=page_bytes, min_ratio=min_ratio) if tlb is not None \
        else []
    return MemoryFit(levels=levels, line_size_bytes=line, tlb=tlb_levels,
                     stride_bytes_used=int(stride), notes=notes)


# ----------------------------------------------------------------- synthetic

def synthetic_curve(sizes_bytes: Sequence[float], latencies_ns: Sequence[float], sizes=None,
                    points_per_octave: int = 4, min_size: float = 512,
                    max_size: float | None = None, sharpness: float | Sequence[float] = 4.0,
                    noise: float = 0.02, rise_per_octave: float = 0.0, seed: int = 0,
                    stride_bytes: int = 256) -> pd.DataFrame:
    """A synthetic staircase for tests and notebooks.

    ``sizes_bytes``: cache sizes C_1 < ... < C_k; ``latencies_ns``: k + 1
    plateau latencies (the last is main memory).  The fraction of accesses
    served by levels 1..i at working set S is F_i = min(1, (C_i/S)**a_i)
    (``sharpness`` a: 1 = random replacement, large = LRU), so past C_i the
    hit fraction is (C_i/S)**a and latency = h*L_i + (1-h)*L_next.  With
    ``rise_per_octave`` each plateau rises by that factor per octave about its
    middle (so its median stays L_i).  Multiplicative log-normal noise.
    Default sizes: ``points_per_octave`` from ``min_size`` to ``max_size``
    (default: far enough past the last cache for its plateau to settle)."""
    C = np.asarray(sizes_bytes, float)
    L = np.asarray(latencies_ns, float)
    if len(L) != len(C) + 1:
        raise BenchlibError("latencies_ns needs one more entry (main memory) than sizes_bytes")
    a = np.broadcast_to(np.asarray(sharpness, float), C.shape).astype(float)
    if sizes is None:
        if max_size is None:
            max_size = C[-1] * max(16.0, 4.0 * 100.0 ** (1.0 / a[-1])) if len(C) else 1 << 30
        n = int(math.floor(math.log2(max_size / min_size) * points_per_octave + 1e-9)) + 1
        sizes = min_size * 2.0 ** (np.arange(n) / points_per_octave)
    S = np.asarray(sizes, float)
    lo_edges = np.log2(np.concatenate([[S.min()], C]))
    hi_edges = np.log2(np.concatenate([C, [S.max()]]))
    mids = 0.5 * (lo_edges + hi_edges)
    xs = np.log2(S)
    F_prev = np.zeros_like(S)
    lat = np.zeros_like(S)
    for i in range(len(L)):
        F = np.minimum(1.0, (C[i] / S) ** a[i]) if i < len(C) else np.ones_like(S)
        F = np.maximum(F, F_prev)
        Li = L[i] * (1.0 + rise_per_octave) ** (xs - mids[i])
        lat += Li * (F - F_prev)
        F_prev = F
    rng = np.random.default_rng(seed)
    lat = lat * np.exp(noise * rng.standard_normal(len(S)))
    return pd.DataFrame({"size_bytes": S, "stride_bytes": int(stride_bytes), "latency_ns": lat})
