"""The fit of sequential stride chases: other tools' curves (lat_mem_rd's
figure, one curve per stride), and the 1990s' direct-mapped caches.

A part of the fit step (:func:`.fit.fit_memory` dispatches here for a table
of stride-order rows, :func:`.access.access_model`; benchlib's own random chases
never come here).

In a sequential chase the array's slots are visited in one fixed order, so
every cache sees a cycle, as in the ring, but the lines it touches are the
array's in address order: a virtually indexed cache (or a page-colouring
OS) fills every set evenly and steps sharply at its capacity (a direct-mapped
one ramps from C to 2C), a physically indexed one on randomly placed pages
starts losing lines well before C (a direct-mapped board cache of 512 KiB
on 8 KiB pages loses a tenth at 64 KiB), and a stride beyond a way puts
every line in one set (:func:`.cache_model.kept_fraction`, ``access="stride"``).
Stream prefetchers follow small strides and hide some levels' misses: the
step is smaller, or gone, at those strides, while its place does not move.

So the curves of every stride are fitted together: one capacity and shape
(ways 1-32, contiguous or random page placement, LRU or a thrash-resistant
policy) per level, shared by every stride; each stride's plateau latencies
its own (linear least squares, no step negative), so a prefetcher that
hides a level at small strides costs nothing.  A random-page level
keeps, at each point, the typical placement's lines where every size is
its own placement of the array (the table's ``placement`` "size", the
default: lmbench3's lat_mem_rd, which times each size in a freshly
forked child;
:func:`.cache_model.typical_kept`) and the mean over placements' where the
sizes are prefixes of one array ("curve", one array per stride; "run", one
for every stride, as lmbench 1.x and 2.x's lat_mem_rd allocates once:
:func:`.access.placement_of`).  Each
point has its own noise (local second differences), each stride's noise is scaled by its own
misfit, and a random-page level's placement variance is in the deviance.
Levels are chosen forward, gap by gap on a coarse capacity grid (twice:
with and without direct-mapped random-page shapes while choosing; where
each point is its own placement, twice more under the mean model; the
best by BIC under the table's own), and a level stays only if the curves need it
(:func:`_accepts`: BIC, a step of x1.35 where it is needed, enough strides,
one below 1024 bytes, neighbours 4x apart, and a step that, once shown at
one stride, is shown at every larger one: :func:`_comes_and_goes`; a level
that fails it after the intervals is dropped and the rest refined).  A
level whose step one stride
shows and a smaller stride does not is *prefetch-hidden* there (said; its
capacity comes from the strides that show it); a first step past any L1
makes the level the ``LLC``, the levels below hidden.  The 95 % interval is
a profile over capacities and shapes, with the chi-square scaled by the
best fit's own reduced chi-square times MISFIT_WIDEN (calibrated on
bench/memory_coverage.py), never narrower than the measured sizes either
side of a sharp step, and widened to the jackknife over strides (each
stride its own run and page placement: the capacity with each stride left
out, a t interval from their median absolute deviation) where that is
wider.  A level on randomly placed pages is widened once more, to a
bootstrap over placements (:func:`.stride_model._placement_bootstrap`): figures drawn
from the fit itself with a new placement of the array per stride (one for
them all in a "run"), refitted,
and, for a level of at most four ways, drawn from a direct-mapped cache too
(one placement of a direct-mapped board looks like a sharper cache at
another capacity, which a bootstrap from the sharper shape cannot see).

Where every stride's curve is one placement of an array, each size a
prefix of it ("curve", "run"), the last level on random pages of at most
four ways is then read again under that placement's page-colour
occupancy chain (:func:`.placement_chain.chain_refit`): its kept fractions one path of
the chain, correlated over the sizes, each stride's latencies profiled
out.  The forward selection's candidates are compared by that
likelihood less BIC's charge, and the levels between the first and it
that the chain does without are dropped, before the levels' shapes are
chosen and again after.

Status: :func:`.fit.fit_memory` calls it for tables whose every row is a
stride chase (:func:`.access.access_model`).  How often it reads the
simulated machines' levels within 10 %, per placement, how often its
intervals hold them, and how long a fit takes: docs/memory.md (from
bench/memory_coverage.py), which also says which levels it misses and why.

Pure: a function of DataFrames."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import stdtrit  # the t quantile: scipy.special imports in a third of scipy.stats' time

from benchlib.memory.access import PLACEMENT_NOTES, placement_of
from benchlib.memory.cache_model import DELTA_CHI2, Transition
from benchlib.memory.hierarchy import Level
from benchlib.memory.segments import _MIN_SIGMA, MIN_STEP, _noise_sigma
from benchlib.memory.stride_model import (
    _curves, _strides, _Data, _nest, _shapes, _grid, _profile, _dev_of, _bottom, _placement_bootstrap,
    _room, _n_params, BOOT_DM_WAYS, GRID_PER_OCTAVE, COARSE_PER_OCTAVE, MIN_RATIO, RANDOM_MIN_BYTES)
from benchlib.memory.placement_chain import chain_refit, chain_score

#: A step below this ratio of latencies, at a stride where another stride
#: shows the level, is hidden there.
HIDDEN_RATIO = 1.08
#: A curve that rises by less than this (or 4 sigma) from its smallest to
#: its largest sizes is flat: every level prefetch-hidden at that stride.
FLAT_RISE = 1.09
#: A level that only strides of at least this many bytes need (a TLB miss
#: every 4 loads or more on 4 KiB pages) may be the TLB's reach, not a
#: cache: with smaller strides in the figure, one of them must need it.
TLB_STRIDE = 1024
#: With at least this many strides below TLB_STRIDE that are not flat, the
#: strides from TLB_STRIDE up place capacities only if, each fitted alone,
#: they agree with each other (:func:`_paged_strides_out`).
PAGED_WITNESSES = 2
#: Intervals: the chi-square is divided by max(1, the best fit's reduced
#: chi-square) times this (calibrated on bench/memory_coverage.py).
MISFIT_WIDEN = 4.0
#: Reweighting passes of the soft-L1 loss while levels are chosen (3 after)
SELECT_PASSES = 2
#: The forward selections made (see fit_stride_chase): "new" = the
#: selection's shapes alone, True = with direct-mapped random-page shapes
SELECTIONS = ("new", True)
#: At most this many levels.
MAX_LEVELS = 5
#: No first-level cache we know is larger (the HP 9000/735's off-chip 256
#: KiB; today's L1s hold at most 192 KiB): a first step beyond this is a
#: later level's, the levels below it prefetch-hidden at every stride given.
FIRST_LEVEL_MAX = 1 << 20


def _agree(mine: list, theirs: list, lo: float, hi: float) -> bool:
    """Whether every level of ``mine`` has a level of ``theirs`` whose 95 %
    interval overlaps its own, and every level of ``theirs`` inside the
    sizes lo..hi one of ``mine`` (two fits of one cache, level by level)."""
    def overlaps(a, b):
        return a.size_bytes_low <= b.size_bytes_high and b.size_bytes_low <= a.size_bytes_high
    return (all(any(overlaps(a, b) for b in theirs) for a in mine)
            and all(any(overlaps(b, a) for a in mine) for b in theirs
                    if lo <= b.size_bytes <= hi))


def _paged_strides_out(df: pd.DataFrame, use: dict) -> list[int]:
    """The strides of a TLB miss every 4 loads or more (TLB_STRIDE and up)
    that place no capacity: all of them, where PAGED_WITNESSES smaller
    strides show steps and two of them, each fitted alone, disagree on the
    levels in the sizes both cover (:func:`_agree`).  Such curves carry
    the TLB's own steps and a prefetcher that follows pages, which the
    cache model lacks, and then say different things at every stride:
    alone, lmbench3's recorded curves read the Zen 4 guest's levels as 64
    KiB, 2814 KiB and 73 MiB at 1024 bytes and as 32 KiB, 384 KiB and 14
    MiB at 4096, the Zen 3 guest's L1 as 16 and 4 KiB; jointly with the
    others they pulled the Zen 4 L2 from 1117 KiB to 1448 (docs/memory.md).
    On the simulated machines, which have no TLB, the large strides agree
    with each other and stay: there they are the clean witnesses of a level
    that a prefetcher hides in part at the smaller strides."""
    paged = sorted(st for st in use if st >= TLB_STRIDE)
    small = [st for st in use if st < TLB_STRIDE]
    if len(paged) < 2 or len(small) < PAGED_WITNESSES:
        return []
    st_col = _strides(df)
    alone = {st: [lv for lv in fit_stride_chase(df[st_col == st])[0] if lv.size_bytes]
             for st in paged}
    for a, b in zip(paged, paged[1:]):
        sa, sb = use[a]["size_bytes"], use[b]["size_bytes"]
        lo, hi = max(float(sa.min()), float(sb.min())), min(float(sa.max()), float(sb.max()))
        in_a = [lv for lv in alone[a] if lo <= lv.size_bytes <= hi]
        if not _agree(in_a, alone[b], lo, hi):
            return paged
    return []


@dataclass
class StrideFit:
    """What the stride fit found (beside the levels it returns)."""
    strides: list[int]
    flat: list[int]                       # strides with no step at all
    hidden: dict = field(default_factory=dict)   # level name -> strides where prefetch-hidden
    steps: dict = field(default_factory=dict)    # level name -> {stride: step ratio}
    reduced_chi2: float = 1.0
    stride_used: int = 0
    paged_out: list = field(default_factory=list)   # paged strides that place no capacity


def _place(data, fixed, k, grid, coarse=False, passes=3):
    """Level k at its best capacity in ``grid`` and best shape."""
    best = _profile(data, fixed, k, grid, coarse, passes)
    prof = np.min(np.array(list(best.values())), axis=0)
    i = int(np.argmin(prof))
    shape = min(best, key=lambda s: best[s][i])
    out = list(fixed)
    out[k] = (float(grid[i]),) + tuple(shape)
    return out, float(prof[i])


def _refine(data, fixed, span=2.0 ** (1 / 4), coarse=False, passes=3, wide=False):
    """One round of coordinate descent over the levels, each on the fine
    grid within ``span`` of where it is (``wide``: on the coarse grid over
    all the room its neighbours leave it: a level placed first where two
    steps are, half-way between them, moves to one of them once the other
    has its own level)."""
    for k in range(len(fixed)):
        lo, hi = _room(data, fixed, k)
        c = fixed[k][0]
        if not wide:
            lo, hi = max(lo, c / span), min(hi, c * span)
        if hi < lo:
            continue
        fixed, _ = _place(data, fixed, k, _grid(lo, hi, COARSE_PER_OCTAVE if wide
                                                else GRID_PER_OCTAVE), coarse, passes)
    return fixed


def _new_level(data, fixed):
    """The best new level in each gap between the levels (coarse grid,
    coarse shapes): [(deviance, position, trial levels)], best first."""
    out = []
    for k in range(len(fixed) + 1):
        lo = fixed[k - 1][0] * MIN_RATIO if k else data.w_all[0]
        hi = fixed[k][0] / MIN_RATIO if k < len(fixed) else data.w_all[-1]
        if hi < lo * 1.05:
            continue
        trial = fixed[:k] + [(math.sqrt(lo * hi), 1, None, "lru")] + fixed[k:]
        trial, dev = _place(data, trial, k, _grid(lo, hi, COARSE_PER_OCTAVE), "new", SELECT_PASSES)
        out.append((dev, k, trial))
    return sorted(out, key=lambda t: t[0])


def _comes_and_goes(step) -> bool:
    """Whether a level's step ratios (one per stride, smallest stride
    first) come and go with the stride.  A prefetcher follows small strides
    and hides a level there, never at a larger stride than one that shows
    it (nor does a line's dilution below the line): a cache's step, once
    shown, is shown at every larger stride; a step that comes and goes is
    each run's own placement of the array (its pages' colour clashes, a
    different one per stride), not a cache."""
    shown = np.asarray(step) >= HIDDEN_RATIO
    return bool(shown.any() and not shown[int(np.argmax(shown)):].all())


def _accepts(data, trial, k, dev_cur, cur_s):
    """Whether the curves need level k of ``trial``: its BIC over the whole
    figure (capacity, shape and one step per stride, scaled by the misfit),
    a step of at least MIN_STEP somewhere, and enough strides that need it
    and step up there: half of them, or (a prefetcher hides a level at the
    small strides, not at the large ones) at least two and three quarters
    of the strides from the smallest that shows it up.  Each stride is its
    own run (its own placement of the array): one stride's wiggle is not a
    level.  Returns (accepted, deviance, per-stride deviance)."""
    dev_t, coefs, trial_s = _dev_of(data, trial)
    S = len(data.strides)
    lat = np.cumsum(coefs, axis=-1)                          # (S, K+1)
    step = lat[:, k + 1] / np.maximum(lat[:, k], 1e-12)
    K = len(trial)
    red_s = np.maximum(1.0, trial_s / np.maximum(data.m_s - K - 1, 1))
    need = ((cur_s - trial_s) > 3 * np.log(data.m_s) * red_s) & (step >= HIDDEN_RATIO)
    p = _n_params(S, K)
    red = max(1.0, dev_t / max(data.n - p, 1))
    votes = int(need.sum())
    ok_votes = votes >= max(1, math.ceil(0.5 * S))
    if not ok_votes and votes >= 2:
        first = int(np.argmax(need))
        ok_votes = votes >= 0.75 * (S - first)
    small = np.array(data.strides) < TLB_STRIDE
    if small.any() and not small.all() and not (need & small).any():
        ok_votes = False
    if _comes_and_goes(step):
        ok_votes = False
    ok = (dev_cur - dev_t >= (2 + S) * math.log(data.n) * red
          and votes > 0 and float(np.max(step[need])) >= MIN_STEP and ok_votes)
    return ok, dev_t, trial_s

# ----------------------------------------------------------------- the fit

def _interval(data, fixed, k, widen):
    """Level k's size and 95 % interval: the profile over capacities (fine
    grid, every shape) within its room; a flat bottom (a sharp step
    between two measured sizes) gives its middle, and the interval never
    ends inside the gap between the measured sizes either side of a sharp
    step.  Returns (level, Transition)."""
    lo_r, hi_r = _room(data, fixed, k)
    c = fixed[k][0]
    lo_g, hi_g = max(lo_r, c / 2.5), min(hi_r, c * 2.5)
    # every shape of the level's replacement policy (chosen with the levels;
    # one run's placement of a 256 KiB 4-way L2 read as 108 KiB that keeps
    # ways/n past it) on the coarse grid; on the fine grid, those near the best
    every = [sh for sh in _shapes() if sh[2] == fixed[k][3]]
    rough = _profile(data, fixed, k, _grid(lo_g, hi_g, COARSE_PER_OCTAVE), passes=2,
                     shapes=every)
    floor = min(float(v.min()) for v in rough.values())
    near = {key for key, v in rough.items()
            if float(v.min()) <= floor + 2 * DELTA_CHI2 * widen * max(1.0, 4.0 / MISFIT_WIDEN)}
    # the level's own shape whatever the coarse grid says of it (a cache's
    # capacity is its ways times a power of two, _built: the coarse grid
    # may have no such point near the step, 96 KiB of 3 ways)
    ways0, page0, policy0 = fixed[k][1:]
    near.add((ways0, None if page0 is None or page0 * ways0 >= hi_g or hi_g <= RANDOM_MIN_BYTES
              else page0, policy0))
    grid = _grid(lo_g, hi_g, GRID_PER_OCTAVE)
    best = _profile(data, fixed, k, grid, per_stride=True, shapes=[
        sh for sh in every
        if (sh[0], None if sh[1] is None or sh[1] * sh[0] >= hi_g or hi_g <= RANDOM_MIN_BYTES
                   else sh[1], sh[2]) in near])
    keys = list(best)
    per_s = np.array([best[s] for s in keys])                 # (shapes, G, S)
    total = per_s.sum(axis=2)                                 # (shapes, G)
    allchi = total / widen
    prof = allchi.min(axis=0)
    i = int(np.argmin(prof))
    ok = prof <= prof[i] + DELTA_CHI2
    lo, hi = i, i
    while lo > 0 and ok[lo - 1]:
        lo -= 1
    while hi + 1 < len(grid) and ok[hi + 1]:
        hi += 1
    fits = [keys[j] for j in range(len(keys)) if allchi[j, i] <= prof[i] + DELTA_CHI2]
    # the shapes the curves allow at any capacity of the interval (the
    # profile over capacity and shape together): a level's ways are
    # identified only when every one of them has the same (at the best
    # capacity alone, the grid's granularity can favour one: the Zen 4
    # guest's 32 KiB 8-way L1 read as 2 ways of 16.5 KiB at 33 KiB, which
    # strides up to 4096 cannot tell from 8 of 4 KiB)
    allowed = [keys[j] for j in range(len(keys))
               if float(allchi[j, lo:hi + 1].min()) <= prof[i] + DELTA_CHI2]
    size = _bottom(grid, prof)
    ways, page, policy = keys[int(np.argmin(allchi[:, i]))]
    if size <= RANDOM_MIN_BYTES:
        page = None               # indexed inside the page (the model's own rule, _Data._kept)
    size_lo, size_hi = float(grid[lo]), float(grid[hi])
    sharp = all(pg is None or size / wy <= pg for wy, pg, _ in fits)
    if sharp:
        w = data.w_all
        below, above = w[w <= size], w[w > size]
        if len(below):
            size_lo = min(size_lo, float(below.max()))
        if len(above):
            size_hi = max(size_hi, float(above.min()))
    # each stride is its own run (its own placement of the array on random
    # pages, its own prefetcher's hiding, its own drift): the capacity read
    # with each stride left out (shapes free) spreads as the runs do, which
    # the profile (one run's points read as independent) does not see.  The
    # jackknife's t interval about the estimate, where wider, within the
    # level's room; its scale from the median absolute deviation (the
    # capacity is an argmin over a grid: one stride's leaving can move it
    # to another local minimum, which a standard deviation of S values
    # would take whole)
    S = per_s.shape[2]
    if S >= 3:
        with np.errstate(invalid="ignore"):      # a capacity no cache has (_built): inf
            loo = np.array([math.log(_bottom(grid, np.nan_to_num(
                total - per_s[:, :, j], nan=np.inf).min(axis=0))) for j in range(S)])
        se = math.sqrt(S - 1) * 1.4826 * float(np.median(np.abs(loo - np.median(loo))))
        if se > 0:
            t = float(stdtrit(S - 1, 0.975))
            size_lo = max(min(size_lo, size * math.exp(-t * se)), lo_r)
            size_hi = min(max(size_hi, size * math.exp(t * se)), hi_r)
    # a level on randomly placed pages: one placement of the array per
    # stride moves its capacity further than the profile (points read as
    # independent) or the jackknife (S runs) says; its spread (and the
    # fit's own bias) from curves drawn at the fit's own placements
    colours = size / ways / page if page is not None else 0.0     # None at or under RANDOM_MIN_BYTES
    if colours > 1.0:
        # drawn from the fitted shape, and, for a level of at most
        # BOOT_DM_WAYS ways, from a direct-mapped cache on random pages at
        # that shape's best capacity: one placement of it can pass for a
        # sharper cache at another capacity, so drawn from the fitted shape
        # alone the interval would not see how far off that is
        dm = [sh for sh in rough if sh[0] == 1 and sh[1] is not None
              and sh != (ways, page, policy)] if ways <= BOOT_DM_WAYS else []
        sources = [(size, ways, page, policy)]
        shapes = sorted(set(fits) | set(dm), key=str)
        if dm:
            dm_prof = _profile(data, fixed, k, grid, shapes=dm)
            sh = min(dm, key=lambda d: float(dm_prof[d].min()))
            sources.append((_bottom(grid, dm_prof[sh]),) + tuple(sh))
        for src in sources:
            b_lo, b_hi = _placement_bootstrap(data, fixed, k, src, grid, shapes, size)
            size_lo = max(min(size_lo, b_lo), lo_r)
            size_hi = min(max(size_hi, b_hi), hi_r)
    # never narrower than the capacity grid's own step either side
    size_lo = min(size_lo, size / 2.0 ** (1 / GRID_PER_OCTAVE))
    size_hi = max(size_hi, size * 2.0 ** (1 / GRID_PER_OCTAVE))
    level = (size, ways, page, policy)
    t = Transition(
        size_bytes=size, size_bytes_low=size_lo, size_bytes_high=size_hi, ways=int(ways),
        ways_resolved=len({f[0] for f in allowed}) == 1, page_bytes=int(page or 0),
        page_resolved=len({f[1] for f in allowed}) == 1 and page is not None,
        gradual=page is not None and size / ways >= 2 * page, chi2=float(prof[i] * widen),
        n_points=data.n, deviance=float(prof[i] * widen))
    return level, t


def _select(data, kind):
    """Forward selection: the best new level in each gap, the best three
    tried (placed and refined with the ``kind`` of shapes), the first that
    the curves need kept (:func:`_accepts`); until none is."""
    fixed: list = []
    dev_cur, _, cur_s = _dev_of(data, fixed)
    while len(fixed) < MAX_LEVELS:
        accepted = None
        S = len(data.strides)
        for dev_new, k, trial in _new_level(data, fixed)[:3]:
            if dev_cur - dev_new < 0.5 * (2 + S) * math.log(data.n):
                continue          # far from paying its BIC even before it is refined
            lo, hi = _room(data, trial, k)
            c = trial[k][0]
            step = 2.0 ** (1.5 / COARSE_PER_OCTAVE)
            trial, _ = _place(data, trial, k, _grid(max(lo, c / step), min(hi, c * step),
                                                    GRID_PER_OCTAVE), kind, SELECT_PASSES)
            trial = _refine(data, trial, coarse=kind, passes=SELECT_PASSES, wide=True)
            trial = _refine(data, trial, coarse=kind, passes=SELECT_PASSES)
            ok, dev_t, trial_s = _accepts(data, trial, k, dev_cur, cur_s)
            if ok:
                accepted = (trial, dev_t, trial_s)
                break
        if accepted is None:
            break
        fixed, dev_cur, cur_s = accepted
    return fixed


def fit_stride_chase(df: pd.DataFrame, line_bytes: int | None = None
                     ) -> tuple[list[Level], list[str], StrideFit]:
    """Levels (caches, then memory) from stride-order curves; see the
    module's docstring.  ``line_bytes``: the line if known (default 64; it
    matters only to strides below it)."""
    curves = _curves(df)
    line = int(line_bytes or 64)
    notes: list[str] = []
    # strides whose curve has no step at all: every level prefetch-hidden
    flat = []
    for st, c in curves.items():
        y = np.log(c["latency_ns"].to_numpy(float))
        sig = max(_noise_sigma(y), _MIN_SIGMA)
        k = max(2, len(y) // 8)
        if np.median(y[-k:]) - np.median(y[:k]) < max(math.log(FLAT_RISE), 4 * sig):
            flat.append(st)
    use = {st: c for st, c in curves.items() if st not in flat} or curves
    paged_out = _paged_strides_out(df, use)
    use = {st: c for st, c in use.items() if st not in paged_out}
    placement = placement_of(df)
    data = _Data(use, line, typical=placement == "size", shared=placement == "run")
    S = len(data.strides)
    # forward selection twice: levels placed with the selection's shapes
    # alone, and with direct-mapped caches on random pages too (a 1990s
    # board cache's onset, which alone can also pass for a whole staircase);
    # the better by BIC kept
    cands = []
    # where each point is its own placement, the levels are also chosen
    # under the mean over placements (the typical placement's onset can
    # hide a second level from the forward search: a 48 KiB L1 and a 256
    # KiB L2 of 8 colours read as one 'any' level at 161 KiB), then every
    # choice refined and compared under the typical placement
    searches = [data] + ([data.with_typical(False)] if data.typical else [])
    for found, kind in ((s_, k_) for s_ in searches for k_ in SELECTIONS):
        f = _select(found, kind)
        f = _refine(data, f) if f else f
        d, coefs, _ = _dev_of(data, f)
        K = len(f)
        p = _n_params(S, K)
        red = max(1.0, d / max(data.n - p, 1))
        cands.append((d + p * math.log(data.n) * red, f, coefs))
    fixed = min(cands, key=lambda c: c[0])[1]
    sets = list({tuple(f): (f, coefs) for _, f, coefs in cands if f}.values())
    if placement in ("curve", "run") and len(sets) > 1:
        # one placement per curve: the candidates compared by the chain's
        # likelihood, not least squares on the mean over placements, on the
        # same points, every size from the largest page they read (from
        # past a first level, a set whose first level is too large wins)
        floor = max(page or 0 for f, _ in sets for _, _, page, _ in f)
        sc = [chain_score(data, f, coefs, floor, coarse=True) for f, coefs in sets]
        if all(x is not None for x in sc):
            fixed = sets[int(np.argmax([x[0] for x in sc]))][0]
    if fixed:
        # each stride is its own run, which the model describes better or
        # worse (a prefetcher's partial hiding, the TLB's misses at large
        # strides, a neighbour's share): its points' noise is scaled by its
        # own misfit, so that the strides the model describes place the
        # capacities, then every level refined
        _, _, dev_s = _dev_of(data, fixed)
        red_s = dev_s / np.maximum(data.m_s - len(fixed) - 1, 1)
        data.sig = data.sig * np.sqrt(np.maximum(1.0, red_s))[:, None]
        data._fixed.clear()
        fixed = _refine(data, fixed)
        if placement in ("curve", "run"):
            # a level the occupancy chain does without is dropped before the
            # levels' shapes are chosen: left in, it can turn the board below
            # it into a contiguous cache of many ways, which the chain does
            # not read again (the UltraSPARC's seed 105)
            sc = chain_score(data, fixed, _dev_of(data, fixed)[1])
            if sc is not None and sc[1] is not None:
                fixed = _refine(data, list(sc[2]))
    while True:
        dev_all, coefs, _ = _dev_of(data, fixed)
        K = len(fixed)
        p = _n_params(S, K)
        red = dev_all / max(data.n - p, 1)
        widen = max(1.0, red) * MISFIT_WIDEN
        trans = []
        for k in range(K):
            fixed[k], t = _interval(data, fixed, k, widen)
            trans.append(t)
        dev_all, coefs, _ = _dev_of(data, fixed)
        if placement in ("curve", "run"):
            # before a level whose step comes and goes is dropped: a
            # spurious level below a board, which the chain does without,
            # is dropped by it, and the refit that dropping a level asks
            # for does not move the first level into the board's onset
            fixed, trans = chain_refit(data, fixed, coefs, trans)
            dev_all, coefs, _ = _dev_of(data, fixed)
            K = len(fixed)
        # refined and given its best shape, a level may have become one
        # whose step comes and goes with the stride (:func:`_comes_and_goes`):
        # the first such dropped, the rest refined again, until none is
        lat = np.cumsum(coefs, axis=-1)
        bad = [k for k in range(K)
               if _comes_and_goes(lat[:, k + 1] / np.maximum(lat[:, k], 1e-12))]
        if not bad or K <= 1:
            break
        fixed = _refine(data, fixed[:bad[0]] + fixed[bad[0] + 1:], wide=True)
        fixed = _refine(data, fixed)
    info = StrideFit(strides=sorted(curves), flat=sorted(flat), reduced_chi2=float(red),
                     paged_out=[int(s) for s in paged_out])
    # the stride whose latencies the levels report: the smallest that shows
    # every level (no prefetcher hides any), else the one with the largest
    # total rise
    lat_by = {st: np.cumsum(coefs[i]) for i, st in enumerate(data.strides)}  # L1, ..., memory
    step_ratio = {st: [lat_by[st][k + 1] / max(lat_by[st][k], 1e-12) for k in range(K)]
                  for st in data.strides}
    full = [st for st in data.strides if all(r >= HIDDEN_RATIO for r in step_ratio[st])
            and st >= line]
    used = min(full) if full else max(data.strides, key=lambda s: lat_by[s][-1] / lat_by[s][0])
    info.stride_used = int(used)
    names = [f"L{k + 1}" for k in range(K)]
    below_hidden = K > 0 and fixed[0][0] > FIRST_LEVEL_MAX
    if below_hidden:
        # which levels these are is not known: the last is the last level
        # before memory, the others are named by their place above it
        names = [f"LLC-{K - 1 - k}" if k < K - 1 else "LLC" for k in range(K)]
    for k, name in enumerate(names):
        info.steps[name] = {int(st): float(step_ratio[st][k]) for st in data.strides}
        seen = [st for st in data.strides if step_ratio[st][k] >= HIDDEN_RATIO]
        hid = sorted(set(int(st) for st in data.strides
                         if step_ratio[st][k] < HIDDEN_RATIO and seen and st < max(seen)) |
                     set(int(s) for s in flat))
        if hid:
            info.hidden[name] = hid
    i_used = data.strides.index(used)
    on_row = data.mask[i_used] > 0
    H = _nest([data.fixed_kept(f)[0, i_used] for f in fixed])
    lats = lat_by[used]
    levels: list[Level] = []
    for k in range(K + 1):
        lo_h = H[k - 1] if k else np.zeros(on_row.shape)
        hi_h = H[k] if k < K else np.ones(on_row.shape)
        npts = int(np.sum(((hi_h - lo_h) > 0.9) & on_row))
        err = float(lats[k] * data.sigma[i_used] / math.sqrt(max(npts, 1)))
        if k < K:
            t = trans[k]
            levels.append(Level(name=names[k], size_bytes=t.size_bytes,
                                size_bytes_low=t.size_bytes_low, size_bytes_high=t.size_bytes_high,
                                latency_ns=float(lats[k]), latency_ns_err=err, latency_cycles=None,
                                n_points=max(npts, 2), transition=t,
                                threshold_size_bytes=None))
        else:
            levels.append(Level(name="memory", size_bytes=None, size_bytes_low=None,
                                size_bytes_high=None, latency_ns=float(lats[k]),
                                latency_ns_err=err, latency_cycles=None, n_points=max(npts, 2)))
    if paged_out:
        notes.append("stride " + ", ".join(map(str, paged_out)) + ": a TLB miss every 4 loads "
                     "or more (4 KiB pages); each fitted alone, they disagree on the levels "
                     "(the TLB's own steps and a prefetcher that follows pages are not in the "
                     "cache model), so no capacity or latency from them")
    if flat:
        notes.append("stride " + ", ".join(map(str, sorted(flat))) + ": a flat curve, every "
                     "level prefetch-hidden (a stream prefetcher follows these strides); no "
                     "capacity from them")
    for name, hid in info.hidden.items():
        hid = [h for h in hid if h not in flat]
        if hid and name != "below":
            notes.append(f"{name} is prefetch-hidden at stride {', '.join(map(str, hid))} (its "
                         f"step is under x{HIDDEN_RATIO} there); its capacity is from the strides "
                         "that show it")
    if below_hidden:
        info.hidden["below"] = [int(st) for st in data.strides]
        notes.append(f"the first step is at {fixed[0][0] / 2**20:.1f} MiB, beyond any first-level "
                     "cache (none we know holds more than 256 KiB): the "
                     "levels below it are prefetch-hidden at stride "
                     f"{', '.join(map(str, data.strides))} (a stream prefetcher follows the "
                     "chase), so the level found is named LLC (the last before memory), not L1")
    notes.append(f"cache sizes: capacities of the sequential stride-chase model fitted to "
                 f"stride{'s' if S > 1 else ''} "
                 f"{', '.join(map(str, data.strides))}"
                 + (" together (shared capacities, each stride its own latencies)" if S > 1
                    else "") +
                 f", 95 % intervals widened by the model's misfit "
                 f"(reduced chi-square {red:.2g}); latencies from stride {used}")
    if any(f[2] is not None for f in fixed):
        notes.append(PLACEMENT_NOTES[placement])
    if K == 0:
        notes.append(f"no cache step found in the stride curves (no step of x{MIN_STEP} that "
                     "the curves need: a prefetcher may hide every level at these strides)")
    return levels, notes, info


__all__ = ["fit_stride_chase", "StrideFit"]
