"""Step 2 of the memory pipeline: measure; and the whole pipeline in one call.

The only module of :mod:`benchlib.memory` that measures (it imports
:mod:`benchlib.measuring`).  :func:`measure` takes what :func:`.plan.plan`
asks for (the ring in passes, the stride curves, the line-size strides, the
load pairs, the TLB chase), then, where the profile is adaptive, the two
chases placed by a first look (:func:`.plan.walk_sizes`,
:func:`.plan.revisit_sizes`), and returns a :class:`.data.MemoryData`.
:func:`measure_hierarchy` is the pipeline: plan -> measure -> the one fit
(:func:`.fit.fit_memory`) -> :class:`.hierarchy.MemoryResult`.

    m = benchlib.memory.measure.measure_hierarchy(profile="quick")
    m.fit.table(), m.latency, m.comparison
    m.data.save("memsave")          # benchlib fit-memory memsave: the same fit

Also here: the bandwidth table and the memory mountain, and this machine's
rows for the papers' memory tables.
"""
from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np
import pandas as pd

from benchlib.profiles import setting
from benchlib.errors import BenchlibError
from benchlib.measuring.harness import Profile, sweep
from benchlib.measuring.metadata import machine_info, reported_tlb
from benchlib.measuring.registry import available_memory_bytes
from benchlib.memory import plan as planning
from benchlib.memory.dataset import MemoryData
from benchlib.memory.fit import fit_memory
from benchlib.memory.plan import SLOW_SPIN_ADDS, size_grid
from benchlib.memory.hierarchy import MemoryResult
from benchlib.stats import intervals as iv

# Sampling of each grid point and of the few deciding points: benchlib.profiles
# ("memory.grid_sampling", "memory.point_sampling", "memory.walk_sampling").


def max_size_bytes(machine: dict) -> int:
    """:func:`.plan.max_size_bytes` with the memory available now."""
    return planning.max_size_bytes(machine, available_memory_bytes())


def _latency_rows(df: pd.DataFrame) -> pd.DataFrame:
    return df.rename(columns={"value": "latency_ns", "median_cycles": "latency_cycles",
                              "median_clock_ghz": "clock_ghz"})


class _Passes:
    """Shuffled passes of one sweep, each taken when :meth:`measure` is
    called, each point read at its fastest pass (:meth:`fastest_and_every`).  The random
    walk's are spread over the run (:func:`measure`): a neighbour on the
    core (a host's other tenant on the sibling thread) takes part of the L2
    for stretches of tens of milliseconds to seconds
    (bench/memory_over_time.py), so passes back to back fall in one stretch,
    and passes spread over the run give each size several chances to see the
    cache alone."""

    def __init__(self, name: str, grid: dict, prof, progress: bool, recorder=None, **fixed):
        self.name, self.grid, self.prof, self.progress = name, grid, prof, progress
        self.recorder, self.fixed = recorder, fixed
        self.passes: list[pd.DataFrame] = []

    def measure(self, grid: dict | None = None) -> None:
        """One more pass, over ``grid`` (default: the whole grid)."""
        df = sweep(self.name, grid or self.grid, profile=self.prof, progress=self.progress,
                   shuffle=True, recorder=self.recorder, **self.fixed)
        self.passes.append(_latency_rows(df).assign(pass_index=len(self.passes)))

    def fastest_and_every(self) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
        """Each point at its fastest pass (least cycles), and every pass's
        rows (``pass_index``, ``passes``); (None, None) before the first."""
        if not self.passes:
            return None, None
        every = pd.concat(self.passes, ignore_index=True).assign(passes=len(self.passes))
        keys = list(self.grid)
        idx = every.groupby(keys)["latency_cycles"].idxmin()
        return every.loc[idx].sort_values(keys).reset_index(drop=True), every


