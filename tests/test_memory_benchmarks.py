"""The memory family: parameters, and the structure of what each returns.

No test here orders two live timings (CI runs on a noisy shared VM): which
of two chases is faster is the analysis's business, tested on simulated
curves in tests/memory/."""

import math

import pytest

import benchlib
import benchlib.memory.measure
import benchlib.measuring.registry
from benchlib.errors import BenchlibError


@pytest.mark.parametrize("name,params,message", [
    ("mem_latency", {"pattern": "zigzag"}, "must be one of stride, random, walk"),
    ("mem_latency", {"pattern": "walk", "stride_bytes": 32}, "walk pattern needs stride_bytes >= 64"),
    ("mem_latency", {"huge_pages": "maybe"}, "must be one of off, on"),
    ("mem_bandwidth", {"op": "teleport"}, "must be one of read"),
    ("mem_bandwidth", {"op": "copy_libc", "stride_bytes": 64}, "dense"),
    ("mem_bandwidth", {"stride_bytes": 12}, "multiple of 8"),
    ("mem_bandwidth", {"size_bytes": 4096, "stride_bytes": 8192}, "larger than size_bytes"),
    ("mem_bandwidth", {"counting": "twice"}, "must be one of once, stream"),
    ("line_pair_latency", {"distance_bytes": 12}, "multiple of 8"),
    ("line_pair_latency", {"distance_bytes": 4096}, "<= 2048"),
    ("tlb_latency", {"pages": 1}, ">= 2"),
    ("tlb_latency", {"layout": "sparse"}, "must be one of spread, dense"),
])
def test_bad_parameters(name, params, message):
    with pytest.raises(BenchlibError, match=message):
        benchlib.run(name, params, profile="smoke")


def _positive_samples(r):
    assert len(r.samples) >= 1
    assert all(math.isfinite(v) and v > 0 for v in r.samples)
    assert len(r.ns_per_iteration) == len(r.samples)


def test_random_and_stride_chases_return_ns_per_load():
    for pattern, huge in (("stride", "off"), ("random", "on"), ("walk", "on")):
        r = benchlib.run("mem_latency", size_bytes="1M", stride_bytes=64, pattern=pattern,
                         huge_pages=huge, profile="smoke")
        _positive_samples(r)
        assert r.params["pattern"] == pattern
        # ns per load is the unit: the value is the time of one iteration
        assert r.samples == pytest.approx(r.ns_per_iteration)


def test_walk_in_c_rejects_what_python_would():
    """The C library's own checks (a caller that skips the registry)."""
    from benchlib._native import ffi, lib

    o = ffi.new("bl_opts *")
    ns, tk, info = ffi.new("double[8]"), ffi.new("double[8]"), ffi.new("bl_info *")
    assert lib.bl_mem_latency(1 << 20, 32, lib.BL_CHASE_WALK, 0, 16, 2 << 20, o, ns, tk, info) != 0
    assert b"8 pointers" in ffi.string(lib.bl_last_error())
    assert lib.bl_mem_latency_spin(1 << 20, 64, lib.BL_CHASE_WALK, 0, 5, o, ns, tk, info) != 0
    assert b"spin_adds" in ffi.string(lib.bl_last_error())


@pytest.mark.parametrize("loads", [1, 16, 100])
def test_every_chase_loop_walks_the_same_ring(loads):
    """loop_loads chooses how many load instructions the loop holds (100:
    lat_mem_rd's loop), not what is chased: a ring of 37 slots, so that
    every loop leaves a remainder, is walked at every length."""
    r = benchlib.run("mem_latency", size_bytes=37 * 64, stride_bytes=64, pattern="stride",
                     loop_loads=loads, profile="smoke")
    _positive_samples(r)
    assert r.params["loop_loads"] == loads
    # the command line's text is the same choice
    assert benchlib.measuring.registry.get_benchmark("mem_latency").resolve({"loop_loads": str(loads)})["loop_loads"] == loads


@pytest.mark.parametrize("bad, match", [({"loop_loads": 8}, "loop_loads must be one of"),
                                        ({"loop_loads": "8"}, "loop_loads must be one of"),
                                        ({"loop_loads": 100, "pattern": "walk"}, "its own")])
def test_a_chase_loop_that_does_not_exist_is_refused(bad, match):
    with pytest.raises(benchlib.BenchlibError, match=match):
        benchlib.run("mem_latency", profile="smoke", **bad)


@pytest.mark.parametrize("window", [0, "4k", "2M"])
def test_a_random_chase_of_any_window_walks_every_slot(window):
    """window_bytes=0 shuffles the whole buffer (lat_mem_rd -t's order),
    else windows of that size in random order: the ring is the same
    length, every slot once."""
    r = benchlib.run("mem_latency", size_bytes="64k", stride_bytes=64, pattern="random",
                     window_bytes=window, profile="smoke")
    _positive_samples(r)


@pytest.mark.parametrize("bad, match", [
    ({"window_bytes": 0, "pattern": "stride"}, "random pattern only"),
    ({"window_bytes": 32, "pattern": "random", "stride_bytes": 64}, "at least stride_bytes")])
