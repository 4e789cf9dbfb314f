"""The sequential stride-chase model's shape space and arithmetic (a part
of :mod:`.stride`, which chooses and fits the levels): the associativities,
page placements and replacement policies tried, every stride's points in
one set of arrays with their noise, the least-squares solve of each
stride's plateau latencies for given capacities and shapes, a level's
deviance profile over capacities, and the bootstrap over page placements
that widens a random-page level's interval (one placement's kept
fractions drawn by :func:`placed_kept`).

Pure: a function of arrays (the bootstrap's draws from a fixed seed)."""
from __future__ import annotations

import copy
import math

import numpy as np
import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.memory.buildable import _built
from benchlib.memory.cache_model import kept_by_prefix, kept_fraction
from benchlib.memory.segments import _MIN_SIGMA, _median_by, _noise_sigma

#: Associativities tried; 1 is direct mapped.
STRIDE_WAYS = (1, 2, 3, 4, 8, 12, 16, 32)
#: ... on randomly placed pages
RANDOM_WAYS = (1, 2, 3, 4, 8, 12, 16)
#: Page placements tried: None = contiguous (virtually indexed, coloured,
#: or a page at least a way long); else pages of that size at random frames.
PLACEMENTS = (None, 4096, 8192)
#: Capacities: this many per octave for the final fit and the intervals, and
#: a coarser grid while levels are being chosen.
GRID_PER_OCTAVE = 24
COARSE_PER_OCTAVE = 6
#: The shapes tried while levels are being placed and refined (all of them
#: for the final fit and the intervals).
COARSE_SHAPES = ((1, None, "lru"), (4, None, "lru"), (16, None, "lru"), (1, 4096, "lru"),
                 (4, 4096, "lru"), (16, 4096, "lru"), (1, 8192, "lru"), (4, 8192, "lru"),
                 (8, 4096, "any"))
#: ... where a new level is looked for: no direct-mapped cache on random
#: pages, whose onset is so gradual (it loses lines from its second page
#: on) that one such level can stand for a whole staircase; a 4-way one
#: marks where a board cache is until its level is placed.
NEW_LEVEL_SHAPES = tuple(sh for sh in COARSE_SHAPES if sh[0] > 1 or sh[1] is None)
#: Replacement: "lru" (a set that more lines share than it has ways keeps
#: none of them under a cyclic chase), "any" (it keeps ways/n of them: the
#: thrash-resistant policies of today's L2s and L3s)
POLICIES = ("lru", "any")
#: A cache this small is indexed inside the page (the L1s: virtually
#: indexed, or a way no longer than the page) on every machine we know.
#: The smallest indexed beyond it are 64 KiB: the 4-way L1s of ARM's
#: Cortex-A76 and Neoverse N1 (16 KiB ways on 4 KiB pages, aliasing
#: resolved in hardware, so they behave as physically indexed), then the
#: Alpha 21164's 96 KiB 3-way S-cache.  (64 KiB itself until 2026-11-28:
#: the simulated arm_like's L1 could take no random-page shape; with
#: 64 KiB allowed, bench/memory_coverage.py --seeds 3 read 104 / 111 / 20
#: within 10 % / covered / spurious per curve for 103 / 107 / 22, and
#: the same per size.)
RANDOM_MIN_BYTES = (64 << 10) - 1
# --------------------------------------------------------------- the data

def _strides(df: pd.DataFrame) -> pd.Series:
    """Each row's stride in whole bytes (0 where the table has none)."""
    if "stride_bytes" not in df.columns:
        return pd.Series(0, index=df.index, dtype=np.int64)
    return df["stride_bytes"].astype(float).round().astype(np.int64)


def _curves(df: pd.DataFrame) -> dict[int, pd.DataFrame]:
    d = df.copy()
    d["stride_bytes"] = _strides(d)
    out = {}
    for st, part in d.groupby("stride_bytes"):
        c = _median_by(part, "size_bytes", "latency_ns")
        c = c[(c["latency_ns"] > 0) & (c["size_bytes"] > 0)]
        if len(c) >= 6:
            out[int(st)] = c.reset_index(drop=True)
    if not out:
        raise BenchlibError("no stride curve with at least 6 sizes")
    return out


