"""Step 3 of the memory pipeline: one fit over everything measured.

:func:`fit_memory` is the fit: ``benchlib memory``, ``benchlib fit-memory``
and the memory notebook all call it, on a :class:`.data.MemoryData` (what
the measuring step took, or what a saved directory or another tool's file
holds) or on a bare table.  In order, over whatever the input holds:

1. the ring's staircase (:mod:`.levels`: plateaus, then the capacities of
   the transition model), on cycles / the run's clock when the tables carry
   cycles, with the TLB's misses taken out where the TLB chase says so;
   plateau latencies are then the medians of the measured ns;
2. the line size from the load pairs and the stride curves, and the TLB
   levels (:mod:`.line_tlb`);
3. the random walk's capacity for each cache above the first
   (:func:`.walk.refit_with_walk`);
4. on a guest, the caches past the walk's reach as one shared last level
   (:func:`one_shared_last_level`);
5. each pass of the ring fitted alone (the last cache's capacity per pass);
6. the last cache's capacity at a fast and at a slow revisit.

It returns a frozen :class:`.hierarchy.MemoryFit`; a table the input lacks is
named in a note saying what could not be determined without it.  Pure: a
function of DataFrames; nothing here measures."""
from __future__ import annotations

import hashlib
import math
from dataclasses import replace

import numpy as np
import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.memory.associativity import read_ways, same_set_curve, ways_from_same_set
from benchlib.memory.cache_model import fit_transitions
from benchlib.memory.dataset import MemoryData
from benchlib.memory.levels import (MIN_STEP_RATIO, RING_WINDOW_BYTES, _choose_curve,
                                    _fit_levels, _with_tlb_removed, choose_curve, fit_levels,
                                    first_level_pooled, tlb_penalty_ns)
from benchlib.memory.line_tlb import (compare_with_reported, fit_tlb, line_size_from_pairs,
                                      line_size_from_strides, read_pairs, read_strides,
                                      reconcile_line_sizes)
from benchlib.memory.hierarchy import Associativity, Level, MemoryFit, Revisit
from benchlib.memory.kept import Kept
from benchlib.memory.segments import (_local_sigma, _median_by, _noise_sigma, check_columns,
                                      fastest_samples)
from benchlib.memory.access import access_model
from benchlib.memory.stride import fit_stride_chase
from benchlib.memory.synthetic import synthetic_curve
from benchlib.memory.walk import refit_with_walk
from benchlib.stats.summary import median_ci

__all__ = [
    "fit_memory", "Level", "MemoryFit", "MemoryData", "fit_levels", "choose_curve",
    "line_size_from_pairs", "line_size_from_strides", "fit_tlb", "compare_with_reported",
    "check_columns", "synthetic_curve", "tlb_penalty_ns", "RING_WINDOW_BYTES",
]


