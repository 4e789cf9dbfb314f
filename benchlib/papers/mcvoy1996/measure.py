"""This machine's rows of the lmbench paper's operating-system, IPC and
file-system tables (McVoy and Staelin, USENIX 1996), measured with this
project's own benchmarks (written from the paper's descriptions).

``SPECS`` maps each table (``benchlib.papers.mcvoy1996.paper`` names) to the
benchmark and parameters behind each of its columns; ``measure_table`` runs
them and returns one row in the table's columns and units, and
``paper_table`` inserts it among the paper's systems, sorted as the paper
sorted them.  Single-process benchmarks run pinned to one CPU; two-process
ones with both processes on one CPU (``placement=same_cpu``), as on the
paper's uniprocessors.  The paper reported the best of several runs; we
report medians (and keep every sample), so our rows are, if anything,
pessimistic against its numbers.
"""
from __future__ import annotations

import math

import pandas as pd

from benchlib.stats import intervals as iv
from benchlib.measuring.harness import sweep
from benchlib.measuring.metadata import machine_info
from benchlib.papers import Column, TableRows, beside_paper, measure_row, pinned_cpu  # noqa: F401
from benchlib.papers.mcvoy1996 import paper


US, MS_FROM_US = 1.0, 1e-3

# table -> (sort column, higher is better, {column: Column})
SPECS: dict[str, tuple[str, bool, dict[str, Column]]] = {
    "null_syscall": ("null_syscall_us", False,
                     {"null_syscall_us": Column("syscall", {"op": "write"})}),
    "signal_latency": ("sig_handler_us", False,
                       {"sigaction_us": Column("signal_latency", {"op": "install"}),
                        "sig_handler_us": Column("signal_latency", {"op": "deliver"})}),
    "process_creation": ("fork_exec_exit_ms", False,
                         {"fork_exit_ms": Column("process_creation", {"op": "fork_exit"}, pin=""),
                          "fork_exec_exit_ms": Column("process_creation", {"op": "fork_exec_exit"},
                                                      pin=""),
                          "fork_exec_sh_exit_ms": Column("process_creation", {"op": "fork_sh_exit"},
                                                         pin="")}),
    "context_switch": ("p2_0kb_us", False,
                       {f"p{n}_{k}kb_us": Column("context_switch",
                                                 {"processes": n, "process_kb": k}, pin="placement")
                        for n in (2, 8) for k in (0, 32)}),
    "pipe_latency": ("pipe_us", False,
                     {"pipe_us": Column("pipe_latency", {}, pin="placement")}),
    "tcp_latency": ("rpc_tcp_us", False,
                    {"tcp_us": Column("ipc_latency", {"transport": "tcp"}, pin="placement"),
                     "rpc_tcp_us": Column("rpc_latency", {"transport": "tcp"}, pin="placement",
                                          optional=True)}),
    "udp_latency": ("rpc_udp_us", False,
                    {"udp_us": Column("ipc_latency", {"transport": "udp"}, pin="placement"),
                     "rpc_udp_us": Column("rpc_latency", {"transport": "udp"}, pin="placement",
                                          optional=True)}),
    "tcp_connect_latency": ("tcp_connect_us", False,
                            {"tcp_connect_us": Column("tcp_connect_latency", {}, pin="")}),
    "ipc_bandwidth": ("pipe_mb_s", True,
                      {"bcopy_libc_mb_s": Column("bcopy", {"size_bytes": 8 << 20}),
                       "pipe_mb_s": Column("ipc_bandwidth", {"transport": "pipe"}, pin=""),
                       "tcp_mb_s": Column("ipc_bandwidth", {"transport": "tcp"}, pin="")}),
    "tcp_bandwidth": ("tcp_mb_s", True,
                      {"tcp_mb_s": Column("ipc_bandwidth", {"transport": "tcp"}, pin="")}),
    "file_reread_bandwidth": ("file_read_mb_s", True,
                              {"bcopy_libc_mb_s": Column("bcopy", {"size_bytes": 8 << 20}),
                               "file_read_mb_s": Column("file_reread_bandwidth",
                                                        {"method": "read"}, file=True),
                               "memory_read_mb_s": Column("mem_bandwidth",
                                                          {"op": "read", "size_bytes": 8 << 20}),
                               "file_mmap_mb_s": Column("file_reread_bandwidth",
                                                        {"method": "mmap"}, file=True)}),
    "file_create_delete": ("delete_ms", False,
                           {"create_ms": Column("fs_latency", {"op": "create"}, MS_FROM_US,
                                                pin="", file=True),
                            "delete_ms": Column("fs_latency", {"op": "delete"}, MS_FROM_US,
                                                pin="", file=True)}),
    "disk_latency": ("disk_latency_us", False,
                     {"disk_latency_us": Column("disk_io", {"op": "read", "pattern": "sequential",
                                                            "block_bytes": 4096}, file=True)}),
}