def _point_sigma(y: np.ndarray, half: int = 8) -> np.ndarray:
    """Each point's noise in log latency: the scatter of the second
    differences within ``half`` points either side, read from their lower
    quartile (a step spanning a few points is a minority of the window and
    does not count as noise), never below the curve's own (a shared host's
    memory points scatter by 30 % while its L1 points scatter by 1 %: one
    sigma for the whole curve lets the memory points decide where the
    caches end)."""
    n = len(y)
    base = max(_noise_sigma(y), _MIN_SIGMA)
    if n < 8:
        return np.full(n, base)
    d2 = np.abs(y[2:] - 2 * y[1:-1] + y[:-2])
    d2 = np.concatenate([[d2[0]], d2, [d2[-1]]])
    out = np.empty(n)
    for i in range(n):
        q25 = float(np.quantile(d2[max(0, i - half):i + half + 1], 0.25))
        out[i] = q25 / 0.3186 / math.sqrt(6.0)          # |N(0, 1)|'s lower quartile
    return np.maximum(out, base)


class _Data:
    """Every stride's points, padded to one row per stride (S, m), with
    each point's noise."""

    def __init__(self, curves: dict[int, pd.DataFrame], line: int, typical: bool = True,
                 shared: bool = False):
        self.strides = sorted(curves)
        self.line = line
        #: random-page shapes keep the typical placement's lines (True: each
        #: point its own placement) or the mean over placements
        self.typical = typical
        #: one placement of the array shared by every stride (placement
        #: "run"), not one per stride: the placement bootstrap draws it so
        self.shared = shared
        S = len(self.strides)
        m = max(len(curves[st]) for st in self.strides)
        self.w = np.ones((S, m))
        self.y = np.ones((S, m))
        self.mask = np.zeros((S, m))
        self.sig = np.ones((S, m))
        self.sigma = []
        for i, st in enumerate(self.strides):
            c = curves[st]
            k = len(c)
            w = c["size_bytes"].to_numpy(float)
            y = c["latency_ns"].to_numpy(float)
            self.w[i, :k], self.w[i, k:] = w, w[-1]
            self.y[i, :k], self.y[i, k:] = y, y[-1]
            self.mask[i, :k] = 1.0
            ps = _point_sigma(np.log(y))
            self.sig[i, :k], self.sig[i, k:] = ps, ps[-1]
            self.sigma.append(max(_noise_sigma(np.log(y)), _MIN_SIGMA))
        self.n = int(self.mask.sum())
        self.m_s = self.mask.sum(axis=1)
        self.w_all = np.unique(self.w[self.mask > 0])
        self._fixed: dict = {}
        self._rows: dict = {}

    def kept(self, grid: np.ndarray, ways: int, page, policy: str = "lru") -> np.ndarray:
        """(len(grid), S, m) kept fractions of every point for every capacity
        (rows on the fine grid computed once)."""
        q = np.asarray(grid, float)
        idx = np.round(np.log2(q) * GRID_PER_OCTAVE)
        on = np.abs(2.0 ** (idx / GRID_PER_OCTAVE) / q - 1) < 1e-9
        if not on.all():
            return self._kept(q, ways, page, policy)
        key = (ways, page, policy)
        rows = self._rows.setdefault(key, {})
        miss = [int(i) for i in idx if int(i) not in rows]
        if miss:
            new = self._kept(2.0 ** (np.array(miss, float) / GRID_PER_OCTAVE), ways, page, policy)
            for j, i in enumerate(miss):
                rows[i] = new[j]
        return np.stack([rows[int(i)] for i in idx])

    def _kept(self, grid: np.ndarray, ways: int, page, policy: str = "lru") -> np.ndarray:
        if page is not None and np.any(grid <= RANDOM_MIN_BYTES):
            small = grid <= RANDOM_MIN_BYTES
            out = np.empty((len(grid), len(self.strides), self.w.shape[1]))
            out[small] = self._kept(grid[small], ways, None, policy)
            if (~small).any():
                out[~small] = self._kept(grid[~small], ways, page, policy)
            return out
        out = np.empty((len(grid), len(self.strides), self.w.shape[1]))
        for i, st in enumerate(self.strides):
            out[:, i, :] = kept_fraction(self.w[i][None, :], grid[:, None], ways, page, "stride",
                                         stride_bytes=max(st, 1), line_bytes=self.line,
                                         policy=policy, typical=self.typical)
        return out

    def with_typical(self, typical: bool) -> "_Data":
        """The same points under the other placement model (the points and
        their noise shared; the kept-fraction tables, which depend on the
        model, not)."""
        out = copy.copy(self)
        out.typical, out._fixed, out._rows = typical, {}, {}
        return out

    def fixed_kept(self, f) -> np.ndarray:
        key = (round(float(f[0]), 3),) + tuple(f[1:])
        if key not in self._fixed:
            self._fixed[key] = self.kept(np.array([f[0]]), *f[1:])
        return self._fixed[key]


