"""The fit of sequential stride chases: other tools' curves (lat_mem_rd's
figure, one curve per stride), and the 1990s' direct-mapped caches.

A part of the fit step (:func:`.fit.fit_memory` dispatches here for a table
of stride-order rows; benchlib's own random chases never come here).

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
(ways 1-32, contiguous or random page placement) per level, shared by every
stride; each stride's plateau latencies its own (linear least squares, no
step negative), so a prefetcher that hides a level at small strides costs
nothing.  Levels start from each curve's plateaus (threshold crossings),
and a level stays only if the curves need it (BIC) and it steps up at some
stride by more than the noise.  A level whose step one stride shows and a
smaller stride does not is *prefetch-hidden* there (said; its capacity
comes from the strides that show it).  The 95 % interval is a profile over
capacities and shapes, with the chi-square scaled by the best fit's own
reduced chi-square (the model's misfit widens it), and never narrower than
the measured sizes either side of a sharp step.

Status: not yet wired into :func:`.fit.fit_memory` (bench/memory_coverage.py
measures it on simulated machines; on a few it still adds levels that one
placement's wiggles ask for, see the script's output).

Pure: a function of DataFrames."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.memory.cache_model import Transition, kept_fraction
from benchlib.memory.hierarchy import Level
from benchlib.memory.segments import _median_by, _noise_sigma

#: Associativities tried; 1 is direct mapped.
STRIDE_WAYS = (1, 2, 3, 4, 8, 16, 32)
#: ... on randomly placed pages
RANDOM_WAYS = (1, 2, 3, 4, 8, 16)
#: Page placements tried: None = contiguous (virtually indexed, coloured,
#: or a page at least a way long); else pages of that size at random frames.
PLACEMENTS = (None, 4096, 8192)
GRID_PER_OCTAVE = 24
#: The shapes tried while levels are being chosen (all of them after).
COARSE_SHAPES = ((1, None), (4, None), (16, None), (1, 4096), (4, 4096), (16, 4096),
                 (1, 8192))
DELTA_CHI2 = 4.0
#: A step below this ratio of latencies, at a stride where another stride
#: shows the level, is hidden there.
HIDDEN_RATIO = 1.08
#: A level must step up by at least this ratio at one stride at least.
MIN_STEP = 1.04
#: Intervals: the chi-square is divided by max(1, the best fit's reduced
#: chi-square) times this (calibrated on bench/memory_coverage.py).
MISFIT_WIDEN = 1.0


@dataclass
class StrideFit:
    """What the stride fit found (beside the levels it returns)."""
    strides: list[int]
    flat: list[int]                       # strides with no step at all
    hidden: dict = field(default_factory=dict)   # level name -> strides where prefetch-hidden
    steps: dict = field(default_factory=dict)    # level name -> {stride: step ratio}
    reduced_chi2: float = 1.0
    stride_used: int = 0


# --------------------------------------------------------------- the data

def _curves(df: pd.DataFrame) -> dict[int, pd.DataFrame]:
    d = df.copy()
    if "stride_bytes" not in d.columns:
        d["stride_bytes"] = 0
    d["stride_bytes"] = d["stride_bytes"].astype(float).round().astype(np.int64)
    out = {}
    for st, part in d.groupby("stride_bytes"):
        c = _median_by(part, "size_bytes", "latency_ns")
        if len(c) >= 6:
            out[int(st)] = c
    if not out:
        raise BenchlibError("no stride curve with at least 6 sizes")
    return out


class _Data:
    """Every stride's points, concatenated, with the noise of each stride."""

    def __init__(self, curves: dict[int, pd.DataFrame], line: int):
        self.strides = sorted(curves)
        self.line = line
        w, y, g = [], [], []
        self.sigma = []
        for i, st in enumerate(self.strides):
            c = curves[st]
            w.append(c["size_bytes"].to_numpy(float))
            y.append(c["latency_ns"].to_numpy(float))
            g.append(np.full(len(c), i))
            self.sigma.append(max(_noise_sigma(np.log(y[-1])), 0.005))
        self.w, self.y, self.g = np.concatenate(w), np.concatenate(y), np.concatenate(g)
        self.idx = [np.nonzero(self.g == i)[0] for i in range(len(self.strides))]
        # bytes between touched pages (4 KiB pages assumed for the variance)
        self.page_of = [max(4096, st, line) for st in self.strides]
        self.n = len(self.w)
        # the same, padded to one array per stride (S, m)
        m = max(len(ix) for ix in self.idx)
        self.pad = np.zeros((len(self.idx), m), int)
        self.mask = np.zeros((len(self.idx), m))
        for i, ix in enumerate(self.idx):
            self.pad[i, :len(ix)] = ix
            self.pad[i, len(ix):] = ix[-1]
            self.mask[i, :len(ix)] = 1.0
        self.yp = self.y[self.pad]
        self.sig = np.array(self.sigma)
        self.pages = np.maximum(self.w[self.pad] / np.array(self.page_of)[:, None], 1.0)

    def kept(self, grid: np.ndarray, ways: int, page) -> np.ndarray:
        """(len(grid), n) kept fractions of every point for every capacity."""
        out = np.empty((len(grid), self.n))
        done: dict = {}
        for i, st in enumerate(self.strides):
            s_eff = max(st, self.line)
            key = (max(page, s_eff) if page else
                   (s_eff if ways * s_eff > grid.min() else 0))
            ix = self.idx[i]
            if key not in done:
                wu, inv = np.unique(self.w, return_inverse=True)
                done[key] = (kept_fraction(wu[None, :], grid[:, None], ways, page, "stride",
                                           stride_bytes=max(st, 1), line_bytes=self.line), inv)
            k, inv = done[key]
            out[:, ix] = k[:, inv[ix]]
        return out


