"""Sequential stride chases (other tools' curves, the 1990s' caches): the
simulator's fast path against an access-by-access LRU replay, the closed
form ``kept_fraction(access="stride")`` against the simulator, and the
recorded lat_mem_rd curves of the EPYC guest read as one table."""
from pathlib import Path

import numpy as np
import pytest

import cachesim as cs
from benchlib.memory.cache_model import kept_fraction
from benchlib.memory.curve_readers import read_input

K, M = 1 << 10, 1 << 20
EPYC = Path(__file__).parent / "data" / "lat_mem_rd_epyc"


@pytest.mark.parametrize("direction", ["backward", "forward"])
def test_set_counting_equals_an_access_by_access_lru_replay(direction):
    # a virtually indexed direct-mapped L1 over a physically indexed 2-way L2
    m = cs.Machine((cs.Level(4 * K, 1, 2.0, indexing="virtual"), cs.Level(32 * K, 2, 10.0)),
                   100.0, line_bytes=32)
    for w, st in ((3 * K, 32), (6 * K, 64), (20 * K, 32), (40 * K, 128), (48 * K, 8 * K)):
        fast = cs.line_latencies(m, w, st, 4096, seed=5)
        slow = cs.exact_lru(m, w, st, direction=direction, seed=5)
        assert fast.mean() == pytest.approx(slow.mean(), rel=0.02), (w, st)


def test_a_direct_mapped_contiguous_cache_ramps_from_c_to_2c():
    m = cs.Machine((cs.Level(16 * K, 1, 5.0, indexing="virtual"),), 300.0, line_bytes=32)
    for w in (16 * K, 20 * K, 24 * K, 32 * K):
        sim = float(np.mean(cs.line_latencies(m, w, 64, 4096, 1) < 100))
        model = kept_fraction(w, 16 * K, 1, None, "stride", stride_bytes=64, line_bytes=32)[0]
        assert sim == pytest.approx(model, abs=1e-9)
    assert kept_fraction(20 * K, 16 * K, 1, None, "stride", stride_bytes=64)[0] == \
        pytest.approx(0.6)


def test_a_stride_beyond_a_way_moves_the_step_to_ways_times_stride():
    # 8 KiB 2-way: a way is 4 KiB; stride 8 KiB puts every line in one set
    kf = kept_fraction([16 * K, 24 * K], 8 * K, 2, None, "stride", stride_bytes=8 * K)
    assert kf[0] == 1.0 and kf[1] < 1.0
    m = cs.Machine((cs.Level(8 * K, 2, 2.0),), 100.0, line_bytes=32)
    assert np.all(cs.line_latencies(m, 16 * K, 8 * K, 4096, 0) == 2.0)


def test_a_board_cache_on_random_pages_loses_lines_long_before_it_is_full():
    # 512 KiB direct mapped, 8 KiB pages (64 colours): the mean over placements
    m = cs.Machine((cs.Level(512 * K, 1, 50.0),), 300.0, line_bytes=32)
    for w in (128 * K, 512 * K):
        sim = np.mean([np.mean(cs.line_latencies(m, w, 128, 8192, s) < 100) for s in range(40)])
        model = kept_fraction(w, 512 * K, 1, 8192, "stride", stride_bytes=128, line_bytes=32)[0]
        assert sim == pytest.approx(model, abs=0.04)
    assert kept_fraction(128 * K, 512 * K, 1, 8192, "stride", stride_bytes=128)[0] < 0.8


def test_the_ring_and_walk_models_are_unchanged():
    assert kept_fraction(512 * K, 512 * K, 8, 4096)[0] == pytest.approx(0.5, abs=0.1)
    with pytest.raises(ValueError, match="stride_bytes"):
        kept_fraction(1.0, 2.0, 1, None, "stride")


def test_the_nineties_machines_are_the_papers_shapes():
    names = {m.name for m in cs.NINETIES}
    assert len(cs.NINETIES) >= 10
    assert any(lv.ways == 3 and lv.size_bytes == 96 * K for m in cs.NINETIES for lv in m.levels)
    assert any(lv.indexing == "virtual" for m in cs.NINETIES for lv in m.levels)
    assert {m.line_bytes for m in cs.NINETIES} >= {32}
    board = [lv.size_bytes for m in cs.NINETIES for lv in m.levels[1:] if lv.ways == 1]
    assert min(board) >= 256 * K and max(board) <= 4 * M and "alpha21164_4m" in names


def test_a_prefetcher_hides_small_strides_only():
    m = next(x for x in cs.MODERN_STRIDE if x.name == "zen3_like")
    small = cs.stride_curve(m, [4 * M], 32, noise=0.0)["latency_ns"].iloc[0]
    large = cs.stride_curve(m, [4 * M], 512, noise=0.0)["latency_ns"].iloc[0]
    assert small < 2.0 < 8.0 < large


def test_the_recorded_epyc_curves_read_as_one_table():
    d = read_input(EPYC).latency
    assert sorted(d["stride_bytes"].unique()) == [16, 32, 64, 128, 256, 512, 1024, 4096]
    assert (d["pattern"] == "stride").all() and d["size_bytes"].max() == 128 * M
    # every data line of every file is one row, its MB read as 2^20 bytes
    # (rounded to 8) and its ns kept as printed; checked against the text
    # itself, not against what the curves happen to show
    for f in sorted(EPYC.glob("lat_mem_rd_stride*.txt")):
        stride = int(f.stem.removeprefix("lat_mem_rd_stride"))
        lines = [ln.split() for ln in f.read_text().splitlines()
                 if ln.strip() and not ln.startswith('"')]
        rows = d[d["stride_bytes"] == stride].reset_index(drop=True)
        assert len(rows) == len(lines)
        for i in (0, len(lines) // 2, len(lines) - 1):
            mb, ns = float(lines[i][0]), float(lines[i][1])
            assert rows.loc[i, "size_bytes"] == pytest.approx(mb * M, abs=8)
            assert rows.loc[i, "latency_ns"] == ns