def _lsq(A, t):
    """Least squares over the batch dimensions of A (..., m, K+1) and t
    (..., m), with no step (coefficients 1..K) negative (an active set:
    negative steps set to zero, the rest solved again)."""
    K1 = A.shape[-1]
    At = np.swapaxes(A, -1, -2)
    ata = At @ A
    atb = (At @ t[..., None])[..., 0]
    eye = np.eye(K1)
    # a ridge relative to the matrix (a level that keeps every point, or
    # none, has a column of zeros)
    ridge = (1e-10 * np.max(np.abs(np.diagonal(ata, axis1=-2, axis2=-1)), axis=-1)
             + 1e-300)[..., None, None] * eye
    # each batch element on its own: those whose solve left a step negative
    # are solved again, the others keep theirs (the same answers as solving
    # the whole batch every round, at the cost of the few that need it)
    shape = A.shape[:-2]
    ata = np.broadcast_to(ata, shape + (K1, K1)).reshape(-1, K1, K1)
    atb = np.broadcast_to(atb, shape + (K1,)).reshape(-1, K1)
    ridge = np.broadcast_to(ridge, shape + (K1, K1)).reshape(-1, K1, K1)
    active = np.ones((ata.shape[0], K1), bool)
    coef = np.zeros((ata.shape[0], K1))
    todo = np.arange(ata.shape[0])
    for _ in range(K1):
        act = active[todo]
        on = act[:, :, None] & act[:, None, :]
        sub = np.where(on, ata[todo], 0.0) + eye * (~act)[:, None, :] + ridge[todo]
        with np.errstate(all="ignore"):
            c = np.linalg.solve(sub, np.where(act, atb[todo], 0.0)[..., None])[..., 0]
        c = np.where(act, c, 0.0)
        coef[todo] = c
        neg = (c[:, 1:] < 0) & act[:, 1:]
        again = neg.any(axis=1)
        if not again.any():
            break
        active[todo[again], 1:] &= ~neg[again]
        todo = todo[again]
    return coef.reshape(shape + (K1,))


def _solve(data: _Data, H: list[np.ndarray], passes: int = 3, cols: list | None = None):
    """Each stride's latencies for nested kept fractions H (K arrays
    (G or 1, S, m)), no step negative; returns (deviance (G,), coefficients
    (G, S, K+1), deviance per stride (G, S)).  Residuals are relative, in
    units of each point's noise, under a soft-L1 loss 2 (sqrt(1 + z^2) - 1)
    (reweighted least squares).  ``cols``: each level's page colours (G or
    1 values; 0 for contiguous): a level on randomly placed pages keeps its
    lines a page colour at a time, so each stride's one placement of the
    array puts its transition's points off the mean over placements by
    about step^2 h (1 - h) / colours in variance; that variance is added to
    the points' own, and its log to the deviance (a model cannot buy its
    way out of a misfit with a variance of its own)."""
    G = max([h.shape[0] for h in H] + [1])
    S, m = data.y.shape
    y, M = data.y, data.mask
    K = len(H)
    X = np.empty((G, S, m, K + 1))
    X[..., 0] = 1.0
    for k, h in enumerate(H):
        X[..., k + 1] = 1.0 - h
    pv = []                                   # h (1 - h) / colours, (G or 1, S, m)
    for k, h in enumerate(H):
        c = np.zeros(1) if cols is None else np.asarray(cols[k], float).reshape(-1)
        if np.any(c > 1):
            inv = np.where(c > 1, 1.0 / np.maximum(c, 1.0), 0.0)[:, None, None]
            pv.append((k, h * (1.0 - h) * inv))
    s2 = np.broadcast_to((data.sig ** 2)[None], (G, S, m))
    tot = s2
    wt = np.broadcast_to(M / (y * data.sig), (G, S, m))
    for _ in range(passes):
        coef = _lsq(X * wt[..., None], y[None] * wt)
        pred = (X @ coef[..., None])[..., 0]
        if pv:
            extra = sum(coef[..., k + 1, None] ** 2 * v for k, v in pv) / (y ** 2)[None]
            tot = s2 + extra
        z = (y[None] - pred) / (y[None] * np.sqrt(tot))
        wt = M[None] / (y[None] * np.sqrt(tot)) / np.sqrt(np.sqrt(1.0 + z ** 2))
    dev_pt = 2.0 * (np.sqrt(1.0 + z ** 2) - 1.0)
    if pv:
        dev_pt = dev_pt + np.log(tot / s2)
    dev_s = np.sum(M[None] * dev_pt, axis=2)
    dev_s = np.where(np.isfinite(dev_s), dev_s, np.inf)
    return dev_s.sum(axis=1), coef, dev_s


