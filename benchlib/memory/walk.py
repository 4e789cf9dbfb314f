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

import numpy as np
import pandas as pd
from scipy.special import gammaln

from benchlib.memory.associativity import ways_from_walk
from benchlib.memory.cache_model import (CLOSEST_LEVELS, DELTA_CHI2, GRID_PER_OCTAVE,
                                        HUGE_PAGE, SEARCH_OCTAVES, SMALL_PAGE,
                                        Transition, _robust_scale, _slow_tail,
                                        _slow_weight, kept_fraction)
from benchlib.memory.levels import tlb_penalty_ns
from benchlib.memory.hierarchy import Level, MemoryFit
from benchlib.memory.kept import Kept
from benchlib.memory.segments import _median_by, check_columns


#: Associativities tried by the random walk's model, whose shape any policy
#: shares: every count from direct-mapped to 32 ways.
WALK_WAYS_GRID = tuple(range(1, 33))
#: Rounds of the walk fit's reweighting (a slow point's Cauchy weight), and
#: whether each round reads the noise from the points below the model only.
WALK_IRLS = 3
WALK_LOW_SCALE = True


def _lower_scale(res) -> float:
    """Noise of relative residuals from those below the model (a neighbour
    only slows a point, so they are the clean ones): 1.4826 times their
    median size, at least 1 % (a curve's own placement scatter)."""
    res = np.asarray(res, float)
    neg = -res[np.isfinite(res) & (res < 0)]
    if len(neg) < 3:
        return _robust_scale(res)
    return max(0.01, 1.4826 * float(np.median(neg)))


def refit_with_walk(fit: MemoryFit, walk: pd.DataFrame,
                    small_pages: bool | None = None) -> MemoryFit:
    """A new fit in which each cache above the first whose transition the
    random walk's curve spans (a quarter of its ring size to 4 times it)
    has its capacity from that curve (:func:`fit_walk`, below): a
    ring chase's shape past the capacity depends on the cache's replacement
    policy (an LRU set of n > ways lines keeps none of a ring, other
    policies keep some, and the two trade against the capacity in the fit),
    a random walk's does not.  ``walk``: size_bytes, latency_ns
    (pattern=walk, same units as the fit).  The TLB's misses are taken out
    first where the ring's fit took them out, or where ``small_pages`` says
    the walk's pages behave as small pages (:func:`_walk_curve`).  The first
    cache keeps the ring's size (its set index lies inside the page: a ring
    fits it or not, whatever the policy).  ``fit`` itself is left as it was."""
    check_columns(walk, ["size_bytes", "latency_ns"])
    c, notes = _walk_curve(fit, _median_by(walk, "size_bytes", "latency_ns"), small_pages)
    levels = list(fit.levels)
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
                close = nxt.size_bytes < CLOSEST_LEVELS * t2.size_bytes
                if gain >= 2 * math.log(len(pts)) and not close:
                    t = t2
                else:
                    notes.append(_too_close(nxt, t2) if close
                                 else _dropped(nxt, gain, 2 * math.log(len(pts))))
                    levels = _named([x for x in levels if x is not nxt])
                    caches = [x for x in levels if x.size_bytes]
                    lv, low = caches[k], caches[k - 1]
                    if close:
                        # one level whose transition the ring read as two:
                        # the walk's search centred on the one-level fit,
                        # not on the ring's lower step
                        centre, _, t_c = _walk_centre(c, t.size_bytes, low)
                        pts = _around(c, centre)
                        if _spans(pts, centre):
                            t = t_c or fit_walk(pts.size_bytes.to_numpy(),
                                                pts.latency_ns.to_numpy(), centre,
                                                (low.size_bytes, low.latency_ns))
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


def _walk_curve(fit: MemoryFit, c: pd.DataFrame, small_pages: bool | None
                ) -> tuple[pd.DataFrame, list[str]]:
    """The walk's curve with the TLB's misses taken out where its pages
    behave as small pages (``small_pages``; None: where the ring's fit took
    them out of the ring), and the fit's notes, with one saying so where
    the ring's fit had decided otherwise.

    The walk pays a first-level TLB miss on every page beyond the TLB's
    reach when its huge pages sit on small host pages, a rise from 256 KiB
    on the EPYC guest, inside the L2's transition; left in, the fit reads
    it as capacity lost (a 512 KiB L2 read as 360-440 KiB in the 5 runs of
    24 where the ring's BIC left it in: there the same rise overlaps the
    ring's own L2 step, and the choice went either way from run to run)."""
    notes = list(fit.notes)
    removed = fit.tlb_removed if small_pages is None else bool(small_pages)
    if not removed or not fit.tlb:
        return c, notes
    pen = tlb_penalty_ns(c["size_bytes"], fit.tlb)
    if (c["latency_ns"] - pen <= 0).any():
        return c, notes
    if not fit.tlb_removed:
        notes.append("the random walk: the TLB's misses taken out of its curve (on a guest, "
                     "whose huge pages may sit on small host pages it cannot see), where the "
                     "ring's fit left them in the ring's (its L2 step overlaps them there)")
    return c.assign(latency_ns=c["latency_ns"] - pen), notes


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


