"""Step 1 of the memory pipeline: what to measure.

:func:`plan` turns a profile and what the machine reports into the grids
the measuring step (:mod:`.measure`) sweeps first: the ring's sizes, the
stride curves, the line-size strides, the load pairs, the TLB chase.  Two
chases are placed where the caches turn out to be, so their grids come
from a *first look*: :func:`.fit.fit_memory` over what has been measured
so far, used only to plan.  :func:`walk_sizes` places the random walk
around each cache above the first, :func:`revisit_sizes` the slow revisit
around the last.  The result is never taken from a first look: the fit
step runs once more over everything measured.

Pure: no cache size is assumed (a machine that reports none gets the
widest scan); imports no measuring, storing, paper, report or CLI module."""
from __future__ import annotations

import math
from dataclasses import dataclass

from benchlib.errors import BenchlibError
from benchlib.memory.hierarchy import MemoryFit

#: Points per octave of size: (random curve, each stride curve); and the
#: strides of the paper-style figure.
GRID = {
    "smoke": (2, 1, [64, 4096]),
    "quick": (6, 1, [64, 4096]),
    "full": (8, 2, [16, 64, 256, 1024, 4096]),
}
#: The fitted curves are measured in this many passes, each in random
#: order, and each point keeps its best (lowest-cycle) pass: interference
#: from outside only ever adds time.
PASSES = {"smoke": 1, "quick": 2, "full": 2}
#: Strides of the line-size reading beyond the last cache (the paper's):
#: time per load against stride, at the two largest sizes of the scan.
LINE_STRIDES = [8, 16, 32, 64, 128, 256, 512]
#: The second pass repeats the sizes up to 2x the last level, but no further
#: than this: past it every size is main memory on the machines we know.
MAX_REPEAT_BYTES = 32 << 20
PAIR_DISTANCES = [8, 16, 24, 32, 48, 56, 64, 96, 112, 120, 128, 192, 256]
#: The load pairs' chase: 64 pages, one pair in each.  Every first load sits
#: at the same page offset, so in a cache indexed inside the page (any L1)
#: they share one set and miss it (64 is more than any L1's ways), while 64
#: pages stay within any first-level TLB's reach and any L2's sets: the
#: step at the line is an L2 hit against an L1 hit, with no page walk and no
#: shared last level to add noise (8 MiB, as before, sat at the edge of an
#: EPYC guest's effective L3 and TLB, and read 128 on two runs of four).
PAIR_PAGES = 64
#: Pages the TLB chase touches: 8 .. 8192, two points per octave.
TLB_PAGES = sorted({int(round(2 ** (i / 2))) for i in range(6, 27)})
MIN_SIZE = 512
#: A sysfs last level can be a whole socket's (or, in a guest, as the
#: hypervisor presents it: 480 MiB on one Xeon guest); a chase past 128 MiB
#: costs seconds and shows only memory where the effective last level is
#: tens of MiB at most.  A last plateau not reached is noted by the fit.
MAX_SCAN_BYTES = 128 << 20
#: The scan's top when sysfs reports no cache: far past any last level
#: we know of as a chase (the caches themselves are then "unknown").
UNKNOWN_CACHE_SCAN_BYTES = 128 << 20
#: Points per octave of the random walk's sizes (at least).
WALK_PER_OCTAVE = 8
#: Without a fitted TLB, the walk stops here (beyond it every load would
#: also pay a second-level TLB miss the correction does not know).
WALK_MAX_BYTES = 16 << 20
#: Dependent adds after each load for the slow revisit: about 200 cycles,
#: several times a last-level hit, so each line waits several times longer.
SLOW_SPIN_ADDS = 200
#: The revisit's first point, a chase inside L1: the adds' own time.
REVISIT_BASE_BYTES = 16 << 10


def last_level_bytes(machine: dict) -> int | None:
    """The last-level cache sysfs reports, or None (unknown: never invented)."""
    return machine.get("l3_bytes") or machine.get("l2_bytes") or None


