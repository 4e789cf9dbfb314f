"""Registrations for csrc/memory.c: memcpy, load latency (pointer chase,
line pairs, TLB), page faults and memory bandwidth.  (Named ``mem``, not
``memory``: ``benchlib.memory.measure`` is the memory-hierarchy sweep built on these.)"""
from __future__ import annotations

import os

from benchlib.errors import BenchlibError
from benchlib.measuring.registry import Benchmark, Param, register
from benchlib.measuring.benchmarks.common import CPU, _check_cpu, _check_cpu_param, _lib, _us, no_extras, ops


# ---------------------------------------------------------------- bcopy

MAX_BUFFER = 1 << 40

register(Benchmark(
    name="bcopy",
    description="memcpy bandwidth copying size_bytes from one buffer to another",
    unit="MB/s",
    counts="size_bytes counted once per copy (not read + write); MB = 10^6 bytes",
    params=(Param("size_bytes", "size", 1 << 20, "bytes copied per memcpy",
                  min=1, max=MAX_BUFFER),
            Param("src_offset_bytes", "int", 0,
                  "where the source starts past a page boundary (0: page-aligned; "
                  "perf bench mem memcpy's malloc'd 64 KiB source: 256)", min=0, max=4095),
            Param("dst_offset_bytes", "int", 0,
                  "where the destination starts past a page boundary (perf bench mem "
                  "memcpy's malloc'd 64 KiB destination: 240, 16 bytes before the source "
                  "modulo a page)", min=0, max=4095),
            CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_bcopy(
        p["size_bytes"], p["src_offset_bytes"], p["dst_offset_bytes"], o, ns, tk, info)),
    to_unit=lambda ns, p: p["size_bytes"] / ns * 1e3,  # bytes/ns = GB/s; x1e3 = MB/s
    check=_check_cpu_param,
    memory_bytes=lambda p: 2 * p["size_bytes"] + p["src_offset_bytes"] + p["dst_offset_bytes"],
))


# ---------------------------------------------------------------- mem_latency

def _check_mem_latency(p: dict) -> None:
    _check_cpu(p["cpu"])
    size, stride = p["size_bytes"], p["stride_bytes"]
    if stride % 8:
        raise BenchlibError(f"stride_bytes must be a multiple of 8 (a pointer); got {stride}")
    if stride > size:
        raise BenchlibError(f"stride_bytes ({stride}) is larger than size_bytes ({size})")
    if size // stride < 2:
        raise BenchlibError(
            f"size_bytes ({size}) must hold at least two slots of stride_bytes ({stride})")
    if p.get("pattern") == "walk" and stride < 64:
        raise BenchlibError(f"the walk pattern needs stride_bytes >= 64 (8 pointers a slot); "
                            f"got {stride}")
    window = p.get("window_bytes", WINDOW_BYTES)
    if window != WINDOW_BYTES and p.get("pattern") != "random":
        raise BenchlibError("window_bytes applies to the random pattern only")
    if window and window < stride:
        raise BenchlibError(f"window_bytes ({window}) must be 0 (the whole buffer) or at least "
                            f"stride_bytes ({stride})")
    if p.get("pattern") == "walk" and p.get("loop_loads", 16) != 16:
        raise BenchlibError("the walk pattern has a loop of its own: loop_loads must be 16")


_PATTERNS = ops("BL_CHASE_")  # stride, random
_HUGE = {"off": 0, "on": 1}
#: The chase loops there are: load instructions in the loop (csrc/memory.c's CHASE_BODY)
LOOP_LOADS = (1, 16, 100)
#: The random chase's window: one huge page, or the 512 small pages an L2 TLB holds
WINDOW_BYTES = 2 << 20

