"""Importing result files into the database: each file read and checked
whole first, then written in one transaction, so a bad file is named and
skipped and never half-imported; keys make a second import add nothing."""
from __future__ import annotations

import datetime as _dt
import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import sqlalchemy as sa

from benchlib.results import resultfile
from benchlib.errors import BenchlibError
from benchlib.results.db import records as R
from benchlib.results.db.schema import T

_ATTEMPTS = 3


@dataclass
class FileReport:
    path: str
    status: str  # "imported", "already imported" or "skipped"
    results_added: int = 0
    results_present: int = 0
    samples_added: int = 0
    error: str = ""


@dataclass
class ImportReport:
    files: list[FileReport] = field(default_factory=list)

    @property
    def skipped(self) -> list[FileReport]:
        return [f for f in self.files if f.status == "skipped"]

    @property
    def results_added(self) -> int:
        return sum(f.results_added for f in self.files)

    @property
    def samples_added(self) -> int:
        return sum(f.samples_added for f in self.files)


def find_result_files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """Files named, and result files found (recursively) under folders
    named (store/*.jsonl, results.json, *.results.json: the rule
    benchlib.load_results follows), in order, each once."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(resultfile._files_under(p))
        elif p.exists():
            out.append(p)
        else:
            raise BenchlibError(f"no such file or folder: {p}")
    seen, unique = set(), []
    for f in out:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique


def read_records(path: Path) -> tuple[list[dict], str, str]:
    """(records, producer, label) of one result file (.json) or store file
    (.jsonl), read and upgraded by benchlib.results.resultfile and validated against
    its schema; BadRecord says what is wrong and where."""
    try:
        recs = resultfile.read_records(path, check=False)
        for n, rec in enumerate(recs, 1):  # every record against the schema first
            resultfile.validate(rec, "record", f"{path}:{n}" if path.suffix == ".jsonl" else f"{path}")
        for n, rec in enumerate(recs, 1):
            try:
                R.check_record(rec)
            except R.BadRecord as exc:
                raise R.BadRecord(f"result {n}: {exc}") from None
    except BenchlibError as exc:
        msg = str(exc).replace(f"cannot read {path}:", "cannot read:").replace("\n", " ")
        if msg.startswith(f"{path}:"):  # "PATH:7: ..." -> "line 7: ...", "PATH: ..." -> "..."
            msg = re.sub(r"^(\d+):", r"line \1:", msg[len(f"{path}:"):].strip())
        raise R.BadRecord(msg) from None
    if not recs:
        raise R.BadRecord("no results in it")
    producer, label = R.provenance_from_path(path)
    return recs, producer, label


def _insert(conn: sa.Connection, table: sa.Table):
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(table)


def _ids(conn: sa.Connection, table: sa.Table, key: str, rows: dict[str, dict]) -> dict[str, int]:
    """Insert the rows whose key is new (another process may be inserting
    the same ones: ON CONFLICT DO NOTHING), then read every row's id."""
    if not rows:
        return {}
    conn.execute(_insert(conn, table).on_conflict_do_nothing(index_elements=[key]),
                 [rows[k] for k in sorted(rows)])  # one order for all: no deadlock
    col = table.c[key]
    got = conn.execute(sa.select(col, table.c.id).where(col.in_(list(rows)))).all()
    return {k: i for k, i in got}


def import_records(conn: sa.Connection, recs: list[dict], producer: str, label: str) -> FileReport:
    """Write one file's records inside the caller's transaction."""
    machines, runs, results = {}, {}, {}
    for rec in recs:
        m = R.machine_row(rec["machine"])
        machines.setdefault(m["machine_key"], m)
        run = R.run_row(rec, m["machine_key"], producer, label)
        runs.setdefault(run["run_key"], (run, m["machine_key"]))
        row, samples = R.result_rows(rec)
        results.setdefault(row["result_key"], (row, samples, run["run_key"]))
    machine_ids = _ids(conn, T["machines"], "machine_key", machines)
    run_ids = _ids(conn, T["runs"], "run_key", {
        k: {**run, "machine_id": machine_ids[mk]} for k, (run, mk) in runs.items()})
    res = T["results"]
    stmt = (_insert(conn, res).on_conflict_do_nothing(index_elements=["result_key"])
            .returning(res.c.id, res.c.result_key))
    added = conn.execute(stmt, [{**results[k][0], "run_id": run_ids[results[k][2]]}
                                for k in results]).all()  # file order: ids keep it
    sample_rows = []
    for rid, key in added:
        sample_rows.extend({**s, "result_id": rid} for s in results[key][1])
    if sample_rows:
        conn.execute(T["samples"].insert(), sample_rows)
    return FileReport("", "imported", results_added=len(added),
                      results_present=len(results) - len(added), samples_added=len(sample_rows))


def import_file(engine: sa.Engine, path: Path) -> FileReport:
    """One file in one transaction; a bad file comes back as 'skipped' with
    the reason, the database untouched by it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return FileReport(str(path), "skipped", error=f"cannot read: {exc.strerror}")
    digest = hashlib.sha256(data).hexdigest()
    files = T["imported_files"]
    with engine.connect() as conn:
        if conn.execute(sa.select(files.c.id).where(files.c.content_sha256 == digest)).first():
            return FileReport(str(path), "already imported")
    try:
        recs, producer, label = read_records(path)
    except R.BadRecord as exc:
        return FileReport(str(path), "skipped", error=str(exc))
    for attempt in range(_ATTEMPTS):
        try:
            with engine.begin() as conn:
                rep = import_records(conn, recs, producer, label)
                conn.execute(
                    _insert(conn, files).on_conflict_do_nothing(index_elements=["content_sha256"]),
                    {"content_sha256": digest, "path": str(path),
                     "imported_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                     "results_added": rep.results_added})
            break
        except sa.exc.DBAPIError as exc:
            reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
            transient = "deadlock" in reason or "could not serialize" in reason or "locked" in reason
            if transient and attempt + 1 < _ATTEMPTS:
                time.sleep(0.1 * (attempt + 1))  # rolled back whole: try the file again
                continue
            return FileReport(str(path), "skipped", error=f"database refused it: {reason}")
    rep.path = str(path)
    return rep


def import_paths(engine: sa.Engine, paths: Iterable[str | os.PathLike],
                 progress: Callable[[Iterable], Iterable] | None = None) -> ImportReport:
    files = find_result_files(paths)
    report = ImportReport()
    for f in (progress(files) if progress else files):
        report.files.append(import_file(engine, f))
    return report
