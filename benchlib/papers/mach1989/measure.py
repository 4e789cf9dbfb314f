"""This machine's rows of the comp.os.mach thread "Mach performance?"
(December 1989): Forin's IPC tests (a procedure call against the same call
on a server process), his exec / fork / touch / getpid tests and the Andrew
phases, and the RPC list Tanenbaum asked to see normalised to CPU speed.

The thread's data and the normalisation are in ``benchlib.papers.mach1989.paper``;
this module measures, with ``procedure_call``, ``page_fault_latency``,
``process_creation``, ``syscall``, ``andrew_benchmark``, ``rpc_latency`` and
Ousterhout's MIPS rating (``benchlib.papers.mips.mips_rating``).

Placement: the thread's pmax had one CPU, so the main table runs every test
pinned to one CPU with the server on the same CPU (``same_cpu``);
``ipc_variants`` adds the other placements and the socketpair transport.
"""
from __future__ import annotations

import math
import os
import re

import numpy as np
import pandas as pd

from benchlib.stats import intervals as iv
from benchlib.measuring.benchmarks import have_rpc
from benchlib.measuring.harness import run, sweep
from benchlib.measuring.metadata import kernel_config_text
from benchlib.papers import TableRows, measure_rows, pinned_cpu
from benchlib.papers.mips import MipsRating, mips_rating  # noqa: F401 (re-exported)
from benchlib.papers.mach1989 import paper
from benchlib.papers.mach1989.cells import CELLS

__all__ = ["ipc_tests", "ipc_per_call", "ipc_variants", "unix_tests", "andrew", "rpc_rows",
           "normalised_ipc", "forin_ratios", "unix_table", "cpu_time_accounting", "mips_rating",
           "pinned_cpu"]


# ------------------------------------------------------------ the IPC tests

def _call_params(mode: str, op: str, transport: str, placement: str, fixed_calls: int) -> dict:
    p = {"op": op, "mode": mode, "fixed_calls": fixed_calls}
    if mode == "process":
        p.update(transport=transport, placement=placement)
    else:  # a local call has no server: pinned unless the run is unpinned
        p["placement"] = "unpinned" if placement == "unpinned" else "same_cpu"
    if p["placement"] != "unpinned":
        p["cpu"] = pinned_cpu()
    return p


def _fixed_row(fx: dict) -> dict:
    """The fixed run in the thread's columns (client times, as its table)
    and the server's beside them."""
    return {"iterations": fx["calls"], "elapsed_ms": fx["elapsed_ms"],
            "user_ms": fx["client_user_ms"], "system_ms": fx["client_system_ms"],
            "server_user_ms": fx["server_user_ms"], "server_system_ms": fx["server_system_ms"],
            "switches_per_call": ((fx["client_voluntary_switches"]
                                   + fx["client_involuntary_switches"]) / fx["calls"]),
            "server_switches_per_call": (
                (fx["server_voluntary_switches"] + fx["server_involuntary_switches"]) / fx["calls"]
                if fx["server_voluntary_switches"] is not None else math.nan)}


def ipc_tests(profile: str = "quick", transport: str = "pipe", placement: str = "same_cpu",
              fixed_calls: int = paper.ITERATIONS) -> TableRows:
    """Every test of the thread's IPC program, in its order and under its
    names, with this machine's fixed run of ``fixed_calls`` calls in its
    columns (totals in ms: elapsed, and the client's user and system time,
    as the thread printed them) plus the server's CPU time, context switches
    per call, and the median per-call time of the calibrated samples."""
    # measured in random order, reported in the thread's: a stretch of load
    # from outside then falls on scattered tests rather than on neighbours
    # (remote null against remote add, say), where it would look like a result
    tests = list(paper.IPC_TESTS)
    res = {}
    for i in np.random.default_rng().permutation(len(tests)):
        mode, op = paper.IPC_TESTS[tests[i]]
        res[tests[i]] = run("procedure_call", profile=profile,
                            **_call_params(mode, op, transport, placement, fixed_calls))
    rows = [{"test": t, **_fixed_row(res[t].extras["fixed_run"]),
             "median_us": res[t].measured, "median_cycles": res[t].median_cycles} for t in tests]
    return TableRows("ipc_tests", pd.DataFrame(rows), {t: res[t] for t in tests},
                     {"transport": transport, "placement": placement,
                      "cpu": pinned_cpu() if placement != "unpinned" else None})


