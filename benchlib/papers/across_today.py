"""Today's machines in the shape of ``across.dataset()``: this machine
measured now with the project's benchmarks, and any machine whose results
are in a results store (the paper notebooks save theirs).

Each primitive of ``across.PRIMITIVES`` that can be measured here has one
``Measure``: the benchmark and parameters that measure it, and the rule that
recognises the same measurement in a stored result.  The CPU speed is a
VAX-MIPS rating from the ``integer_speed`` benchmark, converted with the
Ousterhout paper module's ``vax_mips`` (its basis is stated in each row).
"""
from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass
from typing import Callable

import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.measuring.harness import Result, run
from benchlib.measuring.metadata import machine_info
from benchlib.papers.across import COLUMNS, PRIMITIVES, paper_module

RATING_PAPER = "ousterhout1990"      # whose vax_mips converts native MIPS
RATING_BASIS = ("measured: integer_speed native MIPS (median) / (2 instructions per VAX "
                "instruction x 0.47 native MIPS of a VAX-11/780), as in the Ousterhout notebook")
SMOKE_UNCACHED_BYTES = 16 << 20      # smoke keeps sizes tiny; the row says so


def llc_bytes(machine: dict) -> int:
    return int(machine.get("l3_bytes") or machine.get("l2_bytes") or (32 << 20))


def uncached_bytes(machine: dict, profile: str) -> int:
    """A block 4x the last-level cache, within a quarter of the memory
    available (as the memory notebook sizes it); tiny at smoke."""
    if profile == "smoke":
        return SMOKE_UNCACHED_BYTES
    from benchlib.memory.measure import max_size_bytes
    return max_size_bytes(machine)


