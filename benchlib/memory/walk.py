"""Cache sizes from a random walk (mem_latency pattern=walk).

A ring chase revisits a set's lines in one fixed cycle, so what a cache
keeps past its capacity depends on its replacement policy, and the ring's
LRU model trades the policy against the capacity; a random walk revisits
them at random intervals, so any policy keeps ways/n of a set that n lines
share (cache_model.kept_fraction(..., access="walk")).
:func:`refit_with_walk` gives a new fit in which each level the walk's curve
spans has the walk's size, the ring's kept beside it.  A part of the fit
step (:func:`.fit.fit_memory` calls it); pure."""
from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd

from benchlib.memory.associativity import ways_from_walk
from benchlib.memory.cache_model import SEARCH_OCTAVES, SMALL_PAGE, fit_walk
from benchlib.memory.levels import tlb_penalty_ns
from benchlib.memory.hierarchy import Level, MemoryFit
from benchlib.memory.segments import _median_by, check_columns


def refit_with_walk(fit: MemoryFit, walk: pd.DataFrame) -> MemoryFit:
    """A new fit in which each cache above the first whose transition the
    random walk's curve spans (a quarter of its ring size to 4 times it)
    has its capacity from that curve (:func:`.cache_model.fit_walk`): a
    ring chase's shape past the capacity depends on the cache's replacement
    policy (an LRU set of n > ways lines keeps none of a ring, other
    policies keep some, and the two trade against the capacity in the fit),
    a random walk's does not.  ``walk``: size_bytes, latency_ns
    (pattern=walk, same units as the fit).  The TLB's misses are taken out
    first where the ring's fit took them out.  The first cache keeps the
    ring's size (its set index lies inside the page: a ring fits it or not,
    whatever the policy).  ``fit`` itself is left as it was."""
    check_columns(walk, ["size_bytes", "latency_ns"])
    c = _median_by(walk, "size_bytes", "latency_ns")
    if fit.tlb_removed:
        c = c.assign(latency_ns=c["latency_ns"] - tlb_penalty_ns(c["size_bytes"], fit.tlb))
    levels, notes = list(fit.levels), list(fit.notes)
    caches = [lv for lv in levels if lv.size_bytes]
    k = 0
    while k + 1 < len(caches):
        k += 1
        lv, low = caches[k], caches[k - 1]
        centre, moved, t_centre = _walk_centre(c, lv.size_bytes, low)
        pts = _around(c, centre)
        # the walk must reach past the capacity; the ring's size, which it
        # was placed around, may overstate it (a policy other than LRU)
        if not _spans(pts, centre):
            continue
        if moved:
            notes.append(_recentred(lv, centre))
        nxt = caches[k + 1] if k + 1 < len(caches) else None
        inside = nxt is not None and centre < nxt.size_bytes < pts.size_bytes.max()
        try:
            t = t_centre or fit_walk(pts.size_bytes.to_numpy(), pts.latency_ns.to_numpy(),
                                     centre, (low.size_bytes, low.latency_ns))
            if inside:
                # the ring's next level lies inside the walk's span: does the
                # walk's curve need it?  (BIC: its latency and its split)
                shape = ((nxt.transition.ways, nxt.transition.page_bytes) if nxt.transition
                         else (16, SMALL_PAGE))
                t2 = fit_walk(pts.size_bytes.to_numpy(), pts.latency_ns.to_numpy(),
                              centre, (low.size_bytes, low.latency_ns),
                              above=(nxt.size_bytes, *shape))
                gain = len(pts) * math.log(t.rss / max(t2.rss, 1e-300))
                if gain >= 2 * math.log(len(pts)):
                    t = t2
                else:
                    notes.append(_dropped(nxt, gain, 2 * math.log(len(pts))))
                    levels = _named([x for x in levels if x is not nxt])
                    caches = [x for x in levels if x.size_bytes]
                    lv, low = caches[k], caches[k - 1]
        except ValueError as exc:
            notes.append(f"{lv.name}: the random walk was not fitted ({exc}); its size is "
                         f"the ring's")
            continue
        if t.edge_of_grid:
            notes.append(f"{lv.name}: the random walk's fit reaches the edge of its search "
                         f"({t.size_bytes / 1024:.0f} KiB): its size is the ring's")
            continue
        ring = (lv.size_bytes, lv.size_bytes_low, lv.size_bytes_high)
        sized = replace(lv, ring_size_bytes=ring, walk=t, size_bytes=t.size_bytes,
                        size_bytes_low=t.size_bytes_low, size_bytes_high=t.size_bytes_high,
                        associativity=ways_from_walk(t))
        levels = [sized if x is lv else x for x in levels]
        caches[k] = sized
        msg = (f"{lv.name}: {t.size_bytes / 1024:.0f} KiB [{t.size_bytes_low / 1024:.0f}, "
               f"{t.size_bytes_high / 1024:.0f}] from a random walk (lines revisited at random "
               f"intervals: any replacement policy keeps ways/n of a set the walk's lines "
               f"share); the ring chase, fitted as LRU sets, gave {ring[0] / 1024:.0f} KiB "
               f"[{ring[1] / 1024:.0f}, {ring[2] / 1024:.0f}]")
        if ring[1] > t.size_bytes_high:
            msg += (": past its capacity this cache keeps more of a ring than LRU sets would, "
                    "so its replacement policy is not LRU and the ring's fit overstates it")
        notes.append(msg)
    return replace(fit, levels=tuple(levels), notes=tuple(notes))


