"""A cache's ways (associativity): what reads them, and the first level's
capacity they pin.

Two readings, each where it can see the ways:

* **The same-set chase** (:func:`ways_from_same_set`): a ring of N lines
  one page apart (mem_latency at stride_bytes = the page, sizes N pages).
  A first-level cache's set index lies inside the page (it is virtually
  indexed, and a way is at most a page), so all N lines share one set: the
  ring stays in L1 while N <= ways and leaves it at N = ways + 1, whatever
  the replacement policy.  Its lap is a few dozen loads, yet a thread on
  the core's other hyperthread, which shares the L1, can evict its lines in
  some samples.  A sample that stays in L1 proves the ways; a miss may have
  been slowed, so the reading is the largest N whose fastest sample hits
  and the first N above it that misses.
* **The random walk's shape** (:func:`ways_from_walk`): above the first
  level the set index comes from the physical page, and the walk's
  transition spreads with the page colours, C / (ways x page): the fit's
  profile over 1-32 ways (:func:`.walk.fit_walk`).  It is named,
  not taken: the shape moves as much with where the pages landed as with
  the ways, so above the first level the ways are "not identified".

:func:`pin_first_level` then uses the ways: a first level is ways x
(sets x line), a power of two per way no larger than the page, so with the
ways known exactly the ring's capacity (within a factor of 1.4) picks one
size.  Pure: a function of tables and fits."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

from benchlib.memory.hierarchy import Associativity, Level
from benchlib.memory.segments import fastest_samples

#: The page the same-set chase's lines are apart (and the largest way of a
#: first-level cache: its index lies inside the page).
PAGE_BYTES = 4096
#: The same-set chase reads at most this many lines (ways 1-32).
MAX_SET_LINES = 33
#: A same-set point with latency below this fraction of the way from the L1
#: plateau to the L2's stays in L1.
HIT_FRACTION = 0.5


def same_set_curve(latency: pd.DataFrame, page: int = PAGE_BYTES) -> pd.DataFrame | None:
    """The same-set chase's points in a latency table (rows of pattern
    same_set where there are any, else every row at stride_bytes = ``page``
    in any order; at most MAX_SET_LINES lines): lines, and the
    fastest latency measured at that count, the fastest sample where the
    table has it (:func:`.segments.fastest_samples`: a thread on the core's
    other hyperthread shares the L1 and evicts lines of the full set in
    some samples; on the EPYC guest, tests/memory/data/live_epyc/m4q4: 8 lines one page apart,
    median 2.6 ns, fastest sample 1.4 ns, an L1 hit, had read as 7 ways and
    a 28 KiB L1); None when there are none."""
    if "stride_bytes" not in latency:
        return None
    d = latency[pd.to_numeric(latency["stride_bytes"], errors="coerce") == page]
    if "pattern" in d and (d["pattern"].astype(str) == "same_set").any():
        d = d[d["pattern"].astype(str) == "same_set"]      # the chase made for it
    if d.empty:
        return None
    lines = (d["size_bytes"].astype(float) // page).astype(int)
    d = fastest_samples(d).assign(lines=lines)[(lines >= 2) & (lines <= MAX_SET_LINES)]
    if d.empty:
        return None
    return (d.groupby("lines", as_index=False)["latency_ns"].min()
            .sort_values("lines", ignore_index=True))


def ways_from_same_set(curve: pd.DataFrame | None, l1_ns: float, l2_ns: float
                       ) -> Associativity:
    """The first level's ways from the same-set chase's points (``curve``:
    lines, latency_ns), with the L1 and L2 plateau latencies as the hit and
    miss references."""
    if curve is None or curve.empty:
        return Associativity(reason="no same-set chase (lines one page apart) in the input")
    if not l2_ns > l1_ns:
        return Associativity(reason="no step from the L1 plateau to the next level to read "
                                    "the same-set chase against")
    thr = l1_ns + HIT_FRACTION * (l2_ns - l1_ns)
    hit = curve["latency_ns"].to_numpy(float) <= thr
    n = curve["lines"].to_numpy(int)
    low = int(max([1] + list(n[hit])))
    above = n[(~hit) & (n > low)]
    if not len(above):
        return Associativity(low=low, source="same-set chase",
                             reason=f"the same-set chase stays in L1 up to its last point "
                                    f"({int(n.max())} lines in one set)")
    high = int(above.min()) - 1
    said = (f"same-set chase: {low} lines one page apart stay in L1, {high + 1} do not")
    if high - low > 1:
        return Associativity(low=low, high=high, source="same-set chase",
                             reason=f"{said}; no point between them")
    return Associativity(ways=low, low=low, high=high, source="same-set chase",
                         reason=said)


def ways_from_walk(t) -> Associativity:
    """What a random walk's fit (:class:`.cache_model.Transition`) says of
    the ways: not identified.  The walk's shape depends on them only through
    the page colours, and on simulated caches whose pages landed at random
    it moves less with the ways than with where the pages landed (an 8-way
    cache fits 10-12 ways as well), so the span that fits is named in the
    reason, not given as an interval."""
    if t.ways_low is None:
        return Associativity(source="random walk", reason=(
            "the random walk's transition fits contiguous memory as well (no page "
            "colours), whose shape does not depend on the ways"))
    return Associativity(source="random walk", reason=(
        f"the random walk's shape fits {t.ways_low} to {t.ways_high} ways within its noise, "
        f"but moves as much with where its pages landed as with the ways"))


def ways_from_ring(t) -> Associativity:
    """A ring-fitted level: its shape is the one LRU sets give, which another
    replacement policy changes, so it does not read the ways."""
    if t is None:
        return Associativity(reason="no transition model was fitted to this level")
    return Associativity(reason="only the ring chase spans this level, and its shape past "
                                "the capacity is the replacement policy's as much as the "
                                "ways'")


def pin_first_level(level: Level, assoc: Associativity, line: int = 64,
                    page: int = PAGE_BYTES) -> tuple[Level, str | None]:
    """The first level's capacity as ways x way, the way a power of two from
    a line to the page (a first level's set index lies inside the page), when
    the ring's step is sharp: with the ways known exactly, the candidate
    nearest (in log) to the ring's capacity, if within a factor of 1.4;
    with the ways only bounded (low to high), the one candidate inside the
    ring's interval, if there is exactly one.  Its interval: the
    candidates inside the ring's interval, and the one chosen.  Returns
    (level, note); the level as it was where nothing pins it."""
    t = level.transition
    if assoc.low is None or level.size_bytes is None or (t is not None and t.gradual):
        return level, None
    lo_r = level.size_bytes_low or level.size_bytes
    hi_r = level.size_bytes_high or level.size_bytes
    ways = [assoc.ways] if assoc.ways is not None else \
        list(range(assoc.low, (assoc.high or assoc.low) + 1)) if assoc.high else []
    cands = sorted({w * line * 2 ** k for w in ways
                    for k in range(0, int(math.log2(page // line)) + 1)})
    if not cands:
        return level, None
    inside = [c for c in cands if lo_r <= c <= hi_r]
    if assoc.ways is not None:
        best = min(cands, key=lambda c: abs(math.log(c / level.size_bytes)))
        if abs(math.log(best / level.size_bytes)) > math.log(math.sqrt(2.0)):
            return level, None
        how = f"{assoc.ways} ways x {best // assoc.ways} bytes"
    elif len(inside) == 1:
        best = inside[0]
        w = next(w for w in ways if best % w == 0 and (best // w) & (best // w - 1) == 0)
        how = (f"{w} ways x {best // w} bytes, the one such size inside the ring's interval "
               f"with {assoc.low}-{assoc.high} ways")
    else:
        return level, None
    inside = inside + [best]
    pinned = replace(level, size_bytes=float(best), size_bytes_low=float(min(inside)),
                     size_bytes_high=float(max(inside)), pinned_from=(level.size_bytes, lo_r, hi_r))
    note = (f"{level.name}: {best / 1024:.0f} KiB = {how} (the same-set chase's ways, and a way "
            f"of a power of two no larger than the page; the ring gave "
            f"{level.size_bytes / 1024:.1f} KiB [{lo_r / 1024:.1f}, {hi_r / 1024:.1f}])")
    return pinned, note


def read_ways(levels: list[Level], latency: pd.DataFrame, line: int | None = None
              ) -> tuple[list[Level], list[str]]:
    """Each cache level's associativity from what the latency table holds:
    the first from the same-set chase (and its capacity pinned by it,
    :func:`pin_first_level`), the others from the ring (not identified; the
    random walk reads them later, :func:`.walk.refit_with_walk`).  Returns
    (levels, notes)."""
    caches = [lv for lv in levels if lv.size_bytes]
    if not caches:
        return levels, []
    nxt = levels[levels.index(caches[0]) + 1]
    a1 = ways_from_same_set(same_set_curve(latency), caches[0].latency_ns, nxt.latency_ns)
    out, notes = [], []
    for lv in levels:
        if lv is caches[0]:
            lv = replace(lv, associativity=a1)
            lv, note = pin_first_level(lv, a1, line or 64)
            if note:
                notes.append(note)
        elif lv.size_bytes:
            lv = replace(lv, associativity=ways_from_ring(lv.transition))
        out.append(lv)
    return out, notes


__all__ = ["read_ways", "same_set_curve", "ways_from_same_set", "ways_from_walk", "ways_from_ring",
           "pin_first_level", "PAGE_BYTES", "MAX_SET_LINES"]