def _lsq(A, t):
    """Least squares over the batch dimensions of A (..., m, K+1) and t
    (..., m), with no step (coefficients 1..K) negative."""
    K1 = A.shape[-1]
    active = np.ones(A.shape[:-2] + (K1,), bool)
    eye = np.eye(K1)
    for _ in range(K1):
        Aa = A * active[..., None, :]
        ata = (np.einsum("...mk,...ml->...kl", Aa, Aa) + eye * (~active)[..., None, :]
               + 1e-12 * eye)
        atb = np.einsum("...mk,...m->...k", Aa, t)
        with np.errstate(all="ignore"):
            coef = np.linalg.solve(ata, atb[..., None])[..., 0]
        coef = np.where(active, coef, 0.0)
        neg = (coef[..., 1:] < 0) & active[..., 1:]
        if not neg.any():
            break
        active[..., 1:] &= ~neg
    return coef


def _solve(data: _Data, H: list[np.ndarray], cols: list = ()):
    """Each stride's latencies for kept fractions H (K arrays (G, n), nested
    in order), no step negative; returns (deviance (G,), coefficients
    (G, strides, K+1)).  Residuals are relative, in units of each stride's
    noise, under a soft-L1 loss 2 (sqrt(1 + z^2) - 1) (reweighted least
    squares, three passes): a level on randomly placed pages keeps its
    lines a page colour at a time, so single sizes in its transition land
    far from the mean over placements, and the loss keeps them from
    deciding the fit without letting a model buy its way out of the misfit
    with a variance of its own."""
    G = H[0].shape[0] if H else 1
    P, M = data.pad, data.mask                            # (S, m)
    y = data.yp                                           # (S, m)
    sig = data.sig[:, None]                               # (S, 1)
    X = np.stack([np.ones((G,) + P.shape)] + [1.0 - h[:, P] for h in H], axis=-1)  # (G,S,m,K+1)
    wt = np.broadcast_to((M / y)[None], X.shape[:-1])
    for _ in range(3):
        coef = _lsq(X * wt[..., None], y[None] * wt)
        pred = np.einsum("gsmk,gsk->gsm", X, coef)
        z = (y[None] - pred) / y[None] / sig[None]
        wt = (M / y)[None] / np.sqrt(np.sqrt(1.0 + z ** 2))
    dev_s = np.sum(M[None] * 2.0 * (np.sqrt(1.0 + z ** 2) - 1.0), axis=2)
    dev_s = np.where(np.isfinite(dev_s), dev_s, np.inf)
    data.last_dev_s = dev_s
    return dev_s.sum(axis=1), coef


def _nest(H: list[np.ndarray]) -> list[np.ndarray]:
    out, prev = [], None
    for h in H:
        h = h if prev is None else np.maximum(h, prev)
        out.append(h)
        prev = h
    return out


def _shapes(coarse: bool = False):
    if coarse:
        yield from COARSE_SHAPES
        return
    for page in PLACEMENTS:
        for ways in (STRIDE_WAYS if page is None else RANDOM_WAYS):
            yield ways, page


def _colours(size, ways, page):
    size = np.asarray(size, float)
    return np.zeros_like(size) if page is None else np.maximum(size / ways / page, 1.0)


def _fixed_kept(data, shape_size):
    size, ways, page = shape_size
    return data.kept(np.array([size]), ways, page)