def _best_of_passes(name: str, grid: dict, passes: int, profile, progress: bool,
                    repeat_below: int | None = None, recorder=None,
                    **fixed) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each point's best of `passes` shuffled sweeps back to back, and every
    pass's rows (with ``pass_index``).  With repeat_below, only sizes up to
    it are measured again (the cache edges are there)."""
    ps = _Passes(name, grid, profile, progress, recorder, **fixed)
    ps.measure()
    again = grid if repeat_below is None else \
        {**grid, "size_bytes": [s for s in grid["size_bytes"] if s <= repeat_below]}
    for _ in range(passes - 1):
        ps.measure(again)
    return ps.fastest_and_every()


def measure(profile: str = "quick", progress: bool = True, strides: list[int] | None = None,
            max_bytes: int | None = None, recorder=None) -> MemoryData:
    """Plan and take every measurement the fit uses (see the module's
    docstring); ``strides=[]`` skips the paper-style stride curves."""
    t0 = time.monotonic()
    machine = machine_info()
    p = planning.plan(profile, machine, available_memory_bytes(), strides, max_bytes)
    grid, point = setting("memory.grid_sampling", profile), setting("memory.point_sampling", profile)
    ring_kw = dict(stride_bytes=64, pattern="random", huge_pages="on", recorder=recorder)
    # adaptive: the ring up to repeat_below first (in every pass); the sizes
    # past it only where a first look needs them (planning.ring_extension)
    first = [s for s in p.ring_sizes if not p.adaptive or s <= p.repeat_below]
    ring, ring_passes = _best_of_passes("mem_latency", {"size_bytes": first}, p.passes, grid,
                                        progress, repeat_below=p.repeat_below, **ring_kw)
    parts = [ring]

    def stride_curves(top=None):
        # the paper's figure as lat_mem_rd draws it: its loop of 100 loads,
        # which no per-instruction stride prefetcher follows (benchlib's
        # 16-load loop hides levels lat_mem_rd shows; docs/memory.md, "The
        # chase loop and the prefetchers")
        return [_latency_rows(sweep("mem_latency", {"size_bytes": [x for x in sizes
                                                                   if top is None or x <= top]},
                                    stride_bytes=s, pattern="stride", huge_pages="off",
                                    loop_loads=100, profile=grid, progress=progress,
                                    recorder=recorder))
                for s, sizes in p.stride_curves]

    if not p.adaptive:
        parts += stride_curves()
    if p.set_lines:
        # the same-set chase: N lines one page apart, in random order (the
        # first level's ways); its lap is short, one pass is enough
        parts.append(_latency_rows(sweep(
            "mem_latency", {"size_bytes": [n * planning.SET_PAGE_BYTES for n in p.set_lines]},
            stride_bytes=planning.SET_PAGE_BYTES, pattern="random", huge_pages="on",
            profile=grid, progress=progress, shuffle=True, recorder=recorder))
            .assign(pattern="same_set"))
    latency = pd.concat(parts, ignore_index=True)

    def line_strides_at(sizes):
        return _latency_rows(sweep("mem_latency", {"stride_bytes": list(p.line_strides),
                                                   "size_bytes": list(sizes)},
                                   pattern="stride", huge_pages="off", profile=grid,
                                   progress=progress, recorder=recorder))

    pairs, _ = _best_of_passes("line_pair_latency", {"distance_bytes": list(p.pair_distances)},
                               p.passes, point, progress, size_bytes=p.pair_bytes, recorder=recorder)
    spread, _ = _best_of_passes("tlb_latency", {"pages": list(p.tlb_pages)}, p.passes, point,
                                progress, layout="spread", recorder=recorder)
    dense, _ = _best_of_passes("tlb_latency", {"pages": list(p.tlb_pages)}, p.passes, point,
                               progress, layout="dense", recorder=recorder)
    tlb = pd.DataFrame({"pages": spread["pages"], "latency_ns": spread["latency_ns"],
                        "control_ns": dense["latency_ns"].values,
                        "latency_cycles": spread["latency_cycles"],
                        "control_cycles": dense["latency_cycles"].values})
    data = MemoryData(latency=latency, pairs=pairs, tlb=tlb,
                      ring_passes=ring_passes if p.passes > 1 else None,
                      clock_ghz=float(np.median(latency["clock_ghz"])), machine=machine,
                      tlb_reported=reported_tlb(), profile=profile, source="measured")
    if not p.adaptive:
        return replace(data, line_strides=line_strides_at(p.line_sizes),
                       elapsed_s=time.monotonic() - t0)
    # plan: a first look at the ring places the line-size strides (past the
    # last cache it finds, not past the largest the system reports) and the
    # walk; one at ring and walk the slow revisit; the result is the fit
    # over everything below
    look = _first_look(data)
    more = planning.ring_extension(look, p)
    if more:
        ext = _latency_rows(sweep("mem_latency", {"size_bytes": more}, profile=grid,
                                  progress=progress, shuffle=True, **ring_kw)
                            ).assign(passes=p.passes, pass_index=0)
        data = replace(data, latency=pd.concat([data.latency, ext], ignore_index=True),
                       ring_passes=None if data.ring_passes is None else
                       pd.concat([data.ring_passes, ext], ignore_index=True))
        look = _first_look(data)
    line_sizes = planning.line_sizes(look, p)
    # the walk's passes spread over the rest of the run (_Passes): one now,
    # one after the stride curves, the rest after the slow revisit
    sizes = planning.walk_sizes(look, p.walk_per_octave)
    walk = _Passes("mem_latency", {"size_bytes": sizes}, setting("memory.walk_sampling", profile),
                   progress, recorder, stride_bytes=64, pattern="walk", huge_pages="on")

    def walk_passes(upto: int):
        while sizes and len(walk.passes) < min(upto, p.walk_passes):
            walk.measure()
        fastest, every = walk.fastest_and_every()
        return replace(data, walk=fastest, walk_passes=every)

    data = walk_passes(1)
    # the paper-style stride curves up to the line-size strides' sizes (past
    # the last cache the first look found; the scan's top where it found none)
    data = replace(data, line_strides=line_strides_at(line_sizes),
                   latency=pd.concat([data.latency] + stride_curves(max(line_sizes)),
                                     ignore_index=True))
    data = walk_passes(2)
    revisit = planning.revisit_sizes(_first_look(data))
    if revisit:
        data = replace(data, revisit=measure_revisit(revisit, profile, progress,
                                                     recorder=recorder))
    data = walk_passes(p.walk_passes)
    return replace(data, elapsed_s=time.monotonic() - t0)


def _first_look(data: MemoryData):
    """The plan's look at what is measured so far: the fit's levels and TLB
    (the passes, read only by the final fit, are left out)."""
    return fit_memory(replace(data, ring_passes=None))


def measure_revisit(sizes: list[int], profile: str, progress: bool, recorder=None) -> pd.DataFrame:
    """The revisit chase (mem_revisit_latency) at ``sizes``, as fast as it
    goes (spin_adds 0) and with SLOW_SPIN_ADDS dependent adds after each
    load; each run starts with a chase inside L1 (``role`` "base"), whose
    time is the adds' own."""
    runs = []
    for spin in (0, SLOW_SPIN_ADDS):
        df = _latency_rows(sweep("mem_revisit_latency",
                                 {"size_bytes": [planning.REVISIT_BASE_BYTES] + list(sizes)},
                                 huge_pages="on", spin_adds=spin, profile=setting("memory.grid_sampling", profile),
                                 progress=progress, recorder=recorder))
        runs.append(df.assign(spin_adds=spin, role=["base"] + ["curve"] * len(sizes)))
    return pd.concat(runs, ignore_index=True)


