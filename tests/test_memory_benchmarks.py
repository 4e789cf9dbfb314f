"""The memory family: parameters, and relations that hold whatever the noise."""

import pytest

import benchlib
from benchlib.errors import BenchlibError


@pytest.mark.parametrize("name,params,message", [
    ("mem_latency", {"pattern": "zigzag"}, "must be one of stride, random"),
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


def test_random_chase_defeats_the_prefetcher():
    # Far beyond the caches, a stride-64 ring is served by prefetchers; a
    # random one pays for every load.
    stride = benchlib.run("mem_latency", size_bytes="64M", stride_bytes=64, profile="smoke")
    rand = benchlib.run("mem_latency", size_bytes="64M", stride_bytes=64, pattern="random",
                        huge_pages="on", profile="smoke")
    assert rand.median > 2 * stride.median


def test_huge_pages_are_reported():
    r = benchlib.run("mem_latency", size_bytes="4M", pattern="random", huge_pages="on",
                     profile="smoke")
    off = benchlib.run("mem_latency", size_bytes="4M", pattern="random", huge_pages="off",
                       profile="smoke")
    assert off.extras["huge_page_bytes"] == 0
    if r.machine["thp_enabled"] in ("always", "madvise"):
        assert r.extras["huge_page_bytes"] > 0


def test_a_second_load_inside_the_line_is_cheaper():
    # Over 64 MiB the first load misses every cache: a second load in the
    # same line is an L1 hit, one two lines away is a second miss (~2x).
    near = benchlib.run("line_pair_latency", distance_bytes=8, size_bytes="64M", profile="smoke")
    far = benchlib.run("line_pair_latency", distance_bytes=128, size_bytes="64M", profile="smoke")
    assert far.median_cycles > 1.3 * near.median_cycles


def test_one_line_per_page_costs_more_than_dense_lines_past_the_tlb():
    # 4096 pages: more than any second-level TLB holds, while the same lines
    # packed (256 KiB) stay in L2 even when a busy sibling shares it.
    spread = benchlib.run("tlb_latency", pages=4096, layout="spread", profile="smoke")
    dense = benchlib.run("tlb_latency", pages=4096, layout="dense", profile="smoke")
    assert spread.median_cycles > 1.5 * dense.median_cycles


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


def test_cached_reads_are_faster_than_memory_reads():
    cached = benchlib.run("mem_bandwidth", op="read", size_bytes="16k", profile="smoke")
    memory = benchlib.run("mem_bandwidth", op="read", size_bytes="256M", profile="smoke")
    assert cached.median > 1.5 * memory.median


def test_strided_read_counts_the_words_touched():
    r = benchlib.run("mem_bandwidth", op="read", size_bytes="64k", stride_bytes=64, profile="smoke")
    words = 65536 // 64
    assert r.samples[0] == pytest.approx(words * 8 / r.ns_per_iteration[0] * 1e3)
