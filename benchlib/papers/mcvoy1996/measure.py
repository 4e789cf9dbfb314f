"""This machine's rows of the lmbench paper's operating-system, IPC and
file-system tables (McVoy and Staelin, USENIX 1996), measured with this
project's own benchmarks (written from the paper's descriptions).

The cells are declared in ``cells.CELLS`` (benchmark and parameters behind
each column); ``papers.measure_rows`` runs them and ``papers.paper_table``
inserts the row among the paper's systems, sorted as the paper sorted them.
This module adds what the paper's tables imply: the speed-ups since 1996,
the relations between primitives and the readings of its context-switch
figure and IPC table, each decided by the 95% intervals of this run (a
relation or reading the intervals cannot settle is "cannot tell").  The
paper reported the best of several runs; we report medians (and keep every
sample), so our rows are, if anything, pessimistic against its numbers.
"""
from __future__ import annotations

import math

import pandas as pd

from benchlib.stats import intervals as iv
from benchlib.errors import BenchlibError
from benchlib.measuring.harness import sweep
from benchlib.papers import TableRows, pinned_cpu  # noqa: F401
from benchlib.papers.mcvoy1996 import paper
from benchlib.papers.mcvoy1996.cells import CELLS


def speedups(t: TableRows) -> pd.DataFrame:
    """For each column: this machine's figure, the paper's fastest and
    slowest system, and how many times faster this machine is than each
    (times: theirs / ours; bandwidths: ours / theirs).  This machine's
    figure and the speed-ups carry its 95% interval (interval columns;
    the paper's figures are taken as exact)."""
    spec = CELLS[t.table]
    higher, cols = spec.higher_is_better, spec.column_names()
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