def fit_memory(data: MemoryData | pd.DataFrame, *, clock_ghz: float | None = None,
               stride_bytes: int | None = None, min_ratio: float = MIN_STEP_RATIO,
               pairs: pd.DataFrame | None = None, tlb: pd.DataFrame | None = None,
               page_bytes: int = 4096, model: bool = True,
               strides: pd.DataFrame | None = None,
               walk: pd.DataFrame | None = None) -> MemoryFit:
    """The memory hierarchy from everything measured (see the module's
    docstring for the steps).

    ``data``: a :class:`.data.MemoryData`, or a latency table (size_bytes,
    latency_ns; optionally stride_bytes, pattern, huge_pages,
    latency_cycles, clock_ghz), which may come with ``pairs``, ``tlb``,
    ``strides`` (line-size stride curves) and ``walk`` tables.  Options:
    ``clock_ghz`` (the clock: latencies in cycles, and with cycles columns
    the fit on cycles / clock; default the data's), ``stride_bytes`` (fit
    that stride's curve), ``min_ratio`` (the smallest step between two
    levels), ``page_bytes`` (the TLB chase's page), ``model`` (False:
    threshold sizes, no transition model)."""
    if isinstance(data, MemoryData):
        if any(t is not None for t in (pairs, tlb, strides, walk)):
            raise BenchlibError("pass the tables inside the MemoryData, or a latency table "
                                "with pairs=, tlb=, strides=, walk=; not both")
    else:
        data = MemoryData(latency=data, pairs=pairs, tlb=tlb, line_strides=strides, walk=walk)
    if clock_ghz is not None and not clock_ghz > 0:
        raise BenchlibError(f"clock_ghz must be > 0 (got {clock_ghz})")
    clock = clock_ghz or data.clock_ghz or _column_clock(data.latency)
    on_cycles = clock is not None and "latency_cycles" in data.latency.columns
    if on_cycles:
        check_columns(data.latency, ["latency_cycles", "latency_ns"])
    fit = _fit_tables(*(_on_cycles(data, clock) if on_cycles else
                             (data.latency, data.pairs, data.tlb, data.line_strides)),
                           clock_ghz=clock, stride_bytes=stride_bytes, min_ratio=min_ratio,
                           page_bytes=page_bytes, model=model,
                           separate_strides=data.line_strides is not None)
    if on_cycles:
        fit = _measured_latencies(fit, data.latency, clock)
    if data.walk is not None:
        w = data.walk
        if on_cycles and "latency_cycles" in w:
            check_columns(w, ["size_bytes", "latency_cycles"])
            w = pd.DataFrame({"size_bytes": w["size_bytes"],
                              "latency_ns": w["latency_cycles"] / clock,
                              **_fastest_on_cycles(data.walk, clock)})
        guest = bool((data.machine or {}).get("virtualized"))
        fit = refit_with_walk(fit, fastest_samples(w), small_pages=fit.tlb_removed or guest)
        if guest:
            fit = one_shared_last_level(fit)
    passes = (_last_level_per_pass(data.ring_passes, clock if on_cycles else None, fit)
              if data.ring_passes is not None else [])
    revisit = _fit_revisit(data.revisit, fit) if data.revisit is not None else None
    return replace(fit, passes_sizes=tuple(passes), revisit=revisit,
                   notes=fit.notes + tuple(_not_determined(data, fit, on_cycles)))


# ------------------------------------------------- a guest's shared last level

def one_shared_last_level(fit: MemoryFit) -> MemoryFit:
    """On a guest, the caches past the last one the random walk fitted are
    one level: the host's other tenants evict a shared last cache by more or
    less as they run, so the ring can climb it in two steps (3.9 MiB at 15 ns,
    then 6.1 MiB at 33 ns, on the EPYC guest), and a neighbour's eviction is
    not a cache.  Two plateaus stay two levels only where each is a capacity
    of its own to the walk (the revisit chase reads the last level alone).
    The merged level keeps the first plateau's latency (a hit in the shared
    cache), the last step's capacity (where the chase leaves it for memory),
    and an interval over both steps; a note names what was merged."""
    caches = fit.caches
    walked = [i for i, lv in enumerate(caches) if lv.walk is not None]
    if not walked:
        return fit
    past = caches[walked[-1] + 1:]
    if len(past) < 2:
        return fit
    first, last = past[0], past[-1]
    merged = replace(
        last, name=first.name, size_bytes_low=first.size_bytes_low,
        latency_ns=first.latency_ns, latency_ns_err=first.latency_ns_err,
        latency_cycles=first.latency_cycles, latency_ns_ci95=first.latency_ns_ci95,
        n_points=sum(lv.n_points for lv in past))
    steps = ", then ".join(f"{lv.size_bytes / 2**20:.2f} MiB at {lv.latency_ns:.1f} ns"
                           for lv in past)
    note = (f"{first.name}: one shared last level where the ring climbed {len(past)} steps "
            f"({steps}): on a guest, caches past the random walk's reach are one level unless "
            "the walk shows each as a capacity of its own (the host's other tenants evict a "
            "shared cache by more or less as they run: a neighbour's eviction is not a cache); "
            f"its capacity is the last step's, its interval spans the steps, its latency the "
            f"first plateau's")
    gone = {id(lv) for lv in past[1:]}
    levels = tuple(merged if lv is first else lv for lv in fit.levels if id(lv) not in gone)
    return replace(fit, levels=levels, notes=fit.notes + (note,))


