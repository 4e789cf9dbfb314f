"""The staircase of one latency curve: its plateaus, their latencies and sizes.

A part of the fit step (:mod:`.fit` combines it with the other chases).

Input is a tidy table (ours, another tool's, or digitised from a paper):
``size_bytes``, ``stride_bytes``, ``latency_ns``, optionally ``pattern``
("stride"/"random") and ``huge_pages``.  Latency against log(size) is a
staircase: one plateau per level (L1, L2, [L3 ...], main memory).  This module
chooses the curve to fit (:func:`choose_curve`) and finds the plateaus, their
latencies and where each one ends (the cache size); :func:`tlb_penalty_ns`
is the time a chase spends on TLB misses.  Everything is a pure function of
DataFrames: nothing here measures.

Method of :func:`fit_levels`, in short:

1. x = log2(size), y = ln(latency); repeated sizes are reduced to their median.
2. Noise sigma from the second differences of y (robust to steps and to
   slowly rising plateaus), floored at 0.5 %.
3. Optimal piecewise-constant segmentation of y by dynamic programming with a
   BIC-like penalty per segment (``3 sigma^2 ln n``).
4. Adjacent segments whose medians differ by less than ``min_ratio`` (a
   floor, 1.2 by default) are
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
   through the plateau, are left out).  A first size is where the latency
   has risen 10 % of the way to the next plateau (``threshold_size_bytes``).
7. The sizes are then the capacities of the transition model
   (:mod:`.cache_model`: LRU sets over pages at random physical addresses,
   small or huge) fitted to the whole curve with the plateau latencies held,
   with 95 % profile-likelihood intervals; a plateau the model does not need
   (BIC, 3 parameters) or whose capacity comes out of order is dropped.
   Where the model does not fit (median squared residual over 4x its
   expectation) the threshold sizes are kept and a note says so.  The last
   plateau is main memory.

Known limits: a very gradual onset (few page colours: a 64 KiB 4-way L1 on
4 KiB pages has 4) is placed to about 10 %; the threshold fallback puts a
random-replacement cache (hit fraction C/S) about 11 % above C; a plateau
shorter than half an octave is not resolved; a TLB step inside main memory
(4 KiB pages, sizes in GiB) is a step like any other and is reported as a
level (use huge pages, or read the TLB from :func:`fit_tlb`).
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.memory.cache_model import WAYS_GRID, fit_transitions
from benchlib.memory.line_tlb import _large_size_latency
from benchlib.memory.hierarchy import Level
from benchlib.memory.segments import (_as_bool, _crossing, _drop_unneeded, _median_by,
                                      _local_sigma, _noise_sigma, _plateaus, _robust_slope,
                                      check_columns)

__all__ = ["choose_curve", "fit_levels", "first_level_pooled", "tlb_penalty_ns",
           "RING_WINDOW_BYTES",
           "MIN_STEP_RATIO"]

#: Fraction of the gap to the next plateau that marks the end of a plateau.
STEP_FRACTION = 0.10
#: Fraction of the gap from the previous plateau a point must have covered to
#: count as "settled" on its plateau (for the plateau latency).
SETTLED_FRACTION = 0.9
MAX_LEVELS = 6
#: Adjacent plateaus closer than this ratio are one level.  Only a floor: a
#: level must also be needed by the data (a BIC test against one gradual
#: transition across it; see ``_drop_unneeded``) and stand out of the noise.
MIN_STEP_RATIO = 1.2
#: The transition model is used when it fits to within this chi-square per
#: point (noise from the curve's own second differences); else the
#: threshold sizes are kept (e.g. random replacement, or a curve too noisy).
MAX_REDUCED_CHI2 = 4.0


# -------------------------------------------------------------- choose_curve

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


# ---------------------------------------------------------------- fit_levels

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


def _fit_levels(curve: pd.DataFrame, min_ratio: float = MIN_STEP_RATIO, model: bool = True
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
    # noise: the whole curve's, and where a part of it scatters more (a
    # shared host's interference past the caches), that part's own
    sig_i = _local_sigma(y, half=8)
    sigma = min(_noise_sigma(y), float(np.median(sig_i)))
    sig_i = np.maximum(sig_i, sigma)
    weights = (sigma / sig_i) ** 2
    lmr = math.log(min_ratio)

    def too_close(ra, rb):
        return abs(np.median(y[rb[0]:rb[1]]) - np.median(y[ra[0]:ra[1]])) < lmr

    segs = _plateaus(x, y, sigma, too_close, w=weights)
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
                            latency_cycles=None, n_points=int(e - s), threshold_size_bytes=size))
    if model and ncache:
        levels = _refine_with_model(levels, 2.0 ** x, lat, sig_i, notes)
    return levels, notes, sigma


def _least_needed(ws, lat, levels, caches, fits, sigma):
    """The cache level whose removal costs the model least, if that cost is
    below a BIC penalty (3 parameters: its latency, capacity and shape), or
    whose fitted capacity is out of order; (index, fits without it) or
    (None, None)."""
    n = len(ws)
    dev = fits[-1].deviance
    sizes = [t.size_bytes for t in fits]
    bad = next((k for k in range(len(sizes) - 1) if sizes[k] >= sizes[k + 1]), None)
    cands = [bad, bad + 1] if bad is not None else range(len(caches))
    best = None
    for k in cands:
        keep = [lv for lv in levels if lv is not caches[k]]
        guesses = [t.size_bytes for j, t in enumerate(fits) if j != k]
        # one round: the other levels start where the full fit put them
        f = fit_transitions(ws, lat, [lv.latency_ns for lv in keep], guesses, sigma, rounds=1)
        cost = f[-1].deviance - dev
        if best is None or cost < best[0]:
            best = (cost, k, f)
    if best is not None and (bad is not None or best[0] < 3 * math.log(n)):
        return best[1], best[2]
    return None, None


def _refine_with_model(levels: list[Level], ws, lat, sigma, notes) -> list[Level]:
    """The levels with each threshold size replaced by the capacity the
    transition model (random page placement, LRU sets; :mod:`.cache_model`)
    fits to the whole curve, with its 95 % interval; notes say what shape
    fits."""
    caches = [lv for lv in levels if lv.size_bytes is not None]
    try:
        fits = fit_transitions(ws, lat, [lv.latency_ns for lv in levels],
                               [lv.size_bytes for lv in caches], sigma)
        dropped = []
        while len(caches) > 1:
            k, fits_k = _least_needed(ws, lat, levels, caches, fits, sigma)
            if k is None:
                break
            dropped.append(caches[k])
            levels = [lv for lv in levels if lv is not caches[k]]
            caches.pop(k)
            fits = fits_k
    except (ValueError, FloatingPointError) as exc:      # keep the threshold sizes
        notes.append(f"transition model not fitted ({exc}); sizes are threshold crossings")
        return levels
    levels = [replace(lv, name=f"L{i + 1}") if lv.size_bytes is not None else lv
              for i, lv in enumerate(levels)]
    if dropped:
        notes.append("the transition model does not need " + ", ".join(
            f"the plateau at {lv.latency_ns:.3g} ns" for lv in dropped)
            + ": part of a gradual transition, not a level")
    # chi-square per point, robustly: the median squared residual over its
    # expectation for a right model (0.455), so that a few points slowed by
    # interference do not reject the shape
    reduced = fits[-1].r2_median / 0.455 if fits else np.inf
    if not reduced <= MAX_REDUCED_CHI2:
        notes.append(f"the transitions do not have the shape of LRU sets over randomly placed "
                     f"pages (median chi-square per point {reduced:.1f}): sizes are threshold "
                     f"crossings (a tenth of the way to the next plateau)")
        return levels
    modelled, out = iter(fits), []
    for lv in levels:
        t = next(modelled, None) if lv.size_bytes is not None else None
        out.append(lv if t is None else
                   replace(lv, transition=t, size_bytes=t.size_bytes,
                           size_bytes_low=t.size_bytes_low, size_bytes_high=t.size_bytes_high))
    levels = out
    notes.append("cache sizes: capacities of the transition model (random page placement, "
                 "LRU sets) fitted to the whole curve, 95 % intervals")
    return levels


#: The bytes of one line of the TLB chase's dense control (tlb_latency
#: layout=dense: ``pages`` lines packed together, in random order).
DENSE_LINE_BYTES = 64


def first_level_pooled(levels: list[Level], curve: pd.DataFrame, tlb: pd.DataFrame | None,
                       notes: list[str], ways: tuple[int, int | None] | None = None
                       ) -> list[Level]:
    """The first cache's capacity fitted again with every chase that is a
    random ring of contiguous lines up to twice its size: the ring, and the
    TLB chase's dense control (``pages`` lines of 64 bytes, on small pages:
    to a cache whose set index lies inside the page, which a sharp first
    step says it is, the pages do not matter).  Something beside the chase
    on the same core (the other hyperthread) takes part of the L1 for
    milliseconds at a time, and a ring near the capacity then misses: each
    chase is a new chance to catch the cache whole, and a point below the
    model weighs more than one above it (:func:`.cache_model.fit_transitions`),
    so the capacity is the one the fastest points show.  ``ways``: (low,
    high) bounds from the same-set chase (:mod:`.associativity`): the step's
    width (a way, C / ways) is held to them, so that a neighbour's gradual
    toll is not read as a cache of few ways.  Unchanged when there is
    neither a control nor a bound, the step is gradual or the fit fails."""
    caches = [lv for lv in levels if lv.size_bytes]
    has_ctl = tlb is not None and "control_ns" in tlb and "pages" in tlb
    if not caches or not (has_ctl or ways):
        return levels
    first = caches[0]
    t = first.transition
    if t is None or t.gradual:
        return levels
    nxt = levels[levels.index(first) + 1]
    top = 2.0 * (first.size_bytes_high or first.size_bytes)
    ctl = pd.DataFrame({"size_bytes": [], "latency_ns": []})
    if has_ctl:
        ctl = pd.DataFrame({"size_bytes": tlb["pages"].astype(float) * DENSE_LINE_BYTES,
                            "latency_ns": tlb["control_ns"].astype(float)})
        ctl = ctl[(ctl.size_bytes <= top) & (ctl.latency_ns > 0)]
    ring = _median_by(curve, "size_bytes", "latency_ns")
    ring = ring[ring.size_bytes <= top]
    # the control's own L1 latency (its pages, its TLB) scaled to the ring's
    low = ctl[ctl.size_bytes <= 0.5 * (first.size_bytes_low or first.size_bytes)]
    if len(low) >= 2:
        ctl = ctl.assign(latency_ns=ctl.latency_ns * first.latency_ns
                         / float(np.median(low.latency_ns)))
    pooled = pd.concat([ring, ctl] if len(ctl) else [ring],
                       ignore_index=True).sort_values("size_bytes")
    grid = WAYS_GRID
    if ways and ways[0]:
        grid = tuple(range(max(1, ways[0]), (ways[1] or 32) + 1))
    if len(pooled) < 6:
        return levels
    y = np.log(ring["latency_ns"].to_numpy(float))
    sigma = _noise_sigma(y)
    try:
        f = fit_transitions(pooled["size_bytes"].to_numpy(float),
                            pooled["latency_ns"].to_numpy(float),
                            [first.latency_ns, nxt.latency_ns], [first.size_bytes], sigma,
                            ways_grid=grid, rounds=2)[0]
    except (ValueError, FloatingPointError):
        return levels
    if f.edge_of_grid:
        return levels
    # a first level's step is sharp (its index lies inside the page): the
    # capacity lies between the measured sizes either side of it
    w = pooled["size_bytes"].to_numpy(float)
    below, above = w[w <= f.size_bytes], w[w > f.size_bytes]
    lo = min(f.size_bytes_low, float(below.max())) if len(below) else f.size_bytes_low
    hi = max(f.size_bytes_high, float(above.min())) if len(above) else f.size_bytes_high
    moved = replace(first, transition=f, size_bytes=f.size_bytes, size_bytes_low=lo,
                    size_bytes_high=hi)
    if abs(math.log(f.size_bytes / first.size_bytes)) > 0.01:
        how = ((["the TLB chase's dense control (a ring of contiguous lines too) beside the "
                 "ring"] if len(ctl) else [])
               + ([f"its ways held to {grid[0]}-{grid[-1]} (the same-set chase)"]
                  if grid is not WAYS_GRID else []))
        notes.append(f"{first.name}: {f.size_bytes / 1024:.1f} KiB [{lo / 1024:.1f}, "
                     f"{hi / 1024:.1f}] with " + " and ".join(how)
                     + f", where the ring alone gave {first.size_bytes / 1024:.1f} KiB: a chase "
                     f"that fits shows the capacity, one slowed by a neighbour on the core does "
                     f"not")
    return [moved if lv is first else lv for lv in levels]


def fit_levels(curve: pd.DataFrame, min_ratio: float = MIN_STEP_RATIO,
               model: bool = True) -> list[Level]:
    """Plateaus of one latency-vs-size curve (columns size_bytes, latency_ns),
    smallest first; the last is main memory (size None).  The number of levels
    comes from the data (at most 6); with ``model`` the sizes are the
    transition model's capacities, else threshold crossings."""
    return _fit_levels(curve, min_ratio, model)[0]


