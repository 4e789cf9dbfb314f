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

from benchlib.profiles import setting
from benchlib.errors import BenchlibError
from benchlib.memory.hierarchy import MemoryFit

#: Strides of the line-size reading beyond the last cache (the paper's):
#: time per load against stride, at the two largest sizes of the scan.
LINE_STRIDES = [8, 16, 32, 64, 128, 256, 512]
#: The second pass repeats the sizes up to 2x the last level, but no further
#: than this: past it every size is main memory on the machines we know.
MAX_REPEAT_BYTES = 32 << 20
PAIR_DISTANCES = [8, 16, 24, 32, 48, 56, 64, 96, 112, 120, 128, 192, 256]
#: The load pairs' chase: 32 pages, one pair in each.  Every first load sits
#: at the same page offset, so in a cache indexed inside the page (any L1)
#: they share one set and miss it (32 is more than any L1's ways we know),
#: while 32 pages stay within any first-level TLB's reach and any L2's sets:
#: the step at the line is an L2 hit against an L1 hit, with no page walk
#: and no shared last level to add noise (8 MiB, as before, sat at the edge
#: of an EPYC guest's effective L3 and TLB, and read 128 on two runs of
#: four).  64 pages, as next, fell on an 8-way L2 of 16 page colours (Zen 3)
#: 4 to a colour on average, so that some runs' colours held more than 8 and
#: missed the L2 (the pairs alternated between 20 and 33 cycles on the EPYC
#: guest, tests/memory/data/live_epyc, and read no line in 3 runs of 6).
PAIR_PAGES = 32
#: The same-set chase: rings of N lines one page apart (all in one set of
#: any first-level cache, whose index lies inside the page), N = 2 .. 33:
#: the first level's ways from 1 to 32 (:mod:`.associativity`).  Smoke takes
#: a few around 8 ways.
SET_LINES = {"smoke": (2, 8, 9, 16), "quick": tuple(range(2, 34)),
             "full": tuple(range(2, 34))}
SET_PAGE_BYTES = 4096
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
#: Points per octave of the random walk's sizes (at least).  12 narrowed
#: the simulated capacity's scatter but not the live one's, and the
#: interval with it (docs/memory.md, session 26).
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
    #: the line-size strides' sizes where no first look places them
    #: (:func:`line_sizes`): the scan's two largest
    line_sizes: tuple[int, ...]
    pair_distances: tuple[int, ...]
    #: lines of the same-set chase (stride SET_PAGE_BYTES, sizes N pages)
    set_lines: tuple[int, ...]
    pair_bytes: int
    tlb_pages: tuple[int, ...]
    #: points per octave of the walk; the walk and the revisit are measured
    #: only where ``adaptive`` (not at smoke)
    walk_per_octave: int
    adaptive: bool
    #: the walk's passes, spread over the run (benchlib.profiles "memory.walk_passes")
    walk_passes: int = 0


def plan(profile: str, machine: dict, available_bytes: int | None,
         strides: list[int] | None = None, max_bytes: int | None = None) -> Plan:
    """What to measure first.  ``strides=[]`` skips the paper-style stride
    curves; ``max_bytes`` caps the scan (default: :func:`max_size_bytes`)."""
    # points per octave (random curve, each stride curve), the figure's
    # strides and the passes: benchlib.profiles ("memory.grid", "memory.passes")
    random_ppo, stride_ppo, default_strides = setting("memory.grid", profile)
    strides = default_strides if strides is None else strides
    top = max_bytes or max_size_bytes(machine, available_bytes)
    ring = size_grid(top, random_ppo)
    return Plan(
        profile=profile, passes=setting("memory.passes", profile), ring_sizes=tuple(ring),
        repeat_below=min(2 * (last_level_bytes(machine) or top), MAX_REPEAT_BYTES),
        stride_curves=tuple((s, tuple(x for x in size_grid(top, stride_ppo) if x >= 2 * s))
                            for s in strides),
        line_strides=tuple(LINE_STRIDES), line_sizes=tuple(ring[-2:]),
        pair_distances=tuple(PAIR_DISTANCES), pair_bytes=PAIR_PAGES * 4096,
        set_lines=SET_LINES.get(profile, SET_LINES["quick"]),
        tlb_pages=tuple(TLB_PAGES), walk_per_octave=max(random_ppo, WALK_PER_OCTAVE),
        adaptive=profile != "smoke", walk_passes=setting("memory.walk_passes", profile))


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


def ring_extension(look: MemoryFit, p: Plan) -> list[int]:
    """The ring's sizes past ``repeat_below`` (measured once), from a first
    look at the sizes up to it: none where the last cache it found ends
    (its interval's top) at a quarter of ``repeat_below`` or below, so that
    two octaves of main memory are already measured (a guest's share of a
    host's last level is a tenth of what sysfs says, and the ring's points
    past 32 MiB cost a quarter of a second each); every one up to the scan's
    top where no cache was found or the last one reaches further."""
    rest = [s for s in p.ring_sizes if s > p.repeat_below]
    caches = [lv for lv in look.levels if lv.size_bytes]
    if rest and caches and 4 * (caches[-1].size_bytes_high or caches[-1].size_bytes) \
            <= p.repeat_below:
        return []
    return rest


def line_sizes(look: MemoryFit, p: Plan) -> list[int]:
    """The line-size strides' two sizes, from a first look at the ring: the
    scan's first sizes at least 4 and 8 times the last cache it found (its
    interval's top), where every load of a large stride misses every cache
    whatever the system reports (a guest's share of a host's last level is a
    tenth of what sysfs says, and a chase over 128 MiB of small pages costs
    seconds); the scan's two largest where no cache was found or the scan
    does not reach that far."""
    caches = [lv for lv in look.levels if lv.size_bytes]
    if not caches:
        return list(p.line_sizes)
    top = caches[-1].size_bytes_high or caches[-1].size_bytes
    want = [next((s for s in p.ring_sizes if s >= f * top), None) for f in (4, 8)]
    if None in want or want[0] == want[1]:
        return list(p.line_sizes)
    return [int(s) for s in want]


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


__all__ = ["Plan", "plan", "walk_sizes", "ring_extension", "line_sizes", "revisit_sizes", "size_grid", "max_size_bytes",
           "last_level_bytes"]