register(Benchmark(
    name="mem_latency",
    description="Dependent-load latency: a pointer chase over size_bytes, one pointer every stride_bytes",
    unit="ns",
    params=(Param("size_bytes", "size", 1 << 20, "bytes covered by the chain", min=16, max=MAX_BUFFER),
            Param("stride_bytes", "size", 64, "distance between slots (the slot size for random)",
                  min=8, max=MAX_BUFFER),
            Param("pattern", "choice", "stride",
                  "stride: slot i -> i+1, as the lmbench paper (prefetchers help); random: 2 MiB "
                  "windows in random order, each window's slots in random order (defeats prefetchers); "
                  "walk: a random walk, each slot's next one of 8 chosen at random (stride_bytes "
                  ">= 64): lines revisited at random intervals, so a cache keeps ways/n of a set "
                  "whatever its replacement policy",
                  choices=tuple(_PATTERNS)),
            Param("huge_pages", "choice", "off",
                  "on: madvise(MADV_HUGEPAGE), off: madvise(MADV_NOHUGEPAGE); the bytes really "
                  "backed by huge pages are reported", choices=tuple(_HUGE)),
            Param("loop_loads", "choice", 16,
                  "load instructions in the chase's loop (stride and random): each takes every "
                  "loop_loads-th load, so a per-instruction stride prefetcher sees loop_loads x "
                  "stride_bytes; 100 is lat_mem_rd's loop (on the Zen 4 guest a stride-128 chase "
                  "of 8 MiB reads 2.1 ns with 16, 5.5 with 100, as lat_mem_rd)",
                  choices=LOOP_LOADS),
            Param("window_bytes", "size", WINDOW_BYTES,
                  "random only: the slots are shuffled inside windows of this many bytes, the "
                  "windows in random order (2 MiB: one huge page, or the 512 small pages a "
                  "second-level TLB holds); 0: one window, the whole buffer, so that nearly every "
                  "load goes to another page, as lat_mem_rd -t's order (a TLB miss a load past "
                  "the TLB's reach)", min=0, max=MAX_BUFFER),
            CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_mem_latency(
        p["size_bytes"], p["stride_bytes"], _PATTERNS[p["pattern"]], _HUGE[p["huge_pages"]],
        p["loop_loads"], p["window_bytes"], o, ns, tk, info)),
    to_unit=lambda ns, p: ns,
    check=_check_mem_latency,
    memory_bytes=lambda p: p["size_bytes"],
    extras=lambda info, p: {"huge_page_bytes": int(info.huge_bytes)},
))


register(Benchmark(
    name="mem_revisit_latency",
    description="The random chase of mem_latency with spin_adds dependent adds after each load: "
                "every line is revisited later (a shared cache's other users get longer to evict it)",
    unit="ns",
    counts="ns per load, the adds' own time included (subtract a chase that stays in L1)",
    params=(Param("size_bytes", "size", 1 << 20, "bytes covered by the chain", min=16,
                  max=MAX_BUFFER),
            Param("spin_adds", "int", 200, "dependent adds after each load", min=0, max=100000),
            Param("huge_pages", "choice", "on", "as mem_latency's", choices=tuple(_HUGE)),
            CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_mem_latency_spin(
        p["size_bytes"], 64, _PATTERNS["random"], _HUGE[p["huge_pages"]], p["spin_adds"],
        o, ns, tk, info)),
    to_unit=lambda ns, p: ns,
    check=lambda p: (_check_cpu(p["cpu"]), _check_mem_latency({**p, "stride_bytes": 64})),
    memory_bytes=lambda p: p["size_bytes"],
    extras=lambda info, p: {"huge_page_bytes": int(info.huge_bytes)},
))


def _check_line_pair(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["distance_bytes"] % 8:
        raise BenchlibError(f"distance_bytes must be a multiple of 8; got {p['distance_bytes']}")


register(Benchmark(
    name="line_pair_latency",
    description="A load to a random line, then a dependent load distance_bytes before it: "
                "cheap while the distance stays inside the cache line",
    unit="ns",
    counts="ns per pair of loads",
    params=(Param("distance_bytes", "size", 32, "distance of the second load before the first",
                  min=8, max=2048),
            Param("size_bytes", "size", 8 << 20, "bytes of pages visited in random order",
                  min=16384, max=MAX_BUFFER),
            CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_line_pair_latency(
        p["size_bytes"], p["distance_bytes"], o, ns, tk, info)),
    to_unit=lambda ns, p: ns,
    check=_check_line_pair,
    memory_bytes=lambda p: p["size_bytes"],
))


register(Benchmark(
    name="tlb_latency",
    description="A chase over one line in each of `pages` pages (spread) or the same number of "
                "lines packed together (dense): the difference is the TLB's",
    unit="ns",
    params=(Param("pages", "int", 64, "pages (and lines) in the chase", min=2, max=1 << 22),
            Param("layout", "choice", "spread", "spread: one line per page; dense: lines packed",
                  choices=("spread", "dense")),
            CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_tlb_latency(
        p["pages"], p["layout"] == "dense", o, ns, tk, info)),
    to_unit=lambda ns, p: ns,
    check=_check_cpu_param,
    memory_bytes=lambda p: p["pages"] * (64 if p["layout"] == "dense" else os.sysconf("SC_PAGESIZE")),
))


# ---------------------------------------------------------------- page faults

register(Benchmark(
    name="page_fault_latency",
    description="The first write to a page of fresh anonymous memory: a page fault that "
                "allocates, zeroes and maps a small page (the 1989 Mach thread's 'touch')",
    unit="us",
    counts="one 4 KiB page: its fault and its share of the munmap that frees it; the mmap and "
           "munmap of the same region untouched are subtracted (extras.overhead_us per page); "
           "MADV_NOHUGEPAGE, so every page faults on its own",
    params=(CPU,),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_page_fault(o, ns, tk, info)),
    to_unit=_us,
    check=_check_cpu_param,
    memory_bytes=lambda p: 256 << 20,  # the most one sample maps (memory.c FAULT_MAX_PAGES)
    extras=lambda info, p: {"page_bytes": os.sysconf("SC_PAGESIZE"),
                            "overhead_us": info.overhead_ns / 1e3},
))