#: The ring chase (mem_latency pattern=random) visits 2 MiB windows one after
#: another (memory.c, random_offsets): a TLB level that holds a window's
#: pages misses only on a window's first touch of each page.
RING_WINDOW_BYTES = 2 << 20


def tlb_penalty_ns(size_bytes, tlb_levels: list[dict], page_bytes: int = 4096,
                   window_bytes: float | None = None) -> np.ndarray:
    """Time a random chase over ``size_bytes`` spends on TLB misses, from the
    fitted TLB levels: level j's miss penalty times the fraction of pages its
    entries cannot hold, 1 - entries x page / size.  ``window_bytes``: the
    chase visits windows of that size one at a time (the ring: 2 MiB), so
    the pages in play are a window's, not the whole size's; None for a chase
    over all of it at once (the random walk)."""
    w = np.asarray(size_bytes, float)
    span = w if window_bytes is None else np.minimum(w, window_bytes)
    pen = np.zeros_like(w)
    for t in tlb_levels:
        pen += t["miss_penalty_ns"] * np.clip(1 - t["entries"] * page_bytes / span, 0.0, 1.0)
    return pen


def _score(levels: list[Level], n: int) -> float:
    """Deviance of the transition model plus 3 ln n per cache level (BIC);
    inf where the model was not used."""
    caches = [lv for lv in levels if lv.size_bytes is not None]
    if not caches or any(lv.transition is None for lv in caches):
        return np.inf
    t = caches[0].transition
    dev = t.deviance if t.deviance_gauss is None else t.deviance_gauss
    return dev + 3 * math.log(n) * len(caches)