# ------------------------------------------------------------- the ring's fit

def _column_clock(latency: pd.DataFrame) -> float | None:
    """The run's median clock from a ``clock_ghz`` column, if any."""
    if "clock_ghz" not in latency.columns:
        return None
    c = pd.to_numeric(latency["clock_ghz"], errors="coerce")
    c = c[c > 0]
    return float(np.median(c)) if len(c) else None


def _on_cycles(data: MemoryData, clock: float):
    """The latency, pairs, TLB and stride tables with every latency as
    cycles / clock (where a table carries cycles); the latency table keeps
    its fastest and median samples in that unit (:func:`_fastest_on_cycles`:
    the same-set chase reads its fastest sample)."""
    lat = data.latency
    keep = [c for c in ("size_bytes", "stride_bytes", "pattern", "huge_pages", "placement")
            if c in lat]
    lat = lat[keep].assign(latency_ns=lat["latency_cycles"] / clock,
                           **_fastest_on_cycles(lat, clock))
    p = data.pairs
    if p is not None and "latency_cycles" in p:
        fastest = _fastest_on_cycles(p, clock)
        p = p[[c for c in ("distance_bytes", "rel_iqr", "n_samples") if c in p]].assign(
            latency_ns=p["latency_cycles"] / clock,
            **({"min": fastest["min"]} if {"min", "clock_ghz"} <= set(p.columns) else {}))
    t = data.tlb
    if t is not None and {"latency_cycles", "control_cycles"} <= set(t.columns):
        t = pd.DataFrame({"pages": t["pages"], "latency_ns": t["latency_cycles"] / clock,
                          "control_ns": t["control_cycles"] / clock})
    s = data.line_strides
    if s is not None and "latency_cycles" in s:
        s = s[["size_bytes", "stride_bytes"]].assign(latency_ns=s["latency_cycles"] / clock,
                                                     pattern="stride")
    return lat, p, t, s


#: The ring's fit of the last few inputs, by content: the pipeline's first
#: looks (the plan step) and its final fit fit the same ring and TLB tables
#: (the line-size tables, read cheaply, may come later), and a frozen fit
#: can be handed out twice.
_RING_FITS = Kept(4)


def _digest(df: pd.DataFrame | None) -> str | None:
    if df is None:
        return None
    h = hashlib.sha1(repr(list(df.columns)).encode())
    h.update(pd.util.hash_pandas_object(df, index=True).to_numpy().tobytes())
    return h.hexdigest()


def _ring_levels_once(df, tlb, *, stride_bytes, **options):
    """The curve to fit (:func:`.levels.choose_curve`), then its levels
    (:func:`_ring_levels`) computed once per distinct curve and TLB table.
    Returns (stride, levels, notes, flattened, TLB levels, whether the TLB's
    misses were taken out)."""
    stride, curve, notes, flattened = _choose_curve(df, stride_bytes)
    same_set = same_set_curve(df)
    try:
        key = (_digest(curve), _digest(tlb), _digest(same_set), tuple(sorted(options.items())))
    except TypeError:               # a column of unhashable objects: not kept
        key = None

    def compute():
        return _ring_levels(curve, tlb, same_set=same_set, **options)

    fitted = compute() if key is None else _RING_FITS.answer(key, compute)
    levels, lnotes, tlb_levels, removed = fitted
    return (stride, list(levels), list(notes) + list(lnotes), list(flattened),
            [dict(t) for t in tlb_levels], removed)