def _colours(size, ways, page, policy=None):
    """A level's page colours (0: contiguous, no placement variance)."""
    size = np.asarray(size, float)
    return np.zeros_like(size) if page is None else size / ways / page


def _nest(H: list[np.ndarray]) -> list[np.ndarray]:
    out, prev = [], None
    for h in H:
        h = h if prev is None else np.maximum(h, prev)
        out.append(h)
        prev = h
    return out


def _shapes(coarse=False):
    if coarse:
        yield from (NEW_LEVEL_SHAPES if coarse == "new" else COARSE_SHAPES)
        return
    for policy in POLICIES:
        for page in PLACEMENTS:
            for ways in (STRIDE_WAYS if page is None else RANDOM_WAYS):
                if policy == "any" and (ways == 1 or (page is None and ways != 8)
                                        or (page or 0) > 4096):
                    # direct mapped: no choice to make; contiguous: one set
                    # per way-sized run of lines, the ways matter only to
                    # strides beyond a way
                    continue
                yield ways, page, policy


def _grid(lo: float, hi: float, per_octave: int) -> np.ndarray:
    """Capacities from lo to hi on a grid anchored at powers of two."""
    a = math.floor(math.log2(lo) * per_octave)
    b = math.ceil(math.log2(hi) * per_octave)
    g = 2.0 ** (np.arange(a, b + 1) / per_octave)
    g = g[(g >= lo * (1 - 1e-9)) & (g <= hi * (1 + 1e-9))]
    return g if len(g) else np.array([math.sqrt(lo * hi)])

# ----------------------------------------------- profiles and placements

#: Figures drawn per random-page level for its interval
#: (:func:`_placement_bootstrap`), from a fixed seed (a fit is a function of
#: its data).
BOOT_REPLICATES = 30
BOOT_SEED = 20261128
#: A level fitted on random pages with at most this many ways is drawn from
#: a direct-mapped cache too (see :func:`.stride._interval`).
BOOT_DM_WAYS = 4


