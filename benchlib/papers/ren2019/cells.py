"""LEBench's tests (Ren et al., SOSP 2019) as this project measures them,
declared once: each test of ``data/papers/ren2019/tests.csv`` (the
repository's OS_Eval.c) and the benchmark, parameters and unit behind this
machine's figure for it (``latency_us``: µs per call, as LEBench times
one call).  Sizes are LEBench's: files of 1, 10, 1,000 and 10,000 pages of
4 KiB; messages of 1 and 96,000 bytes; 6,000 and 12,000 mapped pages; 10
and 1,000 descriptors.

Where a definition here differs from LEBench's, the benchmark's
description says how: fork and thread creation are timed to the parent's
wait or join (LEBench: to the parent's return from fork or
pthread_create); select, poll and epoll wait on pipes that each hold a
byte (LEBench: unconnected sockets, every one ready too); read and write
use pread and pwrite at offset 0 of one open file (LEBench: a fresh open
per call, then read or write at offset 0)."""
from __future__ import annotations

from benchlib.papers.tables import Column, Table, by_name

PAPER = "ren2019"
US_FROM_MS = 1e3
PAGE = 4096
SIZES = {"small": PAGE, "mid": 10 * PAGE, "big": 1000 * PAGE, "huge": 10000 * PAGE}


def _file_ops(size: str) -> dict:
    b = SIZES[size]
    io = {"block_bytes": b, "file_bytes": b, "direct": "no", "pattern": "sequential"}
    return {
        f"{size} write": {"latency_us": Column("disk_io", {"op": "write", **io}, file=True)},
        f"{size} read": {"latency_us": Column("disk_io", {"op": "read", **io}, file=True)},
        f"{size} mmap": {"latency_us": Column("mapping_latency", {"op": "mmap", "file_bytes": b},
                                              file=True)},
        f"{size} munmap": {"latency_us": Column("mapping_latency",
                                                {"op": "munmap", "file_bytes": b}, file=True)},
        f"{size} page fault": {"latency_us": Column("mapping_latency",
                                                    {"op": "page_fault", "file_bytes": b},
                                                    file=True)},
    }


def _wait(call: str, n: int) -> dict:
    return {"latency_us": Column("select_latency", {"call": call, "pipes": n, "full": "yes"})}


def _fork(pages: int) -> dict:
    return {"latency_us": Column("process_creation", {"op": "fork_exit", "mapped_pages": pages},
                                 US_FROM_MS)}


ROWS = {
    "getpid": {"latency_us": Column("syscall", {"op": "getpid"})},
    "context siwtch": {"latency_us": Column("pipe_latency", {}, pin="placement")},
    "send": {"latency_us": Column("socket_call_latency", {"op": "send", "message_bytes": 1})},
    "recv": {"latency_us": Column("socket_call_latency", {"op": "recv", "message_bytes": 1})},
    "big send": {"latency_us": Column("socket_call_latency",
                                      {"op": "send", "message_bytes": 96000})},
    "big recv": {"latency_us": Column("socket_call_latency",
                                      {"op": "recv", "message_bytes": 96000})},
    "fork": _fork(0),
    "thr create": {"latency_us": Column("thread_creation", {})},
    "big fork": _fork(6000),
    "huge fork": _fork(12000),
    **_file_ops("small"), **_file_ops("mid"), **_file_ops("big"), **_file_ops("huge"),
    "select": _wait("select", 10), "poll": _wait("poll", 10), "epoll": _wait("epoll", 10),
    "select big": _wait("select", 1000), "poll big": _wait("poll", 1000),
    "epoll big": _wait("epoll", 1000),
}

CELLS: dict[str, Table] = by_name(
    Table("tests", PAPER, "tests", ROWS, "LEBench's tests, one call each", "test"),
)