# ---------------------------------------------------------------- mem_bandwidth

_BW_OPS = ops("BL_BANDWIDTH_")  # read, write, rmw, copy_unrolled, memset, copy_libc
# STREAM counts a copy as read + write and so a read-modify-write; the
# lmbench paper (and Ousterhout) counted each byte moved once.
_STREAM_FACTOR = {"read": 1, "write": 1, "rmw": 2, "copy_unrolled": 2, "memset": 1, "copy_libc": 2}


def _check_bandwidth(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["stride_bytes"] % 8:
        raise BenchlibError(f"stride_bytes must be a multiple of 8; got {p['stride_bytes']}")
    if p["stride_bytes"] > p["size_bytes"]:
        raise BenchlibError(
            f"stride_bytes ({p['stride_bytes']}) is larger than size_bytes ({p['size_bytes']})")
    if p["stride_bytes"] != 8 and p["op"] in ("copy_unrolled", "memset", "copy_libc"):
        raise BenchlibError(f"op={p['op']} is dense: stride_bytes must be 8")


def _bandwidth_mb_s(ns: float, p: dict) -> float:
    if p["counting"] == "buffer":
        return p["size_bytes"] / ns * 1e3
    words = -(-p["size_bytes"] // p["stride_bytes"]) if p["stride_bytes"] > 8 else p["size_bytes"] / 8
    factor = _STREAM_FACTOR[p["op"]] if p["counting"] == "stream" else 1
    return words * 8 * factor / ns * 1e3


register(Benchmark(
    name="mem_bandwidth",
    description="Memory bandwidth: read (sum), write, read-modify-write, copy (unrolled loop or "
                "memcpy), memset over size_bytes, one 8-byte word every stride_bytes; read, write "
                "and rmw take four words a loop turn, and write and memset write a new non-zero "
                "value every pass (a memset of zeros runs faster than memory takes writes: "
                "bench/zero_stores); every op but the copies makes untimed passes over its "
                "freshly built buffer first (how many: extras.settle_passes; such a buffer reads "
                "10-15 % slower over its first passes: docs/peers.md)",
    unit="MB/s",
    counts="MB = 10^6 bytes; counting=once: each byte moved counted once (the lmbench paper); "
           "counting=stream: copies and read-modify-write count read and write (STREAM); "
           "strided reads count the 8-byte words touched; counting=buffer: the whole buffer, "
           "whatever the stride (lmbench3's bw_mem rd and wr touch one word in every 16 bytes, "
           "every line, and count every byte: stride_bytes=16 counting=buffer)",
    params=(Param("op", "choice", "read", "the operation", choices=tuple(_BW_OPS)),
            Param("size_bytes", "size", 8 << 20, "bytes of the buffer", min=64, max=MAX_BUFFER),
            Param("stride_bytes", "size", 8, "distance between the words touched (read, write, rmw)",
                  min=8, max=MAX_BUFFER),
            Param("counting", "choice", "once", "how bytes are counted",
                  choices=("once", "stream", "buffer")),
            CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_mem_bandwidth(
        _BW_OPS[p["op"]], p["size_bytes"], p["stride_bytes"], o, ns, tk, info)),
    extras=lambda info, p: {"settle_passes": int(_lib().bl_mem_bandwidth_settle_passes(
        _BW_OPS[p["op"]]))},
    to_unit=_bandwidth_mb_s,
    check=_check_bandwidth,
    memory_bytes=lambda p: p["size_bytes"] * (2 if p["op"].startswith("copy") else 1),
))

