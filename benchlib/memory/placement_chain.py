"""One placement's page-colour occupancy chain, for the stride fit
(:mod:`.stride`) where every stride's curve is one placement of an array,
each size a prefix of it (the table's placement "curve" or "run"): the
kept fraction's mean and covariance over the sizes
(:func:`prefix_kept_moments`), a stride's likelihood under them with its
latencies profiled out (:func:`chain_loglik`, :func:`chain_profile`), and
the board read again by it (:func:`chain_refit`).  Least squares on the
mean over placements, the stride fit's model, reads one placement of a
direct-mapped board on random pages as a sharper cache elsewhere and adds
a level below it for the losses its onset begins with
(bench/memory_kalman_oracle.py, docs/memory.md).

Pure: a function of arrays."""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from benchlib.memory.cache_model import DELTA_CHI2
from benchlib.memory.stride_model import (BOOT_DM_WAYS, COARSE_PER_OCTAVE, GRID_PER_OCTAVE,
                                          RANDOM_WAYS, _grid, _n_params, _nest, _room)


def landing_changes(ways: int) -> np.ndarray:
    """The occupancy chain's steps: row j the change in the counts of
    colours holding 1, ..., ways and more than ways pages that a page
    makes landing in a colour that holds j pages (j = 0 .. ways; the last
    row, more than ways, changes nothing).  (ways + 2, ways + 1)."""
    d = ways + 1
    V = np.zeros((d + 1, d))
    for j in range(d):
        if j >= 1:
            V[j, j - 1] -= 1.0
        V[j, j] += 1.0
    return V


def prefix_kept_moments(n_pages, colours, ways: int, policy: str = "lru"):
    """The kept fraction's mean and covariance over the prefixes of one
    random placement (a sequential chase over one array, each size a
    prefix of it): at ``n_pages`` (m,) increasing touched-page counts, for
    each of ``colours`` (G,) page colours of a ``ways``-way cache.  Returns
    (mean (G, m), covariance (G, m, m)).

    The placement is a Markov chain in the counts of colours holding 1,
    2, ..., ways and more than ways pages, a page landing in a colour at
    random at each step; its linear-noise approximation (the mean path,
    and the covariance grown by each step's multinomial scatter about it,
    carried forward by the step's linear map) gives the moments.  One
    placement's kept fractions at two sizes are correlated (the smaller's
    pages are the larger's first ones), which the mean over placements
    (:func:`.cache_model._set_keeps_it`) and the per-point variance do not say, and
    the covariance is what tells a direct-mapped board's gradual onset
    from a sharper cache's (bench/memory_kalman_oracle.py).  LRU: a colour
    holding more than ``ways`` pages keeps none of them; "any": it keeps
    ``ways``."""
    n_obs = np.asarray(n_pages, int)
    C = np.atleast_1d(np.asarray(colours, float))
    G, d, m = len(C), ways + 1, len(n_obs)
    kw = np.array([i + 1.0 for i in range(ways)] + [float(ways) if policy == "any" else 0.0])
    V = landing_changes(ways)
    # the mean step is linear in the counts: p_0 = 1 - sum(m) / C, p_j = m_j / C
    F = np.eye(d)[None] + (V[1:].T[None] - np.outer(V[0], np.ones(d))[None]) / C[:, None, None]
    Ft = np.swapaxes(F, 1, 2)
    mu = np.zeros((G, d))
    P = np.zeros((G, d, d))
    mean = np.zeros((G, m))
    cov = np.zeros((G, m, m))
    u = np.zeros((G, m, d))      # Cov(counts now, kept pages at each earlier size)
    last, j = 0, 0
    for n in range(1, int(n_obs[-1]) + 1 if m else 0):
        p = np.concatenate([(C - mu.sum(axis=1))[:, None], mu], axis=1) / C[:, None]
        p = np.clip(p, 0.0, 1.0)
        inc = p @ V
        Q = np.einsum("gk,ki,kj->gij", p, V, V) - inc[:, :, None] * inc[:, None, :]
        mu = mu + inc
        P = F @ P @ Ft + Q
        if j < m and n == n_obs[j]:
            if j:
                u[:, :j] = np.einsum("gab,gjb->gja", np.linalg.matrix_power(F, n - last), u[:, :j])
            while j < m and n == n_obs[j]:
                u[:, j] = P @ kw
                mean[:, j] = mu @ kw / n
                cov[:, j, :j + 1] = (u[:, :j + 1] @ kw) / (n * n_obs[:j + 1])[None]
                cov[:, :j + 1, j] = cov[:, j, :j + 1]
                j += 1
            last = n
    return mean, cov