def ctx_grid(profile: str, l2_bytes: int) -> tuple[list[int], list[int]]:
    """Processes and process sizes (KB) for the figure: the paper's 0-64 KB
    and one size beyond L2, so the knee where the working set leaves the
    cache is on the plot."""
    if profile == "smoke":
        return [2, 8], [0, 32]
    procs = [2, 4, 8, 16, 24, 32] if profile == "quick" else [2, 4, 6, 8, 12, 16, 20, 24, 32, 48, 64]
    return procs, [0, 4, 16, 32, 64, 2 * l2_bytes // 1024]


def knee_l2(machine: dict, fit=None) -> tuple[int, str]:
    """The L2 size the figure's knees are drawn at, and where it comes
    from: the second level of a fitted memory hierarchy (``fit``) when it
    has one, else the L2 sysfs reports.  Neither: a BenchlibError saying
    so (no size is invented)."""
    fitted = [lv.size_bytes for lv in fit.levels if lv.size_bytes] if fit is not None else []
    if len(fitted) >= 2:
        return int(fitted[1]), "the memory fit"
    if machine.get("l2_bytes"):
        return int(machine["l2_bytes"]), "sysfs"
    raise BenchlibError("the L2 cache size is unknown: sysfs reports none"
                        + ("" if fit is None else " and the memory fit found no second level")
                        + "; the context-switch figure's knees cannot be placed")


def ctx_curves(profile: str, placement: str, l2_bytes: int,
               progress: bool = True, recorder=None) -> pd.DataFrame:
    """us per context switch over processes x process size (points in random
    order), as in the paper's figure; ``placement`` same_cpu or unpinned.
    ``median`` carries its 95% interval (interval columns: ``iv.strip`` for
    a CSV)."""
    procs, sizes = ctx_grid(profile, l2_bytes)
    results: list = []
    df = sweep("context_switch", {"processes": procs, "process_kb": sizes},
               placement=placement, profile=profile, progress=progress, shuffle=True,
               results=results, recorder=recorder)
    by_point = {(r.params["processes"], r.params["process_kb"]): r.measured for r in results}
    iv.put(df, "median", [by_point[(n, k)] for n, k in zip(df.processes, df.process_kb)])
    df.attrs["l2_bytes"] = l2_bytes
    return df


def ctx_knee_processes(process_kb: int, cache_bytes: int) -> float:
    """Processes at which the ring's arrays fill a cache of cache_bytes:
    beyond it, every switch refills the cache from the next level."""
    return math.inf if process_kb == 0 else cache_bytes / (process_kb * 1024)


def ring_rises(curves: pd.DataFrame, l2_bytes: int) -> pd.DataFrame:
    """The figure's reading checked on a measured curve: for each process
    size whose knee (``ctx_knee_processes``) falls inside the ring sizes
    measured, the time per switch at the largest ring beyond the knee over
    the time at the largest ring before it, with its 95% interval (from
    the two points' intervals), and ``rises``: True when that interval lies
    wholly above 1, False wholly below, None when it straddles 1."""
    rows, ratios = [], []
    for k, g in curves[curves.process_kb > 0].groupby("process_kb"):
        knee = ctx_knee_processes(int(k), l2_bytes)
        before, after = g[g.processes <= knee], g[g.processes > knee]
        if before.empty or after.empty:
            continue
        i, j = before.processes.idxmax(), after.processes.idxmax()
        ratio = iv.get(curves, "median", j) / iv.get(curves, "median", i)
        rows.append({"process_kb": int(k), "knee_processes": knee,
                     "before_processes": int(curves.at[i, "processes"]),
                     "after_processes": int(curves.at[j, "processes"]),
                     "rises": ratio.compare(1.0) if isinstance(ratio, iv.Measured) else None})
        ratios.append(ratio)
    df = pd.DataFrame(rows, columns=["process_kb", "knee_processes", "before_processes",
                                     "after_processes", "rises"])
    iv.put(df, "ratio", ratios)
    return df


# ------------------------------------------------------------ the paper's readings

def ipc_over_copy(t: TableRows) -> pd.DataFrame:
    """The IPC bandwidth table's reading: pipe and TCP bandwidth over libc
    bcopy's, each with its 95% interval (from the endpoints), and
    ``below_copy``: True when the ratio's interval lies wholly below 1
    (every byte through the kernel is copied at least twice), False wholly
    above, None when it straddles 1."""
    copy = t.cell("bcopy_libc_mb_s")
    rows, ratios = [], []
    for name, col in (("pipe", "pipe_mb_s"), ("TCP", "tcp_mb_s")):
        ratio = t.cell(col) / copy
        side = ratio.compare(1.0) if isinstance(ratio, iv.Measured) else None
        rows.append({"transport": name, "below_copy": None if side is None else not side})
        ratios.append(ratio)
    df = pd.DataFrame(rows)
    iv.put(df, "over_bcopy", ratios)
    return df


RELATIONS = [
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


def relations(rows: dict[str, TableRows]) -> pd.DataFrame:
    """The relations the paper's tables imply, checked on this machine's
    medians with their 95% intervals: what should hold, the two figures,
    their ratio (left / right, its interval from the endpoints) and
    ``holds``: True when the ratio's interval lies wholly on the relation's
    side of 1, False wholly on the other, None when it straddles 1 (this
    run cannot tell) or a figure was not measured."""
    def cell(table, col):
        t = rows.get(table)
        if t is None or col not in t.results:
            return math.nan
        return t.results[col].measured * CELLS[table].cell(col).scale

    out, figures = [], {"left": [], "right": [], "ratio": []}
    for what, left, right, op in RELATIONS:
        a, b = cell(*left), cell(*right)
        ratio = a / b if isinstance(a, iv.Measured) and isinstance(b, iv.Measured) else math.nan
        side = ratio.compare(1.0) if isinstance(ratio, iv.Measured) else None
        out.append({"relation": what, "holds": None if side is None else side == (op == ">")})
        for k, v in (("left", a), ("right", b), ("ratio", ratio)):
            figures[k].append(v)
    df = pd.DataFrame(out)
    for col, values in figures.items():
        iv.put(df, col, values)
    return df[["relation", "left", "right", "ratio", "holds",
               *[c for c in df.columns if c.endswith(iv.SUFFIXES)]]]


def paper_handler_over_syscall() -> pd.Series:
    """The paper's cost of catching a signal over its null system call, per system
    that reports both (Tables of signal and null-call latency)."""
    sig = paper.load("signal_latency")
    sc = paper.load("null_syscall")
    both = sig.merge(sc, on="system", suffixes=("", "_sc"))
    both = both[(both.sig_handler_us > 0) & (both.null_syscall_us > 0)]
    return (both.sig_handler_us / both.null_syscall_us).set_axis(both.system)


STEP_FACTOR = 1.5   # a step of process creation "multiplies" the cost at this ratio or more


def each_step_multiplies(times, factor: float = STEP_FACTOR) -> bool:
    """True if every time in the sequence is at least ``factor`` times the one before
    (fork, fork + exec, fork + sh: does each step multiply the cost?)."""
    t = [float(x) for x in times]
    if len(t) < 2 or min(t) <= 0:
        raise ValueError("need at least two positive times")
    return all(b / a >= factor for a, b in zip(t, t[1:]))


FLAT_FACTOR = 2.0   # a curve is "nearly flat" when its largest point is under this times its smallest


def nearly_flat(times) -> bool:
    """Is a curve nearly flat: its largest time under ``FLAT_FACTOR`` times its smallest?"""
    t = [float(x) for x in times]
    if not t or min(t) <= 0:
        raise ValueError("need positive times")
    return max(t) < FLAT_FACTOR * min(t)
