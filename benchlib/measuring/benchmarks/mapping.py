"""Registrations for csrc/mapping.c: mmap, munmap and the page fault of a
file mapping, one call at a time (LEBench's definitions)."""
from __future__ import annotations

from benchlib.measuring.registry import Benchmark, Param, check_free_space, register
from benchlib.measuring.benchmarks.common import (CPU, DIRECTORY, _check_cpu, _encode, _fs_extras,
                                                  _lib, _us, op_choice)

OP, _MAPPING_OPS = op_choice(
    "BL_MAPPING_", "mmap: map the file (the call alone); munmap: unmap a private mapping of "
    "it whose every page was written; page_fault: the first read of a fresh read-only mapping")

# munmap batches hold this many bytes of written pages at most (mapping.c BATCH_BYTES)
_MUNMAP_BATCH_BYTES = 16 << 20


def _check_mapping(p: dict) -> None:
    _check_cpu(p["cpu"])
    check_free_space(p["file_bytes"], p["directory"], "file_bytes")


def _measure_mapping(p, o, ns, tk, info):
    return _lib().bl_mapping_latency(_MAPPING_OPS[p["op"]], _encode(p["directory"]),
                                     p["file_bytes"], o, ns, tk, info), {}


register(Benchmark(
    name="mapping_latency",
    description="One virtual-memory call on a file of file_bytes in the page cache: mmap of "
                "it, munmap of a private mapping of it after every page was written, or the "
                "page fault of the first read of a fresh mapping",
    unit="us",
    counts="one call; what each call needs around it (making the mappings, writing their "
           "pages, unmapping them) is done in batches outside the timing.  page_fault is one "
           "fault, with the pages the kernel maps around it in the same fault (fault-around)",
    params=(OP,
            Param("file_bytes", "size", 4096, "size of the file and of each mapping (LEBench: "
                  "4 KiB, 40 KiB, 4,000 KiB, 40,000 KiB)", min=1, max=1 << 30),
            DIRECTORY, CPU),
    measure=_measure_mapping,
    to_unit=_us,
    check=_check_mapping,
    memory_bytes=lambda p: p["file_bytes"] + (max(p["file_bytes"], _MUNMAP_BATCH_BYTES)
                                              if p["op"] == "munmap" else 0),
    extras=_fs_extras,
))