def _profile(data, fixed, k, grid, coarse=False, passes=3, shapes=None, per_stride=False):
    """Level k's deviance over capacities ``grid`` for every shape (or
    ``shapes``), the others held at ``fixed`` [(size, ways, page,
    policy)]: {(ways, page, policy): (G,)}, page None where the shape is
    sharp over the whole grid (``per_stride``: each stride's, (G, S))."""
    others = [data.fixed_kept(f) if j != k else None for j, f in enumerate(fixed)]
    best, free = {}, {}
    seen = set()
    # a cache's capacity is its ways times a power of two (_built), held on
    # the fine grid; the coarse grids, where levels are being chosen, have
    # no point at most such capacities (48 KiB of 12 ways) and place them
    # roughly, for the fine grid to refine
    g = np.asarray(grid, float)
    fine = len(g) < 2 or float(np.median(np.diff(np.log2(g)))) <= 1.0 / GRID_PER_OCTAVE + 1e-9
    for ways, page, policy in (_shapes(coarse) if shapes is None else shapes):
        sharp = (page is None or bool(np.all(grid / ways <= page))
                 or bool(np.all(grid <= RANDOM_MIN_BYTES)))
        key = ("c", ways, policy) if sharp else (ways, page, policy)
        if key in seen:
            continue
        seen.add(key)
        hk = data.kept(grid, ways, None if sharp else page, policy)
        H = [hk if j == k else others[j] for j in range(len(fixed))]
        cols = [_colours(grid, ways, None if sharp else page) if j == k else
                _colours(*fixed[j][:3]).reshape(1) for j in range(len(fixed))]
        dev, _, dev_s = _solve(data, _nest(H), passes, cols)
        off = ~_built(grid, ways) if fine else np.zeros(len(grid), bool)
        shape = (ways, None if sharp else page, policy)
        free[shape] = dev_s if per_stride else dev
        best[shape] = np.where(off[:, None] if per_stride else off, np.inf, free[shape])
    if all(not np.isfinite(v).any() for v in best.values()):
        return free          # no shape can be built in this grid: as measured
    return best


def _dev_of(data, fixed, passes=3):
    H = _nest([data.fixed_kept(f) for f in fixed])
    dev, coefs, dev_s = _solve(data, H, passes,
                               [_colours(*f[:3]).reshape(1) for f in fixed])
    return float(dev[0]), coefs[0], dev_s[0]


def _bottom(grid, prof):
    """The capacity a profile ``prof`` over ``grid`` puts a level at: its
    minimum, or the middle of a flat bottom (a sharp step between two
    measured sizes)."""
    i = int(np.argmin(prof))
    flat = prof <= prof[i] + 1e-6 * max(1.0, abs(float(prof[i])))
    lo = hi = i
    while lo > 0 and flat[lo - 1]:
        lo -= 1
    while hi + 1 < len(grid) and flat[hi + 1]:
        hi += 1
    return float(2.0 ** np.mean(np.log2(grid[[lo, hi]])))


def placed_kept(w, unit_bytes: float, colours: int, ways: int, policy: str, rng,
                each: bool = False, col=None):
    """One random placement's kept fractions at the sizes ``w`` (each a
    prefix of one array, as one run of a sequential chase): the array's
    touched pages (one every ``unit_bytes``) at random colours of a cache
    with ``colours`` page colours; under LRU a page's lines stay while its
    colour holds at most ``ways`` touched pages, under "any" a colour
    shared by n > ways keeps ways/n of them.  Its mean over placements is
    :func:`.cache_model.kept_fraction`'s random-page curve.  ``each``:
    every size its own placement (a new array for every size), not a
    prefix of one.  ``col``: the touched pages' colours, given (one
    placement shared with other curves), not drawn."""
    n = np.maximum(1, np.round(np.asarray(w, float) / unit_bytes)).astype(int)
    if each:
        cnt = rng.multinomial(n, np.full(colours, 1.0 / colours))   # (sizes, colours)
        kept = (np.minimum(cnt, ways) if policy == "any" else np.where(cnt <= ways, cnt, 0))
        return kept.sum(axis=1) / n
    col = rng.integers(0, colours, int(n.max())) if col is None else col[:int(n.max())]
    return kept_by_prefix(col, colours, ways, policy)[0, n - 1] / n


def shared_placement(tops, units, page: float, colours: int, rng) -> list[np.ndarray]:
    """One random placement of an array's pages shared by several strides
    (placement "run": lmbench 1.x and 2.x's lat_mem_rd allocates once):
    for each stride, the colours of the pages it touches, one every
    ``units[i]`` bytes (a whole number of pages) up to ``tops[i]`` bytes,
    all read off the same array."""
    steps = [max(1, int(round(u / page))) for u in units]
    n_array = max(int(math.ceil(t / u)) * s + s for t, u, s in zip(tops, units, steps))
    col = rng.integers(0, colours, n_array)
    return [col[::s] for s in steps]