#: The chain likelihood's grids: each stride's step at the level, about its
#: least-squares value, and its points' noise, about their own.
CHAIN_STEPS = 2.0 ** np.linspace(-1.2, 1.2, 25)
CHAIN_NOISE = 2.0 ** np.linspace(-2.0, 0.5, 11)
#: The shapes the chain reads a level with: direct mapped up to BOOT_DM_WAYS ways.
CHAIN_WAYS = [w for w in RANDOM_WAYS if w <= BOOT_DM_WAYS]


def chain_profile(data, fixed, k, grid, ways_list, steps, floor: float, moments=None):
    """Level k's log-likelihood over capacities ``grid`` for each of
    ``ways_list`` (its page and policy as fitted), where every stride's
    curve is one placement of an array, each size a prefix of it (the
    table's placement "curve" or "run"): the level's kept fractions are one path of
    the page-colour occupancy chain (:func:`prefix_kept_moments`:
    mean and covariance over the sizes), not the mean over placements with
    independent scatter.  Each stride's latencies are profiled out: the
    other levels' columns and the constant by generalised least squares,
    the level's step and the points' noise scale over CHAIN_STEPS and
    CHAIN_NOISE about each stride's least-squares step ``steps`` (S,; 0:
    the step prefetch-hidden at that stride, whose points are then read
    without the level).  The points used are every stride's sizes from
    ``floor``, so that two sets of levels are scored on the same points.
    ``moments``: a dict that keeps the chain's moments for the next call
    (they depend on the pages, the capacities and the shape, not on the
    other levels).  Returns
    (len(ways_list), G) and the number of points used."""
    page, policy = fixed[k][2:]
    g = np.asarray(grid, float)
    S = len(data.strides)
    others = _nest([data.fixed_kept(f)[0] for f in fixed])
    units = [max(float(page), float(max(st, data.line))) for st in data.strides]
    rows = []
    for i in range(S):
        on = (data.mask[i] > 0) & (data.w[i] >= max(floor, units[i]))
        y = data.y[i, on]
        if on.sum() < 4:
            continue
        # sizes within one page of each other share the kept fraction
        n = np.maximum(1, np.round(data.w[i, on] / units[i])).astype(int)
        cols = [np.ones(len(y))]
        for j, h in enumerate(others):
            if j != k:
                c = 1.0 - h[i, on]
                if np.ptp(c) > 1e-3:
                    cols.append(c)
        rows.append((n, y, data.sigma[i] * y, np.stack(cols, axis=1), max(float(steps[i]), 0.0)))
    out = np.zeros((len(ways_list), len(g)))
    if not rows:
        return out, 0
    n_all = np.unique(np.concatenate([r[0] for r in rows]))
    for a, ways in enumerate(ways_list):
        key = (n_all.tobytes(), g.tobytes(), ways, page, policy)
        if moments is None or key not in moments:
            got = prefix_kept_moments(n_all, g / ways / float(page), ways, policy)
            if moments is None:
                moments = {}
            moments[key] = got
        mean, cov = moments[key]
        for n, y, sig, X, step in rows:
            idx = np.searchsorted(n_all, n)
            out[a] += chain_loglik(y, sig, X, 1.0 - mean[:, idx], cov[:, idx][:, :, idx],
                                step * CHAIN_STEPS, CHAIN_NOISE)
    return out, sum(len(r[1]) for r in rows)