def _too_close(nxt: Level, split) -> str:
    """Why the ring's level ``nxt`` goes when the walk would split there."""
    return (f"the ring's {nxt.name} ({nxt.size_bytes / 1024:.0f} KiB at {nxt.latency_ns:.3g} ns) "
            f"lies inside the span of the random walk, which would put the level below it at "
            f"{split.size_bytes / 1024:.0f} KiB, less than {CLOSEST_LEVELS:g} times smaller: no "
            f"machine we know has caches that close, so they are one level (its transition read "
            f"twice)")


__all__ = ["refit_with_walk"]


# ------------------------------------------------------------ the walk's fit

def _ways_interval(prof_by_ways: dict, best: float) -> tuple[int, int]:
    """The ways whose best deviance is within DELTA_CHI2 of ``best``: (low, high)."""
    ok = [w for w, d in prof_by_ways.items() if d <= best + DELTA_CHI2]
    return (min(ok), max(ok)) if ok else (None, None)


#: fit_walk's last few answers, by content: the plan's look at the walk and
#: the final fit fit the same curves (and :func:`_walk_curve` fits the one it
#: keeps before the search does); a Transition is handed out as a copy.
_WALK_FITS = Kept(16)


def fit_walk(ws_bytes, latency_ns, guess_bytes: float, below: tuple[float, float] | None,
             pages=(SMALL_PAGE, HUGE_PAGE), ways_grid=WALK_WAYS_GRID,
             above: tuple[float, int, int] | None = None) -> Transition:
    """:func:`_fit_walk` (see there), computed once per distinct input."""
    w = np.asarray(ws_bytes, float)
    y = np.asarray(latency_ns, float)
    key = (w.tobytes(), y.tobytes(), float(guess_bytes),
           None if below is None else tuple(float(v) for v in below),
           tuple(pages), tuple(ways_grid), None if above is None else tuple(above))
    return replace(_WALK_FITS.answer(
        key, lambda: _fit_walk(w, y, guess_bytes, below, pages, ways_grid, above)))