def ipc_per_call(t: TableRows) -> pd.DataFrame:
    """The thread's per-call table (µs per call) beside this machine's: the
    1989 figures on one pmax (and between two, marked as not measurable
    here), this machine's median of the calibrated samples (with its 95%
    interval columns), and its fixed run divided by its calls, client and
    server."""
    then = paper.load("ipc_tests_per_call").set_index("test")
    net = paper.load("network_ipc_per_call").set_index("test")
    rows = []
    for i, r in t.rows.iterrows():
        n = r["iterations"]
        us = lambda ms: ms * 1000 / n if ms is not None and ms == ms else math.nan  # noqa: E731
        rows.append({
            "test": r["test"],
            "pmax_elapsed_us": then.loc[r["test"], "elapsed_us"],
            "pmax_user_us": then.loc[r["test"], "user_us"],
            "pmax_system_us": then.loc[r["test"], "system_us"],
            "network_elapsed_us (paper only)": (net.loc[r["test"], "elapsed_us"]
                                                if r["test"] in net.index else math.nan),
            "median_us": t.cell("median_us", i),
            "elapsed_us": us(r["elapsed_ms"]),
            "user_us": us(r["user_ms"]), "system_us": us(r["system_ms"]),
            "server_user_us": us(r["server_user_ms"]),
            "server_system_us": us(r["server_system_ms"]),
        })
    df = pd.DataFrame(rows)
    iv.put(df, "median_us", list(df["median_us"]))
    return df


def forin_ratios(per_call: pd.DataFrame) -> pd.DataFrame:
    """Forin's reading, remote over local per operation, in 1989 (the
    thread's per-call table) and now (this machine's medians from
    ``ipc_per_call``; each ratio's 95% interval from its two medians'
    intervals, by their endpoints)."""
    ours = per_call[["test"]].copy()
    iv.put(ours, "elapsed_us", [iv.get(per_call, "median_us", i) for i in per_call.index])
    cols = ("local_us", "remote_us", "remote_over_local")
    then = iv.rename(paper.rpc_to_local_ratios(paper.load("ipc_tests_per_call")),
                     {c: c + "_1989" for c in cols})
    now = iv.rename(paper.rpc_to_local_ratios(ours), {c: c + "_now" for c in cols})
    return then.merge(now, on="operation")


