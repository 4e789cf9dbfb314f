"""The random walk (mem_latency pattern=walk) and the capacity fitted to it.

A ring revisits a set's lines in one fixed cycle, so what a cache keeps past
its capacity depends on its replacement policy; a random walk revisits them
at random intervals, so any policy keeps ways/n of a set that n lines share.
Checked here on a line-by-line simulation of one physically indexed cache
(random 4 KiB page placement; LRU, random replacement or a mix), with known
answers, and on the closed form.  No live timing."""
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

from benchlib.memory.cache_model import fit_transitions, kept_fraction
from benchlib.memory.walk import fit_walk
from benchlib.memory.dataset import MemoryData
from benchlib.memory.hierarchy import Level, MemoryFit, MemoryResult
from benchlib.memory.walk import refit_with_walk

K = 1024
PAGE = 4096
LINE = 64


# ------------------------------------------------------------------ closed form

@pytest.mark.parametrize("ws, cache, ways, page", [
    (512 * K, 1 << 20, 16, PAGE), (1 << 20, 1 << 20, 16, PAGE), (3 << 20, 1 << 20, 16, PAGE),
    (700 * K, 512 * K, 8, PAGE), (40 * K, 32 * K, 8, PAGE), (6 << 20, 4 << 20, 16, 2 << 20)])
def test_walk_kept_fraction_is_the_binomial_average_of_ways_over_n(ws, cache, ways, page):
    colours = cache / ways / page
    got = float(kept_fraction(ws, cache, ways, page, "walk")[0])
    if colours <= 1:                      # index inside the page: W / way lines in every set
        assert got == pytest.approx(min(1.0, cache / ws))
    else:
        others = round(ws / page) - 1
        k = np.arange(others + 1)
        want = float((binom.pmf(k, others, 1 / colours) * np.minimum(1.0, ways / (k + 1))).sum())
        assert got == pytest.approx(want, rel=1e-9)


def test_walk_keeps_more_than_a_ring_past_the_capacity():
    w = np.array([1.2, 1.5, 2.0]) * (1 << 20)
    walk = kept_fraction(w, 1 << 20, 16, PAGE, "walk")
    ring = kept_fraction(w, 1 << 20, 16, PAGE)
    assert (walk > ring).all() and walk[-1] == pytest.approx(0.5, abs=0.01)
    with pytest.raises(ValueError, match="access"):
        kept_fraction(w, 1 << 20, 16, PAGE, "zigzag")


# ------------------------------------------------------------------ simulation

def _stream(n_lines, kind, steps, rng):
    """Line numbers a chase visits: a ring (one random cycle, lap after lap)
    or the walk (8 random permutations, each step takes one at random)."""
    if kind == "ring":
        order = rng.permutation(n_lines)
        return np.resize(order, steps)
    perms = np.stack([rng.permutation(n_lines) for _ in range(8)])
    out = np.empty(steps, dtype=np.int64)
    cur = 0
    choice = rng.integers(0, 8, steps)
    for i in range(steps):
        cur = perms[choice[i], cur]
        out[i] = cur
    return out


