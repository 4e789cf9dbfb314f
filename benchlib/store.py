"""The results store: measured results appended, with their machine
metadata, as JSON lines under a results directory (one file per host so
that directories from several machines can simply be merged), and read
back into one DataFrame for comparison."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterable

import pandas as pd

from .errors import BenchlibError

DEFAULT_RESULTS_DIR = "results"
_MACHINE_COLUMNS = ("hostname", "cpu_model", "cpus_online", "kernel", "virtualized",
                    "thp_enabled", "l1d_bytes", "l2_bytes", "l3_bytes", "compiler",
                    "benchlib_version")


def store_path(results_dir: str | os.PathLike, hostname: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", hostname or "unknown")
    return Path(results_dir) / "store" / f"{safe}.jsonl"


def save_results(results: Iterable, results_dir: str | os.PathLike = DEFAULT_RESULTS_DIR) -> Path | None:
    """Append results (benchlib.Result objects) to the store; returns the file."""
    path = None
    for r in results:
        path = store_path(results_dir, r.machine.get("hostname", "unknown"))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a") as f:
                f.write(json.dumps(r.to_dict(), default=float) + "\n")
        except OSError as exc:
            raise BenchlibError(f"cannot write results to {path}: {exc.strerror}") from None
    return path


def result_row(rec: dict) -> dict:
    """One DataFrame row of a stored result record: parameters as columns,
    the main machine fields as ``machine.*``, the record itself in ``record``."""
    machine = rec.get("machine", {})
    row = {"benchmark": rec["benchmark"], **rec.get("params", {}),
           **{k: rec.get(k) for k in ("value", "unit", "min", "median", "max",
                                      "rel_iqr", "n_samples", "profile", "timestamp")}}
    row.update({f"machine.{k}": machine.get(k) for k in _MACHINE_COLUMNS})
    row["record"] = rec
    return row


def load_results(results_dir: str | os.PathLike = DEFAULT_RESULTS_DIR, *,
                 db: str | os.PathLike | None = None) -> pd.DataFrame:
    """Every stored result under results_dir (searched recursively) as one
    DataFrame: one row per result, parameters as columns, the main machine
    fields as ``machine.*`` columns and the full record in ``record``.
    With ``db`` (a URL or an SQLite path; see benchlib.db), the same
    DataFrame from the results database instead, in import order."""
    if db is not None:
        from .db import load_results as load_from_db

        return load_from_db(db)
    files = sorted(Path(results_dir).rglob("*.jsonl"))
    rows = []
    for f in files:
        for n, line in enumerate(f.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise BenchlibError(f"{f}:{n}: not a JSON result line") from None
            rows.append(result_row(rec))
    return pd.DataFrame(rows)


def notebook_output_dir(output_dir: str | os.PathLike | None, notebook: str) -> Path:
    """Where a notebook writes figures and CSVs: ``output_dir`` when given
    (papermill passes one), else ``results/interactive/<notebook>`` at the
    repository root, so "Run all" in JupyterLab writes somewhere sensible
    whatever the working directory."""
    if output_dir:
        out = Path(output_dir)
    else:
        out = Path(__file__).resolve().parents[1] / DEFAULT_RESULTS_DIR / "interactive" / notebook
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchlibError(f"cannot create output directory {out}: {exc.strerror}") from None
    return out
