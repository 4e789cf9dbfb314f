"""The memory hierarchy in one call: the latency grid (the paper's stride
curves and a prefetch-proof random curve on huge pages), the line-size and
TLB chains, and the fit of levels, line size and TLB reach.

    m = benchlib.memory.measure.measure_hierarchy(profile="quick")
    m.fit.table(), m.latency, m.comparison
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchlib.stats import intervals as iv
from benchlib.memory.fit import MemoryFit, compare_with_reported, fit_memory
from benchlib.memory.walk import refit_with_walk
from benchlib.stats.summary import bootstrap_median_ci
from benchlib.errors import BenchlibError
from benchlib.measuring.harness import Profile, sweep
from benchlib.measuring.metadata import machine_info, reported_tlb, tlb_with_reported
from benchlib.measuring.registry import available_memory_bytes

# Sampling for each point of the grid: many points, each short; the fit
# works on the whole curve, so one noisy point does not move a plateau.
GRID_PROFILES = {
    "smoke": Profile("smoke", n_samples=3, n_warmup=0, target_sample_ms=0.05, max_total_s=0.05),
    "quick": Profile("quick", n_samples=3, n_warmup=1, target_sample_ms=0.2, max_total_s=0.06),
    "full": Profile("full", n_samples=5, n_warmup=1, target_sample_ms=0.4, max_total_s=0.2),
}
# The fitted curves are measured in this many passes, each in random
# order, and each point keeps its best (lowest-cycle) pass: interference
# from outside only ever adds time.
PASSES = {"smoke": 1, "quick": 2, "full": 2}
# The line-size pairs and the TLB chain are few points whose single values
# decide a step, so each gets more and longer samples.
POINT_PROFILES = {
    "smoke": GRID_PROFILES["smoke"],
    "quick": Profile("quick", n_samples=9, n_warmup=1, target_sample_ms=0.5, max_total_s=0.2),
    "full": Profile("full", n_samples=15, n_warmup=1, target_sample_ms=1.0, max_total_s=0.5),
}
# Points per octave of size: (random curve, each stride curve); and the
# strides of the paper-style figure.
GRID = {
    "smoke": (2, 1, [64, 4096]),
    "quick": (6, 1, [64, 4096]),
    "full": (8, 2, [16, 64, 256, 1024, 4096]),
}
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
MIN_SIZE = 512
#: A sysfs last level can be a whole socket's (or, in a guest, as the
#: hypervisor presents it: 480 MiB on one Xeon guest); a chase past 128 MiB
#: costs seconds and shows only memory where the effective last level is
#: tens of MiB at most.  A last plateau not reached is noted by the fit.
MAX_SCAN_BYTES = 128 << 20


#: The scan's top when sysfs reports no cache: far past any last level
#: we know of as a chase (the caches themselves are then "unknown").
UNKNOWN_CACHE_SCAN_BYTES = 128 << 20


def last_level_bytes(machine: dict) -> int | None:
    """The last-level cache sysfs reports, or None (unknown: never invented)."""
    return machine.get("l3_bytes") or machine.get("l2_bytes") or None


def max_size_bytes(machine: dict) -> int:
    """4x the last-level cache (in whole 2 MiB), within a quarter of the
    memory available now; with no cache reported, UNKNOWN_CACHE_SCAN_BYTES."""
    llc = last_level_bytes(machine)
    want = UNKNOWN_CACHE_SCAN_BYTES if llc is None else -(-4 * llc // (2 << 20)) * (2 << 20)
    want = min(want, MAX_SCAN_BYTES)
    avail = available_memory_bytes()
    if avail:
        while want > avail // 4 and want > (16 << 20):
            want //= 2
    return want


def size_grid(max_bytes: int, per_octave: int, min_bytes: int = MIN_SIZE) -> list[int]:
    n = int(round(math.log2(max_bytes / min_bytes) * per_octave))
    sizes = {int(round(min_bytes * 2 ** (i / per_octave) / 64)) * 64 for i in range(n + 1)}
    return sorted(s for s in sizes if min_bytes <= s <= max_bytes)


@dataclass
class MemoryMeasurement:
    latency: pd.DataFrame      # size_bytes, stride_bytes, pattern, huge_pages, latency_ns, ...
    pairs: pd.DataFrame        # distance_bytes, latency_ns, latency_cycles
    tlb: pd.DataFrame          # pages, latency_ns, control_ns (and in cycles)
    fit: MemoryFit
    comparison: pd.DataFrame   # fitted against sysfs
    elapsed_s: float
    profile: str
    machine: dict = field(repr=False)
    #: each pass fitted on its own: the last cache's capacity (bytes) per pass
    passes_sizes: list = field(default_factory=list)
    #: the last cache's capacity at the normal and at a slow revisit
    revisit: dict | None = None
    #: time per load against stride at the scan's two largest sizes
    line_strides: pd.DataFrame | None = None
    #: the random walk around each cache above the first (pattern=walk)
    walk: pd.DataFrame | None = None

    @property
    def huge_page_fraction(self) -> float | None:
        """Fraction of the random curve's bytes that huge pages backed."""
        r = self.latency[self.latency.get("pattern", "") == "random"]
        if r.empty or "huge_page_bytes" not in r:
            return None
        return float((r["huge_page_bytes"] / r["size_bytes"]).clip(upper=1).mean())

    def shared_last_level(self) -> dict | None:
        """The last fitted cache beside the last level sysfs reports: its
        effective capacity, sysfs's size, who shares it (shared_cpu_list),
        and how the capacity moved between passes (``passes_sizes``)."""
        caches = [lv for lv in self.fit.levels if lv.size_bytes]
        rep = [c for c in self.machine.get("caches", []) if c["type"] in ("Data", "Unified")]
        if not caches or not rep:
            return None
        last_rep = max(rep, key=lambda c: c["level"])
        lv = caches[-1]
        shared = last_rep.get("shared_cpu_list") or ""
        ratio = lv.size_bytes / last_rep["size_bytes"] if last_rep["size_bytes"] else None
        reason = []
        rv = self.revisit or {}
        if rv.get("slow_bytes") and rv.get("normal_bytes"):
            moved = rv["slow_bytes"] / rv["normal_bytes"]
            # the passes' own spread: how far the capacity moves with no
            # change at all; a revisit effect inside it says nothing
            passes = [p for p in self.passes_sizes if p]
            spread = max(passes) / min(passes) if len(passes) >= 2 else 1.0
            said = (f"revisiting each line {rv['slow_ns_per_load']:.0f} ns apart instead of "
                    f"{rv['normal_ns_per_load']:.0f} ns, the chase keeps {100 * moved:.0f} % of it")
            if 0.85 <= moved <= 1.15:
                said += " (no loss to time: capacity, not neighbours)"
            elif max(moved, 1 / moved) <= spread:
                said += (f" (inconclusive: the passes alone differ by x{spread:.1f}, "
                         f"{', '.join(f'{p / 2**20:.1f}' for p in passes)} MiB: the neighbours "
                         "move it more than the revisit does)")
            elif moved < 0.85:
                said += " (time-dependent: something else evicts it)"
            else:
                said += " (more at the slower revisit: the neighbours were quieter then)"
            reason.append(said)
        if ratio is not None and ratio < 0.9:     # a gap beyond the 10 % a fit is held to
            reason.append(f"the chase kept {100 * ratio:.0f} % of the {last_rep['size_bytes'] >> 20} "
                          f"MiB sysfs reports")
            if "-" in shared or "," in shared:
                reason.append(f"sysfs says CPUs {shared} share it")
            if self.machine.get("virtualized"):
                reason.append("this is a guest: the host's other tenants share the physical "
                              "last level, and sysfs shows what the hypervisor presents")
        held = sum(c["size_bytes"] for c in rep if c["level"] <= last_rep["level"])
        if lv.size_bytes_low and lv.size_bytes_low > held and lv.ring_size_bytes is None:
            reason.append(f"the chase kept more than the {held / 2**20:.1f} MiB the reported caches "
                          "hold together: a cache whose replacement policy is not LRU keeps part "
                          "of a ring larger than itself, which the ring's LRU model reads as "
                          "capacity" + (" (as the ring does at this machine's L2, where the "
                                        "random walk shows the true size)"
                                        if any(c.ring_size_bytes for c in caches) else ""))
        return {"level": lv.name, "effective_bytes": lv.size_bytes,
                "effective_bytes_low": lv.size_bytes_low,
                "effective_bytes_high": lv.size_bytes_high, "latency_ns": lv.latency_ns,
                "sysfs_level": last_rep["level"], "sysfs_bytes": last_rep["size_bytes"],
                "shared_cpu_list": shared, "passes_sizes": self.passes_sizes,
                "revisit": self.revisit,
                "reason": "; ".join(reason)}

    def to_dict(self) -> dict:
        d = self.fit.to_dict()
        rep = reported_tlb()
        d["tlb"] = tlb_with_reported(d["tlb"], rep)
        d.update({"tlb_reported": {"levels": {str(k): v for k, v in rep["levels"].items()},
                                   "note": rep["note"]},
                  "huge_page_fraction": self.huge_page_fraction,
                  "shared_last_level": self.shared_last_level(),"elapsed_s": self.elapsed_s, "profile": self.profile,
                  "clock_ghz": float(np.median(self.latency["clock_ghz"])),
                  "thp_enabled": self.machine.get("thp_enabled"),
                  "reported_caches": [c for c in self.machine.get("caches", [])
                                      if c["type"] in ("Data", "Unified")],
                  "comparison": self.comparison.to_dict(orient="records")})
        return d