def measure_hierarchy(profile: str = "quick", progress: bool = True,
                      strides: list[int] | None = None,
                      max_bytes: int | None = None, recorder=None) -> MemoryResult:
    """The pipeline: plan and measure (:func:`measure`), then the one fit
    (:func:`.fit.fit_memory`) over everything measured."""
    data = measure(profile, progress, strides, max_bytes, recorder=recorder)
    return MemoryResult(data, fit_memory(data))


# ---------------------------------------------------------------- bandwidth

BANDWIDTH_OPS = ["read", "write", "rmw", "copy_unrolled", "copy_libc", "memset"]
MIB = 1 << 20


def cache_sizes(machine: dict, fit=None, profile: str | None = None) -> tuple[int, int]:
    """(cached, uncached) block sizes from the machine's caches: a block
    whose source and destination both fit in L2, and one past the last
    level (:func:`.plan.max_size_bytes`: 4x it, as Ousterhout's Table 5 and
    the lmbench paper ask, but no more than the scan's cap: a guest's sysfs
    can present a whole socket's 480 MiB, where 4x would be a 2 GiB block
    that shows only memory, as 128 MiB does).  Sizes come from sysfs, else
    from a fitted hierarchy ``fit``; with neither, the caches are unknown
    and this says so rather than invent one.  With ``profile``, the
    profile's cap applies (benchlib.profiles "papers.max_sized_bytes":
    smoke takes tiny sizes)."""
    l2 = machine.get("l2_bytes")
    llc = machine.get("l3_bytes") or l2
    if fit is not None and (l2 is None or llc is None):
        fitted = [lv.size_bytes for lv in fit.levels if lv.size_bytes]
        l2 = l2 or (fitted[1] if len(fitted) > 1 else None)
        llc = llc or (fitted[-1] if fitted else None)
    if not l2 or not llc:
        raise BenchlibError("the L2 and last-level cache sizes are unknown (sysfs reports none "
                            "and no fitted hierarchy was given): cannot choose cached and "
                            "uncached block sizes")
    cached = max(4096, int(l2) // 4)
    uncached = planning.max_size_bytes({"l3_bytes": int(llc)}, available_memory_bytes())
    cap = None if profile is None else setting("papers.max_sized_bytes", profile)
    return (cached, uncached) if cap is None else (min(cached, cap), min(uncached, cap))


def bandwidth_table(profile: str = "quick", progress: bool = True, fit=None, recorder=None) -> pd.DataFrame:
    """Every bandwidth op at the cached and the uncached size, counted
    both ways: once (the lmbench paper, Ousterhout) and as STREAM does;
    ``value`` with its 95% interval columns (``iv.strip`` for a CSV)."""
    from benchlib.measuring.harness import PROFILES

    cached, uncached = cache_sizes(machine_info(), fit, profile)
    rows = []
    for counting in ("once", "stream"):
        results: list = []
        df = sweep("mem_bandwidth", {"op": BANDWIDTH_OPS, "size_bytes": [cached, uncached]},
                   counting=counting, profile=PROFILES[profile], progress=progress,
                   results=results, recorder=recorder)
        df["where"] = np.where(df.size_bytes == cached, "cached", "uncached")
        iv.put(df, "value", [r.measured for r in results])   # grid order: not shuffled
        rows.append(df)
    return pd.concat(rows, ignore_index=True)


def mountain(profile: str = "quick", progress: bool = True, max_bytes: int | None = None, recorder=None) -> pd.DataFrame:
    """Read bandwidth over size x stride (the memory mountain)."""
    top = max_bytes or max_size_bytes(machine_info())
    ppo, strides = setting("memory.mountain", profile)
    sizes = [s for s in size_grid(top, ppo, min_bytes=16 << 10)]
    return sweep("mem_bandwidth", {"size_bytes": sizes, "stride_bytes": strides}, op="read",
                 profile=setting("memory.grid_sampling", profile), progress=progress, recorder=recorder)


# ------------------------------------------------------ this machine's rows

def lmbench_rows(m: MemoryResult, bw: pd.DataFrame, label: str) -> dict[str, pd.DataFrame]:
    """This machine's rows for the lmbench paper's memory tables, in its
    units: latency in ns (L1, L2, main memory from the fit) and bandwidth
    in MB/s of 2^20 bytes (lmbench's megabyte), uncached, counted once."""
    levels = m.fit.levels
    caches = [lev for lev in levels if lev.size_bytes]
    lat = pd.DataFrame({"system": [label]})
    for col, lev in (("l1_ns", caches[0] if caches else None),
                     ("l2_ns", caches[1] if len(caches) > 1 else None),
                     ("main_memory_ns", levels[-1])):
        ci = getattr(lev, "latency_ns_ci95", None)
        iv.put(lat, col, [np.nan if lev is None else
                          iv.Measured(lev.latency_ns, *ci) if ci else lev.latency_ns])
    once = bw[(bw.counting == "once") & (bw["where"] == "uncached")].set_index("op")
    to_mib = 1e6 / MIB
    band = pd.DataFrame({"system": [label]})
    for col, op in (("bcopy_unrolled_mb_s", "copy_unrolled"), ("bcopy_libc_mb_s", "copy_libc"),
                    ("memory_read_mb_s", "read"), ("memory_write_mb_s", "write")):
        iv.put(band, col, [iv.get(once, "value", op) * to_mib])
    return {"memory_latency": lat, "memory_bandwidth": band}