def _fit_level(data, fixed, k, lo, hi, coarse=False):
    """Profile of level k's capacity over [lo, hi] and every shape, the
    others held at ``fixed`` [(size, ways, page)]."""
    n = max(int(round(math.log2(hi / lo) * GRID_PER_OCTAVE)), 2)
    grid = lo * 2.0 ** (np.arange(n + 1) / GRID_PER_OCTAVE)
    others = {j: _fixed_kept(data, f) for j, f in enumerate(fixed) if j != k}
    best = {}
    seen = set()
    for ways, page in _shapes(coarse):
        sharp = page is None or bool(np.all(grid / ways <= page))
        key = ("c", ways) if sharp else (ways, page)
        if key in seen:
            continue
        seen.add(key)
        hk = data.kept(grid, ways, None if sharp else page)
        H = [hk if j == k else np.broadcast_to(others[j], hk.shape) for j in range(len(fixed))]
        cols = [(_colours(grid, ways, None if sharp else page)[:, None] if j == k
                 else _colours(*fixed[j])) for j in range(len(fixed))]
        chi, _ = _solve(data, _nest(H), cols)
        best[(ways, None if sharp else page)] = chi
    return grid, best


def _best_in(data, fixed, k, lo, hi, coarse=False):
    """Level k placed at its best capacity and shape in [lo, hi]."""
    grid, best = _fit_level(data, fixed, k, lo, hi, coarse)
    prof = np.min(np.array(list(best.values())), axis=0)
    i = int(np.argmin(prof))
    shape = min(best, key=lambda s: best[s][i])
    out = list(fixed)
    out[k] = (float(grid[i]), shape[0], shape[1])
    return out, float(prof[i])


def _bounds(fixed, k, lo, hi):
    if k > 0:
        lo = max(lo, fixed[k - 1][0] * 1.05)
    if k + 1 < len(fixed):
        hi = min(hi, fixed[k + 1][0] / 1.05)
    return lo, max(hi, lo * 1.1)


def _refine(data, fixed, span=1.5, coarse=False):
    """One round of coordinate descent over the levels."""
    for k in range(len(fixed)):
        c = fixed[k][0]
        fixed, _ = _best_in(data, fixed, k, *_bounds(fixed, k, c / span, c * span), coarse)
    return fixed


def _chi_of(data, fixed):
    if not fixed:
        chi, coefs = _solve(data, [], [])
        return float(chi[0]), coefs
    H = _nest([_fixed_kept(data, f) for f in fixed])
    chi, coefs = _solve(data, H, [_colours(*f) for f in fixed])
    return float(chi[0]), coefs


# ------------------------------------------------------------ candidates

def _candidates(curves: dict[int, pd.DataFrame]) -> list[float]:
    """Threshold sizes of every stride's plateaus, clustered."""
    from benchlib.memory.levels import _fit_levels
    found = []
    for st, c in curves.items():
        try:
            lv, _, _ = _fit_levels(c, 1.05, False)
        except BenchlibError:
            continue
        found += [x.size_bytes for x in lv if x.size_bytes]
    found.sort()
    out: list[list[float]] = []
    for f in found:
        if out and f / out[-1][-1] < 1.3:
            out[-1].append(f)
        else:
            out.append([f])
    return [float(np.exp(np.mean(np.log(g)))) for g in out]


