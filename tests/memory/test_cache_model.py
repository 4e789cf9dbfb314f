"""The transition model (benchlib.memory.cache_model) against its closed
form and the line-by-line simulator (tests/cachesim.py)."""
import numpy as np
import pytest

import cachesim as cs
from benchlib.memory.cache_model import kept_fraction
from known_curves import K, M


def test_kept_fraction_half_at_capacity_with_sixteen_colours():
    # the arithmetic: at W = C about half the lines of an 8-way cache
    # with 16 page colours miss; contiguous memory keeps every line up to C
    c = 512 * K                                   # 8-way, 4 KiB pages: 16 colours
    assert kept_fraction(c, c, 8, 4096)[0] == pytest.approx(0.5, abs=0.1)
    assert kept_fraction(0.25 * c, c, 8, 4096)[0] > 0.99
    assert kept_fraction(2 * c, c, 8, 4096)[0] < 0.01
    assert kept_fraction(c, c, 8, 2 * M)[0] == 1.0          # huge pages: sharp
    assert kept_fraction(1.3 * c, c, 8, 2 * M)[0] == 0.0


def test_the_simulator_agrees_with_the_closed_form():
    m = cs.Machine((cs.Level(2 * M, 16, 4.0),), 100.0)
    for w in (1 * M, 1.5 * M, 2 * M, 3 * M):
        kept = np.mean([np.mean(cs.line_latencies(m, int(w), 64, 4096, seed) < 50)
                        for seed in range(4)])
        assert kept == pytest.approx(kept_fraction(w, 2 * M, 16, 4096)[0], abs=0.08)


def test_tree_plru_thrashes_on_a_cycle_one_longer_than_its_ways():
    # worked by hand for 4 ways: A B C D fill the set, E evicts A, A evicts
    # B, ... every access of the cycle misses, as under LRU; so the LRU
    # closed form covers tree-PLRU caches for a cyclic chase
    for ways in (4, 8, 16):
        assert cs._set_hit_fraction(ways, ways, "plru") == 1.0
        assert cs._set_hit_fraction(ways + 1, ways, "plru") == 0.0
        assert cs._set_hit_fraction(ways + 1, ways, "lru") == 0.0


@pytest.mark.parametrize("colours,ways", [(64, 1), (1024, 1), (40, 3), (300, 2), (30, 4),
                                          (8, 1), (4, 3), (5.5, 2), (12, 8)])
def test_the_typical_placement_is_the_simulated_interquartile_mean(colours, ways):
    # typical_kept (the stride fit's model of one placement) against drawing
    # placements here: each page at a random colour, its lines kept while
    # the colour holds at most `ways` touched pages; the interquartile mean
    # of 3000 draws (the approximation's worst, 2000 draws of every count
    # up to 384 pages: 0.02 at 64 colours and more, 0.04 at 24, 0.12 at 8)
    from benchlib.memory.cache_model import typical_kept
    rng = np.random.default_rng(11)
    whole = [int(np.floor(colours)), int(np.ceil(colours))]
    for n in (3, 8, 20, 45, 90, 200):
        want = []
        for c in whole:
            h = []
            for _ in range(3000):
                cnt = np.bincount(rng.integers(0, c, n), minlength=c)
                h.append(cnt[cnt <= ways].sum() / n)
            want.append(np.sort(h)[750:2250].mean())
        # drawn from 400 placements below 24 colours; between whole colour
        # counts, in between their typical fractions
        tol = 0.03 if colours >= 24 else 0.05
        got = typical_kept(n, colours, ways)[0]
        assert min(want) - tol <= got <= max(want) + tol, (n, got, want)


def test_a_thrash_resistant_policys_typical_placement_is_its_mean():
    from benchlib.memory.cache_model import typical_kept
    n = np.array([4.0, 16, 64])
    assert typical_kept(n, 16, 4, "any") == pytest.approx(
        kept_fraction(n * 4096, 16 * 4 * 4096, 4, 4096, "stride", stride_bytes=64, policy="any"))


def test_the_typical_placement_keeps_more_than_the_mean_at_the_onset():
    # 8 pages on 64 colours of a direct-mapped cache: no clash in 63 % of
    # placements, so the typical one keeps nearly all while the mean has
    # lost a tenth; far past the onset the two agree; always within [0, 1]
    from benchlib.memory.cache_model import typical_kept
    assert typical_kept(8, 64, 1)[0] > 0.93
    assert kept_fraction(8 * 8192, 64 * 8192, 1, 8192, "stride", stride_bytes=64)[0] \
        == pytest.approx(0.896, abs=0.005)
    assert typical_kept(200, 64, 1)[0] == pytest.approx(
        kept_fraction(200 * 8192, 64 * 8192, 1, 8192, "stride", stride_bytes=64)[0], abs=0.01)
    v = typical_kept(np.linspace(1, 3000, 400), np.geomspace(0.5, 9000, 400), 3)
    assert np.all((v >= 0) & (v <= 1)) and np.all(np.isfinite(v))


@pytest.mark.parametrize("ways,policy", [(1, "lru"), (2, "lru"), (3, "any")])
def test_one_placements_chain_has_the_drawn_placements_moments(ways, policy):
    # the kept fraction over the prefixes of one random placement (64
    # colours): the chain's mean, standard deviation and the correlation of
    # two sizes against 20,000 placements drawn page by page (seeded)
    from benchlib.memory.cache_model import kept_by_prefix
    from benchlib.memory.placement_chain import prefix_kept_moments
    n = np.array([4, 8, 16, 32, 64, 128, 256])
    mean, cov = prefix_kept_moments(n, [64.0], ways, policy)
    col = np.random.default_rng(1).integers(0, 64, (20000, 256))
    h = kept_by_prefix(col, 64, ways, policy)[:, n - 1] / n
    assert mean[0] == pytest.approx(h.mean(axis=0), abs=0.005)
    sd = np.sqrt(np.diag(cov[0]))
    on = sd > 0.005
    assert sd[on] == pytest.approx(h.std(axis=0)[on], rel=0.1)
    r = cov[0, 3, 5] / (sd[3] * sd[5])
    assert r == pytest.approx(np.corrcoef(h[:, 3], h[:, 5])[0, 1], abs=0.03)
    assert r > 0.01                       # the sizes share their first pages