def _ring_levels(curve, tlb, *, same_set=None, min_ratio, page_bytes, model):
    """fit_levels on the chosen curve (with the TLB's misses taken out where
    that explains it better; the first level with the TLB chase's dense
    control beside it, :func:`.levels.first_level_pooled`) + TLB levels
    (from ``tlb`` if given)."""
    tlb_levels = fit_tlb(tlb, page_bytes=page_bytes) if tlb is not None else []
    levels, lnotes, _ = _fit_levels(curve, min_ratio, model)
    tlb_removed = False
    if model and tlb_levels:
        levels, lnotes, tlb_removed = _with_tlb_removed(curve, tlb_levels, min_ratio, levels,
                                                        lnotes)
    if model:
        ways = None
        caches = [lv for lv in levels if lv.size_bytes]
        if caches:
            a = ways_from_same_set(same_set, caches[0].latency_ns,
                                   levels[levels.index(caches[0]) + 1].latency_ns)
            ways = (a.low, a.high) if a.low else None
        levels = first_level_pooled(levels, curve, tlb, lnotes, ways)
    return tuple(levels), tuple(lnotes), tuple(tlb_levels), tlb_removed


def _fit_tables(df, pairs, tlb, strides, *, clock_ghz, stride_bytes, min_ratio, page_bytes,
                model, separate_strides) -> MemoryFit:
    """The ring's levels (:func:`_ring_levels`; cycles when ``clock_ghz``)
    + line size (load pairs and stride curves, each on its own, then
    reconciled; the stride curves from ``strides`` if given, else from
    ``df``) + each level's ways (:func:`.associativity.read_ways`).

    The access model first (:func:`.access.access_model`): a table of
    sequential stride chases alone (another tool's curves, e.g. lat_mem_rd
    text) is fitted by the stride-chase model (:func:`.stride.fit_stride_chase`,
    every stride together, or ``stride_bytes`` alone); anything with random
    rows (benchlib's own runs) by the ring's."""
    kind, why = (access_model(df) if model else
                 ("threshold", "model=False: threshold sizes, no access model"))
    access = {"model": kind, "why": why}
    if kind == "stride":
        return _fit_stride_tables(df, pairs, tlb, access, clock_ghz=clock_ghz,
                                  stride_bytes=stride_bytes, page_bytes=page_bytes)
    stride, levels, notes, flattened, tlb_levels, tlb_removed = _ring_levels_once(
        df, tlb, stride_bytes=stride_bytes, min_ratio=min_ratio, page_bytes=page_bytes,
        model=model)
    if kind == "ring":
        notes = [f"access model: random ring ({why})"] + notes
    if len(levels) == 1:
        notes.append("no cache step found: the curve is flat (prefetch-flattened, or the "
                     "sizes do not span a cache)")
    if clock_ghz is not None:
        levels = [replace(lv, latency_cycles=lv.latency_ns * clock_ghz) for lv in levels]
    from_pairs = read_pairs(pairs) if pairs is not None else None
    from_strides = None
    table = strides if separate_strides else df
    if "stride_bytes" in table.columns and table["stride_bytes"].nunique() >= 3:
        # the memory latency the ring measured, beside benchlib's own line
        # strides (taken past the last cache): a prefetcher's signature
        from_strides = read_strides(table, base_ns=levels[0].latency_ns
                                    if separate_strides else None,
                                    memory_ns=levels[-1].latency_ns
                                    if separate_strides and len(levels) > 1 else None,
                                    hit_ns=levels[1].latency_ns
                                    if separate_strides and len(levels) > 2 else None)
        if from_strides["line"] is None and flattened and not from_strides["prefetch_served"]:
            notes.append("stride curves: the small strides look prefetch-flattened (latency "
                         "does not grow in proportion to the stride), no line size from them")
    line, line_info, line_notes = reconcile_line_sizes(from_pairs, from_strides)
    notes += line_notes
    if model:
        levels, ways_notes = read_ways(levels, df, line)
        notes += ways_notes
    return MemoryFit(levels=levels, line_size_bytes=line, tlb=tlb_levels,
                     stride_bytes_used=int(stride), notes=notes, line=line_info,
                     tlb_removed=tlb_removed, access_model=access)


#: No cache line we know is longer (i486 16 bytes, the 1990s' RISCs 32,
#: today's 64, Apple's and POWER's 128).
MAX_LINE_BYTES = 128