def cached_bytes(machine: dict) -> int:
    return max(4096, int(machine.get("l2_bytes") or (256 << 10)) // 4)


@dataclass(frozen=True)
class Measure:
    benchmark: str
    params: Callable[[dict, str], dict]          # (machine, profile) -> parameters
    matches: Callable[[dict, dict], bool]        # (stored params, machine) -> same measurement?
    unit: str                                    # the benchmark's unit
    pin: bool = True
    file: bool = False
    conditions: Callable[[dict], str] = lambda p: ""


def _eq(**want) -> Callable[[dict, dict], bool]:
    return lambda p, m: all(p.get(k) == v for k, v in want.items())


MEASURES: dict[str, Measure] = {
    "kernel_entry": Measure("syscall", lambda m, pr: {"op": "getpid"}, _eq(op="getpid"), "us",
                            conditions=lambda p: "getpid through syscall(2), pinned"),
    "context_switch": Measure("context_switch",
                              lambda m, pr: {"processes": 2, "process_kb": 0,
                                             "placement": "same_cpu"},
                              _eq(processes=2, process_kb=0, placement="same_cpu"), "us",
                              pin=False, conditions=lambda p: "2 processes, 0 KB, one CPU"),
    "pipe_round_trip": Measure("pipe_latency", lambda m, pr: {"placement": "same_cpu"},
                               _eq(placement="same_cpu"), "us", pin=False,
                               conditions=lambda p: "both processes on one CPU"),
    "memory_copy_cached": Measure("bcopy", lambda m, pr: {"size_bytes": cached_bytes(m)},
                                  lambda p, m: 0 < p.get("size_bytes", 0) <= cached_bytes(m),
                                  "MB/s", conditions=lambda p: f"{p['size_bytes']} bytes"),
    "memory_copy_uncached": Measure(
        "bcopy", lambda m, pr: {"size_bytes": uncached_bytes(m, pr)},
        lambda p, m: p.get("size_bytes", 0) >= 2 * llc_bytes(m), "MB/s",
        conditions=lambda p: f"{p['size_bytes']} bytes"),
    "main_memory_latency": Measure(
        "mem_latency", lambda m, pr: {"size_bytes": uncached_bytes(m, pr), "pattern": "random"},
        lambda p, m: p.get("pattern") == "random" and p.get("size_bytes", 0) >= 2 * llc_bytes(m),
        "ns", conditions=lambda p: f"random chase over {p['size_bytes']} bytes"),
    "file_create_delete": Measure("fs_create_delete",
                                  lambda m, pr: {"file_bytes": 0, "fsync": "no"},
                                  _eq(file_bytes=0, fsync="no"), "ms", file=True,
                                  conditions=lambda p: "create, close, open, close, delete; "
                                  "no data; no fsync"),
    "process_fork": Measure("process_creation", lambda m, pr: {"op": "fork_exit"},
                            _eq(op="fork_exit"), "ms", pin=False),
    "process_fork_exec": Measure("process_creation", lambda m, pr: {"op": "fork_exec_exit"},
                                 _eq(op="fork_exec_exit"), "ms", pin=False),
    "tcp_round_trip_local": Measure("ipc_latency",
                                    lambda m, pr: {"transport": "tcp", "placement": "same_cpu"},
                                    _eq(transport="tcp", placement="same_cpu"), "us", pin=False,
                                    conditions=lambda p: "loopback, one CPU"),
    "udp_round_trip_local": Measure("ipc_latency",
                                    lambda m, pr: {"transport": "udp", "placement": "same_cpu"},
                                    _eq(transport="udp", placement="same_cpu"), "us", pin=False,
                                    conditions=lambda p: "loopback, one CPU"),
    "rpc_round_trip_local": Measure("rpc_latency",
                                    lambda m, pr: {"transport": "udp", "placement": "same_cpu"},
                                    _eq(transport="udp", placement="same_cpu"), "us", pin=False,
                                    conditions=lambda p: "Sun RPC over UDP, loopback, one CPU"),
    "tcp_bandwidth_local": Measure("ipc_bandwidth", lambda m, pr: {"transport": "tcp"},
                                   _eq(transport="tcp"), "MB/s", pin=False,
                                   conditions=lambda p: "loopback"),
}
_TO_STD = {("us", "us"): 1.0, ("ms", "ms"): 1.0, ("ns", "ns"): 1.0, ("MB/s", "MB/s"): 1.0}


def vax_mips(native_mips: float) -> float:
    return float(paper_module(RATING_PAPER).vax_mips(native_mips))


def _row(primitive: str, value: float, unit: str, machine: dict, year: int, rating: float,
         source: str, conditions: str) -> dict:
    unit_std = PRIMITIVES[primitive][0]
    host = machine.get("hostname") or "unknown"
    return {"paper": "today", "table": source, "row_label": host, "row_index": math.nan,
            "column": "median", "system": f"{host} ({machine.get('cpu_model') or 'CPU unknown'})",
            "machine": host, "os": machine.get("kernel") or "", "year": year,
            "year_basis": "year of the measurement", "cpu": machine.get("cpu_model") or "",
            "cpu_mhz": math.nan, "cpu_mhz_source": "", "cpu_mips": rating,
            "cpu_mips_basis": RATING_BASIS if rating == rating else "",
            "primitive": primitive, "value": value, "unit": unit,
            "value_std": value * _TO_STD[(unit, unit_std)], "unit_std": unit_std,
            "locality": "local", "conditions": conditions,
            "higher_is_better": PRIMITIVES[primitive][1]}


def measure_this_machine(profile: str = "quick", directory: str | None = None,
                         progress: bool = True, only: list[str] | None = None,
                         rating: float | None = None) -> tuple[pd.DataFrame, list[Result], dict]:
    """Measure the primitives of ``MEASURES`` (or ``only`` those) here, and
    the CPU rating unless ``rating`` is given (from the store).
    Returns (rows, results, skipped: primitive -> why not measured)."""
    machine = machine_info()
    cpu = min(os.sched_getaffinity(0))
    year = pd.Timestamp.now(tz="UTC").year
    results, skipped = [], {}
    if rating is None or rating != rating:
        rating_r = run("integer_speed", cpu=cpu, profile=profile)
        results.append(rating_r)
        rating = vax_mips(rating_r.median)
    rows = []
    items = [(p, m) for p, m in MEASURES.items() if only is None or p in only]
    if progress:
        from tqdm.auto import tqdm
        items = tqdm(items, desc="primitives")
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        for prim, m in items:
            params = m.params(machine, profile)
            if m.pin:
                params["cpu"] = cpu
            if m.file:
                params["directory"] = tmp
            try:
                r = run(m.benchmark, profile=profile, **params)
            except BenchlibError as e:
                if m.benchmark != "rpc_latency":
                    raise
                skipped[prim] = str(e)
                continue
            results.append(r)
            cond = m.conditions(params)
            if m.file and r.extras.get("fs_type"):
                cond += f"; {r.extras['fs_type']}"
            rows.append(_row(prim, r.median, m.unit, machine, year, rating,
                             f"measured now ({profile})", cond))
    return pd.DataFrame(rows).reindex(columns=COLUMNS + ["higher_is_better"]), results, skipped


def from_store(stored: pd.DataFrame, prefer_not: str = "smoke",
               skip_profiles: tuple[str, ...] = ()) -> pd.DataFrame:
    """Rows from a results store (``benchlib.load_results``): per host and
    primitive, the latest matching result (one of another profile than
    ``prefer_not`` when there is one; none of ``skip_profiles``); the host's
    rating from its latest ``integer_speed`` result, or empty."""
    if stored is None or stored.empty:
        return pd.DataFrame(columns=COLUMNS + ["higher_is_better"])
    recs = [r for r in stored["record"] if r.get("profile") not in skip_profiles]
    recs.sort(key=lambda r: ((r.get("profile") != prefer_not), r.get("timestamp") or ""))
    latest: dict[tuple, dict] = {}
    for rec in recs:            # later (and preferred) records overwrite earlier ones
        host = rec.get("machine", {}).get("hostname") or "unknown"
        if rec["benchmark"] == "integer_speed":
            latest[(host, "rating")] = rec
            continue
        for prim, m in MEASURES.items():
            if rec["benchmark"] == m.benchmark and m.matches(rec.get("params", {}),
                                                              rec.get("machine", {})):
                latest[(host, prim)] = rec
    rows = []
    for (host, prim), rec in latest.items():
        if prim == "rating":
            continue
        r = latest.get((host, "rating"))
        rating = vax_mips(r["median"]) if r else math.nan
        year = int(str(rec.get("timestamp") or "0")[:4] or 0) or math.nan
        m = MEASURES[prim]
        rows.append(_row(prim, float(rec["median"]), m.unit, rec.get("machine", {}), year,
                         rating, f"results store ({rec.get('profile')}, {rec.get('timestamp')})",
                         m.conditions(rec.get("params", {}))))
    return pd.DataFrame(rows).reindex(columns=COLUMNS + ["higher_is_better"])


def missing(rows: pd.DataFrame, host: str) -> list[str]:
    """Primitives of MEASURES with no row for ``host``."""
    have = set(rows.loc[rows["machine"] == host, "primitive"]) if len(rows) else set()
    return [p for p in MEASURES if p not in have]
