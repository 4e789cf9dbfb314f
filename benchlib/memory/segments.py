"""Shared pieces of the memory fits: input checks, and the piecewise-constant
segmentation of a latency curve into plateaus (used for cache levels and
TLB levels alike).  Pure functions of arrays and DataFrames."""
from __future__ import annotations

import itertools
import math
from typing import Iterable

import numpy as np
import pandas as pd

from benchlib.errors import BenchlibError

_MIN_SIGMA = 0.005
#: A stride-chase level must step up by at least this ratio at one stride
#: that needs it (:mod:`.stride`), and a stride curve that rises past it
#: has left the L1 plateau (:func:`.line_tlb._next_level_hit`):
#: where no prefetcher follows the chase, every machine we know is at least
#: 1.4x slower one level down (the lmbench paper's lat_allmem table,
#: ../shared/reference/lmbench: its smallest, Linux i586 8 / 107 / 150 ns
#: and the i486's 234 / 336, memory 1.40 and 1.44 times the board cache;
#: Zen 3 1.3 / 3.5 / 11 ns, memory 90 ns); the smaller steps a fit can add
#: are a prefetcher's partial hiding, a placement's wiggle or a busy host's
#: drift, not a cache.  (1.6 until 2026-11-28 refused the i486's board
#: once the model's latencies were right.)
MIN_STEP = 1.35


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


def fastest_samples(table: pd.DataFrame) -> pd.DataFrame:
    """A latency table's points at their fastest sample (``latency_ns``
    times ``min`` over ``median``, where the table has both, in one unit):
    a neighbour on the core slows a chase's samples, by up to 2x within one
    point, and never speeds one, so the fastest is the nearest to what the
    cache alone does.  The random walk's points and the same-set chase's
    are read so (:func:`.fit.fit_memory`, :func:`.associativity.same_set_curve`)."""
    if not {"min", "median"} <= set(table.columns):
        return table
    ratio = pd.to_numeric(table["min"], errors="coerce") / pd.to_numeric(table["median"],
                                                                          errors="coerce")
    ok = ratio.between(0.3, 1.0)
    return table.assign(latency_ns=table["latency_ns"] * ratio.where(ok, 1.0))


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


def _local_sigma(y: np.ndarray, half: int = 5) -> np.ndarray:
    """Per-point noise of y: :func:`_noise_sigma` over the second differences
    within ``half`` points either side.  A shared host's interference is not
    uniform: points past the caches can scatter by 30 % while the cache
    plateaus scatter by 1 %."""
    y = np.asarray(y, float)
    n = len(y)
    if n < 8:
        return np.full(n, _noise_sigma(y))
    d2 = np.abs(y[2:] - 2 * y[1:-1] + y[:-2])
    d2 = np.concatenate([[d2[0]], d2, [d2[-1]]])
    out = np.empty(n)
    for i in range(n):
        win = d2[max(0, i - half):i + half + 1]
        out[i] = max(_MIN_SIGMA, 1.4826 * float(np.median(win)) / math.sqrt(6.0))
    return out


def _dp_segments(y: np.ndarray, beta: float, w: np.ndarray | None = None
                 ) -> list[tuple[int, int]]:
    """Optimal piecewise-constant segmentation (weighted least squares, weights
    ``w``, + beta per segment).  Returns half-open index ranges [a, b)."""
    n = len(y)
    w = np.ones(n) if w is None else np.asarray(w, float)
    cw = np.concatenate([[0.0], np.cumsum(w)])
    cs = np.concatenate([[0.0], np.cumsum(w * y)])
    cs2 = np.concatenate([[0.0], np.cumsum(w * y * y)])
    best = np.full(n + 1, np.inf)
    best[0] = -beta
    prev = np.zeros(n + 1, dtype=int)
    for j in range(1, n + 1):
        i = np.arange(j)
        m = cw[j] - cw[i]
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


def _plateaus(x: np.ndarray, y: np.ndarray, sigma: float, too_close, min_span: float = 0.5,
              w: np.ndarray | None = None) -> list[tuple[int, int]]:
    """Plateaus of y(x) as index ranges (gaps between them are transition
    points); ``w``: per-point weights (sigma / local sigma)^2."""
    n = len(y)
    beta = 3.0 * sigma ** 2 * math.log(max(n, 3))
    segs = _dp_segments(y, beta, w)
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


def _fit_steps(x, y, levels0, c_grids, a_grid=(0.7, 1.5, 4.0, 12.0), n_starts=2):
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