def _fit_stride_tables(df, pairs, tlb, access, *, clock_ghz, stride_bytes,
                       page_bytes) -> MemoryFit:
    """The stride-chase fit (:func:`.stride.fit_stride_chase`) of a table of
    sequential stride chases: the line (for strides below it) from the load
    pairs, else from the stride curves, else 64; each level's ways where
    the curves' shape identifies them."""
    if stride_bytes is not None:
        if "stride_bytes" in df.columns:
            df = df[df["stride_bytes"].astype(float).round() == stride_bytes]
        if df.empty:
            raise BenchlibError(f"no curve at stride_bytes={stride_bytes}")
        access = {**access, "why": access["why"] + f"; stride {stride_bytes} alone, as asked"}
    from_pairs = read_pairs(pairs) if pairs is not None else None
    from_strides = None
    if "stride_bytes" in df.columns and df["stride_bytes"].nunique() >= 3:
        from_strides = read_strides(df)
        ls = from_strides.get("line")
        if ls is not None and ls > MAX_LINE_BYTES:
            from_strides = {**from_strides, "line": None, "why": (
                f"the stride curves' reading, {ls} bytes, is beyond any cache line (16-"
                f"{MAX_LINE_BYTES} bytes): a prefetcher or a busy host moved it")}
    line, line_info, line_notes = reconcile_line_sizes(from_pairs, from_strides)
    levels, snotes, info = fit_stride_chase(df, line_bytes=line or 64)
    if line is None:
        snotes.append("the stride-chase model takes 64-byte lines (only strides below the line "
                      "depend on it)")
    access.update(strides=info.strides, flat_strides=info.flat,
                  prefetch_hidden={k: list(v) for k, v in info.hidden.items()},
                  reduced_chi2=info.reduced_chi2)
    out = []
    for lv in levels:
        t = lv.transition
        if lv.size_bytes and t is not None:
            lv = replace(lv, associativity=(
                Associativity(ways=t.ways, low=t.ways, high=t.ways,
                              source="the stride curves' shape") if t.ways_resolved else
                Associativity(reason="other ways fit the stride curves' shape as well")))
        if clock_ghz is not None:
            lv = replace(lv, latency_cycles=lv.latency_ns * clock_ghz)
        out.append(lv)
    tlb_levels = fit_tlb(tlb, page_bytes=page_bytes) if tlb is not None else []
    notes = [f"access model: sequential stride chase ({access['why']})"] + snotes + line_notes
    return MemoryFit(levels=out, line_size_bytes=line, tlb=tlb_levels,
                     stride_bytes_used=int(info.stride_used), notes=notes, line=line_info,
                     access_model=access)


def _measured_latencies(fit: MemoryFit, latency: pd.DataFrame, clock: float) -> MemoryFit:
    """Sizes were fitted on cycles / the run's median clock: a shared host
    can move the core clock by a third for seconds at a time
    (docs/findings.md), which in ns is
    larger than the rise that marks a cache's end, in cycles it is gone.
    Plateau latencies are the median of the *measured* ns (and of the
    cycles) over each plateau's points, because a main-memory access takes a
    fixed time, not a fixed number of cycles."""
    curve = latency
    if "stride_bytes" in curve:
        curve = curve[curve.stride_bytes == fit.stride_bytes_used]
    if "pattern" in curve:
        pat = curve.pattern.astype(str)
        curve = curve[pat == ("random" if (latency.pattern.astype(str) == "random").any()
                              else "stride")]
    levels, lo = [], 0.0
    for lev in fit.levels:
        hi = lev.size_bytes_low if lev.size_bytes else np.inf
        pts = curve[(curve.size_bytes > lo) & (curve.size_bytes <= hi)]
        if len(pts):
            ns = float(np.median(pts.latency_ns))
            mad = float(np.median(np.abs(pts.latency_ns - ns)))
            lev = replace(lev, latency_ns=ns, latency_ns_ci95=median_ci(pts.latency_ns),
                          latency_cycles=float(np.median(pts.latency_cycles)),
                          latency_ns_err=1.4826 * mad / np.sqrt(len(pts)))
        levels.append(lev)
        lo = lev.size_bytes_high or lo
    note = (f"sizes fitted on cycles / {clock:.2f} GHz (the run's median clock); "
            "plateau latencies are medians of the measured ns and cycles")
    return replace(fit, levels=tuple(levels), notes=fit.notes + (note,))