# What the paper's table names mean, for headings.
TITLES = {
    "null_syscall": "Simple system call (write to /dev/null)",
    "signal_latency": "Signals: sigaction and handler dispatch",
    "process_creation": "Process creation",
    "context_switch": "Context switch (2 and 8 processes, 0 and 32 KB)",
    "pipe_latency": "Pipe latency",
    "tcp_latency": "TCP and RPC/TCP latency (loopback)",
    "udp_latency": "UDP and RPC/UDP latency (loopback)",
    "tcp_connect_latency": "TCP connection latency (loopback)",
    "ipc_bandwidth": "Pipe and TCP bandwidth beside bcopy",
    "tcp_bandwidth": "TCP bandwidth (loopback)",
    "file_reread_bandwidth": "File reread: read() and mmap() beside bcopy and memory read",
    "file_create_delete": "File create and delete (0-byte files)",
    "disk_latency": "Disk: overhead per operation",
}


def measure_table(table: str, profile: str = "quick", directory: str | None = None,
                  label: str = "this machine", cache: dict | None = None) -> TableRows:
    """This machine's row of one table (``SPECS``): see ``papers.measure_row``;
    RPC without libtirpc leaves its cells empty, with the reason in ``skipped``."""
    return measure_row(table, SPECS[table][2], profile, directory, label, "system", cache)


def paper_table(t: TableRows) -> pd.DataFrame:
    """The paper's table with this machine's row inserted in sorted position
    (best first, as the paper printed it); ``source`` marks which is which;
    this machine's figures carry their 95% intervals."""
    sort_col, higher, _ = SPECS[t.table]
    p = paper.load(t.table).drop(columns=["row", "failed"], errors="ignore")
    return beside_paper(p, t, sort_col, ascending=not higher)


def speedups(t: TableRows) -> pd.DataFrame:
    """For each column: this machine's figure, the paper's fastest and
    slowest system, and how many times faster this machine is than each
    (times: theirs / ours; bandwidths: ours / theirs).  This machine's
    figure and the speed-ups carry its 95% interval (interval columns;
    the paper's figures are taken as exact)."""
    _, higher, cols = SPECS[t.table]
    p = paper.load(t.table)
    rows, cells = [], {"this machine": [], "speed-up vs fastest": [], "speed-up vs slowest": []}
    for name in cols:
        ours = t.cell(name)
        vals = p[["system", name]].dropna()
        if vals.empty:
            continue
        best = vals.loc[vals[name].idxmax() if higher else vals[name].idxmin()]
        worst = vals.loc[vals[name].idxmin() if higher else vals[name].idxmax()]
        ratio = (lambda theirs: ours / theirs) if higher else (lambda theirs: theirs / ours)
        measured = iv.value(ours) == iv.value(ours)
        rows.append({"column": name, "this machine": math.nan,
                     "fastest 1996": f"{best[name]:g} ({best['system']})",
                     "slowest 1996": f"{worst[name]:g} ({worst['system']})"})
        cells["this machine"].append(ours)
        cells["speed-up vs fastest"].append(ratio(best[name]) if measured else math.nan)
        cells["speed-up vs slowest"].append(ratio(worst[name]) if measured else math.nan)
    df = pd.DataFrame(rows, columns=["column", "this machine", "fastest 1996", "slowest 1996"])
    for col, values in cells.items():
        iv.put(df, col, values)
    return df[["column", "this machine", "fastest 1996", "slowest 1996", "speed-up vs fastest",
               "speed-up vs slowest", *[c for c in df.columns if c.endswith(iv.SUFFIXES)]]]


# ------------------------------------------------------------ the context-switch figure

