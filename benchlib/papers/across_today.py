"""Today's machines in the shape of ``across.dataset()``: this machine
measured now with the project's benchmarks, and any machine whose results
are in a results store (the paper notebooks save theirs).

Each primitive of ``across.PRIMITIVES`` that can be measured here is a cell
a paper declares (``CELLS``: primitive -> paper, table, column, row of that
paper's ``cells.CELLS``): the same benchmark, parameters and sizes as the
paper's notebook measures it, and the rule that recognises the same
measurement in a stored result (``papers.tables.matches``).  The CPU speed
(``cpu_rating``, the axis every era shares: a ratio to the VAX-11/780) is a
VAX-MIPS rating measured by the ``integer_speed`` benchmark, converted with
the Ousterhout paper module's ``vax_mips`` (its basis is stated in each row).
"""
from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.measuring.harness import Result, run
from benchlib.measuring.metadata import machine_info
from benchlib.results.store import load_results
from benchlib.papers import cell, load_table
from benchlib.papers.across import _TO_STD, COLUMNS, PRIMITIVES, paper_module
from benchlib.papers.tables import Column, column_params, matches, unit_of

RATING_PAPER = "ousterhout1990"      # whose vax_mips converts native MIPS
RATING_BASIS = ("measured: integer_speed native MIPS (median) / (2 instructions per VAX "
                "instruction x 0.47 native MIPS of a VAX-11/780), as in the Ousterhout notebook")
RATING_KIND = "VAX-MIPS (measured)"
UNRATED = "no integer_speed result for this host in the store"
REPOSITORY_RESULTS = Path(__file__).resolve().parents[2] / "results"

# primitive -> the paper cell that measures it: (paper, table, column, row key)
CELLS: dict[str, tuple[str, str, str, str | None]] = {
    "kernel_entry": ("ousterhout1990", "table02", "time_us", "pinned"),
    "context_switch": ("mcvoy1996", "context_switch", "p2_0kb_us", None),
    "pipe_round_trip": ("mcvoy1996", "pipe_latency", "pipe_us", None),
    "memory_copy_cached": ("ousterhout1990", "table05", "cached_mb_s", None),
    "memory_copy_uncached": ("ousterhout1990", "table05", "uncached_mb_s", None),
    "main_memory_latency": ("mcvoy1996", "memory_latency", "main_memory_ns", None),
    "file_create_delete": ("ousterhout1990", "table10", "no_data_ms", "local"),
    "process_fork": ("mcvoy1996", "process_creation", "fork_exit_ms", None),
    "process_fork_exec": ("mcvoy1996", "process_creation", "fork_exec_exit_ms", None),
    "tcp_round_trip_local": ("mcvoy1996", "tcp_latency", "tcp_us", None),
    "udp_round_trip_local": ("mcvoy1996", "udp_latency", "udp_us", None),
    "rpc_round_trip_local": ("mcvoy1996", "udp_latency", "rpc_udp_us", None),
    "tcp_bandwidth_local": ("mcvoy1996", "tcp_bandwidth", "tcp_mb_s", None),
}


def column_of(primitive: str) -> Column:
    """The declared cell that measures ``primitive``."""
    return cell(*CELLS[primitive])


def unit(primitive: str) -> str:
    """The unit of the cell that measures ``primitive``."""
    return unit_of(CELLS[primitive][2])


def conditions(primitive: str, params: dict | None = None) -> str:
    """What was measured, in words: the benchmark as run (or as declared)
    and the paper cell it stands for."""
    paper, table, column, row = CELLS[primitive]
    return (f"{column_of(primitive).describe(params)}; as {paper} {table} {column}"
            + (f" ({row})" if row else ""))


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
            "cpu_mhz": math.nan, "cpu_mhz_source": "", "cpu_rating": rating,
            "cpu_rating_kind": RATING_KIND if rating == rating else "",
            "cpu_rating_basis": RATING_BASIS if rating == rating else "",
            "cpu_rating_status": "rated" if rating == rating else "unrated",
            "cpu_unrated_reason": "" if rating == rating else UNRATED,
            "primitive": primitive, "value": value, "unit": unit,
            "value_std": value * _TO_STD[(unit, unit_std)], "unit_std": unit_std,
            "locality": "local", "conditions": conditions,
            "higher_is_better": PRIMITIVES[primitive][1]}