def _latency_rows(df: pd.DataFrame) -> pd.DataFrame:
    return df.rename(columns={"value": "latency_ns", "median_cycles": "latency_cycles",
                              "median_clock_ghz": "clock_ghz"})


def fit_normalised(latency: pd.DataFrame, pairs: pd.DataFrame, tlb: pd.DataFrame,
                   clock_ghz: float, line_strides: pd.DataFrame | None = None) -> MemoryFit:
    """Fit the levels on frequency-normalised latency, then report each
    plateau in measured ns.

    A shared host can move the core clock by a third for seconds at a time
    (docs/findings.md); in ns that noise is larger than the rise that marks a
    cache's end, in cycles it is gone.  So sizes are found on cycles / the
    run's median clock.  Plateau latencies are then the median of the
    *measured* ns (and of the cycles) over each plateau's points, because a
    main-memory access takes a fixed time, not a fixed number of cycles."""
    cols = ["size_bytes", "stride_bytes", "pattern", "huge_pages"]
    norm = latency[cols].assign(latency_ns=latency["latency_cycles"] / clock_ghz)
    pairs_n = pairs[["distance_bytes"]].assign(latency_ns=pairs["latency_cycles"] / clock_ghz)
    tlb_n = pd.DataFrame({"pages": tlb["pages"], "latency_ns": tlb["latency_cycles"] / clock_ghz,
                          "control_ns": tlb["control_cycles"] / clock_ghz})
    strides_n = None if line_strides is None else line_strides[["size_bytes", "stride_bytes"]].assign(
        latency_ns=line_strides["latency_cycles"] / clock_ghz, pattern="stride")
    fit = fit_memory(norm, clock_ghz=clock_ghz, page_bytes=4096, strides=strides_n,
                     pairs=pairs_n, tlb=tlb_n)
    curve = latency[(latency.stride_bytes == fit.stride_bytes_used)
                    & (latency.pattern == ("random" if (latency.pattern == "random").any() else "stride"))]
    lo = 0.0
    for lev in fit.levels:
        hi = lev.size_bytes_low if lev.size_bytes else np.inf
        pts = curve[(curve.size_bytes > lo) & (curve.size_bytes <= hi)]
        if len(pts):
            lev.latency_ns = float(np.median(pts.latency_ns))
            lev.latency_ns_ci95 = bootstrap_median_ci(pts.latency_ns)
            lev.latency_cycles = float(np.median(pts.latency_cycles))
            mad = float(np.median(np.abs(pts.latency_ns - lev.latency_ns)))
            lev.latency_ns_err = 1.4826 * mad / np.sqrt(len(pts))
        lo = lev.size_bytes_high or lo
    fit.notes.append(f"sizes fitted on cycles / {clock_ghz:.2f} GHz (the run's median clock); "
                     "plateau latencies are medians of the measured ns and cycles")
    return fit


