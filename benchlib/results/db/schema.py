"""The results database's tables (SQLAlchemy Core) and their migrations.

The schema is versioned in the table ``schema_version`` (one row per applied
step).  ``upgrade(engine)`` applies every step the database lacks, in order,
in one transaction each, under a lock, so several processes that open a new
database at once create it exactly once.  A fresh database is built by the
same steps a later version will run on an old one, so the upgrade path is the
path every test takes.

    v1  machines, runs, results, samples
    v2  results.stable, results.unstable_reasons, results.ci_low, results.ci_high
        (the noise diagnostics of the versioned result file) and imported_files
        (each file imported: its content hash, when, how many results it added)
"""
from __future__ import annotations

import datetime as _dt

import sqlalchemy as sa

from benchlib.errors import BenchlibError

SCHEMA_VERSION = 2
_PG_LOCK_ID = 0x62656E63  # "benc": the advisory lock that serialises migrations


def _v1_tables(md: sa.MetaData) -> None:
    sa.Table(
        "machines", md,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("machine_key", sa.String(64), nullable=False, unique=True),
        sa.Column("hostname", sa.Text),
        sa.Column("cpu_model", sa.Text),
        sa.Column("arch", sa.Text),
        sa.Column("cpus_online", sa.Integer),
        sa.Column("memory_total_bytes", sa.BigInteger),
        sa.Column("l1d_bytes", sa.BigInteger),
        sa.Column("l2_bytes", sa.BigInteger),
        sa.Column("l3_bytes", sa.BigInteger),
        sa.Column("virtualized", sa.Boolean),
        sa.Column("hypervisor_hint", sa.Text),
        sa.Column("info", sa.Text, nullable=False),  # JSON: the first description seen
    )
    sa.Table(
        "runs", md,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("run_key", sa.String(64), nullable=False, unique=True),
        sa.Column("machine_id", sa.Integer, sa.ForeignKey("machines.id"), nullable=False, index=True),
        sa.Column("profile", sa.Text),
        sa.Column("producer", sa.Text),   # the command or notebook
        sa.Column("label", sa.Text),      # e.g. the reproduce.sh run folder
        sa.Column("kernel", sa.Text),
        sa.Column("benchlib_version", sa.Text),
        sa.Column("git_commit", sa.Text),
        sa.Column("environment", sa.Text, nullable=False),  # JSON
    )
    sa.Table(
        "results", md,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("result_key", sa.String(64), nullable=False, unique=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id"), nullable=False, index=True),
        sa.Column("benchmark", sa.Text, nullable=False, index=True),
        sa.Column("params", sa.Text, nullable=False),  # JSON, keys sorted
        sa.Column("unit", sa.Text),
        sa.Column("value", sa.Double),
        sa.Column("min", sa.Double),
        sa.Column("median", sa.Double),
        sa.Column("max", sa.Double),
        sa.Column("rel_iqr", sa.Double),
        sa.Column("n_samples", sa.Integer),
        sa.Column("timestamp", sa.Text),
        sa.Column("record", sa.Text, nullable=False),  # JSON: the record less its sample arrays
    )
    sa.Table(
        "samples", md,
        sa.Column("result_id", sa.Integer, sa.ForeignKey("results.id"), primary_key=True),
        sa.Column("sample_index", sa.Integer, primary_key=True),
        sa.Column("value", sa.Double),
        sa.Column("ns_per_iteration", sa.Double),
        sa.Column("tsc_ticks_per_iteration", sa.Double),
        sa.Column("clock_ghz", sa.Double),
    )


def _v2_result_columns() -> list[sa.Column]:
    return [sa.Column("stable", sa.Boolean),
            sa.Column("unstable_reasons", sa.Text),  # JSON list
            sa.Column("ci_low", sa.Double),
            sa.Column("ci_high", sa.Double)]


def _imported_files_table(md: sa.MetaData) -> sa.Table:
    return sa.Table(
        "imported_files", md,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("content_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("imported_at", sa.Text, nullable=False),
        sa.Column("results_added", sa.Integer, nullable=False),
    )


def _version_table(md: sa.MetaData) -> sa.Table:
    return sa.Table(
        "schema_version", md,
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("applied_at", sa.Text, nullable=False),
    )


def current_metadata() -> sa.MetaData:
    """The tables as the current version has them (for queries)."""
    md = sa.MetaData()
    _v1_tables(md)
    for col in _v2_result_columns():
        md.tables["results"].append_column(col)
    _imported_files_table(md)
    _version_table(md)
    return md


METADATA = current_metadata()
T = METADATA.tables


# -- the steps: each takes a connection inside a transaction -----------------
def _step_1(conn: sa.Connection) -> None:
    md = sa.MetaData()
    _v1_tables(md)
    md.create_all(conn)


def _step_2(conn: sa.Connection) -> None:
    prep = conn.dialect.identifier_preparer
    for col in _v2_result_columns():
        ddl = col.type.compile(dialect=conn.dialect)
        conn.exec_driver_sql(f"ALTER TABLE results ADD COLUMN {prep.quote(col.name)} {ddl}")
    md = sa.MetaData()
    _imported_files_table(md)
    md.create_all(conn)


STEPS = {1: _step_1, 2: _step_2}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def version(conn: sa.Connection) -> int:
    """The schema version of the database (0: empty)."""
    if not sa.inspect(conn).has_table("schema_version"):
        return 0
    v = conn.execute(sa.select(sa.func.max(T["schema_version"].c.version))).scalar()
    return int(v or 0)


def upgrade(engine: sa.Engine, target: int = SCHEMA_VERSION) -> int:
    """Bring the database to ``target``; returns the version it was at."""
    if target > SCHEMA_VERSION:
        raise BenchlibError(f"schema version {target} is unknown to this benchlib ({SCHEMA_VERSION})")
    vt = _version_table(sa.MetaData())
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_ID})
        start = version(conn)
        if start > SCHEMA_VERSION:
            raise BenchlibError(
                f"the database's schema is version {start}, newer than this benchlib knows "
                f"({SCHEMA_VERSION}); upgrade benchlib")
        if start == 0:
            vt.create(conn)
        for v in range(start + 1, target + 1):
            STEPS[v](conn)
            conn.execute(vt.insert().values(version=v, applied_at=_now()))
    return start