def _with_tlb_removed(curve, tlb_levels, min_ratio, levels, notes):
    """A chase whose pages sit on small (host) pages also pays the TLB's
    misses, a step at the TLB's reach that looks like a cache level.  Fit the
    curve again with the measured TLB penalty (4 KiB pages) taken out and
    keep whichever the transition model explains better (BIC).  Returns
    (levels, notes, whether the TLB's misses were taken out)."""
    c = _median_by(curve, "size_bytes", "latency_ns")
    pen = tlb_penalty_ns(c["size_bytes"], tlb_levels, window_bytes=RING_WINDOW_BYTES)
    if not (pen > 0).any() or (c["latency_ns"] - pen <= 0).any():
        return levels, notes, False
    corrected = c.assign(latency_ns=c["latency_ns"] - pen)
    lv2, notes2, _ = _fit_levels(corrected, min_ratio, True)
    n = len(c)
    if _score(lv2, n) < _score(levels, n):
        reach = ", ".join(f"{t['entries']} entries x 4 KiB" for t in tlb_levels)
        return lv2, notes2 + [f"the TLB's misses (measured: {reach}) taken out of the curve "
                              f"before the fit: the model explains it better so (the pages "
                              f"behave as 4 KiB pages, e.g. a guest's huge pages on small "
                              f"host pages)"], True
    return levels, notes + ["the curve fitted as measured (taking the TLB's misses out did "
                            "not explain it better)"], False