def _best_of_passes(name: str, grid: dict, passes: int, profile, progress: bool,
                    repeat_below: int | None = None, **fixed) -> pd.DataFrame:
    """Each point's best of `passes` shuffled sweeps.  With repeat_below,
    only sizes up to it are measured again (the cache edges are there)."""
    runs = [sweep(name, grid, profile=profile, progress=progress, shuffle=True, **fixed)]
    if repeat_below is not None:
        grid = {**grid, "size_bytes": [s for s in grid["size_bytes"] if s <= repeat_below]}
    runs += [sweep(name, grid, profile=profile, progress=progress, shuffle=True, **fixed)
             for _ in range(passes - 1)]
    best = pd.concat([r.assign(passes=passes, pass_index=i) for i, r in enumerate(runs)],
                     ignore_index=True)
    keys = list(grid)
    idx = best.groupby(keys)["median_cycles"].idxmin()
    out = best.loc[idx].sort_values(keys).reset_index(drop=True)
    out.attrs["passes"] = best
    return out


def _nearest(size: float, sizes: list[float]) -> int:
    """The index of the size in ``sizes`` nearest to ``size`` in log size."""
    return min(range(len(sizes)), key=lambda j: abs(math.log(size / sizes[j])))


def _last_level_per_pass(rows: pd.DataFrame, clock: float,
                         levels: list[float] | None = None) -> list[float | None]:
    """Each pass of the random curve fitted alone: its capacity of the last
    cache.  With ``levels`` (the whole fit's cache sizes), each of a pass's
    caches is matched to the nearest of them (in log size), and the pass's
    last level is the one matched to the last: None when the pass found
    none, so that a pass whose own fit lost the level does not report its
    L2 as the last level."""
    from benchlib.memory.fit import fit_levels

    every = rows.attrs.get("passes")
    if every is None:
        return []
    out = []
    for _, r in every.groupby("pass_index"):
        curve = pd.DataFrame({"size_bytes": r["size_bytes"],
                              "latency_ns": r["median_cycles"] / clock})
        try:
            caches = [lv.size_bytes for lv in fit_levels(curve) if lv.size_bytes]
        except BenchlibError:
            caches = []
        if caches and levels:
            mine = [c for c in caches if _nearest(c, levels) == len(levels) - 1]
            out.append(min(mine, key=lambda c: abs(math.log(c / levels[-1]))) if mine else None)
        else:
            out.append(caches[-1] if caches else None)
    return out