def _fastest_on_cycles(table: pd.DataFrame, clock: float) -> dict:
    """A table's fastest and median samples (``min``, ``median``) in the
    unit of its latency on cycles (``latency_cycles / clock``), for
    :func:`.segments.fastest_samples`: the fastest sample in cycles (its nanoseconds
    times the clock the point ran at, ``min * clock_ghz / clock``: each
    sample's cycles are its nanoseconds times its clock probe's) and the
    median sample's cycles.  Their ratio is then what the neighbours added
    that the cycles do not already take out.  The ratio of the nanosecond
    columns alone, applied to the cycles, takes a slow vCPU speed out twice:
    on the EPYC guest (two speeds 2x apart), a point whose samples ran at
    both read below an L2 hit (tests/memory/data/live_epyc/m4q3 at 431 KiB: 3.7 ns where the
    fastest sample took 5.1 ns), and six such points of 33 made a
    spurious level of m4q4 and left q3's walk without a capacity.
    Where the fastest sample in cycles reads slower than the median's (the
    median sample ran at a faster clock), the median's stands.  The
    table's own columns where it lacks clock_ghz or latency_cycles."""
    if not {"min", "clock_ghz", "latency_cycles"} <= set(table.columns):
        return {c: table[c] for c in ("min", "median") if c in table}
    return {"min": pd.to_numeric(table["min"], errors="coerce")
            * pd.to_numeric(table["clock_ghz"], errors="coerce") / clock,
            "median": pd.to_numeric(table["latency_cycles"], errors="coerce") / clock}


# ------------------------------------------------------------ each pass alone

def _last_level_per_pass(every: pd.DataFrame, clock: float | None,
                         fit: MemoryFit | None = None) -> list[float | None]:
    """Each pass of the ring (``every``: size_bytes, pass_index and
    latency_cycles, or latency_ns) fitted alone: its capacity of the last
    cache; [] for a single pass.  With ``fit`` (the whole fit), each pass's
    last capacity is the transition model's (:func:`.cache_model.fit_transitions`,
    that level alone) with every other level held at the whole fit's
    capacities and latencies, the TLB's misses taken out where the whole fit
    took them out: None where its profile reaches the search's edge (the
    pass lost the level; not its L2 in its place).  Without ``fit``, each
    pass's own levels (:func:`.levels.fit_levels`) and their last."""
    check_columns(every, ["size_bytes", "pass_index"], positive=False)
    if clock is None or "latency_cycles" not in every:
        check_columns(every, ["latency_ns"])
    if every["pass_index"].nunique() < 2:
        return []
    caches = fit.caches if fit is not None else []
    out = []
    for _, r in every.groupby("pass_index"):
        ns = (r["latency_cycles"] / clock if clock is not None and "latency_cycles" in r
              else r["latency_ns"])
        curve = _median_by(pd.DataFrame({"size_bytes": r["size_bytes"], "latency_ns": ns}),
                           "size_bytes", "latency_ns")
        if not caches:
            try:
                own = [lv.size_bytes for lv in fit_levels(curve) if lv.size_bytes]
            except BenchlibError:
                own = []
            out.append(own[-1] if own else None)
            continue
        w = curve["size_bytes"].to_numpy(float)
        lat = curve["latency_ns"].to_numpy(float)
        if fit.tlb_removed:
            lat = lat - tlb_penalty_ns(w, list(fit.tlb), window_bytes=RING_WINDOW_BYTES)
        lats = [lv.latency_cycles / clock if clock and lv.latency_cycles else lv.latency_ns
                for lv in fit.levels]
        if len(w) < 4 or (lat <= 0).any():
            out.append(None)
            continue
        y = np.log(lat)
        sig_i = _local_sigma(y, half=8)
        sig_i = np.maximum(sig_i, min(_noise_sigma(y), float(np.median(sig_i))))
        try:
            t = fit_transitions(w, lat, lats, [lv.size_bytes for lv in caches], sig_i,
                                rounds=1, only=len(caches) - 1, edge_rounds=0)[0]
            out.append(None if t.edge_of_grid else t.size_bytes)
        except (ValueError, FloatingPointError, IndexError):
            out.append(None)
    return out


