"""The shape of a cache's transition, and the fit of its capacity to it.

A random pointer chase over a working set of W bytes revisits its lines in
the same cyclic order every lap.  In one set of an LRU ``ways``-way cache
such a cycle either fits (every access hits) or thrashes (every access
misses), so the fraction of lines a cache of capacity C keeps is the
fraction that sit in sets holding at most ``ways`` of the chase's lines.

Where the set index lies inside the page offset (a way, C / ways, is no
larger than the page) every set holds W / (C / ways) lines, whole or one
more: the transition is a sharp ramp from W = C to C + C / ways.  Where it does not, the index's upper bits come
from the physical page number, which the operating system (in a guest, also
the host) chooses: with ``colours = C / (ways * page)`` page colours a
line's set holds one line of every page of its colour, so its occupancy is
1 + Binomial(pages - 1, 1 / colours).  The transition then starts well before
C (at W = C about half the lines of a 16-colour 8-way cache miss) and its
shape fixes C, and, when the data are dense enough, the ways and the page
size that placed the lines.

:func:`kept_fraction` is the closed form; :func:`staircase` nests one per
level (a line kept by level k is served by the fastest level that keeps it);
:func:`fit_transitions` fits every capacity (with a 95 % interval), ways and
page size to a measured curve, given the plateau latencies.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy.special import betainc, gammaln, pdtr

from benchlib.memory.buildable import _built, built_points
from benchlib.memory.kept import Kept

SMALL_PAGE = 4096
HUGE_PAGE = 2 << 20
#: Associativities tried by the ring's LRU model (its shape is the policy's:
#: a coarse grid, the ways are read from the walk and the same-set chase).
WAYS_GRID = (4, 8, 12, 16, 20)
#: A point slower than the model by more than this many sigma weighs by a
#: Cauchy tail (:func:`_slow_tail`), not a Gaussian.
SLOW_TAIL = 2.0
#: A 95 % interval for one parameter: chi-square within this of the best.
DELTA_CHI2 = 4.0
#: The closest adjacent caches we know differ in capacity by x2.7 (Intel's
#: Tremont cores in Jasper Lake: a 1.5 MiB L2 under a 4 MiB L3; Zen 4 1 MiB
#: under 32 MiB, the Alpha 21164's 8 KiB under 96 KiB): two levels a fit
#: places less than this factor apart are one level seen twice (a
#: transition read twice, a neighbour's share), not two caches.  The random
#: walk merges such a ring level into the level it refits
#: (:func:`.walk.refit_with_walk`).
CLOSEST_LEVELS = 2.0
#: Capacities tried: this many per octave, within SEARCH_OCTAVES of the guess.
GRID_PER_OCTAVE = 48
SEARCH_OCTAVES = 1.5
#: Rounds more, at most, for a capacity its search found at the edge.
EDGE_ROUNDS = 2


def kept_fraction(ws_bytes, cache_bytes, ways: int, page_bytes: float | None,
                  access: str = "ring", *, stride_bytes: float | None = None,
                  line_bytes: float = 64, policy: str = "lru", typical: bool = False) -> np.ndarray:
    """Fraction of a cyclic random chase's lines that an LRU ``ways``-way,
    physically indexed cache of ``cache_bytes`` keeps, the working set
    ``ws_bytes`` lying on pages of ``page_bytes`` at random physical
    addresses.  ``ws_bytes`` and ``cache_bytes`` broadcast.

    ``access="walk"``: a random walk instead of a ring (mem_latency
    pattern=walk): lines are revisited at random intervals, so a set that n
    lines share keeps ways/n of them whatever its replacement policy (under
    independent, uniform references every policy that fills the set holds an
    exchangeable subset of it), where the ring's LRU set keeps none.

    ``access="stride"``: a sequential stride chase (another tool's, e.g.
    lat_mem_rd: the array's slots ``stride_bytes`` apart visited in one
    fixed order, forward or backward), on a cache of 1 to 32 ways (1:
    direct mapped) with ``line_bytes`` lines.  Its lap is a cycle too, so an
    LRU set keeps its lines when it holds at most ``ways`` of them; what
    differs from the ring is which sets the lines reach.  ``page_bytes``
    None (or 0): the set index comes from contiguous addresses (a virtually
    indexed cache, a page-colouring OS, or pages at least a way long): the
    lines touched every max(stride, line) bytes use all sets while that
    distance is below a way (the step is at C, a ramp one way wide; a
    direct-mapped cache keeps (2 - q)/q of them, q = W/C, up to 2C) and one
    set's ``ways`` lines beyond it (the step moves to ways x stride).
    Pages at random frames: a set holds one line of each touched page of
    its colour, as in the ring, the touched pages being W / max(page,
    stride).  ``policy="any"`` (stride only): a set that n > ways of the
    chase's lines share keeps ways/n of them, as a thrash-resistant policy
    (random, RRIP, adaptive insertion) does under a cyclic scan, where LRU
    keeps none.  ``typical=True`` (stride only): a random-page level keeps
    the typical placement's lines (:func:`typical_kept`), not the mean's."""
    if access == "walk":
        return _kept_walk(ws_bytes, cache_bytes, ways, page_bytes)
    if access == "stride":
        return _kept_stride(ws_bytes, cache_bytes, ways, page_bytes, stride_bytes, line_bytes,
                            policy, typical)
    if access != "ring":
        raise ValueError(f"access must be 'ring', 'walk' or 'stride'; got {access!r}")
    w, c = np.broadcast_arrays(np.asarray(ws_bytes, float), np.asarray(cache_bytes, float))
    colours = c / ways / page_bytes
    w, c, colours = np.atleast_1d(w), np.atleast_1d(c), np.atleast_1d(colours)
    # index inside the page (or contiguous memory): W / way lines in every
    # set, whole; between ways and ways + 1 per set, the sets holding one
    # more than ``ways`` lose theirs, a ramp one way wide
    q = w / (c / ways)
    out = np.clip((ways + 1 - q) * ways / np.maximum(q, 1e-12), 0.0, 1.0)
    grad = colours > 1.0
    if grad.any():
        n = np.maximum(w[grad] / page_bytes, 1.0) - 1.0    # the other pages
        out[grad] = _set_keeps_it(n, ways, 1.0 / colours[grad])
    return out


#: _set_keeps_it's last answers, by content: the ring's fit asks for the
#: same arrays again and again (a level's grid is the same while its guess
#: is, in the fits with and without the TLB's misses and in those that test
#: which levels are needed: 142 distinct of 571 calls in one first look).
_KEEPS = Kept(64)


def _set_keeps_it(n_other, ways: int, p) -> np.ndarray:
    """P(Binomial(n_other, p) <= ways - 1): the chance that at most ways - 1
    of the other touched pages put a line in this line's set, so that an
    LRU set keeps it.  I_{1-p}(n - k, k + 1), also for real n.  Computed once
    per distinct input (a copy is returned)."""
    n_other, p = np.asarray(n_other, float), np.asarray(p, float)
    key = (n_other.shape, n_other.tobytes(), int(ways), p.shape, p.tobytes())
    return _KEEPS.answer(key, lambda: _set_keeps_it_once(n_other, ways, p)).copy()


def _set_keeps_it_once(n_other, ways: int, p) -> np.ndarray:
    k = ways - 1
    v = np.ones_like(n_other)
    big = n_other > k
    v[big] = betainc(n_other[big] - k, k + 1, 1.0 - p[big])
    return v


def _kept_stride(ws_bytes, cache_bytes, ways: int, page_bytes, stride_bytes, line_bytes,
                 policy: str = "lru", typical: bool = False):
    """:func:`kept_fraction` for ``access="stride"`` (see there)."""
    if stride_bytes is None:
        raise ValueError("access='stride' needs stride_bytes")
    w, c = np.broadcast_arrays(np.asarray(ws_bytes, float), np.asarray(cache_bytes, float))
    w, c = np.atleast_1d(w), np.atleast_1d(c)
    s_eff = max(float(stride_bytes), float(line_bytes))       # bytes between touched lines
    contiguous = not page_bytes or not np.isfinite(page_bytes)
    colours = np.zeros_like(c) if contiguous else c / ways / float(page_bytes)
    # one set's lines sit a way apart: beyond a way, one set holds them all
    c_eff = np.maximum(c, ways * s_eff)
    q = w / (c_eff / ways)
    if policy == "any":
        out = np.minimum(1.0, ways / np.maximum(q, 1e-12))
    else:
        out = np.clip((ways + 1 - q) * ways / np.maximum(q, 1e-12), 0.0, 1.0)
    grad = colours > 1.0
    if grad.any():
        # pages at random frames: 1 + Binomial(other touched pages, 1/colours) lines a set
        pages = np.maximum(w[grad] / max(float(page_bytes), s_eff), 1.0)
        if typical:
            out[grad] = typical_kept(pages, colours[grad], ways, policy)
        elif policy == "any":
            out[grad] = _kept_walk(pages * float(page_bytes), c[grad], ways, float(page_bytes))
        else:
            out[grad] = _set_keeps_it(pages - 1.0, ways, 1.0 / colours[grad])
    return out


#: Beyond this mean the interquartile mean of a Poisson count is taken as
#: its mean less a constant (the count is nearly symmetric); below, it is
#: read off a table of means _IQM_STEP apart.
_IQM_EXACT_NU = 60.0
_IQM_STEP = 0.005


@functools.cache
def _iqm_table() -> tuple[np.ndarray, np.ndarray]:
    """Poisson means 0 .. _IQM_EXACT_NU, _IQM_STEP apart, and their
    interquartile means."""
    v = np.arange(0.0, _IQM_EXACT_NU + _IQM_STEP / 2, _IQM_STEP)
    k = np.arange(int(_IQM_EXACT_NU + 10.0 * np.sqrt(_IQM_EXACT_NU) + 12.0) + 1,
                  dtype=float)[:, None]
    F = pdtr(k, v[None, :])
    below = np.vstack([np.zeros((1, v.size)), F[:-1]])
    share = np.clip(F, 0.25, 0.75) - np.clip(below, 0.25, 0.75)
    return v, (k * share).sum(axis=0) / 0.5


def _iqm_poisson_ratio(nu: np.ndarray) -> np.ndarray:
    """The interquartile mean of Poisson(nu) over nu (0 where nu is 0): the
    mean of its quantile function over [0.25, 0.75]; beyond _IQM_EXACT_NU,
    1 - d / nu with d its offset there."""
    v, iqm = _iqm_table()
    nu = np.asarray(nu, float)
    out = np.empty_like(nu)
    exact = nu <= _IQM_EXACT_NU
    with np.errstate(divide="ignore", invalid="ignore"):
        out[exact] = np.where(nu[exact] > 1e-12, np.interp(nu[exact], v, iqm) / nu[exact], 0.0)
    out[~exact] = 1.0 - (_IQM_EXACT_NU - iqm[-1]) / nu[~exact]
    return out


#: Fewer page colours than this (where the Poisson count of over-full
#: colours is 0.04-0.12 off) are drawn: TYPICAL_DRAWS placements a count,
#: from a fixed seed, once per process.
TYPICAL_MIN_COLOURS = 24
TYPICAL_DRAWS = 400


def kept_by_prefix(col: np.ndarray, colours: int, ways: int, policy: str = "lru") -> np.ndarray:
    """Pages kept at every prefix of placements ``col`` ((R, n) colours of
    the touched pages, in the order the chase touches them): (R, n), entry
    [r, k - 1] the pages of the first k kept.  LRU: a page's lines stay
    while its colour holds at most ``ways`` of the k pages (the page is kept
    from its arrival until the prefix that brings its colour to ways + 1);
    "any": a colour shared by c pages keeps min(c, ways) of them (the pages
    of rank below ``ways`` in their colour)."""
    col = np.atleast_2d(col)
    R, n = col.shape
    order = np.argsort(col, axis=1, kind="stable")
    sc = np.take_along_axis(col, order, axis=1)
    first = np.maximum.accumulate(np.where(np.diff(sc, axis=1, prepend=-1) != 0,
                                           np.arange(n)[None, :], 0), axis=1)
    rank = np.empty_like(col)
    np.put_along_axis(rank, order, np.arange(n)[None, :] - first, axis=1)
    if policy == "any":
        return np.cumsum(rank < ways, axis=1)
    full = np.full((R, colours), n + 1)
    r_i, t_i = np.nonzero(rank == ways)
    full[r_i, col[r_i, t_i]] = t_i + 1
    t = np.arange(n)[None, :]
    end = np.maximum(np.minimum(np.take_along_axis(full, col, axis=1), n + 1), t + 1)
    W = n + 2
    rows = np.arange(R)[:, None] * W
    diff = (np.bincount((rows + t + 1).ravel(), minlength=R * W)
            - np.bincount((rows + end).ravel(), minlength=R * W)).reshape(R, W)
    return np.cumsum(diff, axis=1)[:, 1:n + 1]




@functools.cache
def _typical_drawn(colours: int, ways: int) -> np.ndarray:
    """The interquartile mean over TYPICAL_DRAWS random placements of the
    kept fraction of n = 0 .. N touched pages on ``colours`` colours (each
    prefix of a placement is a placement of that many pages), N far past
    where every colour is over-full."""
    R, n = TYPICAL_DRAWS, min(8 * colours * (ways + 1), 2048)
    col = np.random.default_rng(1_000_003 * colours + ways).integers(0, colours, (R, n))
    h = np.sort(kept_by_prefix(col, colours, ways) / np.arange(1, n + 1)[None, :], axis=0)
    return np.concatenate([[1.0], h[R // 4:R - R // 4].mean(axis=0)])


def typical_kept(n_pages, colours, ways: int, policy: str = "lru") -> np.ndarray:
    """The kept fraction of the *typical* placement of ``n_pages`` touched
    pages on ``colours`` page colours (arrays, broadcast), where
    :func:`_set_keeps_it` gives the mean over placements.  At a random-page
    cache's onset the typical placement has no clash at all while the mean
    has already lost lines (8 pages on 64 colours of a direct-mapped cache:
    none clash in 63 % of placements, the mean keeps 0.90), and a fit whose
    loss follows the typical point (soft-L1) reads the mean's early onset as
    a sharper cache or a staircase of them.  The lost pages are those of the
    overfull colours (more than ``ways`` pages), a Poisson number of them
    (mean nu = colours x P(Binomial(n, 1 / colours) > ways)): the typical
    loss is the mean loss times the interquartile mean of Poisson(nu) over
    nu, which is 0 while no over-full colour at all is the case in three
    placements of four (nu <= ln 4/3) and 1 once there are many (against 2000 drawn placements'
    interquartile mean at every count up to 384 pages, 1-16 ways: within
    0.02 at 64 colours and more, 0.04 at 24, 0.12 at 8, where a clash of
    three pages is no longer rare: below TYPICAL_MIN_COLOURS, drawn).
    ``policy="any"``: the mean (a thrash-resistant set keeps part of its
    lines, and one placement's loss is no count of whole pages)."""
    n, c = np.broadcast_arrays(np.asarray(n_pages, float), np.asarray(colours, float))
    n, c = np.atleast_1d(n).astype(float), np.atleast_1d(np.maximum(c, 1.0)).astype(float)
    if policy == "any":
        return _kept_walk(n, c * ways, ways, 1.0)
    mean = _set_keeps_it(np.maximum(n, 1.0) - 1.0, ways, 1.0 / c)
    nu = c * (1.0 - _set_keeps_it(n, ways + 1, 1.0 / c))
    typical = np.clip(1.0 - (1.0 - mean) * _iqm_poisson_ratio(nu), 0.0, 1.0)
    few = c < TYPICAL_MIN_COLOURS
    if few.any():
        # drawn, between the whole colour counts either side (in log)
        cf, nf = c[few], np.maximum(n[few], 1.0)
        lo, hi = np.floor(cf), np.ceil(cf)
        wt = np.where(hi > lo, np.log(cf / lo) / np.log(np.maximum(hi / lo, 1 + 1e-12)), 0.0)
        val = np.zeros(len(cf))
        for kc in np.unique(np.concatenate([lo, hi])):
            tab = _typical_drawn(int(kc), ways)
            m = len(tab) - 1
            n0 = np.minimum(np.floor(nf).astype(int), m)
            fr = np.where(n0 < m, nf - n0, 0.0)
            v = tab[n0] * (1 - fr) + tab[np.minimum(n0 + 1, m)] * fr
            val += np.where(lo == kc, 1 - wt, 0.0) * v + np.where(hi == kc, wt, 0.0) * v
        typical[few] = np.clip(val, 0.0, 1.0)
    return typical


def _kept_walk(ws_bytes, cache_bytes, ways: int, page_bytes: float) -> np.ndarray:
    """E[min(1, ways / n)] over the sets the walk's lines sit in: n = W / way
    where the index lies inside the page, else 1 + Binomial(N, 1/colours)
    with N the other pages, as ``P(X < ways) + ways (E[1/(1+X)] -
    sum_{k<ways} pmf(k)/(k+1))`` and E[1/(1+X)] = (1 - (1-p)^(N+1)) / ((N+1) p)."""
    w, c = np.broadcast_arrays(np.asarray(ws_bytes, float), np.asarray(cache_bytes, float))
    w, c = np.atleast_1d(w), np.atleast_1d(c)
    colours = c / ways / page_bytes
    out = np.minimum(1.0, c / np.maximum(w, 1e-12))          # index inside the page
    grad = colours > 1.0
    if grad.any():
        n = np.maximum(np.round(w[grad] / page_bytes), 1.0) - 1.0   # the other pages
        p = 1.0 / colours[grad]
        k = np.arange(ways, dtype=float)[:, None]                   # 0 .. ways-1
        ok = k <= n[None, :]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            logpmf = (gammaln(n + 1)[None, :] - gammaln(k + 1) - gammaln(np.maximum(n - k, 0) + 1)
                      + k * np.log(p)[None, :] + (n - k)[...] * np.log1p(-p)[None, :])
            pmf = np.where(ok, np.exp(logpmf), 0.0)
            inv = -np.expm1((n + 1) * np.log1p(-p)) / ((n + 1) * p)
        v = pmf.sum(axis=0) + ways * (inv - (pmf / (k + 1)).sum(axis=0))
        out[grad] = np.clip(v, 0.0, 1.0)
    return out


@dataclass
class Transition:
    """One level's capacity with its 95 % interval, and the shape that fits."""
    size_bytes: float
    size_bytes_low: float
    size_bytes_high: float
    ways: int                 # best-fitting associativity
    ways_resolved: bool       # False: other associativities fit as well
    page_bytes: int           # best-fitting page size
    page_resolved: bool       # False: both page sizes fit as well
    gradual: bool             # the best shape starts before C (random page colours)
    chi2: float               # sum of squared normalised residuals of the whole curve
    n_points: int
    deviance: float = 0.0     # -2 ln likelihood of the whole curve (with placement variance)
    r2_median: float = 0.0    # median squared normalised residual (0.455 for a perfect model)
    # .walk.fit_walk only: the solved latencies (this cache, the next level), the
    # sum of squared relative residuals, and whether the interval reaches
    # the search grid's edge
    latencies_ns: tuple[float, float] | None = None
    rss: float | None = None
    edge_of_grid: bool = False
    # the ways whose best fit is within DELTA_CHI2 (None: not bounded, e.g.
    # a sharp step whose shape does not depend on them), and the noise
    # the fit estimated (relative)
    ways_low: int | None = None
    ways_high: int | None = None
    noise: float | None = None
    # the deviance with a Gaussian for every point, where the capacity came
    # from the one-sided likelihood (levels: how many levels a curve has is
    # decided on it)
    deviance_gauss: float | None = None

    def to_dict(self) -> dict:
        return {"size_bytes": self.size_bytes, "size_bytes_low": self.size_bytes_low,
                "size_bytes_high": self.size_bytes_high,
                "ways": self.ways if self.ways_resolved else None,
                "page_bytes": self.page_bytes if self.page_resolved else None,
                "gradual": self.gradual, "chi2": self.chi2, "n_points": self.n_points}


def staircase(ws_bytes, latencies_ns, transitions) -> np.ndarray:
    """Latency (ns) of a chase over ``ws_bytes`` for a hierarchy with plateau
    latencies ``latencies_ns`` (one more than transitions: main memory last)
    and one (size_bytes, ways, page_bytes) per cache."""
    w = np.asarray(ws_bytes, float)
    lat = np.zeros_like(w)
    prev = np.zeros_like(w)
    for k, L in enumerate(latencies_ns):
        if k < len(transitions):
            c, ways, page = transitions[k]
            h = np.maximum(kept_fraction(w, c, ways, page), prev)
        else:
            h = np.ones_like(w)
        lat += L * (h - prev)
        prev = h
    return lat


def _nested(w, lats, fixed, k, hk, colours_k, pre=None):
    """Latency and its placement variance for a batch of candidate kept
    fractions ``hk`` (B, n) of level k (with ``colours_k`` page colours, (B, 1)),
    every other level held at ``fixed``.

    Placement variance: a level's lines are kept or lost a colour at a time,
    so over random placements its kept fraction h varies by about
    h (1 - h) / colours; the latency by that times the step squared.
    ``pre``: the other levels' (kept fraction, colours), computed once."""
    lat = np.zeros_like(hk)
    var = np.zeros_like(hk)
    prev = np.zeros((1, len(w)))
    for j in range(len(fixed)):
        if j == k:
            h, col = hk, colours_k
        elif pre is not None:
            h, col = pre[j]
        else:
            c, wy, pg = fixed[j]
            h = kept_fraction(w, c, wy, pg)[None, :]
            col = colours(c, wy, pg)
        h = np.maximum(h, prev)
        lat = lat + lats[j] * (h - prev)
        step = lats[j + 1] - lats[j]
        var = var + np.where(col > 1, h * (1 - h) / col, 0.0) * step ** 2
        prev = h
    return lat + lats[-1] * (1 - prev), var


def _fit_one(w, y, sigma, lats, fixed, k, guess, pages, ways_grid, robust=False):
    """Chi-square over a grid of capacities for level k and every shape
    (ways, page), the other levels held at ``fixed``.  Returns (grid,
    {shape key: (chi array, ways, page)}); shapes that are sharp over the
    whole grid are one model."""
    n = int(SEARCH_OCTAVES * GRID_PER_OCTAVE)
    grid = guess * 2.0 ** (np.arange(-n, n + 1) / GRID_PER_OCTAVE)
    grid = np.union1d(grid, built_points(grid[0], grid[-1], ways_grid))
    shapes = {}
    pre = {j: (kept_fraction(w, *fixed[j])[None, :], colours(*fixed[j]))
           for j in range(len(fixed)) if j != k}
    for page in pages:
        for ways in ways_grid:
            key = ("sharp", ways) if bool(np.all(grid / ways <= page)) else (ways, page)
            if key in shapes:
                continue
            hk = kept_fraction(w[None, :], grid[:, None], ways, page)
            col = np.maximum(1.0, grid / ways / page)[:, None]
            lat, var = _nested(w, lats, fixed, k, hk, col, pre)
            lat = np.maximum(lat, 1e-12)
            s2 = sigma ** 2 + var / lat ** 2
            r = (y[None, :] - np.log(lat)) / np.sqrt(s2)
            r2 = r * r
            # -2 ln likelihood (up to a constant): the variance depends on the
            # model; a point slower than the model has a Cauchy tail
            dev = np.sum((_slow_tail(r) if robust else r2) + np.log(s2 / sigma ** 2), axis=1)
            # of two page colours or more, a small cache only at a capacity it
            # can be built with (36 KiB of 4 ways on 4 KiB pages, 2.25, is none)
            dev = np.where(_built(grid, ways) | (grid / ways < 2 * page), dev, np.inf)
            shapes[key] = (dev, ways, page, np.sum(r2, axis=1))
    return grid, shapes


def fit_transitions(ws_bytes, latency_ns, latencies_ns, guesses_bytes, sigma: float,
                    pages=(SMALL_PAGE, HUGE_PAGE), ways_grid=WAYS_GRID,
                    rounds: int = 2, only: int | None = None,
                    robust: bool = False, edge_rounds: int = EDGE_ROUNDS) -> list[Transition]:
    """Fit every cache's capacity to a latency-vs-working-set curve.

    ``latencies_ns``: the plateau latencies, main memory last;
    ``guesses_bytes``: a first size per cache (from the plateaus' ends).
    Residuals are in ln latency with noise ``sigma`` (one value, or one per
    point where the interference is not uniform).  Each capacity is
    searched on a grid (GRID_PER_OCTAVE per octave, SEARCH_OCTAVES either side
    of its guess) for every (ways, page size), the other levels held at their
    current fit, for ``rounds`` rounds.  The interval is the contiguous run of
    capacities whose best chi-square (over shapes) is within DELTA_CHI2 of the
    minimum: a profile likelihood, so a sharp step between two measured
    sizes gets the whole gap between them and its middle as the estimate.
    A point slower than the model weighs by a Cauchy tail
    (:func:`_slow_tail`; ``robust=False``: a Gaussian for every point, as
    the choice of how many levels a curve has is made); the last round's
    threshold grows with the misfit (the median squared residual over its
    expectation).  ``only``: fit that level alone (the others held at their
    guesses) and return its transition only.  A capacity found at its
    search's edge is searched again around it, up to ``edge_rounds`` rounds
    more (0: the edge is the answer, ``edge_of_grid``)."""
    w = np.asarray(ws_bytes, float)
    y = np.log(np.asarray(latency_ns, float))
    sigma = np.maximum(np.asarray(sigma, float), 1e-3)      # one, or one per point
    lats = [float(v) for v in latencies_ns]
    fixed = [(float(g), 8, HUGE_PAGE) for g in guesses_bytes]
    out: list[Transition | None] = [None] * len(fixed)
    delta = DELTA_CHI2
    todo = list(range(len(fixed))) if only is None else [only]
    rnd = 0
    while rnd < rounds or (todo and rnd < rounds + edge_rounds):
        if rnd and rnd == rounds - 1:
            # the last round's intervals widen with the misfit: the profile's
            # threshold times the median squared residual over its
            # expectation for a right model (0.455), when that is above 1
            delta = DELTA_CHI2 * max(1.0, _median_r2(w, y, sigma, lats, fixed) / 0.455)
        for k in todo:
            grid, shapes = _fit_one(w, y, sigma, lats, fixed, k, fixed[k][0], pages, ways_grid,
                                    robust)
            chis = np.array([s[0] for s in shapes.values()])
            prof = chis.min(axis=0)
            i = int(np.argmin(prof))
            cmin = float(prof[i])
            lo = hi = i
            while lo > 0 and prof[lo - 1] <= cmin + delta:
                lo -= 1
            while hi + 1 < len(grid) and prof[hi + 1] <= cmin + delta:
                hi += 1
            # flat bottom (a sharp step between two measured sizes): its middle
            flat = np.nonzero(prof[lo:hi + 1] <= cmin + 1e-6 * max(1.0, cmin))[0] + lo
            size = float(2.0 ** np.mean(np.log2(grid[[flat.min(), flat.max()]])))
            j = int(np.argmin(np.abs(np.log(grid / size))))
            at = sorted(((float(s[0][j]), s[1], s[2]) for s in shapes.values()),
                        key=lambda t: t[0])
            best_chi, ways, page = at[0]
            best_sh = next(sh for sh in shapes.values() if float(sh[0][j]) == best_chi)
            best_r2 = float(best_sh[3][j])
            ok = [t for t in at if t[0] <= best_chi + delta]
            # what placement fits: gradual on small pages, gradual on huge
            # pages, or sharp (index inside the page / contiguous memory)
            kinds = {t[2] if size / t[1] > t[2] else "sharp" for t in ok}
            fixed[k] = (size, ways, page)
            lo_b, hi_b = float(grid[lo]), float(grid[hi])
            if size / ways <= page:
                # a sharp step says only that C lies between the measured
                # sizes on either side of it
                below, above = w[w <= size], w[w > size]
                lo_b = min(lo_b, float(below.max())) if len(below) else lo_b
                hi_b = max(hi_b, float(above.min())) if len(above) else hi_b
            out[k] = Transition(
                size_bytes=size, size_bytes_low=lo_b, size_bytes_high=hi_b,
                ways=int(ways),
                ways_resolved="sharp" not in kinds and len({t[1] for t in ok}) == 1,
                page_bytes=int(page), page_resolved=len(kinds) == 1,
                gradual=bool(size / ways >= 2 * page), chi2=best_r2, n_points=len(w),
                deviance=best_chi, edge_of_grid=bool(lo == 0 or hi == len(grid) - 1))
        rnd += 1
        if rnd >= rounds:
            # past the rounds, only a capacity at its search's edge is
            # searched again, around where it now lies: its guess was off by
            # more than SEARCH_OCTAVES (a 32 KiB L1 read 32.2 KiB, the lowest
            # capacity searched around a first guess of 93 KiB, its interval
            # that one point)
            todo = [k for k in todo if out[k] is not None and out[k].edge_of_grid]
    res = [t for t in out if t is not None]
    if res:
        # each point's normalised residual under the final model: the median
        # of their squares judges the fit without letting a few points that
        # interference slowed decide it
        med = _median_r2(w, y, sigma, lats, fixed)
        for t in res:
            t.r2_median = med
    return res


def _median_r2(w, y, sigma, lats, fixed) -> float:
    """The median squared normalised residual of the model ``fixed``."""
    c0, w0, p0 = fixed[0]
    lat, var = _nested(w, lats, fixed, 0, kept_fraction(w, c0, w0, p0)[None, :],
                       np.array([[colours(c0, w0, p0)]]))
    lat = np.maximum(lat[0], 1e-12)
    r2 = (y - np.log(lat)) ** 2 / (sigma ** 2 + var[0] / lat ** 2)
    return float(np.median(r2))


def _slow_tail(r):
    """-2 ln likelihood (up to a constant) of normalised residuals ``r`` (data
    minus model, over the noise): Gaussian for a point at or below the model,
    a Cauchy tail (scale SLOW_TAIL) for one above it.  A neighbour on a shared
    core or host only ever slows a chase, by any amount and for milliseconds
    at a time: a point much slower than the model may be one it slowed, a
    point faster than the model is evidence against the model."""
    r = np.asarray(r, float)
    c2 = SLOW_TAIL ** 2
    return np.where(r <= 0, r * r, c2 * np.log1p(np.maximum(r, 0.0) ** 2 / c2))


def _slow_weight(r):
    """The iteratively reweighted least-squares weight of :func:`_slow_tail`."""
    r = np.asarray(r, float)
    return np.where(r <= 0, 1.0, 1.0 / (1.0 + np.maximum(r, 0.0) ** 2 / SLOW_TAIL ** 2))


def _robust_scale(res) -> float:
    """Noise of relative residuals: 1.4826 MAD about zero, at least 0.5 %."""
    res = np.asarray(res, float)
    res = res[np.isfinite(res)]
    if not len(res):
        return 0.005
    return max(0.005, 1.4826 * float(np.median(np.abs(res))))


def describe_shape(t: Transition) -> str:
    """One phrase on what the transition's shape says."""
    if not t.gradual:
        return "a sharp step (set index inside the page, or pages contiguous)"
    pg = f"{t.page_bytes >> 10} KiB" if t.page_bytes < (1 << 20) else f"{t.page_bytes >> 20} MiB"
    ways = f"{t.ways}-way" if t.ways_resolved else "ways not resolved"
    return f"a gradual onset: lines on randomly placed {pg} pages ({ways})"


def colours(cache_bytes: float, ways: int, page_bytes: float) -> float:
    """Page colours of a cache: how many pages fit in one way (at least 1)."""
    return max(1.0, cache_bytes / ways / page_bytes)


__all__ = ["kept_fraction", "staircase", "fit_transitions", "Transition",
           "describe_shape",
           "SMALL_PAGE", "HUGE_PAGE", "colours"]
