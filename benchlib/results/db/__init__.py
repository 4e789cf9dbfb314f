"""The results database: many machines' results in one place.

SQLite by default (``results/benchlib.sqlite``, nothing to start); PostgreSQL
when given a URL (``postgresql://USER@HOST/DB``, through psycopg 3), by
argument, ``--db`` or ``$BENCHLIB_DB``.  SQLAlchemy Core; tables machines,
runs, results and samples; a versioned schema upgraded on open.

    engine = benchlib.results.db.open_db("results/benchlib.sqlite")
    report = benchlib.results.db.import_paths(engine, ["results/"])
    df = benchlib.load_results(db="results/benchlib.sqlite")
"""
from __future__ import annotations

import os

from benchlib.results.db.engine import DEFAULT_DB_PATH, ENV_VAR, open_db, redacted, resolve_url
from benchlib.results.db.importer import FileReport, ImportReport, find_result_files, import_paths
from benchlib.results.db.query import counts, load_records, runs_table
from benchlib.results.db.schema import SCHEMA_VERSION


def load_results(db: str | os.PathLike | None = None, benchmark: str | None = None):
    """The DataFrame ``benchlib.load_results(dir)`` gives, from the database."""
    from benchlib.results.db.query import load_results as _load

    engine = open_db(db)
    try:
        return _load(engine, benchmark)
    finally:
        engine.dispose()


__all__ = ["DEFAULT_DB_PATH", "ENV_VAR", "SCHEMA_VERSION", "FileReport", "ImportReport",
           "counts", "find_result_files", "import_paths", "load_records", "load_results",
           "open_db", "redacted", "resolve_url", "runs_table"]