def max_size_bytes(machine: dict, available_bytes: int | None) -> int:
    """4x the last-level cache (in whole 2 MiB), within a quarter of
    ``available_bytes`` (the memory available now); with no cache reported,
    UNKNOWN_CACHE_SCAN_BYTES."""
    llc = last_level_bytes(machine)
    want = UNKNOWN_CACHE_SCAN_BYTES if llc is None else -(-4 * llc // (2 << 20)) * (2 << 20)
    want = min(want, MAX_SCAN_BYTES)
    if available_bytes:
        while want > available_bytes // 4 and want > (16 << 20):
            want //= 2
    return want


def size_grid(max_bytes: int, per_octave: int, min_bytes: int = MIN_SIZE) -> list[int]:
    n = int(round(math.log2(max_bytes / min_bytes) * per_octave))
    sizes = {int(round(min_bytes * 2 ** (i / per_octave) / 64)) * 64 for i in range(n + 1)}
    return sorted(s for s in sizes if min_bytes <= s <= max_bytes)


@dataclass(frozen=True)
class Plan:
    """The grids measured before any first look."""
    profile: str
    passes: int
    ring_sizes: tuple[int, ...]
    #: sizes up to this are measured in every pass, larger ones once
    repeat_below: int
    #: (stride, sizes) of each paper-style stride curve
    stride_curves: tuple[tuple[int, tuple[int, ...]], ...]
    line_strides: tuple[int, ...]
    line_sizes: tuple[int, ...]
    pair_distances: tuple[int, ...]
    pair_bytes: int
    tlb_pages: tuple[int, ...]
    #: points per octave of the walk; the walk and the revisit are measured
    #: only where ``adaptive`` (not at smoke)
    walk_per_octave: int
    adaptive: bool


def plan(profile: str, machine: dict, available_bytes: int | None,
         strides: list[int] | None = None, max_bytes: int | None = None) -> Plan:
    """What to measure first.  ``strides=[]`` skips the paper-style stride
    curves; ``max_bytes`` caps the scan (default: :func:`max_size_bytes`)."""
    if profile not in GRID:
        raise BenchlibError(f"unknown profile {profile!r}; valid profiles: {', '.join(GRID)}")
    random_ppo, stride_ppo, default_strides = GRID[profile]
    strides = default_strides if strides is None else strides
    top = max_bytes or max_size_bytes(machine, available_bytes)
    ring = size_grid(top, random_ppo)
    return Plan(
        profile=profile, passes=PASSES[profile], ring_sizes=tuple(ring),
        repeat_below=min(2 * (last_level_bytes(machine) or top), MAX_REPEAT_BYTES),
        stride_curves=tuple((s, tuple(x for x in size_grid(top, stride_ppo) if x >= 2 * s))
                            for s in strides),
        line_strides=tuple(LINE_STRIDES), line_sizes=tuple(ring[-2:]),
        pair_distances=tuple(PAIR_DISTANCES), pair_bytes=PAIR_PAGES * 4096,
        tlb_pages=tuple(TLB_PAGES), walk_per_octave=max(random_ppo, WALK_PER_OCTAVE),
        adaptive=profile != "smoke")


def walk_sizes(look: MemoryFit, per_octave: int) -> list[int]:
    """The random walk's sizes, from a first look at the ring: a quarter of
    each cache's ring size to 4 times it, for every cache above the first,
    cut at the second TLB level's reach (which must hold twice the size: the
    fit needs the walk past twice the capacity, :func:`.walk.refit_with_walk`;
    the first level's misses are taken out, ``tlb_penalty_ns``).  Empty when
    no cache qualifies."""
    caches = [lv.size_bytes for lv in look.levels if lv.size_bytes][1:]
    reach = max((t["reach_bytes"] for t in look.tlb[1:] if t.get("reach_bytes")),
                default=WALK_MAX_BYTES)
    targets = [c for c in caches if 2 * c <= reach]
    return sorted({s for c in targets for s in size_grid(int(min(4 * c, reach)), per_octave)
                   if c / 4 <= s <= min(4 * c, reach) and s >= 4096})


def revisit_sizes(look: MemoryFit) -> list[int]:
    """The slow revisit's sizes, from a first look at the ring and the walk:
    a quarter of the last cache's size to 4 times it, three per octave.
    Empty when no cache was found."""
    caches = [lv for lv in look.levels if lv.size_bytes]
    if not caches:
        return []
    last = caches[-1]
    lo = max(MIN_SIZE, int(last.size_bytes / 4))
    return size_grid(int(last.size_bytes * 4), 3, min_bytes=lo)


__all__ = ["Plan", "plan", "walk_sizes", "revisit_sizes", "size_grid", "max_size_bytes",
           "last_level_bytes"]