def measure_this_machine(profile: str = "quick", directory: str | None = None,
                         progress: bool = True, only: list[str] | None = None,
                         rating: float | None = None) -> tuple[pd.DataFrame, list[Result], dict]:
    """Measure the primitives of ``CELLS`` (or ``only`` those) here, each as
    its paper declares it, and the CPU rating unless ``rating`` is given
    (from the store).  A size read from the caches that this machine does
    not report is a BenchlibError naming the cache.
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
    items = [p for p in CELLS if only is None or p in only]
    if progress:
        from tqdm.auto import tqdm
        items = tqdm(items, desc="primitives")
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        for prim in items:
            col = column_of(prim)
            params = column_params(col, tmp, machine, profile)
            try:
                r = run(col.benchmark, profile=profile, **params)
            except BenchlibError as e:
                if not col.optional:
                    raise
                skipped[prim] = str(e)
                continue
            results.append(r)
            cond = conditions(prim, params)
            if col.file and r.extras.get("fs_type"):
                cond += f"; {r.extras['fs_type']}"
            rows.append(_row(prim, r.median * col.scale, unit(prim), machine, year, rating,
                             f"measured now ({profile})", cond))
    return pd.DataFrame(rows).reindex(columns=COLUMNS + ["higher_is_better"]), results, skipped


def read_store(results_dir: str | os.PathLike | None = None, say=print) -> pd.DataFrame:
    """Every result stored under ``results_dir`` (None: the repository's
    ``results/``), as ``benchlib.load_results`` gives them.  A file there
    that is not a benchlib result file, or cannot be read, is skipped with
    one line (``say``) naming it."""
    root = REPOSITORY_RESULTS if results_dir is None else Path(results_dir)
    return load_results(root, on_error=lambda path, e: say(f"skipped {path}: {e}"))


def from_store(stored: pd.DataFrame, prefer_not: str = "smoke",
               skip_profiles: tuple[str, ...] = ()) -> pd.DataFrame:
    """Rows from a results store (``read_store``): per host and primitive,
    the latest result that is the primitive's declared measurement (one of
    another profile than ``prefer_not`` when there is one; none of
    ``skip_profiles``); the host's rating from its latest ``integer_speed``
    result, or empty."""
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
        for prim in CELLS:
            col = column_of(prim)
            if rec["benchmark"] == col.benchmark and matches(col, rec.get("params", {}),
                                                             rec.get("machine", {})):
                latest[(host, prim)] = rec
    rows = []
    for (host, prim), rec in latest.items():
        if prim == "rating":
            continue
        r = latest.get((host, "rating"))
        rating = vax_mips(r["median"]) if r else math.nan
        year = int(str(rec.get("timestamp") or "0")[:4] or 0) or math.nan
        rows.append(_row(prim, float(rec["median"]) * column_of(prim).scale, unit(prim),
                         rec.get("machine", {}), year, rating,
                         f"results store ({rec.get('profile')}, {rec.get('timestamp')})",
                         conditions(prim, rec.get("params", {}))))
    return pd.DataFrame(rows).reindex(columns=COLUMNS + ["higher_is_better"])


def missing(rows: pd.DataFrame, host: str) -> list[str]:
    """Primitives of CELLS with no row for ``host``."""
    have = set(rows.loc[rows["machine"] == host, "primitive"]) if len(rows) else set()
    return [p for p in CELLS if p not in have]


def against_table1(rating: float) -> dict:
    """A VAX-MIPS rating against Ousterhout's Table 1 (read from its CSV):
    the MicroVAX II (his yardstick) and his fastest machine, their ratings
    and how many times each this rating is."""
    ous = paper_module(RATING_PAPER)
    hw = load_table(RATING_PAPER, "table01")
    ref = hw[hw["abbrev"] == ous.machine_of(ous.REFERENCE)].iloc[0]
    top = hw.loc[hw["mips"].idxmax()]
    return {"reference": ref["hardware"], "reference_mips": float(ref["mips"]),
            "times_reference": rating / float(ref["mips"]),
            "fastest": top["hardware"], "fastest_mips": float(top["mips"]),
            "times_fastest": rating / float(top["mips"])}