# ---------------------------------------------------------- a slower revisit

def _fit_revisit(table: pd.DataFrame, fit: MemoryFit) -> Revisit | None:
    """The last cache's capacity with the chase as fast as it goes
    (spin_adds 0) and with each line revisited later (the largest
    spin_adds).  A private cache keeps the same lines however slowly they
    come back; a shared one loses more to its other users the longer each
    line waits.  The adds' own time is the ``role == "base"`` point (a
    chase that stays in L1) less the L1's latency, and is taken out; each
    run's latencies are its cycles / its own median clock."""
    check_columns(table, ["size_bytes", "spin_adds"], positive=False)
    caches = fit.caches
    if not caches or "role" not in table:
        return None
    last, mem = caches[-1], fit.levels[-1].latency_ns
    slow = int(table["spin_adds"].max())
    out = {}
    for key, spin in (("normal", 0), ("slow", slow)):
        part = table[table["spin_adds"] == spin]
        role = part["role"].astype(str)
        if not (role == "base").any() or not (role == "curve").any():
            return None
        if "latency_cycles" in part and "clock_ghz" in part:
            cyc = part["latency_cycles"] / float(np.median(part["clock_ghz"]))
        else:
            check_columns(part, ["latency_ns"])
            cyc = part["latency_ns"]
        base = float(cyc[role == "base"].iloc[0]) - caches[0].latency_ns   # the adds' own time
        w = part.loc[role == "curve", "size_bytes"].to_numpy(float)
        lat = np.maximum(cyc[role == "curve"].to_numpy(float) - base, 1e-3)
        try:
            t = fit_transitions(w, lat, [last.latency_ns, mem], [last.size_bytes], sigma=0.03)[0]
            out[f"{key}_bytes"] = t.size_bytes
        except (ValueError, FloatingPointError):
            out[f"{key}_bytes"] = None
        out[f"{key}_ns_per_load"] = float(np.median(cyc.to_numpy(float)))
        out[f"{key}_curve"] = {"size_bytes": [int(s) for s in w], "latency_ns": lat.tolist()}
    return Revisit(spin_adds=slow, **out)


# -------------------------------------------------------- what was not there

def _not_determined(data: MemoryData, fit: MemoryFit, on_cycles: bool) -> list[str]:
    """One note naming each chase the input lacks and what is therefore not
    determined (nothing when the input is complete)."""
    lack = []
    if not on_cycles:
        lack.append("cycles and the clock (the sizes are fitted on the ns as given, which a "
                    "changing clock can move)")
    if data.walk is None and len(fit.caches) > 1:
        lack.append("the random walk (the sizes above L1 are the ring's, read as LRU sets: a "
                    "cache with another replacement policy reads larger)"
                    if fit.access_model.get("model") != "stride" else
                    "the random walk (the sizes above L1 rest on the stride curves alone)")
    if data.pairs is None:
        lack.append("the load pairs (the line size rests on the stride curves alone, if any)")
    if data.tlb is None:
        lack.append("the TLB chase (no TLB levels, and their misses stay in the curve)")
    if data.ring_passes is None and fit.caches:
        lack.append("the ring's separate passes (how far the last cache moves between passes)")
    if data.revisit is None and fit.caches:
        lack.append("the slow revisit (whether the last cache loses capacity when its lines "
                    "wait)")
    return ["not in the input, so not determined: " + "; ".join(lack)] if lack else []