def chain_loglik(y, sig, X, gap, cov, steps, noise) -> np.ndarray:
    """One stride's log-likelihood (G,), maximised over its level step
    ``steps`` and noise scale ``noise``: y = X c + step (1 - h) + e, h of
    mean 1 - ``gap`` (G, m) and covariance ``cov`` (G, m, m), e
    independent of sd ``sig`` x the scale, c by generalised least squares.
    The covariance step^2 cov + scale^2 diag(sig^2) is diagonalised once
    per capacity (cov whitened by sig), so every (step, scale) costs O(m)."""
    d = 1.0 / sig
    T = cov * d[None, :, None] * d[None, None, :]
    e, U = np.linalg.eigh(T)                                # (G, m), (G, m, m)
    e = np.maximum(e, 0.0)
    rot = lambda v: np.einsum("gmi,gm...->gi...", U, v)     # U^T (v / sig)
    yh = rot(np.broadcast_to((y * d)[None], gap.shape))                   # (G, m)
    gh = rot(gap * d[None])                                               # (G, m)
    Xh = rot(np.broadcast_to((X * d[:, None])[None], gap.shape + (X.shape[1],)))  # (G, m, p)
    B = steps[:, None, None]                                              # (NB, 1, 1)
    K2 = (noise ** 2)[None, :, None]                                      # (1, NK, 1)
    w = 1.0 / (B[None] ** 2 * e[:, None, None, :] + K2[None])             # (G, NB, NK, m)
    r = yh[:, None, :] - steps[None, :, None] * gh[:, None, :]            # (G, NB, m)
    XtX = np.einsum("gmi,gbkm,gmj->gbkij", Xh, w, Xh)
    Xtr = np.einsum("gmi,gbkm,gbm->gbki", Xh, w, r)
    p = XtX.shape[-1]
    ridge = 1e-9 * np.trace(XtX, axis1=-2, axis2=-1)[..., None, None] * np.eye(p)
    c = np.linalg.solve(XtX + ridge, Xtr[..., None])[..., 0]              # (G, NB, NK, p)
    res = r[:, :, None, :] - np.einsum("gmi,gbki->gbkm", Xh, c)
    ll = -0.5 * (np.sum(w * res ** 2, axis=-1) - np.sum(np.log(w), axis=-1))
    return ll.reshape(len(gap), -1).max(axis=1)


def _eligible(fixed) -> list[int]:
    """The levels the chain reads: on random pages, at most BOOT_DM_WAYS
    ways, LRU or direct mapped, more than one page a way."""
    return [k for k, (size, ways, page, policy) in enumerate(fixed)
            if page is not None and size / ways / page > 1.0 and ways <= BOOT_DM_WAYS
            and (policy == "lru" or ways == 1)]