def _placement_bootstrap(data, fixed, k, level, grid, shapes, observed: float):
    """Level k's 95 % interval from BOOT_REPLICATES figures drawn from the
    fit itself: each stride's curve at its fitted latencies with level k's
    kept fractions from new random placements (:func:`placed_kept`: one
    array per stride, each size a prefix of it, or, where ``data.typical``
    says each point is its own placement, one per point, or, where
    ``data.shared`` says every stride shares one array, one for them all)
    and each stride's
    own noise, refitted over ``grid`` with ``shapes`` (the shapes that fit
    as well).  ``level`` is the cache the figures are drawn from (the
    fitted one, or another shape that may have made the figure); d =
    log(refitted / drawn) is how the fit reads such a cache, so the truth
    behind the ``observed`` capacity is observed x e^-d: the interval from
    d's 2.5 and 97.5 % points (or its median +- 1.96 robust sigma, where
    wider).  Returns (low, high) in bytes."""
    size, ways, page, policy = level
    colours = max(2, int(round(size / ways / page)))
    drawn = colours * ways * float(page)       # the cache the whole colours make
    fixed = list(fixed)
    fixed[k] = level
    _, coefs, _ = _dev_of(data, fixed)
    others = [data.fixed_kept(f)[0] for f in fixed]
    rng = np.random.default_rng(BOOT_SEED + k)
    S, m = data.y.shape
    rep = copy.copy(data)
    d = []
    units = [max(float(page), float(max(st, data.line))) for st in data.strides]
    tops = [float(np.max(data.w[i])) for i in range(S)]
    for _ in range(BOOT_REPLICATES):
        hk = np.ones((S, m))
        shared = (shared_placement(tops, units, float(page), colours, rng) if data.shared
                  else [None] * S)
        for i in range(S):
            hk[i] = placed_kept(data.w[i], units[i], colours, ways, policy, rng,
                                each=data.typical, col=shared[i])
        H = _nest([hk if j == k else others[j] for j in range(len(fixed))])
        X = np.concatenate([np.ones((S, m, 1))] + [1.0 - h[..., None] for h in H], axis=2)
        pred = np.maximum((X @ coefs[..., None])[..., 0], 1e-12)
        noise = np.asarray(data.sigma)[:, None] * rng.standard_normal((S, m))
        rep.y = np.where(data.mask > 0, pred * np.exp(noise), data.y)
        prof = np.min(np.array(list(_profile(rep, fixed, k, grid, passes=1,
                                             shapes=shapes).values())), axis=0)
        d.append(math.log(_bottom(grid, prof) / drawn))
    d = np.array(d)
    mid = float(np.median(d))
    spread = 1.4826 * float(np.median(np.abs(d - mid)))
    lo_q = min(float(np.quantile(d, 0.025)), mid - 1.96 * spread)
    hi_q = max(float(np.quantile(d, 0.975)), mid + 1.96 * spread)
    # the fit reads x * e^d of a true x: the truth is observed * e^-d
    return observed * math.exp(-hi_q), observed * math.exp(-lo_q)


# ------------------------------------------------- levels and their room

#: The stride fit keeps adjacent levels at least this factor apart: every
#: machine we simulate has its levels x4 or more apart (8 KiB
#: -> 96 KiB on the Alpha 21164, 32 KiB -> 512 KiB on Zen 3, 256 KiB -> 8
#: MiB), and in a stride figure two closer steps are one level seen
#: differently at different strides (a placement, a neighbour's share of a
#: shared cache).  Stricter than the closest caches we know
#: (cache_model.CLOSEST_LEVELS): a Tremont's 1.5 MiB L2 and 4 MiB L3 would
#: be read as one level by this fit.
MIN_RATIO = 4.0


def _n_params(strides: int, levels: int) -> int:
    """A stride fit's free parameters: each stride's latencies (one per
    level and memory's), each level's capacity and shape."""
    return strides * (levels + 1) + 2 * levels


def _room(data, fixed, k):
    """The capacities level k may take: MIN_RATIO from its neighbours, and
    within the measured sizes."""
    lo = fixed[k - 1][0] * MIN_RATIO if k > 0 else data.w_all[0]
    hi = fixed[k + 1][0] / MIN_RATIO if k + 1 < len(fixed) else data.w_all[-1]
    return lo, hi