def measure_hierarchy(profile: str = "quick", progress: bool = True, strides: list[int] | None = None,
                      max_bytes: int | None = None) -> MemoryMeasurement:
    """Measure the default grid and fit it.  ``strides=[]`` skips the
    paper-style stride curves (the fit uses the random curve)."""
    if profile not in GRID:
        raise BenchlibError(f"unknown profile {profile!r}; valid profiles: {', '.join(GRID)}")
    t0 = time.monotonic()
    machine = machine_info()
    prof = GRID_PROFILES[profile]
    random_ppo, stride_ppo, default_strides = GRID[profile]
    strides = default_strides if strides is None else strides
    top = max_bytes or max_size_bytes(machine)

    passes = PASSES[profile]
    random_rows = _best_of_passes("mem_latency", {"size_bytes": size_grid(top, random_ppo)},
                                  passes, prof, progress,
                                  repeat_below=min(2 * (last_level_bytes(machine) or top),
                                                   MAX_REPEAT_BYTES),
                                  stride_bytes=64, pattern="random", huge_pages="on")
    parts = [_latency_rows(random_rows)]
    for s in strides:
        sizes = [x for x in size_grid(top, stride_ppo) if x >= 2 * s]
        parts.append(_latency_rows(sweep("mem_latency", {"size_bytes": sizes}, stride_bytes=s,
                                         pattern="stride", huge_pages="off", profile=prof,
                                         progress=progress)))
    latency = pd.concat(parts, ignore_index=True)
    big = sorted(random_rows["size_bytes"])[-2:]
    line_strides = _latency_rows(sweep("mem_latency", {"stride_bytes": LINE_STRIDES,
                                                       "size_bytes": big},
                                       pattern="stride", huge_pages="off", profile=prof,
                                       progress=progress))

    point = POINT_PROFILES[profile]
    pairs = _latency_rows(_best_of_passes("line_pair_latency", {"distance_bytes": PAIR_DISTANCES},
                                          passes, point, progress,
                                          size_bytes=PAIR_PAGES * 4096))
    pages = sorted({int(round(2 ** (i / 2))) for i in range(6, 27)})  # 8 .. 8192
    spread = _best_of_passes("tlb_latency", {"pages": pages}, passes, point, progress, layout="spread")
    dense = _best_of_passes("tlb_latency", {"pages": pages}, passes, point, progress, layout="dense")
    tlb = pd.DataFrame({"pages": spread["pages"], "latency_ns": spread["value"],
                        "control_ns": dense["value"].values,
                        "latency_cycles": spread["median_cycles"],
                        "control_cycles": dense["median_cycles"].values})

    clock = float(np.median(latency["clock_ghz"]))
    fit = fit_normalised(latency, pairs, tlb, clock, line_strides=line_strides)
    walk = (measure_walk(fit, max(random_ppo, WALK_PER_OCTAVE), passes, point, progress, clock)
            if profile != "smoke" else None)
    comparison = compare_with_reported(fit, machine.get("caches", []))
    last = [lv.size_bytes for lv in fit.levels if lv.size_bytes]
    per_pass = _last_level_per_pass(random_rows, clock, last or None) if passes > 1 else []
    revisit = measure_revisit(fit, profile, progress) if profile != "smoke" else None
    return MemoryMeasurement(latency=latency, pairs=pairs, tlb=tlb, fit=fit, comparison=comparison,
                             elapsed_s=time.monotonic() - t0, profile=profile, machine=machine,
                             passes_sizes=per_pass, revisit=revisit,
                             line_strides=line_strides, walk=walk)