def _fit_walk(ws_bytes, latency_ns, guess_bytes: float, below: tuple[float, float] | None,
              pages=(SMALL_PAGE, HUGE_PAGE), ways_grid=WALK_WAYS_GRID,
              above: tuple[float, int, int] | None = None) -> Transition:
    """One cache's capacity from a random walk's latency curve
    (``access="walk"``: whatever the replacement policy, a set that n lines
    share keeps ways/n of them), with its 95 % interval and its ways.

    ``below``: (capacity, latency) of the cache under it, whose set index
    lies inside the page (its walk keeps min(1, C/W)), or None.  The
    latencies of this cache and of the level above it are not taken from
    elsewhere: for each capacity and shape (ways, page) they are the
    weighted least-squares solution (the model is linear in them), so
    neither a ring chase's plateau nor its TLB share enters.

    The residuals are relative; their noise is estimated from the best plain
    fit's (1.4826 MAD), so the interval widens with the misfit.  A point
    slower than the model weighs by a Cauchy tail, faster by a Gaussian
    (:func:`_slow_tail`, reweighted least squares): what the host's
    neighbours did to a few points does not move the capacity.  The
    interval is the capacities within DELTA_CHI2 of the best deviance over
    every shape (a profile likelihood); the ways are those whose best
    deviance over capacities and pages lies within DELTA_CHI2
    (``ways_low``, ``ways_high``), not resolved where that span is wider
    than one either side, or where contiguous memory (no page colours, a
    shape that does not depend on the ways) fits as well.

    ``above``: (capacity, ways, page) of a level between this cache and the
    next that the curve also spans, held fixed (its latency solved with the
    others); ``t.rss`` with and without it says whether the curve needs it."""
    w = np.asarray(ws_bytes, float)
    y = np.asarray(latency_ns, float)
    if len(w) < 6:
        raise ValueError("a walk curve needs at least 6 sizes")
    n = int(SEARCH_OCTAVES * GRID_PER_OCTAVE)
    grid = guess_bytes * 2.0 ** (np.arange(-n, n + 1) / GRID_PER_OCTAVE)
    h_lo = (np.minimum(1.0, below[0] / w) if below else np.zeros_like(w))
    base = (below[1] * h_lo) if below else np.zeros_like(w)
    wt = 1.0 / y                                   # relative residuals
    t = (y - base) * wt
    designs = {}
    for page in pages:
        for ways in ways_grid:
            sharp = bool(np.all(grid / ways <= page))
            key = ("sharp", page) if sharp else (ways, page)
            if key in designs:
                continue
            h = np.maximum(kept_fraction(w[None, :], grid[:, None], ways, page, "walk"),
                           h_lo[None, :])
            vh = _walk_placement_var(w, grid, ways, page) * (h > h_lo[None, :])
            cols = [(h - h_lo[None, :]) * wt]                       # (grid, n) each
            if above is not None:
                hx = np.maximum(kept_fraction(w, above[0], above[1], above[2], "walk")[None, :], h)
                cols.append((hx - h) * wt)
                cols.append((1.0 - hx) * wt)
            else:
                cols.append((1.0 - h) * wt)
            designs[key] = (np.stack(cols, axis=2), ways, page, vh * wt ** 2)
    keys = list(designs)
    a = np.stack([designs[k][0] for k in keys])                      # (shape, grid, n, m)
    # the kept fraction's variance over where the pages landed, relative
    # (times the step to the next level, squared: :func:`_noise2`)
    vrel = np.stack([designs[k][3] for k in keys])                   # (shape, grid, n)

    def noise2(coef, sc):
        """Each point's relative variance: the noise ``sc`` squared plus the
        placement's (a level's lines are kept or lost a page colour at a
        time, so its kept fraction scatters from point to point, each point
        a buffer of its own)."""
        step = np.nan_to_num(coef[..., 1] - coef[..., 0])[..., None]
        return sc ** 2 + vrel * step ** 2

    def deviance(res, coef, sc):
        s2 = noise2(coef, sc)
        z = np.nan_to_num(res / np.sqrt(s2))
        return (_slow_tail(z) + np.log(s2 / sc ** 2)).sum(-1), z, s2

    def solve(v):
        sv = np.sqrt(v)
        av, tv = a * sv[..., None], t * sv
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ata = np.einsum("sgnm,sgnk->sgmk", av, av)
            atb = np.einsum("sgnm,sgn->sgm", av, tv)
            ok_det = np.abs(np.linalg.det(ata)) > 1e-300
            coef = np.full(atb.shape, np.nan)
            coef[ok_det] = np.linalg.solve(ata[ok_det], atb[ok_det][..., None])[..., 0]
            res = t - np.einsum("sgnm,sgm->sgn", a, coef)
        bad = (~np.all(np.isfinite(res), axis=-1) | ~(coef[..., 0] > 0)
               | ~np.all(np.diff(coef, axis=-1) > 0, axis=-1))
        return coef, res, bad

    coef, res, bad = solve(np.ones(a.shape[:3]))
    rss = np.where(bad, np.inf, (res ** 2).sum(-1))
    if not np.isfinite(rss).any():
        raise ValueError("no capacity fits the walk curve")
    j0 = np.unravel_index(int(np.argmin(rss)), rss.shape)
    scale = _robust_scale(res[j0])
    for _ in range(WALK_IRLS):
        _, z, s2 = deviance(res, coef, scale)
        coef, res, bad = solve(_slow_weight(z) * scale ** 2 / s2)
        if WALK_LOW_SCALE:
            dv = np.where(bad, np.inf, deviance(res, coef, scale)[0])
            jb = np.unravel_index(int(np.argmin(dv)), dv.shape)
            scale = _lower_scale(res[jb])
    dev = np.where(bad, np.inf, deviance(res, coef, scale)[0])   # (shape, grid)
    prof = dev.min(axis=0)
    i = int(np.argmin(prof))
    if not np.isfinite(prof[i]):
        raise ValueError("no capacity fits the walk curve")
    k_best = int(np.argmin(dev[:, i]))
    _, ways, page, _ = designs[keys[k_best]]
    # the interval and the ways: the profile with the noise of every
    # residual (not only of those below the model, which place the capacity):
    # how far the slowed points scatter is part of what is not known
    scale_all = max(scale, _robust_scale(res[k_best, i]))
    dev_all = np.where(bad, np.inf, deviance(res, coef, scale_all)[0])
    prof_c = dev_all.min(axis=0)
    ref = float(prof_c.min())
    lo, hi = i, i
    while lo > 0 and prof_c[lo - 1] <= ref + DELTA_CHI2:
        lo -= 1
    while hi + 1 < len(grid) and prof_c[hi + 1] <= ref + DELTA_CHI2:
        hi += 1
    edge = lo == 0 or hi == len(grid) - 1
    # never narrower than the grid's own step either side
    lo, hi = max(min(lo, i - 1), 0), min(max(hi, i + 1), len(grid) - 1)
    by_shape = dev_all.min(axis=1)
    prof_all = ref
    sharp_fits = any(by_shape[j] <= prof_all + DELTA_CHI2 for j, k in enumerate(keys)
                     if k[0] == "sharp")
    by_ways: dict = {}
    for j, k in enumerate(keys):
        if k[0] != "sharp":
            by_ways[k[0]] = min(by_ways.get(k[0], np.inf), float(by_shape[j]))
    w_lo, w_hi = _ways_interval(by_ways, prof_all)
    best_gradual = min(by_ways, key=by_ways.get) if by_ways else None
    if best_gradual is not None and not keys[k_best][0] == "sharp":
        ways = int(keys[k_best][0])
    resolved = (not sharp_fits and w_lo is not None and w_hi - w_lo <= 2
                and w_lo <= ways <= w_hi and w_lo > min(ways_grid) and w_hi < max(ways_grid))
    fits_pages = {designs[k][2] if k[0] != "sharp" else "sharp" for j, k in enumerate(keys)
                  if by_shape[j] <= prof_all + DELTA_CHI2}
    # nor narrower than half the spacing of the measured sizes either side:
    # the shape is the model's, the points' scatter partly not (on simulated
    # walks with 1 % noise the profile alone held the capacity in 75 % of
    # runs, missing by 2-4 %; the walk measures 8 sizes an octave, 4.4 % apart
    # by half)
    half = 0.5 * float(np.median(np.diff(np.log2(np.unique(w))))) if len(w) > 1 else 0.0
    low_b = min(float(grid[lo]), float(grid[i]) * 2.0 ** -half)
    high_b = max(float(grid[hi]), float(grid[i]) * 2.0 ** half)
    return Transition(size_bytes=float(grid[i]), size_bytes_low=low_b,
                      size_bytes_high=high_b, ways=int(ways), ways_resolved=resolved,
                      page_bytes=int(page), page_resolved=len(fits_pages) == 1,
                      gradual=bool(grid[i] / ways >= 2 * page), chi2=float(prof[i]),
                      n_points=len(w), deviance=float(prof[i]),
                      latencies_ns=(float(coef[k_best, i, 0]), float(coef[k_best, i, -1])),
                      rss=float((res[k_best, i] ** 2).sum()),
                      edge_of_grid=bool(edge),
                      ways_low=None if sharp_fits else w_lo,
                      ways_high=None if sharp_fits else w_hi,
                      noise=scale)


