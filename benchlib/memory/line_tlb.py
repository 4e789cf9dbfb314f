"""Line size and TLB levels from their own chases, and the fitted caches
beside the ones the system reports.  Pure functions of DataFrames."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.memory.segments import (MIN_STEP, _crossing, _median_by, _noise_sigma, _plateaus,
                                      check_columns)

#: Fraction of the gap to the next plateau that marks the end of a TLB plateau.
STEP_FRACTION = 0.10


# ----------------------------------------------------------------- line size

def _pow2_in(lo: float, hi: float) -> int | None:
    """The one power of two in (lo, hi], or None if there are none or several."""
    c = [1 << k for k in range(3, 16) if lo < (1 << k) <= hi]
    return c[0] if len(c) == 1 else None


#: The smallest step the line-size readers take for one (a ratio of times).
MIN_LINE_STEP = 1.02


def _levels_sse(y: np.ndarray, cuts: tuple[int, ...]) -> tuple[float, list[float]]:
    """Sum of squared deviations of y from one median per run between cuts."""
    bounds = (0,) + cuts + (len(y),)
    meds = [float(np.median(y[a:b])) for a, b in zip(bounds[:-1], bounds[1:])]
    sse = sum(float(np.sum((y[a:b] - m) ** 2))
              for (a, b), m in zip(zip(bounds[:-1], bounds[1:]), meds))
    return sse, meds


def _by_distance(table: pd.DataFrame, values, keys: pd.Series, how: str) -> np.ndarray:
    """``values`` (one per row of ``table``) aggregated per distance
    (``how``: a pandas groupby reduction), in the order of ``keys``; NaN
    where a key has none."""
    by = pd.Series(np.asarray(values, float), index=table["distance_bytes"].astype(float))
    return by.groupby(level=0).agg(how).reindex(keys.astype(float).to_numpy()).to_numpy()


def _point_variance(table: pd.DataFrame, keys: pd.Series) -> np.ndarray:
    """Each point's median's variance in log units from its own samples
    (``rel_iqr``, ``n_samples``: a median of n draws has a standard error
    1.253 sigma / sqrt(n), sigma = IQR / 1.349), one per key in ``keys``
    (a key of several rows: the variance of their mean); zeros where the
    table lacks them."""
    if not {"rel_iqr", "n_samples"} <= set(table.columns):
        return np.zeros(len(keys))
    n = pd.to_numeric(table["n_samples"], errors="coerce").clip(lower=1)
    v = (1.253 * pd.to_numeric(table["rel_iqr"], errors="coerce") / 1.349) ** 2 / n
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nan_to_num(_by_distance(table, v, keys, "mean")
                             / _by_distance(table, v, keys, "count"), nan=0.0)


def _fastest(table: pd.DataFrame, keys: pd.Series) -> np.ndarray:
    """Each key's fastest sample (``min``, in the unit of ``latency_ns``),
    ln; +inf where the table lacks it (no constraint)."""
    if "min" not in table.columns:
        return np.full(len(keys), np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(_by_distance(table, pd.to_numeric(table["min"], errors="coerce"), keys,
                                  "min"))
    return np.where(np.isfinite(out), out, np.inf)


def read_pairs(pairs: pd.DataFrame) -> dict:
    """Read dependent load pairs (columns distance_bytes, latency_ns; the
    first load at the last word of its line, the second ``distance`` before
    it, as ``line_pair_latency`` lays them out).

    Short distances stay in the first load's line (one miss per pair);
    longer ones reach another line.  The time against distance is fitted as
    one, two or three levels (a step at a distance the data choose, the
    medians of ln time between steps; the number of levels by BIC), and the
    line is the one power of two between the last distance of the first
    level and the first of the next.  A middle level between the short and
    the long one is a prefetcher that brings nearby lines with the miss: when
    it ends at twice the line it is the adjacent-line (pair) prefetcher,
    otherwise a spatial one (``middle_to_bytes``: the last distance it
    serves).  A step must stand out of the noise (3 standard errors of its
    levels, from the residuals or from the points' own sample spread,
    whichever is larger, and at least 2 %), and every point above it must
    have its fastest sample (``min``, where the table has it) above the
    level below: a load that reaches further is never as fast.  Returns
    {"line": int | None, "adjacent_line_prefetch": bool, "low_ns",
    "high_ns", "middle_ns", "middle_to_bytes", "why"}."""
    check_columns(pairs, ["distance_bytes", "latency_ns"])
    p = _median_by(pairs, "distance_bytes", "latency_ns")
    point_var = _point_variance(pairs, p["distance_bytes"])
    fastest = _fastest(pairs, p["distance_bytes"])
    out = {"line": None, "adjacent_line_prefetch": False, "low_ns": None, "high_ns": None,
           "middle_ns": None, "middle_to_bytes": None, "why": ""}
    if len(p) < 4:
        out["why"] = "fewer than 4 distances"
        return out
    d = p["distance_bytes"].to_numpy(float)
    y = np.log(p["latency_ns"].to_numpy(float))
    n = len(y)
    # the first level must hold the distances inside any line (<= 16 bytes)
    first_ok = max(1, int(np.sum(d <= 16)))
    fits = {(): _levels_sse(y, ())}
    for i in range(first_ok, n):
        fits[(i,)] = _levels_sse(y, (i,))
        for j in range(i + 1, n):
            fits[(i, j)] = _levels_sse(y, (i, j))

    def bic(cuts):
        sse = max(fits[cuts][0], 1e-12 * n)
        return n * math.log(sse / n) + 2 * len(cuts) * math.log(n)

    def valid(cuts):
        """Every step rises by 3 standard errors of its two levels' medians
        and by MIN_LINE_STEP.  A level's error is the larger of the model's
        own residuals' and its points' (each point's median uncertain by
        its samples' spread: a point whose samples fall in two modes, as
        the Zen 4 guest's pairs do at 5.86 and 6.23 ns within one line,
        moves its median between them from run to run)."""
        sse, meds = fits[cuts]
        sig = max(0.005, math.sqrt(sse / max(1, n - 2 * len(cuts) - 1)))
        bounds = (0,) + cuts + (n,)
        sizes = np.diff(bounds)
        var = np.array([max(sig ** 2 / k, float(np.sum(point_var[a:b])) / k ** 2)
                        for a, b, k in zip(bounds[:-1], bounds[1:], sizes)])
        steps = np.diff(meds)
        se = np.sqrt(var[:-1] + var[1:])
        # a load that reaches further is never as fast as one below the
        # step: every point above it has its fastest sample above the upper
        # quartile of the medians of the points below it (a neighbour slows
        # samples, never speeds one; the points inside a line on the Zen 4
        # guest run in two modes, 5.86 and 6.23 ns, and where half of them
        # ran slow the level's median lay between the modes and a step
        # between 32 and 48 bytes passed: memruns26f/full, session 26; one
        # point a neighbour slowed does not move the quartile)
        apart = all(float(np.min(fastest[a:b])) > float(np.quantile(y[c:a], 0.75))
                    for c, a, b in zip(bounds[:-2], bounds[1:-1], bounds[2:]))
        return apart and bool(np.all(steps > np.maximum(3 * se, math.log(MIN_LINE_STEP))))
    ranked = sorted(fits, key=bic)
    cuts = next((c for c in ranked if not c or valid(c)), ())
    sse, meds = fits[cuts]
    out["low_ns"], out["high_ns"] = math.exp(meds[0]), math.exp(meds[-1])
    if not cuts:
        why = "no step: one level fits the pairs as well as any step"
        if ranked[0]:
            st = np.diff(fits[ranked[0]][1])
            why = (f"no clear step (the best steps, x{', x'.join(f'{math.exp(v):.2f}' for v in st)}, "
                   "do not stand out of the noise or do not rise)")
        out["why"] = why
        return out
    i = cuts[0]
    line = _pow2_in(d[i - 1], d[i])
    if line is None:
        out["why"] = (f"the step between {d[i - 1]:g} and {d[i]:g} bytes holds no single "
                      "power of two")
        return out
    out["line"] = line
    if len(cuts) == 2:
        j = cuts[1]
        out["middle_ns"] = math.exp(meds[1])
        out["middle_to_bytes"] = float(d[j - 1])
        out["adjacent_line_prefetch"] = bool(d[j - 1] < 2 * line <= d[j])
    return out


def line_size_from_pairs(pairs: pd.DataFrame) -> int | None:
    """The line size :func:`read_pairs` finds, or None."""
    return read_pairs(pairs)["line"]


#: Largest line a stride reading may find (Apple's and POWER's 128 bytes):
#: a chase at this stride or below that costs less than PREFETCH_SERVED of a
#: memory access per load is served by a prefetcher.
STRIDE_LINE_MAX = 128
PREFETCH_SERVED = 0.5


def read_strides(df: pd.DataFrame, base_ns: float | None = None,
                 memory_ns: float | None = None, hit_ns: float | None = None) -> dict:
    """Read the line from sequential stride curves at sizes beyond the last
    cache (the lmbench paper's reading of its figure): a stride s below the
    line misses on s/line of its loads, so the time above the L1 level
    grows with the stride until the stride reaches the line, then flattens
    (further growth, at strides of a fraction of a page, is the TLB's).

    The line is the stride where the growth per doubling drops most
    sharply: it grew by at least 1.5x into it and grows by at least 1.5x
    less out of it.  A stream prefetcher hides part of the small strides'
    misses (growth below the line faster than proportional): the stride
    where the growth stops is still the line.  With a next-line prefetcher
    the stride equal to the line is served from the prefetched line (a
    middle level) and the full miss appears at twice the line: a jump of
    more than 2.6x after a proportional doubling (1.5-2.6x) is read so.
    ``base_ns``: the L1 latency (default: the table's smallest sizes).

    ``memory_ns``: a load's latency from memory as a random chase measured
    it, where known.  Past the last cache a stride at or beyond the line
    costs one memory access a load unless a prefetcher fetched the line
    ahead; where every stride up to STRIDE_LINE_MAX costs less than
    PREFETCH_SERVED of a memory access, the lines come from a stream
    prefetcher (into L1 or L2), the curve's growth with the stride is how
    far the prefetcher and the L1's own next-line fetches hide each stride,
    not one miss per line, and no line is read from it (``prefetch_served``,
    with the reason; the Zen 3 guest's curves cost 15-20 cycles a load at
    strides 64-128 where memory takes 250, and read 16, 32, 64 or 128 from
    run to run).

    The stride below the line misses L1 on at least half its loads, each
    at least the next level's hit (``hit_ns``, where the fit knows it;
    else read from the curves that start at L1, :func:`_next_level_hit`):
    one that costs less than SERVED_SHARE of that past every cache is
    served into L1 by a prefetcher, and no line is read either.
    Returns {"line", "next_line_prefetch", "prefetch_served", "why"}."""
    check_columns(df, ["size_bytes", "stride_bytes", "latency_ns"])
    out = {"line": None, "next_line_prefetch": False, "prefetch_served": False, "why": ""}
    d = df
    if "pattern" in d.columns:
        pat = d["pattern"].astype(str).str.lower()
        d = d[~pat.isin(["random", "walk", "same_set"])]
    strides = sorted(int(s) for s in d["stride_bytes"].unique() if int(s) <= 4096)
    strides = [s for s in strides if s & (s - 1) == 0]
    if len(strides) < 3:
        out["why"] = "fewer than 3 power-of-two strides"
        return out
    curves = {s: _median_by(d[d["stride_bytes"] == s], "size_bytes", "latency_ns")
              for s in strides}
    lat = _large_size_latency(curves)
    upto = [lat[s] for s in strides if s <= STRIDE_LINE_MAX and np.isfinite(lat[s])]
    if memory_ns and upto and max(upto) < PREFETCH_SERVED * memory_ns:
        out["prefetch_served"] = True
        out["why"] = (f"unusable here: every stride up to {STRIDE_LINE_MAX} bytes costs at most "
                      f"{max(upto):.3g} ns a load where memory takes {memory_ns:.3g} ns (the "
                      f"random chase), so a stream prefetcher fetches the lines ahead of the "
                      f"chase and the growth with the stride is the prefetchers', not one miss "
                      f"per line")
        return out
    if base_ns is None:                 # the table's smallest sizes: every load an L1 hit
        sizes = np.sort(d["size_bytes"].astype(float).unique())
        small = d[d["size_bytes"].astype(float) <= sizes[min(2, len(sizes) - 1)]]
        base_ns = float(small["latency_ns"].astype(float).median())
    base = float(base_ns)
    # time above the L1 level; a stride whose misses are all hidden is at
    # the floor (3 % of the L1 time), so its growth is not a ratio of noise
    e = np.array([max(lat[s] - base, 0.03 * base, 1e-12) for s in strides])
    # r[k]: growth per doubling from strides[k] to strides[k + 1]
    doublings = np.log2(np.array(strides[1:], float) / np.array(strides[:-1], float))
    r = (e[1:] / e[:-1]) ** (1.0 / doublings)
    best, best_drop = None, math.log(1.5)
    for k in range(1, len(strides) - 1):    # strides[k]: grown into, and out of
        r_in, r_out = r[k - 1], r[k]
        drop = math.log(r_in) - math.log(r_out)
        # the stride after it must be twice it: otherwise the growth may
        # stop anywhere between the two, and no single line is read
        if r_in >= 1.5 and drop >= best_drop and strides[k + 1] == 2 * strides[k]:
            best, best_drop = k, drop
    if best is None:
        grows = bool((r >= 1.5).any())
        out["why"] = ("the time still grows at the largest strides" if grows and r[-1] >= 1.5
                      else "no stride where the growth stops" if grows else
                      f"no growth with the stride (x{r.max():.2f} at most): the smallest stride "
                      "already reaches the line, or a prefetcher hides the misses")
        return out
    r_in = r[best - 1]
    before = r[best - 2] if best >= 2 else None
    if r_in > 2.6 and before is not None and 1.5 <= before <= 2.6:
        out["line"] = strides[best - 1]
        out["next_line_prefetch"] = True
    else:
        out["line"] = strides[best]
        if r_in > 2.6:
            out["why"] = (f"growth x{r_in:.1f} into stride {strides[best]}: a prefetcher hides "
                          "part of the smaller strides' misses")
    # the stride below the line misses on at least half its loads, each an
    # L1 miss that costs at least the next level's hit; one that costs
    # less past every cache has its lines brought into L1 ahead of it, and
    # then the growth stops where that prefetcher stops following, which
    # says nothing of the line
    k = strides.index(out["line"])
    hit = hit_ns if hit_ns else _next_level_hit(curves, [s for s in strides
                                                          if s >= out["line"]], base)
    if k > 0 and hit is not None and e[k - 1] < SERVED_SHARE * 0.5 * (hit - base):
        below = strides[k - 1]
        out.update(line=None, next_line_prefetch=False, prefetch_served=True, why=(
            f"unusable here: stride {below} costs {base + e[k - 1]:.3g} ns a load past every "
            f"cache, less than half its loads missing L1 at the next level's {hit:.3g} ns would "
            f"(L1 {base:.3g} ns), so a prefetcher brings its lines into L1 and the growth "
            f"into stride {strides[k]} is where it stops following, not the line"))
    return out


#: A stride below the line costs at least half an L1 miss a load; one that
#: costs less than this share of that (room for the curves' noise) is
#: served into L1 by a prefetcher (:func:`read_strides`).
SERVED_SHARE = 0.8


def _next_level_hit(curves: dict[int, pd.DataFrame], strides: list[int],
                    base: float) -> float | None:
    """The latency of the level after L1 as the stride curves show it: on
    each curve of ``strides`` that starts on the L1 plateau (its smallest
    size within MIN_STEP x ``base``), the median of the points from the
    first that rises past MIN_STEP x base to twice its size (the plateau's
    first octave: eight points of lat_mem_rd's sizes, where a point inside
    the step is one of eight); the median over the curves (a prefetcher makes the
    smaller strides' plateau faster, as stride 128's is on the Zen 4 guest,
    2.9 ns against 3.8; a TLB miss a load makes stride 4096's slower, 4.6).
    None where no curve starts at L1 (a table of large sizes only, as
    benchlib's own line strides are: there the random chase's memory
    latency decides, ``memory_ns``)."""
    out = []
    for s in strides:
        y = curves[s]["latency_ns"].to_numpy(float)
        w = curves[s]["size_bytes"].to_numpy(float)
        if len(y) < 4 or y[0] > MIN_STEP * base:
            continue
        up = np.flatnonzero(y > MIN_STEP * base)
        if len(up):
            first = w[up[0]]
            out.append(float(np.median(y[up[0]:][w[up[0]:] <= 2 * first])))
    return float(np.median(out)) if out else None


def line_size_from_strides(df: pd.DataFrame) -> int | None:
    """The line size :func:`read_strides` finds, or None."""
    return read_strides(df)["line"]


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


def reconcile_line_sizes(pairs: dict | None, strides: dict | None
                         ) -> tuple[int | None, dict, list[str]]:
    """The line size from the two measurements, what each says, and notes.
    Agreeing: that size.  One only: that one, said.  Disagreeing: both
    reported and said; the load pairs' size is kept (the stride curves are
    the ones prefetchers distort)."""
    lp = pairs.get("line") if pairs else None
    ls = strides.get("line") if strides else None
    info = {"pairs": lp, "strides": ls,
            "adjacent_line_prefetch": bool(pairs and pairs.get("adjacent_line_prefetch")),
            "next_line_prefetch": bool(strides and strides.get("next_line_prefetch")),
            "strides_prefetch_served": bool(strides and strides.get("prefetch_served")),
            "agree": None if lp is None or ls is None else lp == ls}
    notes = []
    if info["adjacent_line_prefetch"]:
        notes.append(f"adjacent-line prefetch: the line is {lp} bytes, fetched in pairs of "
                     f"{2 * lp} (the pair's other line costs {pairs['middle_ns']:.3g} ns, "
                     f"not a second miss)")
    elif pairs and pairs.get("middle_to_bytes") and lp is not None:
        notes.append(f"a spatial prefetcher: lines up to {pairs['middle_to_bytes']:g} bytes from "
                     f"the first load's cost {pairs['middle_ns']:.3g} ns, not a second miss (the "
                     f"line is the first step, {lp} bytes)")
    if info["next_line_prefetch"]:
        notes.append(f"next-line prefetch: stride {ls} is served from the prefetched line; "
                     f"full misses start at {2 * ls}")
    if lp is None and ls is None:
        why = "; ".join(x for x in ((pairs or {}).get("why"), (strides or {}).get("why")) if x)
        notes.append("line size: not found" + (f" ({why})" if why else ""))
        return None, info, notes
    if lp is not None and ls is not None:
        if lp == ls:
            notes.append(f"line size {lp} bytes: load pairs and stride curves agree")
        else:
            notes.append(f"line size: load pairs say {lp} bytes, stride curves {ls}: they "
                         f"disagree; {lp} (load pairs) kept")
        return lp, info, notes
    line = lp if lp is not None else ls
    src = "load pairs" if lp is not None else "stride curves"
    other = (strides or {}).get("why") if lp is not None else (pairs or {}).get("why")
    notes.append(f"line size {line} bytes from {src} only"
                 + (f" (the other: {other})" if other else ""))
    return line, info, notes


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
    ``reported_in_interval``: whether the reported size lies inside the
    fitted level's 95 % interval (None where nothing is reported or the
    level matches a sum).  Columns: level, fitted_size_bytes,
    reported_size_bytes, ratio, reported_sum_bytes, ratio_vs_sum, matches,
    resolved, reported_in_interval, note, and the ways: fitted_ways (None where
    not identified), ways_low, ways_high, reported_ways (sysfs's
    ways_of_associativity) and ways_note (the reading, or why there is none)."""
    rep: dict[int, float] = {}
    rep_ways: dict[int, int] = {}
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
        if c.get("ways"):
            rep_ways[lvl] = int(c["ways"])
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
               "resolved": None, "reported_in_interval": None, "note": ""}
        a = getattr(lv, "associativity", None)
        row.update({"fitted_ways": None if a is None else a.ways,
                    "ways_low": None if a is None else a.low,
                    "ways_high": None if a is None else a.high,
                    "reported_ways": rep_ways.get(k),
                    "ways_note": "" if a is None else a.words()})
        lo = lv.size_bytes_low if lv.size_bytes_low is not None else lv.size_bytes
        hi = lv.size_bytes_high if lv.size_bytes_high is not None else lv.size_bytes
        if reported is not None:
            row["matches"] = f"L{k}"
            row["reported_in_interval"] = bool(lo <= reported <= hi)
            if not row["reported_in_interval"]:
                row["note"] = (f"the reported {reported / 1024:.0f} KiB lies outside the fitted "
                               f"95 % interval [{lo / 1024:.0f}, {hi / 1024:.0f}] KiB: the chase "
                               f"keeps {'more' if reported < lo else 'less'} than the system "
                               "reports")
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
            interval_note = row["note"]
            if e_sum < e_own:
                row["matches"] = f"L{k - 1}+L{k}"
                lo_s, hi_s = lo, hi
                row["reported_in_interval"] = bool(lo_s <= total <= hi_s)
                interval_note = "" if row["reported_in_interval"] else (
                    f"the reported L{k - 1}+L{k}, {total / 1024:.0f} KiB, lies outside the fitted "
                    f"95 % interval [{lo_s / 1024:.0f}, {hi_s / 1024:.0f}] KiB: the chase keeps "
                    f"{'more' if total < lo_s else 'less'} than the system reports")
                row["note"] = (f"matches L{k - 1}+L{k} better than L{k}: "
                               f"looks exclusive/victim")
            else:
                row["note"] = f"matches L{k} better than L{k - 1}+L{k}: looks inclusive"
            both_inside = lo <= reported <= hi and lo <= total <= hi
            row["resolved"] = bool(apart >= math.log(1.10) and not both_inside)
            if not row["resolved"]:
                row["note"] += (f" (weakly: L{k} and L{k - 1}+L{k} differ by only "
                                f"{100 * (math.exp(apart) - 1):.0f} %, within this method's "
                                f"resolution)")
            if interval_note:
                row["note"] += "; " + interval_note
        held = sum(v for j, v in rep.items() if j <= k)
        if rep and lo > held and lv.ring_size_bytes is None:
            row["note"] += (("; " if row["note"] else "")
                            + f"more than the reported caches up to L{k} hold together "
                              f"({held / 1024:.0f} KiB): a cache whose replacement policy is not "
                              "LRU keeps part of a ring larger than itself, which the ring's LRU "
                              "model reads as capacity (the random walk, which is not misled, "
                              "runs only within the TLB's reach)")
        rows.append(row)
    if len(cache_levels) < len(rep_levels):
        missing = [f"L{k}" for k in rep_levels if k > len(cache_levels)]
        rows.append({"level": "/".join(missing), "fitted_size_bytes": None,
                     "reported_size_bytes": sum(rep[k] for k in rep_levels
                                                if k > len(cache_levels)),
                     "ratio": None, "reported_sum_bytes": None, "ratio_vs_sum": None,
                     "matches": None, "resolved": None, "reported_in_interval": None,
                     "note": "reported but not found as a separate plateau in the curve"})
    return pd.DataFrame(rows, columns=["level", "fitted_size_bytes", "reported_size_bytes",
                                       "ratio", "reported_sum_bytes", "ratio_vs_sum",
                                       "matches", "resolved", "reported_in_interval",
                                       "fitted_ways", "ways_low", "ways_high", "reported_ways",
                                       "note", "ways_note"])