#: Points per octave of the random walk's sizes (at least).
WALK_PER_OCTAVE = 8
#: Without a fitted TLB, the walk stops here (beyond it every load would
#: also pay a second-level TLB miss the correction does not know).
WALK_MAX_BYTES = 16 << 20


def measure_walk(fit: MemoryFit, per_octave: int, passes: int, prof, progress: bool,
                 clock: float) -> pd.DataFrame | None:
    """The random walk (mem_latency pattern=walk) from a quarter of each
    cache's ring size to 4 times it (at most the second TLB level's reach,
    which must hold twice the size), for every cache above the first; the fit's sizes are
    then taken from it (analysis.memory_walk.refit_with_walk).  None when no cache
    qualifies."""
    caches = [lv.size_bytes for lv in fit.levels if lv.size_bytes][1:]
    # beyond the second TLB level's reach every load would also pay a page
    # walk; the first level's misses are taken out (tlb_penalty_ns)
    reach = max((t["reach_bytes"] for t in fit.tlb[1:] if t.get("reach_bytes")),
                default=WALK_MAX_BYTES)
    # a quarter of the ring's size to 4 times it, cut at the reach; the fit
    # needs at least twice the size (memory_walk.refit_with_walk)
    targets = [c for c in caches if 2 * c <= reach]
    if not targets:
        return None
    sizes = sorted({s for c in targets for s in size_grid(int(min(4 * c, reach)), per_octave)
                    if c / 4 <= s <= min(4 * c, reach) and s >= 4096})
    rows = _latency_rows(_best_of_passes("mem_latency", {"size_bytes": sizes}, passes, prof,
                                         progress, stride_bytes=64, pattern="walk",
                                         huge_pages="on"))
    refit_with_walk(fit, pd.DataFrame({"size_bytes": rows["size_bytes"],
                                       "latency_ns": rows["latency_cycles"] / clock}))
    return rows