def test_a_window_where_it_means_nothing_is_refused(bad, match):
    with pytest.raises(benchlib.BenchlibError, match=match):
        benchlib.run("mem_latency", profile="smoke", **bad)


def test_the_c_library_refuses_a_chase_loop_that_does_not_exist():
    from benchlib._native import ffi, lib

    o = ffi.new("bl_opts *")
    ns, tk, info = ffi.new("double[8]"), ffi.new("double[8]"), ffi.new("bl_info *")
    assert lib.bl_mem_latency(1 << 20, 64, lib.BL_CHASE_STRIDE, 0, 8, 2 << 20, o, ns, tk, info) != 0
    assert b"loop_loads" in ffi.string(lib.bl_last_error())


@pytest.mark.parametrize("offsets", [(0, 0), (256, 240), (4095, 1)])
def test_bcopy_places_its_buffers_into_a_page(offsets):
    """perf bench mem memcpy's malloc'd 64 KiB buffers lie 256 and 240
    bytes into a page: bcopy runs with its buffers so placed, up to the last
    byte of a page, and records where."""
    src, dst = offsets
    r = benchlib.run("bcopy", {"size_bytes": 8192, "src_offset_bytes": src,
                               "dst_offset_bytes": dst}, profile="smoke")
    _positive_samples(r)
    assert (r.params["src_offset_bytes"], r.params["dst_offset_bytes"]) == offsets


def test_huge_pages_are_reported():
    r = benchlib.run("mem_latency", size_bytes="4M", pattern="random", huge_pages="on",
                     profile="smoke")
    off = benchlib.run("mem_latency", size_bytes="4M", pattern="random", huge_pages="off",
                       profile="smoke")
    assert off.extras["huge_page_bytes"] == 0
    assert 0 <= r.extras["huge_page_bytes"] <= 4 << 20
    if r.machine["thp_enabled"] in ("always", "madvise"):
        assert r.extras["huge_page_bytes"] > 0


def test_line_pairs_report_ns_per_pair_of_loads():
    # a pair is two dependent loads: the value is twice the time per load
    r = benchlib.run("line_pair_latency", distance_bytes=64, size_bytes="1M", profile="smoke")
    _positive_samples(r)
    assert r.samples == pytest.approx(r.ns_per_iteration)
    assert "pair" in benchlib.measuring.registry.get_benchmark("line_pair_latency").counts


def test_tlb_chase_layouts_both_run():
    for layout in ("spread", "dense"):
        r = benchlib.run("tlb_latency", pages=64, layout=layout, profile="smoke")
        _positive_samples(r)
        assert r.params["layout"] == layout


def test_cpuid_names_the_vendor_on_x86():
    import platform

    from benchlib._native import ffi, lib

    regs = ffi.new("unsigned[4]")
    rc = lib.bl_cpuid(0, 0, regs)
    if platform.machine() not in ("x86_64", "i686", "AMD64"):
        assert rc == -1
        return
    assert rc == 0
    vendor = b"".join(int(r).to_bytes(4, "little") for r in (regs[1], regs[3], regs[2]))
    assert len(vendor) == 12 and vendor.decode("ascii").isprintable()
    rep = benchlib.memory.measure.reported_tlb()
    assert set(rep) == {"levels", "source", "note"} and rep["note"]
    assert all(isinstance(v, int) and v > 0 for v in rep["levels"].values())


def test_stream_counting_doubles_copies_only():
    once = benchlib.run("mem_bandwidth", op="copy_unrolled", size_bytes="64k", profile="smoke")
    stream = benchlib.run("mem_bandwidth", op="copy_unrolled", size_bytes="64k", counting="stream",
                          profile="smoke")
    # MB/s x ns per pass = bytes counted x 1e3: exactly twice the size for a copy
    assert stream.samples[0] * stream.ns_per_iteration[0] == pytest.approx(2 * 65536 * 1e3)
    assert once.samples[0] * once.ns_per_iteration[0] == pytest.approx(65536 * 1e3)
    read = benchlib.run("mem_bandwidth", op="read", size_bytes="64k", counting="stream",
                        profile="smoke")
    assert read.samples[0] == pytest.approx(65536 / read.ns_per_iteration[0] * 1e3)


def test_strided_read_counts_the_words_touched():
    r = benchlib.run("mem_bandwidth", op="read", size_bytes="64k", stride_bytes=64, profile="smoke")
    words = 65536 // 64
    assert r.samples[0] == pytest.approx(words * 8 / r.ns_per_iteration[0] * 1e3)


def test_bandwidth_counting_modes():
    """once: the bytes of the words touched; buffer: the whole buffer whatever
    the stride (lmbench3's bw_mem rd/wr); stream: a copy's read and write."""
    from benchlib.measuring.benchmarks.mem import _bandwidth_mb_s

    p = {"op": "read", "size_bytes": 64 << 20, "stride_bytes": 16}
    ns = 1e7
    once = _bandwidth_mb_s(ns, {**p, "counting": "once"})
    buffer = _bandwidth_mb_s(ns, {**p, "counting": "buffer"})
    assert buffer == pytest.approx(2 * once) == pytest.approx((64 << 20) / ns * 1e3)
    dense = {**p, "stride_bytes": 8}
    assert _bandwidth_mb_s(ns, {**dense, "counting": "buffer"}) == \
        pytest.approx(_bandwidth_mb_s(ns, {**dense, "counting": "once"}))