def _walk_placement_var(w, grid, ways: int, page: float) -> np.ndarray:
    """Variance, over where the pages landed, of the fraction of a random
    walk's lines a cache keeps ((grid, n): capacities ``grid`` by working
    sets ``w``).  Of P = W / page pages, X ~ Binomial(P, 1/colours) have a
    given colour, whose sets keep min(X, ways) of their lines each, and the
    kept fraction is the sum of that over the colours over P.  The counts
    sum to P, so the part of min(X, ways) that moves with X cancels: the
    variance is colours (Var(min) - Cov(min, X)^2 / Var(X)) / P^2 (the
    colours' counts as independent Poisson given their sum).  Zero where
    the index lies inside the page (every set holds W / way lines)."""
    w = np.asarray(w, float)[None, :]
    c = np.asarray(grid, float)[:, None]
    col = c / ways / page
    out = np.zeros(np.broadcast_shapes(w.shape, c.shape))
    grad = np.broadcast_to(col > 1.0, out.shape)
    if not grad.any():
        return out
    wb, cb = np.broadcast_to(w, out.shape)[grad], np.broadcast_to(col, out.shape)[grad]
    n = np.maximum(np.round(wb / page), 1.0)                        # the pages
    p = 1.0 / cb
    k = np.arange(ways, dtype=float)[:, None]                        # 0 .. ways-1
    ok = k <= n[None, :]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        logpmf = (gammaln(n + 1)[None, :] - gammaln(k + 1) - gammaln(np.maximum(n - k, 0) + 1)
                  + k * np.log(p)[None, :] + (n - k) * np.log1p(-p)[None, :])
        pmf = np.where(ok, np.exp(logpmf), 0.0)
        tail = np.clip(1.0 - pmf.sum(0), 0.0, 1.0)                  # P(X >= ways)
        ex = n * p                                                   # E[X]
        up1 = ex - (k * pmf).sum(0)                                  # E[X; X >= ways]
        m1 = (k * pmf).sum(0) + ways * tail                          # E[min(X, ways)]
        m2 = (k * k * pmf).sum(0) + ways * ways * tail
        cov = (k * k * pmf).sum(0) + ways * up1 - ex * m1            # Cov(min(X, ways), X)
        var_x = np.maximum(n * p * (1.0 - p), 1e-12)
        v = np.maximum(m2 - m1 * m1 - cov * cov / var_x, 0.0) * cb / (n * n)
    out[grad] = np.nan_to_num(v)
    return out