def ipc_variants(profile: str = "quick", ops=("null", "string_inout"),
                 transports=("pipe", "socketpair"),
                 placements=("same_cpu", "different_cpus", "unpinned"),
                 fixed_calls: int = paper.ITERATIONS, progress: bool = True, recorder=None) -> pd.DataFrame:
    """remote calls over each transport and placement (points in random
    order): µs per call, and the fixed run's CPU time per call of both
    processes."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        placements = tuple(p for p in placements if p != "different_cpus")
    df = sweep("procedure_call", {"op": list(ops), "transport": list(transports),
                                  "placement": list(placements)},
               mode="process", fixed_calls=fixed_calls, profile=profile, progress=progress,
               shuffle=True, recorder=recorder)
    fixed = pd.DataFrame([_fixed_row(fx) for fx in df["fixed_run"]])
    n = fixed["iterations"]
    df["elapsed_us"] = fixed["elapsed_ms"] * 1000 / n
    df["client_cpu_us"] = (fixed["user_ms"] + fixed["system_ms"]) * 1000 / n
    df["server_cpu_us"] = (fixed["server_user_ms"] + fixed["server_system_ms"]) * 1000 / n
    df["switches_per_call"] = fixed["switches_per_call"]
    df["server_switches_per_call"] = fixed["server_switches_per_call"]
    return df


# ------------------------------------------------------------ exec, fork, touch, getpid

def unix_tests(profile: str = "quick") -> TableRows:
    """The thread's exec / touch / fork table with this machine's column
    (ms): exec as fork + exec of a tiny program + exit (and exec alone, the
    difference), fork as fork + exit, touch as the first write to a fresh
    page; and getpid per call (the thread prints seconds for an unstated
    number of calls).  The cells are ``cells.CELLS["unix_calls"]``."""
    t = measure_rows(CELLS["unix_calls"], profile)
    res = t.results
    mine = {test: t.cell(f"{test}_ms") for test in ("exec", "touch", "fork")}
    rows = paper.load("unix_calls").copy()
    ours = [mine.get(test, math.nan) for test in rows["test"]]
    rows["this_machine_ms"] = ours
    rows["mach_over_this_machine"] = [m / v for m, v in zip(rows["mach_ms"], ours)]
    return TableRows("unix_calls", rows, res,
                     {"exec_alone_ms": res["exec_ms"].median - res["fork_ms"].median,
                      "getpid_us": res["getpid_us"].median, "cpu": pinned_cpu()})


# ------------------------------------------------------------ Andrew

PHASES = {"Phase I": "mkdir", "Phase II": "copy", "Phase III": "stat", "Phase IV": "read",
          "Phase V": "compile"}


def andrew(profile: str = "quick", directory: str | None = None) -> TableRows:
    """Satya's (Andrew) benchmark phases as the thread printed them, with
    this machine's Modified Andrew Benchmark phases (medians over the runs)
    and every phase's share of the total, then and now."""
    r = measure_rows(CELLS["andrew"], profile, directory).results["total_s"]
    med = r.extras["phase_median_s"]
    rows = paper.load("andrew").copy()
    runs = pd.DataFrame(r.extras["phase_s"]) if r.extras.get("phase_s") else None
    cells = [r.measured if ph == "Total elapsed" else
             iv.of_samples(runs[PHASES[ph]], r.measured.unstable) if runs is not None else
             med[PHASES[ph]] for ph in rows["phase"]]
    rows["this_machine_s"] = [iv.value(c) for c in cells]
    phases = rows.phase != "Total elapsed"
    for col in ("ultrix_s", "mach_s", "this_machine_s"):
        # each phase's share of the phases' sum (this machine's total is the
        # median of whole runs, not the sum of per-phase medians); the
        # shares' intervals are not propagated (every phase is in the sum)
        rows[col.replace("_s", "_pct")] = (rows[col] / rows.loc[phases, col].sum() * 100).where(phases)
    rows["this_machine_s"] = cells   # the medians' 95% intervals go to TableRows.intervals
    return TableRows("andrew", rows, {"andrew": r},
                     {"runs": r.n_samples, "fs_type": r.extras.get("fs_type")})


# ------------------------------------------------------------ RPC, normalised

def rpc_rows(ipc: TableRows, rating: MipsRating, profile: str = "quick") -> TableRows:
    """This machine's rows for ``paper.rpc_ranking``: its null call to a
    server process (from ``ipc``), and a Sun RPC over loopback UDP (the
    nearest to the 1989 systems' user-to-user RPC over IP/UDP, minus the
    wire) when libtirpc is there; with the MIPS rating and its range."""
    base = {"hardware": "this machine", "mips": rating.rating, "mips_low": rating.low,
            "mips_high": rating.high}
    ipc_note = f"{ipc.notes['transport']}, {ipc.notes['placement']}"
    rows = [{"system": f"benchlib procedure_call ({ipc_note})", **base,
             "path": "one machine, two processes",
             "time_ms": ipc.results["remoteNull"].measured / 1e3}]
    res, skipped = {"procedure_call": ipc.results["remoteNull"]}, {}
    if have_rpc():
        r = run("rpc_latency", transport="udp", placement="same_cpu", profile=profile)
        res["rpc_latency"] = r
        rows.append({"system": "Sun RPC (libtirpc), loopback UDP", **base,
                     "path": "one machine, two processes, through UDP/IP (no wire)",
                     "time_ms": r.measured / 1e3})
    else:
        skipped["rpc_latency"] = "built without libtirpc"
    return TableRows("rpc_rows", pd.DataFrame(rows), res, {"skipped": skipped})