def test_memory_over_time_records_each_size_at_each_repeat(tmp_path):
    # bench/memory_over_time.py: structure only (sizes x repeats readings,
    # times rising; no relation between two timings), and a clear error for
    # a size it cannot read
    import json
    import subprocess
    import sys
    from pathlib import Path
    script = Path(__file__).resolve().parents[1] / "bench" / "memory_over_time.py"
    out = tmp_path / "t.json"
    r = subprocess.run([sys.executable, str(script), "--sizes", "16K", "64K", "--repeats", "2",
                        "--profile", "smoke", "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = json.loads(out.read_text())
    assert [x["size_bytes"] for x in rows] == [16384, 65536] * 2
    assert [x["t_s"] for x in rows] == sorted(x["t_s"] for x in rows)
    bad = subprocess.run([sys.executable, str(script), "--sizes", "10Q"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "cannot read '10Q'" in bad.stderr
    assert "Traceback" not in bad.stderr


def _stored(op: str, words: int, passes: int) -> list[tuple[int, int]]:
    """(first word, last word) after each pass of op's timed body, untimed
    (bl_mem_bandwidth_stored)."""
    from benchlib._native import ffi, lib

    out = ffi.new(f"uint64_t[{2 * passes}]")
    code = {"write": lib.BL_BANDWIDTH_WRITE, "memset": lib.BL_BANDWIDTH_MEMSET,
            "rmw": lib.BL_BANDWIDTH_RMW}[op]
    assert lib.bl_mem_bandwidth_stored(code, words, passes, out) == 0
    return [(out[2 * i], out[2 * i + 1]) for i in range(passes)]


@pytest.mark.parametrize("op", ["write", "memset"])
@pytest.mark.parametrize("words", [1, 4, 37])
def test_write_and_memset_store_a_new_nonzero_value_every_pass(op, words):
    # a memset of zeros runs faster than memory takes writes
    # (bench/zero_stores), and a sample of one pass once stored 0 every time
    stored = _stored(op, words, 600)           # past the byte's wrap at 255
    for first, last in stored:
        assert first == last                   # the tail of the loop too
        b = first.to_bytes(8, "little")
        assert b[0] != 0 and len(set(b)) == 1  # every byte the same non-zero one
    values = [first for first, _ in stored]
    assert all(a != b for a, b in zip(values, values[1:]))
    assert values[0] != 0x0101010101010101     # differs from the fill before the first pass


@pytest.mark.parametrize("words", [1, 4, 37])
def test_rmw_adds_one_to_every_word_every_pass(words):
    stored = _stored("rmw", words, 5)
    assert stored == [(0x0101010101010101 + i + 1,) * 2 for i in range(5)]


def test_bandwidth_stored_check_refuses_bad_arguments():
    from benchlib._native import ffi, lib

    out = ffi.new("uint64_t[2]")
    assert lib.bl_mem_bandwidth_stored(99, 4, 1, out) != 0
    assert lib.bl_mem_bandwidth_stored(lib.BL_BANDWIDTH_WRITE, 0, 1, out) != 0


@pytest.mark.parametrize("op,settled", [("read", True), ("write", True), ("rmw", True),
                                        ("memset", True), ("copy_unrolled", False),
                                        ("copy_libc", False)])
def test_a_fresh_buffer_is_settled_before_its_timing_and_the_result_says_so(op, settled):
    # a buffer just faulted in reads 10-15 % slower over its first passes
    # (docs/peers.md, sessions 23 and 27): the single-buffer ops pass over
    # it untimed first; a copy does not (settling one for 80 ms moved its
    # adaptive median by 0.3 %, session 27)
    r = benchlib.run("mem_bandwidth", {"op": op, "size_bytes": "64k"}, profile="smoke")
    passes = r.extras["settle_passes"]
    assert (passes >= 4) if settled else (passes == 0)
    # where the wall went: the build and its settle passes, a part of it
    d = r.diagnostics
    assert 0 < d["setup_s"] <= d["wall_s"]
    assert (0 < d["settle_s"] <= d["setup_s"]) if settled else d["settle_s"] == 0


def test_the_wall_breakdown_is_recorded_only_where_a_benchmark_builds_something(tmp_path):
    reread = benchlib.run("file_reread_bandwidth", {"file_bytes": "64k", "block_bytes": "8k",
                                                    "directory": str(tmp_path)}, profile="smoke")
    assert 0 < reread.diagnostics["setup_s"] <= reread.diagnostics["wall_s"]
    assert reread.diagnostics["settle_s"] == 0
    assert "setup_s" not in benchlib.run("syscall", {"op": "getppid"}, profile="smoke").diagnostics
