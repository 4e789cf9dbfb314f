"""The results store: measured results appended, with their machine
metadata, as JSON lines under a results directory (one file per host so
that directories from several machines can simply be merged), and read
back into one DataFrame for comparison.  Each line is one record of the
versioned result format (benchlib.results.resultfile); lines written before the
format was versioned still load.

A notebook's output folder keeps its results in ``<output_dir>/results.json``
through a ``Recorder`` the notebook makes and hands its results to (or
passes to ``run``/``sweep`` as ``recorder=``): recording is always
explicit, never a state of the process."""
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
                 db: str | os.PathLike | None = None, on_error=None) -> pd.DataFrame:
    """Every stored result under results_dir (store files and result files,
    searched recursively; a file may be given too) as one DataFrame: one row
    per result, parameters as columns, the main machine fields as
    ``machine.*`` columns, ``stable`` and the full record in ``record``.
    With ``db`` (a URL or an SQLite path; see benchlib.results.db), the same
    DataFrame from the results database instead, in import order.
    ``on_error(path, error)``: skip a file under results_dir that is not a
    valid result file, after calling it (else such a file stops the reading)."""
    if db is not None:
        from benchlib.results.db import load_results as load_from_db

        return load_from_db(db)
    if not Path(results_dir).exists():
        return pd.DataFrame()
    return pd.DataFrame([result_row(rec) for rec in
                         resultfile.load_records(results_dir, on_error=on_error)])


# ---------------------------------------------------------------- recorder

REWRITE_EVERY_S = 2.0  # after the first 20 results, rewrite at most this often (and at flush)


class Recorder:
    """A result file that the caller fills explicitly: ``Recorder(out,
    "ousterhout1990")`` writes ``out/results.json``, and every result handed
    to it (``rec.add(...)``, or ``run(..., recorder=rec)`` / ``sweep(...,
    recorder=rec)`` and the paper functions that take ``recorder``) is in
    that file, rewritten atomically.  Nothing is recorded that the caller
    did not pass: there is no recorder of the process, and a second
    Recorder of another folder records independently.

    ``add`` takes Results, iterables of them, and anything with a
    ``results`` mapping or list (a paper's ``TableRows``); a Result handed
    over twice is recorded once.  The file is
    rewritten after each of the first 20 results, then at most every
    REWRITE_EVERY_S seconds, and on ``flush()`` (also at exit, so a sweep of
    hundreds of results does not rewrite megabytes between measurements).
    Results already in the file are kept."""

    def __init__(self, output_dir: str | os.PathLike, notebook: str | None = None,
                 file_name: str = resultfile.RESULT_FILE_NAME):
        self.path = Path(output_dir) / file_name
        self.notebook = notebook
        self._lines: list[str] = []
        self._kept: dict[int, object] = {}  # the Results recorded (each once, however handed over)
        self._written, self._at = 0, 0.0
        if self.path.exists():
            try:
                self._lines = [json.dumps(r) for r in resultfile.read_records(self.path)]
                self._written = len(self._lines)
            except BenchlibError:
                pass  # an unreadable old file is replaced
        atexit.register(self.flush)

    def __len__(self) -> int:
        return len(self._lines)

    def add(self, *items) -> "Recorder":
        """Record Results (or iterables of them, or objects with ``results``)."""
        for r in _results_in(items):
            if id(r) in self._kept:
                continue
            self._kept[id(r)] = r
            if self.notebook and isinstance(getattr(r, "provenance", None), dict):
                r.provenance["notebook"] = self.notebook
            self._lines.append(resultfile.dumps_record(r))
            if len(self._lines) <= 20 or time.monotonic() - self._at >= REWRITE_EVERY_S:
                self.flush()
        return self

    def flush(self) -> None:
        """Rewrite the result file (atomically) if it is behind."""
        if self._written == len(self._lines):
            return
        head = json.dumps({"schema_version": resultfile.SCHEMA_VERSION, "format": resultfile.FORMAT,
                           "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")})
        resultfile.write_text_atomic(self.path, head[:-1] + ', "results": [\n'
                                     + ",\n".join(self._lines) + "\n]}\n")
        self._written, self._at = len(self._lines), time.monotonic()


def _results_in(items) -> Iterable:
    for item in items:
        if item is None:
            continue
        if hasattr(item, "samples") and hasattr(item, "benchmark"):
            yield item
        elif hasattr(item, "results"):
            res = item.results
            yield from _results_in([res.values() if isinstance(res, dict) else res])
        elif isinstance(item, dict):
            yield from _results_in([item.values()])
        else:
            try:
                it = iter(item)
            except TypeError:
                raise BenchlibError(f"a Recorder records Results, not {type(item).__name__}") from None
            yield from _results_in(it)


def notebook_output_dir(output_dir: str | os.PathLike | None, notebook: str) -> Path:
    """Where a notebook writes figures and CSVs: ``output_dir`` when given
    (papermill passes one), else ``results/interactive/<notebook>`` at the
    repository root, so "Run all" in JupyterLab writes somewhere sensible
    whatever the working directory.  Nothing is recorded by this: a notebook
    that keeps its results makes a ``Recorder(out, notebook)`` and hands it
    what it measured."""
    if output_dir:
        out = Path(output_dir)
    else:
        out = Path(__file__).resolve().parents[2] / DEFAULT_RESULTS_DIR / "interactive" / notebook
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchlibError(f"cannot create output directory {out}: {exc.strerror}") from None
    return out