# ----------------------------------------------------------------- the fit

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
        sig = max(_noise_sigma(y), 0.005)
        k = max(2, len(y) // 8)
        if np.median(y[-k:]) - np.median(y[:k]) < max(math.log(MIN_STEP * 1.05), 4 * sig):
            flat.append(st)
    use = {st: c for st, c in curves.items() if st not in flat} or curves
    data = _Data(use, line)
    cands = _candidates(use)
    n = data.n
    n_groups = len(data.strides)
    # forward selection: add the level that lowers the deviance most, while
    # it pays its BIC (capacity, shape and one step per stride, scaled by
    # the misfit) and steps up somewhere
    fixed: list = []
    chi_cur, _ = _chi_of(data, fixed)
    cur_s = data.last_dev_s[0]
    m_s = data.mask.sum(axis=1)
    while len(fixed) < 6:
        tried = []
        for c in cands:
            if any(abs(math.log(c / f[0])) < math.log(1.25) for f in fixed):
                continue
            trial = sorted(fixed + [(c, 1, None)], key=lambda f: f[0])
            k = [f[0] for f in trial].index(c)
            trial, chi_t = _best_in(data, trial, k, *_bounds(trial, k, c / 2, c * 4), True)
            tried.append((chi_t, k, trial))
        accepted = None
        for chi_t, k, trial in sorted(tried, key=lambda t: t[0])[:3]:
            trial = _refine(data, trial, coarse=True)
            chi_t, coefs = _chi_of(data, trial)
            trial_s = data.last_dev_s[0]
            lat = np.cumsum(coefs[0], axis=-1)                     # (S, K+1)
            step = lat[:, k + 1] / lat[:, k]
            # each stride is its own run (its own placement of the array): a
            # level must be needed by at least half of the strides (a
            # prefetcher hides it at some, not at most), not by a few
            # strides' wiggles; and pay its BIC over the whole figure
            red_s = np.maximum(1.0, trial_s / np.maximum(m_s - len(trial) - 1, 1))
            need = (cur_s - trial_s) > 3 * np.log(m_s) * red_s
            votes = int(np.sum(need & (step >= HIDDEN_RATIO)))
            p = n_groups * (len(trial) + 1) + 2 * len(trial)
            red = max(1.0, chi_t / max(n - p, 1))
            if (chi_cur - chi_t >= (2 + n_groups) * math.log(n) * red
                    and float(np.max(step)) >= MIN_STEP
                    and votes >= max(1, math.ceil(0.5 * n_groups))):
                accepted = (trial, chi_t, trial_s)
                break
        if accepted is None:
            break
        fixed, chi_cur, cur_s = accepted
    if fixed:
        fixed = _refine(data, fixed)
    chi_all, coefs = _chi_of(data, fixed)
    p = n_groups * (len(fixed) + 1) + 2 * len(fixed)
    red = chi_all / max(n - p, 1)
    widen = max(1.0, red) * MISFIT_WIDEN
    info = StrideFit(strides=sorted(curves), flat=sorted(flat), reduced_chi2=float(red))
    # each level's interval: the profile over capacities and shapes
    levels: list[Level] = []
    trans = []
    for k in range(len(fixed)):
        lo_b = fixed[k - 1][0] * 1.02 if k else fixed[k][0] / 4
        hi_b = fixed[k + 1][0] / 1.02 if k + 1 < len(fixed) else fixed[k][0] * 4
        grid, best = _fit_level(data, fixed, k, max(lo_b, fixed[k][0] / 2.5),
                                min(hi_b, fixed[k][0] * 2.5))
        allchi = np.array(list(best.values()))
        prof = allchi.min(axis=0) / widen
        i = int(np.argmin(prof))
        ok = prof <= prof[i] + DELTA_CHI2
        lo, hi = i, i
        while lo > 0 and ok[lo - 1]:
            lo -= 1
        while hi + 1 < len(grid) and ok[hi + 1]:
            hi += 1
        keys = list(best)
        fits = [keys[j] for j in range(len(keys)) if allchi[j, i] / widen <= prof[i] + DELTA_CHI2]
        # a flat bottom (a sharp step between two measured sizes): its middle
        flat_b = np.nonzero(prof[lo:hi + 1] <= prof[i] + 1e-6 * max(1.0, prof[i]))[0] + lo
        size = float(2.0 ** np.mean(np.log2(grid[[flat_b.min(), flat_b.max()]])))
        ways, page = keys[int(np.argmin(allchi[:, i]))]
        size_lo, size_hi = float(grid[lo]), float(grid[hi])
        sharp = all(pg is None or size / wy <= pg for wy, pg in fits)
        if sharp:
            below, above = data.w[data.w <= size], data.w[data.w > size]
            if len(below):
                size_lo = min(size_lo, float(below.max()))
            if len(above):
                size_hi = max(size_hi, float(above.min()))
        fixed[k] = (size, ways, page)
        trans.append(Transition(
            size_bytes=size, size_bytes_low=size_lo, size_bytes_high=size_hi, ways=int(ways),
            ways_resolved=len({f[0] for f in fits}) == 1, page_bytes=int(page or 0),
            page_resolved=len({f[1] for f in fits}) == 1 and page is not None,
            gradual=page is not None and size / ways >= 2 * page, chi2=float(chi_all),
            n_points=n, deviance=float(chi_all)))
    chi_all, coefs = _chi_of(data, fixed)
    # the stride whose latencies the levels report: the smallest that shows
    # every level (no prefetcher hides any), else the one with the largest
    # total rise
    K = len(fixed)
    lat_by = {}
    for i, st in enumerate(data.strides):
        lat_by[st] = np.cumsum(coefs[0, i])                        # L1, L2, ..., memory
    step_ratio = {st: [lat_by[st][k + 1] / lat_by[st][k] for k in range(K)]
                  for st in data.strides}
    full = [st for st in data.strides if all(r >= HIDDEN_RATIO for r in step_ratio[st])
            and st >= line]
    used = min(full) if full else max(data.strides, key=lambda s: lat_by[s][-1] / lat_by[s][0])
    info.stride_used = int(used)
    names = [f"L{k + 1}" for k in range(K)]
    for k, name in enumerate(names):
        info.steps[name] = {int(st): float(step_ratio[st][k]) for st in data.strides}
        seen = [st for st in data.strides if step_ratio[st][k] >= HIDDEN_RATIO]
        hid = sorted(set(int(st) for st in data.strides
                         if step_ratio[st][k] < HIDDEN_RATIO and seen and st < max(seen)) |
                     set(int(s) for s in flat))
        if hid:
            info.hidden[name] = hid
    i_used = data.strides.index(used)
    ix = data.idx[i_used]
    H = _nest([_fixed_kept(data, f)[0] for f in fixed])
    lats = lat_by[used]
    for k in range(K + 1):
        lo_h = H[k - 1][ix] if k else np.zeros(len(ix))
        hi_h = H[k][ix] if k < K else np.ones(len(ix))
        on = (hi_h - lo_h) > 0.9
        npts = int(on.sum())
        sig = data.sigma[i_used]
        err = float(lats[k] * sig / math.sqrt(max(npts, 1)))
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
    if flat:
        notes.append("stride " + ", ".join(map(str, sorted(flat))) + ": a flat curve, every "
                     "level prefetch-hidden (a stream prefetcher follows these strides); no "
                     "capacity from them")
    for name, hid in info.hidden.items():
        hid = [h for h in hid if h not in flat]
        if hid:
            notes.append(f"{name} is prefetch-hidden at stride {', '.join(map(str, hid))} (its "
                         f"step is under x{HIDDEN_RATIO} there); its capacity is from the strides "
                         "that show it")
    notes.append(f"cache sizes: capacities of the sequential stride-chase model fitted to "
                 f"stride{'s' if len(data.strides) > 1 else ''} "
                 f"{', '.join(map(str, data.strides))} together (shared capacities, each "
                 f"stride its own latencies), 95 % intervals widened by the model's misfit "
                 f"(reduced chi-square {red:.2g}); latencies from stride {used}")
    if K == 0:
        notes.append("no cache step found in the stride curves")
    return levels, notes, info


__all__ = ["fit_stride_chase", "StrideFit"]


# ------------------------------------------------------- which model fits

#: A bare curve whose last plateau is less than this multiple of its first
#: is read as a sequential chase a prefetcher flattens (a random chase's
#: memory costs tens of L1 hits on every machine since the 1980s).
SEQUENTIAL_RISE = 4.0


def access_model(df: pd.DataFrame) -> tuple[str, str]:
    """Which access model describes a latency table: ("ring", why) for
    benchlib's random chases (and any table with random-order rows), or
    ("stride", why) for a sequential stride chase; from what the table says
    (its ``pattern`` column) or, for a bare table, from its shape."""
    if "pattern" in df.columns:
        pat = df["pattern"].astype(str).str.lower()
        if (pat == "random").any():
            return "ring", "the table has random-order rows (a random chase: ring model)"
        if (pat == "stride").all():
            return "stride", ("the table says pattern=stride (a sequential stride chase, as "
                              "lat_mem_rd's output is read)")
    if "stride_bytes" in df.columns:
        counts = df.groupby(df["stride_bytes"].astype(float).round())["size_bytes"].nunique()
        if (counts >= 6).sum() >= 2:
            return "stride", (f"no pattern column and {int((counts >= 6).sum())} strides' "
                              "curves (a stride chase's figure, one curve per stride)")
    c = _median_by(df, "size_bytes", "latency_ns")
    y = c["latency_ns"].to_numpy(float)
    k = max(2, len(y) // 8)
    if len(y) >= 6:
        rise = float(np.median(y[-k:]) / np.median(y[:k]))
        if rise < SEQUENTIAL_RISE:
            return "stride", (f"one bare curve whose largest sizes cost only {rise:.2g}x its "
                              f"smallest (under {SEQUENTIAL_RISE:g}x: a sequential chase that a "
                              "prefetcher flattens, not a random one)")
        return "ring", (f"one bare curve rising {rise:.2g}x from its smallest to its largest "
                        "sizes (a random chase's rise: ring model)")
    return "ring", "one bare curve (ring model)"


__all__ += ["access_model", "SEQUENTIAL_RISE"]