def _hit_rate(ws, cache, ways, policy, kind, seed):
    """One cache, lines on 4 KiB pages at random frames: the fraction of the
    chase's accesses (after a warm-up lap) that hit.  policy: "lru",
    "random", or a float p: the LRU victim, or with probability p a random
    one."""
    rng = np.random.default_rng(seed)
    n_lines = ws // LINE
    sets = cache // LINE // ways
    per_page = PAGE // LINE
    frames = rng.choice(1 << 20, size=n_lines // per_page, replace=False)
    set_of = ((frames[:, None] * per_page + np.arange(per_page)[None, :]).ravel()) % sets
    steps = 8 * n_lines
    refs = _stream(n_lines, kind, steps, rng)
    p_random = 1.0 if policy == "random" else 0.0 if policy == "lru" else float(policy)
    coin, pick = rng.random(steps), rng.integers(0, ways, steps)
    content = [[] for _ in range(sets)]       # most recent first
    hits = 0
    warm = 2 * n_lines
    for i, line in enumerate(refs):
        s = content[set_of[line]]
        if line in s:
            s.remove(line)
            hits += i >= warm
        elif len(s) >= ways:
            s.pop(pick[i] if coin[i] < p_random else -1)
        s.insert(0, line)
    return hits / (steps - warm)


CACHE, WAYS = 64 * K, 4            # 4 page colours: a gradual transition
L_HIT, L_MISS = 3.0, 10.0
SIZES = (CACHE * 2.0 ** (np.arange(-8, 17) / 8)).astype(int) // PAGE * PAGE


@pytest.fixture(scope="module")
def curves():
    out = {}
    for policy in ("lru", "random", 0.3):
        for kind in ("ring", "walk"):
            h = np.array([_hit_rate(int(w), CACHE, WAYS, policy, kind, seed=11 + j)
                          for j, w in enumerate(SIZES)])
            out[policy, kind] = L_HIT * h + L_MISS * (1 - h)
    return out


@pytest.mark.parametrize("policy", ["lru", "random", 0.3])
def test_walk_recovers_the_capacity_whatever_the_policy(curves, policy):
    t = fit_walk(SIZES, curves[policy, "walk"], guess_bytes=1.3 * CACHE, below=None)
    assert abs(t.size_bytes / CACHE - 1) < 0.10
    assert t.size_bytes_low <= CACHE * 1.1 and t.size_bytes_high >= CACHE * 0.9
    # 4 page colours: 2 % of the smallest sizes' lines already miss in the
    # simulation, and a shape of fewer colours (the ways are not claimed)
    # reads them as a hit level up to 6 % slower
    assert t.latencies_ns[0] == pytest.approx(L_HIT, rel=0.07)


def test_the_ring_fitted_as_lru_overstates_a_cache_that_is_not_lru(curves):
    def ring_fit(policy):
        return fit_transitions(SIZES, curves[policy, "ring"], [L_HIT, L_MISS], [CACHE],
                               sigma=0.01, pages=(PAGE,))[0].size_bytes
    assert abs(ring_fit("lru") / CACHE - 1) < 0.10          # the ring's model is LRU
    assert ring_fit("random") > 1.2 * CACHE                 # random replacement keeps more
    # the walk sees the same cache alike under every policy
    walks = [fit_walk(SIZES, curves[p, "walk"], 1.3 * CACHE, None).size_bytes
             for p in ("lru", "random", 0.3)]
    assert max(walks) / min(walks) < 1.1


# ------------------------------------------------------------------ the fit's use of it

def _fit_with_l2(ring_bytes, l2_ring=None, l3=None):
    """L1, an L2 (``l2_ring``: the ring's size where a walk sized it), an
    optional L3 (a Level) and memory."""
    lv = [Level("L1", 48 * K, 45 * K, 50 * K, 0.9, 0.01, None, 10),
          Level("L2", ring_bytes, 0.95 * ring_bytes, 1.05 * ring_bytes, 3.1, 0.01, None, 10,
                ring_size_bytes=l2_ring),
          *([l3] if l3 is not None else []),
          Level("memory", None, None, None, 10.0, 0.1, None, 10)]
    return MemoryFit(levels=lv, line_size_bytes=64, tlb=[], stride_bytes_used=64)


def test_refit_with_walk_replaces_the_ring_size_and_keeps_it():
    c = 1 << 20
    w = (c * 2.0 ** (np.arange(-16, 17) / 8)).astype(float)
    h1 = np.minimum(1.0, 48 * K / w)
    h = np.maximum(kept_fraction(w, c, 16, PAGE, "walk"), h1)
    rng = np.random.default_rng(7)
    y = (0.9 * h1 + 3.1 * (h - h1) + 10.0 * (1 - h)) * np.exp(rng.normal(0, 0.01, len(w)))
    ring_fit = _fit_with_l2(1.25 * c)
    fit = refit_with_walk(ring_fit, pd.DataFrame({"size_bytes": w, "latency_ns": y}))
    assert ring_fit.levels[1].size_bytes == 1.25 * c and not ring_fit.notes   # left as it was
    l2 = fit.levels[1]
    assert abs(l2.size_bytes / c - 1) < 0.05 and l2.ring_size_bytes[0] == 1.25 * c
    assert l2.to_dict()["size_from"] == "walk" and l2.to_dict()["ring_size_bytes"] == 1.25 * c
    assert l2.to_dict()["shape"].endswith("fitted to the random walk")
    assert any("not LRU" in n for n in fit.notes)
    assert fit.levels[0].ring_size_bytes is None          # the first level keeps the ring's


def test_a_ring_size_far_below_the_capacity_does_not_hold_the_walk_s_search():
    # the EPYC guest's run r3: a ring whose L2 points a neighbour had slowed
    # read 161 KiB for a 512 KiB L2; the walk's search round it (1.5 octaves)
    # ended at its edge and the size fell back to the ring's.  The search
    # moves to where the walk's own profile leads.
    c = 512 * K
    w = (c * 2.0 ** (np.arange(-24, 17) / 8)).astype(float)        # 32 KiB .. 2 MiB
    h1 = np.minimum(1.0, 32 * K / w)
    h = np.maximum(kept_fraction(w, c, 8, PAGE, "walk"), h1)
    rng = np.random.default_rng(3)
    y = (0.9 * h1 + 3.1 * (h - h1) + 10.0 * (1 - h)) * np.exp(rng.normal(0, 0.01, len(w)))
    fit = _fit_with_l2(160 * K)
    fit = replace(fit, levels=(replace(fit.levels[0], size_bytes=32 * K),) + fit.levels[1:])
    got = refit_with_walk(fit, pd.DataFrame({"size_bytes": w, "latency_ns": y}))
    l2 = got.levels[1]
    assert abs(l2.size_bytes / c - 1) < 0.10, l2.size_bytes / K
    assert l2.size_bytes_low <= c <= l2.size_bytes_high
    assert any("searched again" in n for n in got.notes)


def test_refit_with_walk_leaves_levels_the_walk_does_not_span():
    fit = _fit_with_l2(1 << 20)
    w = np.array([256, 320, 384, 448, 512, 640], float) * K    # stops at 0.6 x the L2
    fit = refit_with_walk(fit, pd.DataFrame({"size_bytes": w, "latency_ns": np.full(6, 3.1)}))
    assert fit.levels[1].size_bytes == 1 << 20 and fit.levels[1].ring_size_bytes is None
    with pytest.raises(Exception, match="latency_ns"):
        refit_with_walk(fit, pd.DataFrame({"size_bytes": w}))


def test_a_ring_size_beyond_every_reported_cache_says_why():
    from benchlib.memory.line_tlb import compare_with_reported

    l3 = Level("L3", 42 << 20, 36 << 20, 49 << 20, 10.0, 0.1, None, 10)
    fit = _fit_with_l2(1 << 20, l3=l3)
    rep = [{"level": 1, "type": "Data", "size_bytes": 48 * K},
           {"level": 2, "type": "Unified", "size_bytes": 1 << 20},
           {"level": 3, "type": "Unified", "size_bytes": 32 << 20}]
    notes = compare_with_reported(fit, rep).set_index("level")["note"]
    assert "replacement policy is not LRU" in notes["L3"]
    assert "replacement policy" not in notes["L2"]
    # sized by a walk: no such note
    fit = _fit_with_l2(1 << 20, l3=replace(l3, ring_size_bytes=(42 << 20, 36 << 20, 49 << 20)))
    assert "replacement policy" not in compare_with_reported(fit, rep).set_index("level")["note"]["L3"]


def test_the_ring_pays_a_window_s_tlb_misses_and_the_walk_the_whole_size():
    from benchlib.memory.fit import RING_WINDOW_BYTES, tlb_penalty_ns

    tlb = [{"entries": 96, "miss_penalty_ns": 1.5}, {"entries": 2048, "miss_penalty_ns": 8.0}]
    w = np.array([256 * K, 2 << 20, 8 << 20, 64 << 20])
    ring = tlb_penalty_ns(w, tlb, window_bytes=RING_WINDOW_BYTES)
    walk = tlb_penalty_ns(w, tlb)
    assert ring[0] == walk[0] == 0.0
    # past the window the ring's share stops growing; 2048 entries hold a window
    assert ring[2] == ring[3] == pytest.approx(1.5 * (1 - 96 * 4096 / (2 << 20)))
    assert walk[3] == pytest.approx(1.5 * (1 - 96 * 4096 / (64 << 20)) + 8.0 * (1 - 2048 * 4096 / (64 << 20)))


@pytest.mark.parametrize("l3, says", [((42 << 20, 40 << 20, 44 << 20), True),
                                      ((20 << 20, 18 << 20, 22 << 20), False)])
def test_a_last_level_beyond_the_reported_caches_gives_the_reason(l3, says):
    fit = _fit_with_l2(1 << 20, l2_ring=(1.3 * (1 << 20), 1.25 * (1 << 20), 1.35 * (1 << 20)),
                       l3=Level("L3", *l3, 10.0, 0.1, None, 10))
    machine = {"caches": [{"level": 1, "type": "Data", "size_bytes": 48 * K},
                          {"level": 2, "type": "Unified", "size_bytes": 1 << 20},
                          {"level": 3, "type": "Unified", "size_bytes": 32 << 20,
                           "shared_cpu_list": "0-1"}], "virtualized": True}
    m = MemoryResult(MemoryData(latency=pd.DataFrame(), machine=machine, profile="quick",
                                elapsed_s=1.0), fit)
    reason = m.shared_last_level()["reason"]
    assert ("replacement policy is not LRU" in reason and "random walk shows" in reason) == says
    assert ("kept 62 % of the 32 MiB" in reason and "CPUs 0-1 share it" in reason) == (not says)


@pytest.mark.parametrize("real", [False, True])
def test_a_ring_level_inside_the_walk_s_span_stays_only_if_the_walk_needs_it(real):
    c, c3 = 1 << 20, int(2.5 * (1 << 20))
    w = (c * 2.0 ** (np.arange(-16, 17) / 8)).astype(float)
    h1 = np.minimum(1.0, 48 * K / w)
    h = np.maximum(kept_fraction(w, c, 16, PAGE, "walk"), h1)
    if real:       # a 2.5 MiB level at 6 ns between the L2 and memory
        h3 = np.maximum(kept_fraction(w, c3, 16, PAGE, "walk"), h)
        y = 0.9 * h1 + 3.1 * (h - h1) + 6.0 * (h3 - h) + 10.0 * (1 - h3)
    else:
        y = 0.9 * h1 + 3.1 * (h - h1) + 10.0 * (1 - h)
    y = y * np.exp(np.random.default_rng(9).normal(0, 0.01, len(w)))
    fit = _fit_with_l2(1.1 * c, l3=Level("L3", c3, 0.9 * c3, 1.1 * c3, 6.0, 0.1, None, 5))
    fit = refit_with_walk(fit, pd.DataFrame({"size_bytes": w, "latency_ns": y}))
    names = [lv.name for lv in fit.levels]
    assert abs(fit.levels[1].size_bytes / c - 1) < 0.10
    if real:
        assert names == ["L1", "L2", "L3", "memory"]
    else:
        assert names == ["L1", "L2", "memory"]
        assert any("part of the transition, not a level" in n for n in fit.notes)


@pytest.mark.parametrize("cache, ways", [(512 * K, 8), (2 << 20, 16), (64 * K, 4)])
def test_the_walk_s_placement_variance_matches_random_pages(cache, ways):
    # each walk point is a buffer of its own, its pages at random frames: the
    # fraction kept scatters from point to point by what the colours lose
    from benchlib.memory.walk import _walk_placement_var

    rng = np.random.default_rng(5)
    colours = cache // ways // PAGE
    for ws in (0.6 * cache, 0.9 * cache, 1.2 * cache, 1.8 * cache):
        pages = int(ws // PAGE)
        kept = [np.minimum(np.bincount(rng.integers(0, colours, pages), minlength=colours),
                           ways).sum() / pages for _ in range(3000)]
        want = float(np.var(kept))
        got = float(_walk_placement_var([pages * PAGE], [cache], ways, PAGE)[0, 0])
        assert got == pytest.approx(want, rel=0.25, abs=2e-5), (ws / cache, got, want)
        assert float(np.mean(kept)) == pytest.approx(
            float(kept_fraction(pages * PAGE, cache, ways, PAGE, "walk")[0]), abs=0.01)
    # the index inside the page: every set holds W / way lines, no scatter
    assert _walk_placement_var([48 * K], [32 * K], 8, PAGE)[0, 0] == 0.0