# ------------------------------------------------- a slower revisit

#: Dependent adds after each load for the slow revisit: about 200 cycles,
#: several times a last-level hit, so each line waits several times longer.
SLOW_SPIN_ADDS = 200


def measure_revisit(fit, profile: str, progress: bool) -> dict | None:
    """The last cache's capacity with the chase as fast as it goes and with
    each line revisited SLOW_SPIN_ADDS adds later.  A private cache keeps the
    same lines however slowly they come back; a shared one loses more to its
    other users the longer each line waits.  The adds' own time is measured
    on a chase that stays in L1 and subtracted."""
    from benchlib.memory.cache_model import fit_transitions

    caches = [lv for lv in fit.levels if lv.size_bytes]
    if not caches:
        return None
    last = caches[-1]
    lo = max(MIN_SIZE, int(last.size_bytes / 4))
    sizes = [s for s in size_grid(int(last.size_bytes * 4), 3, min_bytes=lo)]
    prof = GRID_PROFILES[profile]
    out = {"spin_adds": SLOW_SPIN_ADDS}
    for key, spin in (("normal", 0), ("slow", SLOW_SPIN_ADDS)):
        df = _latency_rows(sweep("mem_revisit_latency", {"size_bytes": [16 << 10] + sizes},
                                 huge_pages="on", spin_adds=spin, profile=prof,
                                 progress=progress))
        clock = float(np.median(df["clock_ghz"]))
        cyc = df.set_index("size_bytes")["latency_cycles"] / clock
        base = float(cyc.loc[16 << 10]) - caches[0].latency_ns      # the adds' own time
        w = np.array(sizes, float)
        lat = np.maximum(cyc.loc[sizes].to_numpy(float) - base, 1e-3)
        mem = fit.levels[-1].latency_ns
        try:
            t = fit_transitions(w, lat, [last.latency_ns, mem], [last.size_bytes],
                                sigma=0.03)[0]
            out[f"{key}_bytes"] = t.size_bytes
        except (ValueError, FloatingPointError):
            out[f"{key}_bytes"] = None
        out[f"{key}_ns_per_load"] = float(np.median(cyc.to_numpy(float)))
        out[f"{key}_curve"] = {"size_bytes": sizes, "latency_ns": lat.tolist()}
    return out


# ---------------------------------------------------------------- bandwidth

BANDWIDTH_OPS = ["read", "write", "rmw", "copy_unrolled", "copy_libc", "memset"]
MIB = 1 << 20


