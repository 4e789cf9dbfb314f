"""The cells of McVoy and Staelin's tables (USENIX 1996) this project
measures, declared once: the benchmark and parameters behind each column of
this machine's row, the column's unit (its name's suffix) and how the paper
sorted the table.  The notebook's tables, the then-and-now dataset
(``papers.across_today``) and the class notebook (``papers.classroom``) read
them from here.

Single-process benchmarks run pinned to one CPU; two-process ones with both
processes on one CPU (``pin="placement"``), as on the paper's
uniprocessors.  The memory tables (latency, bandwidth) are measured by the
memory hierarchy notebook through its fit; the cells declared for them here
are the single measurements the then-and-now dataset and the class notebook
take: a random chase over a block 4x the last-level cache, and libc bcopy
of 8 MB, the paper's memory-bandwidth size (as in its IPC and reread tables)."""
from __future__ import annotations

from benchlib.papers.tables import Column, Table, by_name

PAPER = "mcvoy1996"
MS_FROM_US = 1e-3
BCOPY = Column("bcopy", {"size_bytes": 8 << 20})     # libc memcpy of 8 MB (the paper's size)


def _table(name: str, title: str, sort_by: str | None, cols: dict, higher: bool = False) -> Table:
    return Table(name, PAPER, f"table_{name}", {"": cols}, title, "system", sort_by, higher,
                 drop=("row", "failed"))


CELLS: dict[str, Table] = by_name(
    _table("null_syscall", "Simple system call (write to /dev/null)", "null_syscall_us",
           {"null_syscall_us": Column("syscall", {"op": "write"})}),
    _table("signal_latency", "Signals: sigaction and handler dispatch", "sig_handler_us",
           {"sigaction_us": Column("signal_latency", {"op": "install"}),
            "sig_handler_us": Column("signal_latency", {"op": "deliver"})}),
    _table("process_creation", "Process creation", "fork_exec_exit_ms",
           {"fork_exit_ms": Column("process_creation", {"op": "fork_exit"}, pin=""),
            "fork_exec_exit_ms": Column("process_creation", {"op": "fork_exec_exit"}, pin=""),
            "fork_exec_sh_exit_ms": Column("process_creation", {"op": "fork_sh_exit"}, pin="")}),
    _table("context_switch", "Context switch (2 and 8 processes, 0 and 32 KB)", "p2_0kb_us",
           {f"p{n}_{k}kb_us": Column("context_switch", {"processes": n, "process_kb": k},
                                     pin="placement")
            for n in (2, 8) for k in (0, 32)}),
    _table("pipe_latency", "Pipe latency", "pipe_us",
           {"pipe_us": Column("pipe_latency", {}, pin="placement")}),
    _table("tcp_latency", "TCP and RPC/TCP latency (loopback)", "rpc_tcp_us",
           {"tcp_us": Column("ipc_latency", {"transport": "tcp"}, pin="placement"),
            "rpc_tcp_us": Column("rpc_latency", {"transport": "tcp"}, pin="placement",
                                 optional=True)}),
    _table("udp_latency", "UDP and RPC/UDP latency (loopback)", "rpc_udp_us",
           {"udp_us": Column("ipc_latency", {"transport": "udp"}, pin="placement"),
            "rpc_udp_us": Column("rpc_latency", {"transport": "udp"}, pin="placement",
                                 optional=True)}),
    _table("tcp_connect_latency", "TCP connection latency (loopback)", "tcp_connect_us",
           {"tcp_connect_us": Column("tcp_connect_latency", {}, pin="")}),
    _table("ipc_bandwidth", "Pipe and TCP bandwidth beside bcopy", "pipe_mb_s",
           {"bcopy_libc_mb_s": BCOPY,
            "pipe_mb_s": Column("ipc_bandwidth", {"transport": "pipe"}, pin=""),
            "tcp_mb_s": Column("ipc_bandwidth", {"transport": "tcp"}, pin="")}, higher=True),
    _table("tcp_bandwidth", "TCP bandwidth (loopback)", "tcp_mb_s",
           {"tcp_mb_s": Column("ipc_bandwidth", {"transport": "tcp"}, pin="")}, higher=True),
    _table("file_reread_bandwidth", "File reread: read() and mmap() beside bcopy and memory read",
           "file_read_mb_s",
           {"bcopy_libc_mb_s": BCOPY,
            "file_read_mb_s": Column("file_reread_bandwidth", {"method": "read"}, file=True),
            "memory_read_mb_s": Column("mem_bandwidth", {"op": "read", "size_bytes": 8 << 20}),
            "file_mmap_mb_s": Column("file_reread_bandwidth", {"method": "mmap"}, file=True)},
           higher=True),
    _table("file_create_delete", "File create and delete (0-byte files)", "delete_ms",
           {"create_ms": Column("fs_latency", {"op": "create"}, MS_FROM_US, pin="", file=True),
            "delete_ms": Column("fs_latency", {"op": "delete"}, MS_FROM_US, pin="", file=True)}),
    _table("disk_latency", "Disk: overhead per operation", "disk_latency_us",
           {"disk_latency_us": Column("disk_io", {"op": "read", "pattern": "sequential",
                                                  "block_bytes": 4096}, file=True)}),
    _table("memory_latency", "Memory latency (main memory: a random chase beyond the caches)",
           None,
           {"main_memory_ns": Column("mem_latency", {"pattern": "random"},
                                     sized={"size_bytes": "uncached"})}),
    _table("memory_bandwidth", "Memory bandwidth (libc bcopy of 8 MB)", "bcopy_unrolled_mb_s",
           {"bcopy_libc_mb_s": BCOPY}, higher=True),
)

# The tables the notebook measures (the memory tables are the memory notebook's).
NOTEBOOK_TABLES = [t for t in CELLS if t not in ("memory_latency", "memory_bandwidth")]