def ctx_grid(profile: str, l2_bytes: int | None) -> tuple[list[int], list[int]]:
    """Processes and process sizes (KB) for the figure: the paper's 0-64 KB
    and one size beyond L2, so the knee where the working set leaves the
    cache is on the plot.  With the L2 size unknown (no sysfs), no size is
    invented: the paper's sizes only."""
    if profile == "smoke":
        return [2, 8], [0, 32]
    procs = [2, 4, 8, 16, 24, 32] if profile == "quick" else [2, 4, 6, 8, 12, 16, 20, 24, 32, 48, 64]
    sizes = [0, 4, 16, 32, 64]
    if l2_bytes:
        sizes.append(2 * l2_bytes // 1024)
    return procs, sizes


def ctx_curves(profile: str = "quick", placement: str = "same_cpu",
               l2_bytes: int | None = None, progress: bool = True) -> pd.DataFrame:
    """us per context switch over processes x process size (points in random
    order), as in the paper's figure; ``placement`` same_cpu or unpinned."""
    l2 = l2_bytes or machine_info().get("l2_bytes")
    procs, sizes = ctx_grid(profile, l2)
    df = sweep("context_switch", {"processes": procs, "process_kb": sizes},
               placement=placement, profile=profile, progress=progress, shuffle=True)
    df.attrs["l2_bytes"] = l2  # None: unknown, and no knee is drawn
    return df


def ctx_knee_processes(process_kb: int, cache_bytes: int) -> float:
    """Processes at which the ring's arrays fill a cache of cache_bytes:
    beyond it, every switch refills the cache from the next level."""
    return math.inf if process_kb == 0 else cache_bytes / (process_kb * 1024)


# ------------------------------------------------------------ the paper's readings

def relations(rows: dict[str, TableRows]) -> pd.DataFrame:
    """The relations the paper's tables imply, checked on this machine's
    results (best samples): what should hold, the two figures, and whether
    it does (None where a figure is missing).  Beside them, the same
    relation read from the two medians with their 95% intervals:
    ``median_ratio`` (left / right, interval from the endpoints) and
    ``holds_by_medians`` (None when that interval straddles 1: the medians
    of this run cannot tell)."""
    def cell(table, col, best=True):
        # the best sample (as the paper reported), in the column's unit: a
        # relation between two medians can flip when the host is busy in one
        # run and not the other; between minima it reflects the systems
        t = rows.get(table)
        if t is None or col not in t.results:
            return math.nan
        r, scale = t.results[col], SPECS[table][2][col].scale
        if best:
            return r.best * scale
        return r.measured * scale if hasattr(r, "samples") else math.nan

    checks = [
        ("context switch of 2 processes, 0 KB, below pipe latency",
         ("context_switch", "p2_0kb_us"), ("pipe_latency", "pipe_us"), "<"),
        ("fork + exec above fork", ("process_creation", "fork_exec_exit_ms"),
         ("process_creation", "fork_exit_ms"), ">"),
        ("fork + sh -c above fork + exec", ("process_creation", "fork_exec_sh_exit_ms"),
         ("process_creation", "fork_exec_exit_ms"), ">"),
        ("TCP latency above pipe latency", ("tcp_latency", "tcp_us"),
         ("pipe_latency", "pipe_us"), ">"),
        ("RPC/TCP above TCP", ("tcp_latency", "rpc_tcp_us"), ("tcp_latency", "tcp_us"), ">"),
        ("RPC/UDP above UDP", ("udp_latency", "rpc_udp_us"), ("udp_latency", "udp_us"), ">"),
        ("TCP bandwidth below pipe bandwidth", ("ipc_bandwidth", "tcp_mb_s"),
         ("ipc_bandwidth", "pipe_mb_s"), "<"),
    ]
    out, medians = [], {"left_median": [], "right_median": [], "median_ratio": []}
    for what, left, right, op in checks:
        a, b = cell(*left), cell(*right)
        ok = (a < b) if op == "<" else (a > b)
        out.append({"relation": what, "left": a, "right": b, "ratio": a / b if b else math.nan,
                    "holds": bool(ok) if not (math.isnan(a) or math.isnan(b)) else None})
        ma, mb = cell(*left, best=False), cell(*right, best=False)
        ratio = ma / mb if isinstance(ma, iv.Measured) and isinstance(mb, iv.Measured) else math.nan
        medians["left_median"].append(ma)
        medians["right_median"].append(mb)
        medians["median_ratio"].append(ratio)
        side = ratio.compare(1.0) if isinstance(ratio, iv.Measured) else None
        out[-1]["holds_by_medians"] = None if side is None else side == (op == ">")
    df = pd.DataFrame(out)
    for col, values in medians.items():
        iv.put(df, col, values)
    return df


def paper_handler_over_syscall() -> pd.Series:
    """The paper's cost of catching a signal over its null system call, per system
    that reports both (Tables of signal and null-call latency)."""
    sig = paper.load("signal_latency")
    sc = paper.load("null_syscall")
    both = sig.merge(sc, on="system", suffixes=("", "_sc"))
    both = both[(both.sig_handler_us > 0) & (both.null_syscall_us > 0)]
    return (both.sig_handler_us / both.null_syscall_us).set_axis(both.system)


def each_step_multiplies(times, factor: float = 1.5) -> bool:
    """True if every time in the sequence is at least ``factor`` times the one before
    (fork, fork + exec, fork + sh: does each step multiply the cost?)."""
    t = [float(x) for x in times]
    if len(t) < 2 or min(t) <= 0:
        raise ValueError("need at least two positive times")
    return all(b / a >= factor for a, b in zip(t, t[1:]))