def cache_sizes(machine: dict, fit=None) -> tuple[int, int]:
    """(cached, uncached) block sizes from the machine's caches: a block
    whose source and destination both fit in L2, and one 4x the last
    level (as Ousterhout's Table 5 and the lmbench paper ask).  Sizes come
    from sysfs, else from a fitted hierarchy ``fit``; with neither, the
    caches are unknown and this says so rather than invent one."""
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
    return max(4096, int(l2) // 4), 1 << math.ceil(math.log2(4 * llc))


def bandwidth_table(profile: str = "quick", progress: bool = True, fit=None) -> pd.DataFrame:
    """Every bandwidth op at the cached and the uncached size, counted
    both ways: once (the lmbench paper, Ousterhout) and as STREAM does;
    ``value`` with its 95% interval columns (``iv.strip`` for a CSV)."""
    from benchlib.measuring.harness import PROFILES

    cached, uncached = cache_sizes(machine_info(), fit)
    rows = []
    for counting in ("once", "stream"):
        results: list = []
        df = sweep("mem_bandwidth", {"op": BANDWIDTH_OPS, "size_bytes": [cached, uncached]},
                   counting=counting, profile=PROFILES[profile], progress=progress,
                   results=results)
        df["where"] = np.where(df.size_bytes == cached, "cached", "uncached")
        iv.put(df, "value", [r.measured for r in results])   # grid order: not shuffled
        rows.append(df)
    return pd.concat(rows, ignore_index=True)


def mountain(profile: str = "quick", progress: bool = True, max_bytes: int | None = None) -> pd.DataFrame:
    """Read bandwidth over size x stride (the memory mountain)."""
    top = max_bytes or max_size_bytes(machine_info())
    ppo = {"smoke": 0.5, "quick": 1, "full": 2}[profile]
    sizes = [s for s in size_grid(top, ppo, min_bytes=16 << 10)]
    strides = [8, 16, 32, 64, 128, 256, 512] if profile != "smoke" else [8, 64]
    return sweep("mem_bandwidth", {"size_bytes": sizes, "stride_bytes": strides}, op="read",
                 profile=GRID_PROFILES[profile], progress=progress)


# ------------------------------------------------------ this machine's rows

def lmbench_rows(m: MemoryMeasurement, bw: pd.DataFrame, label: str) -> dict[str, pd.DataFrame]:
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


def ousterhout_table5_row(bw: pd.DataFrame, label: str) -> pd.DataFrame:
    """Table 5's columns for this machine: memcpy cached and uncached, in
    MB/s (10^6 bytes; the paper does not say which megabyte it used)."""
    c = bw[(bw.counting == "once") & (bw.op == "copy_libc")].set_index("where")
    row = pd.DataFrame({"configuration": [label]})
    for col, where in (("cached_mb_s", "cached"), ("uncached_mb_s", "uncached")):
        iv.put(row, col, [iv.get(c, "value", where)])
    return row


# ------------------------------------------------ what the CPU reports: TLB

def level_evidence(m: MemoryMeasurement) -> pd.DataFrame:
    """One row per fitted level: size with its interval, latency, the shape
    of its transition, what sysfs reports at that level, and the evidence in
    words."""
    from benchlib.memory.cache_model import describe_shape

    rep = {c["level"]: c for c in m.machine.get("caches", []) if c["type"] in ("Data", "Unified")}
    rows = []
    for i, lv in enumerate(m.fit.levels):
        sysfs = rep.get(i + 1) if lv.size_bytes else None
        if lv.size_bytes is None:
            ev = f"the last plateau, {lv.n_points} points past every cache"
        else:
            ev = (f"plateau of {lv.n_points} points at {lv.latency_ns:.3g} ns; its end fits "
                  + (describe_shape(lv.transition) if lv.transition else "a threshold crossing"))
            if lv.ring_size_bytes:
                ev += (f"; size from the random walk (whatever the replacement policy, a set "
                       f"keeps ways/n of its lines), where the ring chase fitted as LRU sets "
                       f"gave {lv.ring_size_bytes[0] / 1024:.0f} KiB")
            if sysfs and sysfs.get("size_bytes"):
                r = lv.size_bytes / sysfs["size_bytes"]
                ev += (f"; {100 * r:.0f} % of sysfs's L{i + 1}"
                       + ("" if 0.9 <= r <= 1.1 else
                          f" (shared by CPUs {sysfs.get('shared_cpu_list')})" if r < 0.9 else ""))
                lo, hi = lv.size_bytes_low, lv.size_bytes_high
                if lo is not None and hi is not None and not lo <= sysfs["size_bytes"] <= hi:
                    ev += (f"; sysfs's size is outside the 95 % interval "
                           f"[{lo / 1024:.0f}, {hi / 1024:.0f}] KiB: the model with sysfs's "
                           "capacity explains the curve worse than the fitted one")
        rows.append({"level": lv.name, "size_bytes": lv.size_bytes,
                     "size_low": lv.size_bytes_low, "size_high": lv.size_bytes_high,
                     "latency_ns": lv.latency_ns,
                     "sysfs_bytes": sysfs.get("size_bytes") if sysfs else None,
                     "evidence": ev})
    return pd.DataFrame(rows)
