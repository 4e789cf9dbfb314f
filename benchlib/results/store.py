"""The results store: measured results appended, with their machine
metadata, as JSON lines under a results directory (one file per host so
that directories from several machines can simply be merged), and read
back into one DataFrame for comparison.  Each line is one record of the
versioned result format (benchlib.results.resultfile); lines written before the
format was versioned still load.

A notebook's output folder records too: ``notebook_output_dir`` turns on a
recorder, and every result ``benchlib.run``/``sweep`` returns afterwards in
that process is also written to ``<output_dir>/results.json`` (a result
file, rewritten atomically after each result)."""
from __future__ import annotations

import atexit
import datetime as _dt
import json
import os
import time
import re
from pathlib import Path
from typing import Iterable

import pandas as pd

from benchlib.results import resultfile
from benchlib.results.resultfile import result_row  # noqa: F401  (a record as one DataFrame row)
from benchlib.errors import BenchlibError

DEFAULT_RESULTS_DIR = "results"
def store_path(results_dir: str | os.PathLike, hostname: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", hostname or "unknown")
    return Path(results_dir) / "store" / f"{safe}.jsonl"


def save_results(results: Iterable, results_dir: str | os.PathLike = DEFAULT_RESULTS_DIR) -> Path | None:
    """Append results (benchlib.Result objects) to the store; returns the file."""
    flush_recording()  # a notebook's save_results also brings results.json up to date
    path = None
    for r in results:
        path = store_path(results_dir, r.machine.get("hostname", "unknown"))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a") as f:
                f.write(resultfile.dumps_record(r) + "\n")
        except OSError as exc:
            raise BenchlibError(f"cannot write results to {path}: {exc.strerror}") from None
    return path


def load_results(results_dir: str | os.PathLike = DEFAULT_RESULTS_DIR, *,
                 db: str | os.PathLike | None = None) -> pd.DataFrame:
    """Every stored result under results_dir (store files and result files,
    searched recursively; a file may be given too) as one DataFrame: one row
    per result, parameters as columns, the main machine fields as
    ``machine.*`` columns, ``stable`` and the full record in ``record``.
    With ``db`` (a URL or an SQLite path; see benchlib.results.db), the same
    DataFrame from the results database instead, in import order."""
    if db is not None:
        from benchlib.results.db import load_results as load_from_db

        return load_from_db(db)
    if not Path(results_dir).exists():
        return pd.DataFrame()
    return pd.DataFrame([result_row(rec) for rec in resultfile.load_records(results_dir)])


# ---------------------------------------------------------------- recorder

_recorder: dict = {"path": None, "notebook": None, "lines": [], "written": 0, "at": 0.0, "atexit": False}
REWRITE_EVERY_S = 2.0  # after the first 20 results, rewrite at most this often (and at exit)


def record_to(path: str | os.PathLike | None, notebook: str | None = None) -> None:
    """Write every result measured from now on to the result file ``path``
    (None: stop recording).  Results already in the file are kept."""
    flush_recording()
    _recorder.update(lines=[], written=0, path=Path(path) if path else None,
                     notebook=notebook if path else None)
    if path and Path(path).exists():
        try:
            _recorder["lines"] = [json.dumps(r) for r in resultfile.read_records(path)]
            _recorder["written"] = len(_recorder["lines"])
        except BenchlibError:
            pass  # an unreadable old file is replaced
    if path and not _recorder["atexit"]:
        atexit.register(flush_recording)
        _recorder["atexit"] = True


def flush_recording() -> None:
    """Rewrite the recording's result file (atomically) if it is behind."""
    path, lines = _recorder["path"], _recorder["lines"]
    if path is None or _recorder["written"] == len(lines):
        return
    head = json.dumps({"schema_version": resultfile.SCHEMA_VERSION, "format": resultfile.FORMAT,
                       "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")})
    resultfile.write_text_atomic(path, head[:-1] + ', "results": [\n' + ",\n".join(lines) + "\n]}\n")
    _recorder["written"], _recorder["at"] = len(lines), time.monotonic()


def record_result(result) -> None:
    """Called by the harness for every result: add it to the recording.  The
    file is rewritten after each of the first 20 results, then at most every
    REWRITE_EVERY_S seconds and at exit (a notebook with hundreds of results
    would otherwise rewrite megabytes between measurements)."""
    if _recorder["path"] is None:
        return
    if _recorder["notebook"] and getattr(result, "provenance", None) is not None:
        result.provenance["notebook"] = _recorder["notebook"]
    _recorder["lines"].append(resultfile.dumps_record(result))
    if len(_recorder["lines"]) <= 20 or time.monotonic() - _recorder["at"] >= REWRITE_EVERY_S:
        flush_recording()


def notebook_output_dir(output_dir: str | os.PathLike | None, notebook: str) -> Path:
    """Where a notebook writes figures and CSVs: ``output_dir`` when given
    (papermill passes one), else ``results/interactive/<notebook>`` at the
    repository root, so "Run all" in JupyterLab writes somewhere sensible
    whatever the working directory.  From then on every result measured in
    this process is also recorded in ``<out>/results.json`` (see record_to)."""
    if output_dir:
        out = Path(output_dir)
    else:
        out = Path(__file__).resolve().parents[2] / DEFAULT_RESULTS_DIR / "interactive" / notebook
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchlibError(f"cannot create output directory {out}: {exc.strerror}") from None
    record_to(out / resultfile.RESULT_FILE_NAME, notebook)
    return out