#: Times the walk's search may move to where its own profile leads, when
#: the ring's size put the best capacity at the search's edge.
WALK_RECENTRE = 3


def _around(c: pd.DataFrame, centre: float) -> pd.DataFrame:
    """The walk's points from a quarter of ``centre`` to 4 times it."""
    return c[(c.size_bytes >= centre / 4) & (c.size_bytes <= 4 * centre)]


def _walk_centre(c: pd.DataFrame, ring_bytes: float, low: Level):
    """Where to centre the walk's search: the ring's size, unless the walk's
    own best capacity, searched from there, lies at the search's edge (the
    ring's transition, read as LRU sets, can miss the capacity by more than
    the search's 1.5 octaves: on the EPYC guest a ring whose L2 points a
    neighbour had slowed gave 161 KiB for a 512 KiB L2); then the search
    moves to that edge, points and all, up to WALK_RECENTRE times, while
    the best stays at an edge.  Returns (centre, whether it moved, the
    walk's fit round that centre if it was made, else None)."""
    centre, t = ring_bytes, None
    for _ in range(WALK_RECENTRE):
        pts = _around(c, centre)
        if not _spans(pts, centre):
            break
        try:
            t = fit_walk(pts.size_bytes.to_numpy(), pts.latency_ns.to_numpy(), centre,
                         (low.size_bytes, low.latency_ns))
        except ValueError:
            t = None
            break
        if abs(math.log2(t.size_bytes / centre)) < SEARCH_OCTAVES - 0.25:
            break                       # the best lies inside the search
        if not _spans(_around(c, t.size_bytes), t.size_bytes):
            break                       # the walk does not reach round the new centre
        centre, t = t.size_bytes, None
    return centre, centre != ring_bytes, t


def _spans(pts: pd.DataFrame, centre: float) -> bool:
    """Whether the walk's points round ``centre`` reach from below half of it
    to past 1.5 times it (the fit needs both sides of the capacity)."""
    return (len(pts) >= 6 and pts.size_bytes.min() <= centre / 2
            and pts.size_bytes.max() >= 1.5 * centre)


def _recentred(lv: Level, centre: float) -> str:
    return (f"{lv.name}: the random walk's best capacity lay at the edge of a search around "
            f"the ring's {lv.size_bytes / 1024:.0f} KiB; searched again around "
            f"{centre / 1024:.0f} KiB, where the walk's own profile led")


def _named(levels: list[Level]) -> list[Level]:
    """The caches named L1, L2, ... again, in order."""
    out, k = [], 0
    for lv in levels:
        if lv.size_bytes:
            k += 1
            lv = lv if lv.name == f"L{k}" else replace(lv, name=f"L{k}")
        out.append(lv)
    return out


def _dropped(nxt: Level, gain: float, penalty: float) -> str:
    """Why the ring's level ``nxt`` (a plateau its noisy transition made) goes."""
    return (f"the ring's {nxt.name} ({nxt.size_bytes / 1024:.0f} KiB at "
            f"{nxt.latency_ns:.3g} ns) lies inside the span of the random walk, whose "
            f"curve does not need it (the fit improves by {gain:.1f} in n ln(RSS), "
            f"below the penalty {penalty:.1f}): part of the transition, not a level")


__all__ = ["refit_with_walk"]
