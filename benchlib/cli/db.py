"""``benchlib db``: import result files into the results database and list
what it holds.

    benchlib db import PATH... [--db URL]   files, folders, whole results/ trees
    benchlib db list [--db URL] [--json]    machines and runs, with counts

The database is ``--db``, else $BENCHLIB_DB, else results/benchlib.sqlite.
A bad file is named and skipped (exit 1 once the rest are imported).
"""
from __future__ import annotations

import json
import sys

from benchlib.errors import BenchlibError


def _needs_db_extra() -> None:
    """One line, no traceback, when the database's packages are not installed."""
    try:
        import sqlalchemy  # noqa: F401
    except ImportError:
        raise BenchlibError("the results database needs SQLAlchemy, which is not installed: "
                            "pip install 'benchlib[db]'") from None


def cmd_db_import(args) -> int:
    _needs_db_extra()
    from benchlib.results.db import import_paths, open_db, redacted, resolve_url

    engine = open_db(args.db)
    try:
        progress = None
        if sys.stderr.isatty() and not args.quiet:
            from tqdm import tqdm

            def progress(files):
                return tqdm(files, desc="importing", unit="file")
        report = import_paths(engine, args.paths, progress=progress)
    finally:
        engine.dispose()
    for f in report.files:
        if f.status == "skipped":
            print(f"benchlib: skipped {f.path}: {f.error}", file=sys.stderr)
        elif not args.quiet:
            print(f"{f.path}: {f.status}, {f.results_added} results added"
                  + (f", {f.results_present} already present" if f.results_present else ""))
    n_ok = len(report.files) - len(report.skipped)
    print(f"{n_ok} of {len(report.files)} files imported into {redacted(resolve_url(args.db))}: "
          f"{report.results_added} results, {report.samples_added} samples added"
          + (f"; {len(report.skipped)} skipped" if report.skipped else ""))
    return 1 if report.skipped else 0


def cmd_db_list(args) -> int:
    _needs_db_extra()
    from benchlib.results.db import counts, open_db, runs_table

    engine = open_db(args.db)
    try:
        runs, n = runs_table(engine), counts(engine)
    finally:
        engine.dispose()
    if args.json:
        print(json.dumps({"counts": n, "runs": runs.to_dict(orient="records")}, indent=1,
                         default=str))
        return 0
    if runs.empty:
        print("the database holds no results")
        return 0
    print(runs.to_string(index=False))
    print(f"\n{n['machines']} machines, {n['runs']} runs, {n['results']} results, "
          f"{n['samples']} samples from {n['imported_files']} files")
    return 0


def add_parser(sub) -> None:
    """Register ``db import`` and ``db list`` under the main parser."""
    p = sub.add_parser("db", help="the results database: import files, list machines and runs")
    dsub = p.add_subparsers(dest="db_command", metavar="DB_COMMAND", required=True)
    db_help = "database URL or SQLite path (default: $BENCHLIB_DB or results/benchlib.sqlite)"

    q = dsub.add_parser("import", help="import result files, folders or results/ trees")
    q.add_argument("paths", nargs="+", metavar="PATH")
    q.add_argument("--db", default=None, help=db_help)
    q.add_argument("-q", "--quiet", action="store_true", help="print only skipped files and the total")
    q.set_defaults(func=cmd_db_import)

    q = dsub.add_parser("list", help="machines and runs in the database, with counts")
    q.add_argument("--db", default=None, help=db_help)
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_db_list)
