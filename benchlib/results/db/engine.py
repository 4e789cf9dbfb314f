"""Opening the results database: a URL from ``--db``, ``BENCHLIB_DB`` or the
default SQLite file, an SQLAlchemy engine set up for several writers at once,
and the schema brought up to date."""
from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import event

from benchlib.errors import BenchlibError
from benchlib.results.db import schema

DEFAULT_DB_PATH = Path("results") / "benchlib.sqlite"
ENV_VAR = "BENCHLIB_DB"
SQLITE_BUSY_TIMEOUT_S = 120  # writers queue behind each other's transactions


def resolve_url(db: str | os.PathLike | None = None) -> str:
    """The database URL: ``db`` if given, else $BENCHLIB_DB, else
    ``sqlite:///results/benchlib.sqlite``.  A plain path means an SQLite file;
    ``postgresql://`` means PostgreSQL through psycopg 3."""
    db = db if db not in (None, "") else os.environ.get(ENV_VAR) or DEFAULT_DB_PATH
    text = os.fspath(db)
    if "://" not in text:
        return f"sqlite:///{Path(text).expanduser()}"
    scheme, rest = text.split("://", 1)
    if scheme in ("postgresql", "postgres"):
        return f"postgresql+psycopg://{rest}"
    if scheme.startswith("postgresql+") and scheme != "postgresql+psycopg":
        raise BenchlibError(f"PostgreSQL is reached through psycopg 3: use postgresql://... "
                            f"or postgresql+psycopg://... (got {scheme}://)")
    if scheme not in ("sqlite", "postgresql+psycopg"):
        raise BenchlibError(f"unsupported database URL scheme {scheme!r}: use a path, "
                            f"sqlite:///PATH or postgresql://USER@HOST/DB")
    return text


def _busy_delays(total_s: float = SQLITE_BUSY_TIMEOUT_S):
    """The sleeps between retries of a statement SQLite refused with
    SQLITE_BUSY without waiting: 1, 2, 4 ... ms, at most 100 ms each, adding
    up to the busy timeout (the shape of SQLite's own busy handler)."""
    delay, spent = 0.001, 0.0
    while spent < total_s:
        yield delay
        spent += delay
        delay = min(2 * delay, 0.1)


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    return (code & 0xFF) == 5 if code is not None else str(exc).startswith("database is locked")


def _set_wal(cur: sqlite3.Cursor) -> None:
    """PRAGMA journal_mode = WAL, waiting for other connections as the busy
    timeout would.

    A file not yet in WAL mode (a new one) is switched by writing its header:
    SQLite takes a read lock, then upgrades it to a write lock.  If another
    connection holds the write lock meanwhile (another process switching or
    creating the same new file), SQLite returns SQLITE_BUSY at once without
    calling the busy handler, because two connections waiting on each other's
    locks would deadlock (https://sqlite.org/c3ref/busy_handler.html).  The
    failed statement has let go of its read lock, so the other connection
    finishes, and the retry finds the file in WAL mode (nothing to write) or
    gets the write lock itself."""
    delays = _busy_delays()
    # a deadline too: where SQLite does call its busy handler, an attempt
    # itself can wait up to the busy timeout
    end = time.monotonic() + SQLITE_BUSY_TIMEOUT_S
    while True:
        try:
            cur.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            delay = next(delays, None)
            if delay is None or not _is_busy(exc) or time.monotonic() > end:
                raise
        time.sleep(delay)


def _sqlite_setup(engine: sa.Engine) -> None:
    """Let pysqlite leave transactions to us, and start each with BEGIN
    IMMEDIATE: a writer takes the write lock at once and others wait for it
    (busy timeout) instead of failing halfway with 'database is locked'."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_S * 1000}")
        _set_wal(cur)
        cur.execute("PRAGMA foreign_keys = ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def redacted(url: str) -> str:
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return url


def open_db(db: str | os.PathLike | None = None, *, upgrade: bool = True) -> sa.Engine:
    """An engine on the results database, its schema brought up to date.
    Any failure to reach it is a one-line BenchlibError."""
    url = resolve_url(db)
    try:
        u = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        raise BenchlibError(f"not a database URL: {url!r}") from None
    if u.get_backend_name() == "sqlite":
        if not u.database or u.database == ":memory:":
            raise BenchlibError("an SQLite results database needs a file: sqlite:///PATH")
        parent = Path(u.database).expanduser().resolve().parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BenchlibError(f"cannot create {parent} for the database: {exc.strerror}") from None
        engine = sa.create_engine(u, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S},
                                  poolclass=sa.pool.NullPool)
        _sqlite_setup(engine)
    else:
        try:
            engine = sa.create_engine(u, pool_pre_ping=True)
        except ModuleNotFoundError as exc:
            raise BenchlibError(f"PostgreSQL needs psycopg 3 ({exc.name} missing): "
                                f"pip install 'benchlib[fleet]'") from None
    if upgrade:
        try:
            schema.upgrade(engine)
        except sa.exc.OperationalError as exc:
            engine.dispose()
            reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
            raise BenchlibError(f"cannot open the database {redacted(url)}: {reason}") from None
    return engine