def chain_score(data, fixed, coefs, floor: float | None = None, coarse: bool = False):
    """How well levels ``fixed`` (least-squares latencies ``coefs``, (S,
    K + 1)) describe curves that are each one placement of an array: the
    last level on random pages of at most BOOT_DM_WAYS ways read under its
    occupancy chain (:func:`chain_profile`, its capacity over twice the
    fitted one either side, within its room), as fitted and without each
    level between the first and it, every stride's points from ``floor``
    (by default from where the first level keeps nothing of a cyclic chase,
    an LRU cache of two or more ways nothing past its capacity, a
    direct-mapped one nothing past twice it: a line it keeps does not
    stand for the read level's own); the best of these by log-likelihood
    less BIC's charge for the latencies and capacities.  ``coarse``: the
    levels as fitted only, the capacity on the coarse grid (a candidate
    set's score, about a quarter of the work).  None where no level is on
    random pages.
    Returns (score, dropped level or None, levels, k, grid, log-likelihood
    (ways, grid), room low, room high)."""
    cand = _eligible(fixed)
    if not cand:
        return None
    k = cand[-1]
    size = fixed[k][0]
    if floor is None:
        floor = 2.0 * fixed[0][0] if k > 0 else 0.0
    S = len(data.strides)
    med = np.array([np.median(data.y[i, data.mask[i] > 0]) for i in range(S)])
    steps = np.where(coefs[:, k + 1] >= 0.05 * med, coefs[:, k + 1], 0.0)
    best = None
    moments: dict = {}          # the drop candidates share the board's pages and, mostly, its grid
    for drop in [None] + ([] if coarse else list(range(1, k))):
        fx = [f for j, f in enumerate(fixed) if j != drop]
        kk = k - (drop is not None)
        lo_r, hi_r = _room(data, fx, kk)
        grid = _grid(max(lo_r, size / 2.0), min(hi_r, size * 2.0),
                     COARSE_PER_OCTAVE if coarse else GRID_PER_OCTAVE)
        ll, n = chain_profile(data, fx, kk, grid, CHAIN_WAYS, steps, floor, moments)
        if not n:
            return None
        score = float(ll.max()) - 0.5 * _n_params(S, len(fx)) * math.log(n)
        if best is None or score > best[0]:
            best = (score, drop, fx, kk, grid, ll, lo_r, hi_r)
    return best


def chain_refit(data, fixed, coefs, trans):
    """The last level on random pages (at most BOOT_DM_WAYS ways) read again
    under one placement's occupancy chain (:func:`chain_score`),
    where every stride's curve is one placement of an array, each size a
    prefix of it (placement "curve", and "run", whose strides share one
    placement: there the chain profile reads them as independent, and only
    the placement bootstrap's draws, one for every stride, set how wide the
    interval is).  Least squares on the mean over placements reads one
    placement of a direct-mapped board as a sharper cache elsewhere, and
    adds a level below it for the losses its onset begins with
    (bench/memory_kalman_oracle.py).  The best of :func:`chain_score`'s
    sets kept, the level at the capacity and ways the chain puts highest,
    its interval that of its transition ``trans[k]`` joined with the chain
    profile's (log-likelihood within DELTA_CHI2 / 2 of its best).  Returns
    (fixed, trans), a level fewer where one was dropped."""
    best = chain_score(data, fixed, coefs)
    if best is None:
        return fixed, trans
    _, drop, fixed, k, grid, ll, lo_r, hi_r = best
    page, policy = fixed[k][2:]
    t = trans[k + (drop is not None and drop <= k)]
    trans = [tr for j, tr in enumerate(trans) if j != drop]
    prof = ll.max(axis=0)
    i = int(np.argmax(prof))
    ok = prof >= prof[i] - DELTA_CHI2 / 2
    lo, hi = i, i
    while lo > 0 and ok[lo - 1]:
        lo -= 1
    while hi + 1 < len(grid) and ok[hi + 1]:
        hi += 1
    new_ways = CHAIN_WAYS[int(np.argmax(ll[:, i]))]
    allowed = [w for a, w in enumerate(CHAIN_WAYS) if ll[a, lo:hi + 1].max() >= prof[i] - DELTA_CHI2 / 2]
    fixed = list(fixed)
    fixed[k] = (float(grid[i]), new_ways, page, policy)
    trans[k] = dataclasses.replace(
        t, size_bytes=float(grid[i]),
        size_bytes_low=max(min(t.size_bytes_low, float(grid[lo])), lo_r),
        size_bytes_high=min(max(t.size_bytes_high, float(grid[hi])), hi_r), ways=int(new_ways),
        ways_resolved=len(allowed) == 1, gradual=float(grid[i]) / new_ways >= 2 * page)
    return fixed, trans


__all__ = ["landing_changes", "prefix_kept_moments", "chain_profile", "chain_loglik", "chain_score",
           "chain_refit"]
