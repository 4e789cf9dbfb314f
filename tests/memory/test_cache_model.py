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
