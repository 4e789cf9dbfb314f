"""Line size and TLB levels from their own chases, and the fitted caches
beside the ones the system reports.  Pure functions of DataFrames."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..errors import BenchlibError
from .memory_segments import _crossing, _median_by, _noise_sigma, _plateaus, check_columns

#: Fraction of the gap to the next plateau that marks the end of a TLB plateau.
STEP_FRACTION = 0.10


# ----------------------------------------------------------------- line size

def _pow2_in(lo: float, hi: float) -> int | None:
    """The one power of two in (lo, hi], or None if there are none or several."""
    c = [1 << k for k in range(3, 16) if lo < (1 << k) <= hi]
    return c[0] if len(c) == 1 else None


def read_pairs(pairs: pd.DataFrame) -> dict:
    """Read dependent load pairs (columns distance_bytes, latency_ns; the
    first load at the last word of its line, the second ``distance`` before
    it, as ``line_pair_latency`` lays them out).

    Short distances stay in the first load's line (one miss per pair);
    long ones miss twice.  The line is the smallest distance above the short
    level (by more than the noise and 4 % of the gap), provided every longer
    distance is too, as a power of two.  A middle level between the two,
    reaching the long level at twice the line, is the adjacent-line
    prefetcher: the pair's other line arrives in a nearer cache.  Returns
    {"line": int | None, "adjacent_line_prefetch": bool, "low_ns", "high_ns",
    "middle_ns", "why"}."""
    check_columns(pairs, ["distance_bytes", "latency_ns"])
    p = _median_by(pairs, "distance_bytes", "latency_ns")
    out = {"line": None, "adjacent_line_prefetch": False, "low_ns": None, "high_ns": None,
           "middle_ns": None, "why": ""}
    if len(p) < 4:
        out["why"] = "fewer than 4 distances"
        return out
    d = p["distance_bytes"].to_numpy(float)
    lat = p["latency_ns"].to_numpy(float)
    low_pts = lat[d <= 16] if (d <= 16).sum() >= 1 else lat[:1]
    low = float(np.median(low_pts))
    k = max(1, len(p) // 4)
    high = float(np.median(lat[-k:]))
    out["low_ns"], out["high_ns"] = low, high
    if high / low < 1.2:
        out["why"] = f"no step (long/short {high / low:.2f})"
        return out
    # noise: the spread of repeated samples at each distance (relative MAD)
    raw = pairs.assign(distance_bytes=pairs["distance_bytes"].astype(float),
                       latency_ns=pairs["latency_ns"].astype(float))
    rel = raw.groupby("distance_bytes")["latency_ns"].transform(
        lambda v: np.log(v) - np.log(v.median()))
    sig = 1.4826 * float(np.median(np.abs(rel))) if len(raw) > len(p) else 0.0
    sig = max(0.005, sig if np.isfinite(sig) and sig > 0 else _noise_sigma(np.log(lat)))
    gap = high - low
    up = lat > low + max(4 * sig * low, 0.015 * gap)
    top = lat > high - max(3 * sig * high, 0.25 * gap)
    # the smallest distance from which every longer one is above the short level
    first = None
    for i in range(len(d)):
        if up[i:].all():
            first = i
            break
    if first is None or first == 0:
        out["why"] = "the short level is not below every long distance"
        return out
    line = _pow2_in(d[first - 1], d[first])
    if line is None:
        out["why"] = (f"the step between {d[first - 1]:g} and {d[first]:g} bytes holds no single "
                      "power of two")
        return out
    first_top = next((i for i in range(first, len(d)) if top[i:].all()), None)
    if first_top is not None and first_top > first:
        mid = lat[first:first_top]
        if d[first_top - 1] < 2 * line <= d[first_top]:
            out["adjacent_line_prefetch"] = True
            out["middle_ns"] = float(np.median(mid))
        else:
            out["why"] = (f"a middle level from {d[first]:g} to {d[first_top - 1]:g} bytes that "
                          "is not an adjacent-line pair")
            return out
    out["line"] = line
    return out


def line_size_from_pairs(pairs: pd.DataFrame) -> int | None:
    """The line size :func:`read_pairs` finds, or None."""
    return read_pairs(pairs)["line"]


def read_strides(df: pd.DataFrame, base_ns: float | None = None) -> dict:
    """Read the line from sequential stride curves at sizes beyond the last
    cache (the lmbench paper's reading of its figure): a stride s below the
    line misses on s/line of its loads, so the time above the L1 level
    doubles with each doubling of the stride until the stride reaches the
    line, then stays flat.  With a next-line prefetcher the stride equal to
    the line is served from the prefetched line (a middle level) and the
    full miss appears at twice the line: reported as such, not as the line.
    ``base_ns``: the L1 latency (default: the table's smallest sizes).
    Returns {"line", "next_line_prefetch", "why"}."""
    check_columns(df, ["size_bytes", "stride_bytes", "latency_ns"])
    out = {"line": None, "next_line_prefetch": False, "why": ""}
    d = df
    if "pattern" in d.columns:
        pat = d["pattern"].astype(str).str.lower()
        d = d[pat != "random"]
    strides = sorted(int(s) for s in d["stride_bytes"].unique() if int(s) <= 4096)
    strides = [s for s in strides if s & (s - 1) == 0]
    if len(strides) < 3:
        out["why"] = "fewer than 3 power-of-two strides"
        return out
    curves = {s: _median_by(d[d["stride_bytes"] == s], "size_bytes", "latency_ns")
              for s in strides}
    lat = _large_size_latency(curves)
    if base_ns is None:                 # the table's smallest sizes: every load an L1 hit
        sizes = np.sort(d["size_bytes"].astype(float).unique())
        small = d[d["size_bytes"].astype(float) <= sizes[min(2, len(sizes) - 1)]]
        base_ns = float(small["latency_ns"].astype(float).median())
    base = float(base_ns)
    e = np.array([max(lat[s] - base, 1e-9) for s in strides])
    r = e[1:] / e[:-1]                      # growth per doubling
    if not r[0] >= 1.5:
        out["why"] = (f"no growth from stride {strides[0]} to {strides[1]} (x{r[0]:.2f}): the "
                      "smallest stride already reaches the line, or a prefetcher hides the misses")
        return out
    i = 0
    while i < len(r) and 1.5 <= r[i] <= 2.6:
        i += 1
    line = strides[i]
    if i == len(r):
        out["why"] = "the time still grows at the largest stride"
        return out
    if r[i] <= 1.3:
        out["line"] = line
    elif r[i] >= 2.6 and (i + 1 == len(r) or r[i + 1] <= 1.3):
        out["line"] = line
        out["next_line_prefetch"] = True
    else:
        out["why"] = f"growth x{r[i]:.2f} after stride {line} fits neither reading"
    return out


def line_size_from_strides(df: pd.DataFrame) -> int | None:
    """The line size :func:`read_strides` finds, or None."""
    return read_strides(df)["line"]


def _large_size_latency(curves: dict) -> dict:
    from .memory_fit import _large_size_latency as f
    return f(curves)


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
            "agree": None if lp is None or ls is None else lp == ls}
    notes = []
    if info["adjacent_line_prefetch"]:
        notes.append(f"adjacent-line prefetch: the line is {lp} bytes, fetched in pairs of "
                     f"{2 * lp} (the pair's other line costs {pairs['middle_ns']:.3g} ns, "
                     f"not a second miss)")
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