def normalised_ipc(per_call: pd.DataFrame, rating: float,
                   then_mips: float | None = None) -> pd.DataFrame:
    """Each IPC test then (one pmax) and now, in µs and normalised to a
    VAX-11/780 (time x MIPS), and this machine's MIPS-relative speed against
    the pmax (Ousterhout's measure: 1.0 = as much faster as the CPU).  The
    1989 figure is the total over 10000 calls divided out, not truncated; a
    total of 0 (under one 15.6 ms tick) gives no figure.  This machine's
    figures carry the median's 95% interval (the ratings taken as exact)."""
    then_mips = then_mips or paper.rating("pmax").mips
    totals = paper.load("ipc_tests").set_index("test")
    rows, cols = [], ("this_machine_us", "speedup", "this_machine_vax780_us", "mips_relative_speed")
    for i, r in per_call.iterrows():
        t = totals.loc[r["test"]]
        then = t["elapsed_ms"] * 1000 / t["iterations"] or math.nan
        now = iv.get(per_call, "median_us", i)
        rows.append({"test": r["test"], "pmax_us": then, "this_machine_us": now,
                     "speedup": then / now,
                     "pmax_vax780_us": then * then_mips, "this_machine_vax780_us": now * rating,
                     "mips_relative_speed": (then / now) / (rating / then_mips)})
    df = pd.DataFrame(rows)
    for c in cols:
        iv.put(df, c, list(df[c]))
    return df


def unix_table(t: TableRows, cpu_ratio: float) -> pd.DataFrame:
    """``unix_tests``' rows with their 95% intervals and this machine's
    MIPS-relative speed against Mach on the pmax (``cpu_ratio``: how many
    times faster the CPU is rated)."""
    out = t.with_intervals()
    iv.put(out, "mips_relative_vs_mach", [c / cpu_ratio if iv.value(c) == iv.value(c) else math.nan
                                          for c in (iv.get(out, "mach_over_this_machine", i)
                                                    for i in out.index)])
    return out


# ------------------------------------------------------------ how CPU time is counted here

def cpu_time_accounting() -> dict:
    """How this kernel splits CPU time into user and system, from its
    configuration when it is readable: ``tick`` (each clock tick charged to
    the mode it interrupted, the total then scaled to the precise run time:
    the split has the tick's resolution, as in 1989) or ``precise`` (time
    taken at every kernel entry and exit); with the tick rate."""
    cfg = kernel_config_text()[0]
    hz = re.search(r"^CONFIG_HZ=(\d+)", cfg, re.M)
    if re.search(r"^CONFIG_VIRT_CPU_ACCOUNTING_GEN=y", cfg, re.M) or \
            re.search(r"^CONFIG_VIRT_CPU_ACCOUNTING_NATIVE=y", cfg, re.M):
        mode = "precise"
    elif re.search(r"^CONFIG_TICK_CPU_ACCOUNTING=y", cfg, re.M):
        mode = "tick"
    else:
        mode = "unknown"
    return {"accounting": mode, "hz": int(hz.group(1)) if hz else None,
            "tick_ms": 1000 / int(hz.group(1)) if hz else None}


# --- Verdicts: the thread's claims answered from this run's numbers --------------------------------

# Forin, 22 Dec 1989: a call to another process is "slightly better than a factor of 10 slower"
# than a local call.
FORIN_REMOTE_OVER_LOCAL = 10.0
# A MIPS-relative speed at or above this counts as keeping pace with the CPU (Ousterhout's
# 1990 RISC machines, which "did not", ran kernel entry at 0.5-0.8).
KEPT_PACE = 0.8


def kept_pace(mips_relative, pace: float = KEPT_PACE) -> bool:
    """True if every MIPS-relative speed given reaches ``pace``."""
    values = np.atleast_1d(np.asarray(mips_relative, dtype=float))
    if values.size == 0 or np.isnan(values).any():
        raise ValueError("need at least one MIPS-relative speed, none NaN")
    return bool((values >= pace).all())


def within_factor(value: float, target: float, factor: float = 2.0) -> bool:
    """True if ``value`` lies within ``factor`` of ``target`` either way."""
    if value <= 0 or target <= 0 or factor < 1:
        raise ValueError(f"need positive values and a factor >= 1, got {value!r}, {target!r}, {factor!r}")
    return target / factor <= value <= target * factor
