"""The results database, on SQLite and on a throwaway PostgreSQL server:
idempotent import, the same DataFrame as from files, a corrupt file named
and skipped, concurrent importers, the schema's upgrade path."""
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time

import pandas as pd
import pytest
import sqlalchemy as sa

import benchlib
from benchlib.results import db as bdb
from benchlib.results.db import schema
from benchlib.errors import BenchlibError
from db_helpers import PgServer, find_pg_bin, machine, record, simulated_tree, write_store

_names = itertools.count()


@pytest.fixture(scope="session")
def pg_server():
    if find_pg_bin() is None:
        pytest.skip("PostgreSQL is not installed (Debian package 'postgresql'; .ci/run installs it)")
    server = PgServer().start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'results.sqlite'}"
    server = request.getfixturevalue("pg_server")
    return server.create_database(f"t{os.getpid()}_{next(_names)}")


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "benchlib.cli", *args], capture_output=True,
                          text=True, timeout=300, env=env)


def test_import_twice_adds_nothing(db_url, tmp_path):
    known = simulated_tree(tmp_path / "tree")
    engine = bdb.open_db(db_url)
    first = bdb.import_paths(engine, [tmp_path / "tree"])
    after_first = bdb.counts(engine)
    second = bdb.import_paths(engine, [tmp_path / "tree"])
    after_second = bdb.counts(engine)
    engine.dispose()
    assert after_first == after_second
    assert after_first["results"] == known["results"] and after_first["samples"] == known["samples"]
    assert after_first["machines"] == known["machines"]
    assert first.results_added == known["results"] and second.results_added == 0
    assert {f.status for f in second.files} == {"already imported"}


def test_same_records_in_a_new_file_add_nothing(db_url, tmp_path):
    simulated_tree(tmp_path / "tree", n_files=2)
    engine = bdb.open_db(db_url)
    bdb.import_paths(engine, [tmp_path / "tree"])
    before = bdb.counts(engine)
    # the same lines concatenated into a file of different content and path
    both = "".join(p.read_text() for p in sorted((tmp_path / "tree").rglob("*.jsonl")))
    (tmp_path / "copy.jsonl").write_text(both + "\n")
    rep = bdb.import_paths(engine, [tmp_path / "copy.jsonl"])
    after = bdb.counts(engine)
    engine.dispose()
    assert rep.files[0].status == "imported" and rep.files[0].results_present == before["results"]
    assert {k: after[k] for k in ("machines", "results", "samples")} == \
        {k: before[k] for k in ("machines", "results", "samples")}


def test_same_dataframe_as_from_files(db_url, tmp_path):
    simulated_tree(tmp_path / "tree", n_files=3)
    engine = bdb.open_db(db_url)
    bdb.import_paths(engine, [tmp_path / "tree"])
    engine.dispose()
    from_files = benchlib.load_results(tmp_path / "tree")
    from_db = benchlib.load_results(db=db_url)
    pd.testing.assert_frame_equal(from_files, from_db)
    assert len(from_db) == 15 and from_db["record"][0]["samples"] == from_files["record"][0]["samples"]


def test_corrupt_file_named_and_skipped(db_url, tmp_path):
    known = simulated_tree(tmp_path / "tree", n_files=4)
    bad = tmp_path / "tree" / "broken" / "store" / "bad.jsonl"
    good_line = json.dumps(record("syscall", {"op": "write"}, machine("badhost"), 5, seed=7))
    write_store(bad, [])
    bad.write_text(good_line + "\n" + good_line[:40] + "\n")  # a valid line, then a cut one
    r = _cli("db", "import", str(tmp_path / "tree"), "--db", db_url)
    assert r.returncode == 1
    assert f"skipped {bad}: line 2: not JSON" in r.stderr
    assert "Traceback" not in r.stderr
    assert "4 of 5 files imported" in r.stdout
    engine = bdb.open_db(db_url)
    n = bdb.counts(engine)
    hosts = set(bdb.runs_table(engine)["hostname"])
    engine.dispose()
    assert n["results"] == known["results"] and "badhost" not in hosts  # not half-imported


def test_concurrent_importers_lose_and_double_nothing(db_url, tmp_path):
    """4 processes import the same 8 files at once, each in its own order."""
    known = simulated_tree(tmp_path / "tree", n_files=8)
    files = sorted(str(p) for p in (tmp_path / "tree").rglob("*.jsonl"))
    # SQLite: a file that does not exist yet, so the four also race to create it
    for url in [db_url if db_url.startswith("postgresql") else f"sqlite:///{tmp_path / 'new.sqlite'}"]:
        procs = [subprocess.Popen([sys.executable, "-m", "benchlib.cli", "db", "import", "-q",
                                   "--db", url, *(files[k:] + files[:k])],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for k in (0, 2, 4, 6)]
        outs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0] * 4, [o[1] for o in outs]
        engine = bdb.open_db(url)
        n = bdb.counts(engine)
        engine.dispose()
        assert n["results"] == known["results"] and n["samples"] == known["samples"]
        assert n["machines"] == known["machines"] and n["imported_files"] == 8


def test_new_sqlite_file_waits_for_the_process_creating_it(tmp_path, monkeypatch):
    """Switching a new file to WAL while another connection holds its write
    lock gets SQLITE_BUSY from SQLite at once, busy timeout or not (one of
    the concurrent importers above, creating the same file, on CI at 208d6b1):
    open_db retries the switch until the lock is let go."""
    import sqlite3

    path = tmp_path / "new.sqlite"
    creator = sqlite3.connect(path, isolation_level=None, timeout=0)
    creator.execute("BEGIN IMMEDIATE")  # another process halfway through creating the file
    slept = []

    def sleep(s):
        slept.append(s)
        if len(slept) == 3:
            creator.execute("ROLLBACK")

    monkeypatch.setattr(time, "sleep", sleep)  # the retries' sleeps
    engine = bdb.open_db(path)
    with engine.connect() as conn:
        mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
        v = schema.version(conn)
    engine.dispose()
    creator.close()
    assert len(slept) == 3 and mode == "wal" and v == schema.SCHEMA_VERSION
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.sqlite"]


def test_sqlite_lock_never_let_go_is_a_one_line_error(tmp_path, monkeypatch):
    """The retries of the WAL switch wait as long as the busy timeout in all,
    then give the error every other open failure gives."""
    import sqlite3

    from benchlib.results.db import engine as eng

    path = tmp_path / "new.sqlite"
    creator = sqlite3.connect(path, isolation_level=None, timeout=0)
    creator.execute("BEGIN IMMEDIATE")
    slept = []
    monkeypatch.setattr(time, "sleep", slept.append)
    with pytest.raises(BenchlibError, match=r"^cannot open the database .*: database is locked$"):
        bdb.open_db(path)
    creator.close()
    assert sum(slept) == pytest.approx(eng.SQLITE_BUSY_TIMEOUT_S, abs=0.1)
    assert max(slept) == 0.1


def test_interrupted_import_leaves_no_row(db_url, tmp_path, monkeypatch):
    simulated_tree(tmp_path / "tree", n_files=1)
    engine = bdb.open_db(db_url)
    real = bdb.importer.import_records

    def interrupted(conn, *a, **k):
        real(conn, *a, **k)  # rows written inside the transaction...
        raise KeyboardInterrupt  # ...then Ctrl-C before commit

    monkeypatch.setattr(bdb.importer, "import_records", interrupted)
    with pytest.raises(KeyboardInterrupt):
        bdb.import_paths(engine, [tmp_path / "tree"])
    n = bdb.counts(engine)
    engine.dispose()
    assert n == {"machines": 0, "runs": 0, "results": 0, "samples": 0, "imported_files": 0}


def _v1_database(url):
    """A database as version 1 left it, holding one result."""
    engine = bdb.open_db(url, upgrade=False)
    schema.upgrade(engine, target=1)
    rec = record("syscall", {"op": "getppid"}, machine("oldhost"), 5, seed=1)
    m, res = schema._v1_tables, None
    md = sa.MetaData()
    m(md)
    with engine.begin() as conn:
        conn.execute(md.tables["machines"].insert(), {"machine_key": "k", "hostname": "oldhost",
                                                      "info": "{}"})
        conn.execute(md.tables["runs"].insert(), {"run_key": "r", "machine_id": 1, "environment": "{}"})
        conn.execute(md.tables["results"].insert(), {"result_key": "x", "run_id": 1,
                                                     "benchmark": "syscall", "params": "{}",
                                                     "record": json.dumps(rec)})
    return engine


def test_upgrade_from_version_1(db_url):
    engine = _v1_database(db_url)
    with engine.connect() as conn:
        assert schema.version(conn) == 1
        assert "stable" not in {c["name"] for c in sa.inspect(conn).get_columns("results")}
    engine.dispose()
    engine = bdb.open_db(db_url)  # opening upgrades
    with engine.connect() as conn:
        assert schema.version(conn) == schema.SCHEMA_VERSION == 2
        cols = {c["name"] for c in sa.inspect(conn).get_columns("results")}
        assert {"stable", "unstable_reasons", "ci_low", "ci_high"} <= cols
        assert conn.execute(sa.text("SELECT hostname FROM machines")).scalar() == "oldhost"
        assert conn.execute(sa.text("SELECT count(*) FROM results")).scalar() == 1
    engine.dispose()


def test_newer_schema_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.sqlite'}"
    engine = bdb.open_db(url)
    with engine.begin() as conn:
        conn.execute(schema.T["schema_version"].insert(), {"version": 99, "applied_at": "later"})
    engine.dispose()
    with pytest.raises(BenchlibError, match="version 99, newer than this benchlib"):
        bdb.open_db(url)


def test_urls():
    assert bdb.resolve_url("x/y.sqlite") == "sqlite:///x/y.sqlite"
    assert bdb.resolve_url("postgresql://u@h/d") == "postgresql+psycopg://u@h/d"
    with pytest.raises(BenchlibError, match="psycopg 3"):
        bdb.resolve_url("postgresql+psycopg2://u@h/d")
    with pytest.raises(BenchlibError, match="unsupported"):
        bdb.resolve_url("mysql://u@h/d")


def test_env_var_chooses_database(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHLIB_DB", str(tmp_path / "env.sqlite"))
    assert bdb.resolve_url(None) == f"sqlite:///{tmp_path / 'env.sqlite'}"
    monkeypatch.delenv("BENCHLIB_DB")
    assert bdb.resolve_url(None) == "sqlite:///results/benchlib.sqlite"


def test_cli_errors_are_one_line(tmp_path):
    r = _cli("db", "list", "--db", "mysql://x@y/z")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "unsupported" in r.stderr
    r = _cli("db", "import", str(tmp_path / "nothing-here"), "--db", str(tmp_path / "d.sqlite"))
    assert r.returncode == 2 and "no such file or folder" in r.stderr and "Traceback" not in r.stderr
    r = _cli("db", "list", "--db", f"postgresql://nobody@/x?host={tmp_path}")
    assert r.returncode == 2 and "cannot open the database" in r.stderr
    assert "Traceback" not in r.stderr


def test_db_list_shows_machines_and_runs(tmp_path):
    simulated_tree(tmp_path / "tree", n_files=3)
    url = str(tmp_path / "l.sqlite")
    assert _cli("db", "import", "-q", str(tmp_path / "tree"), "--db", url).returncode == 0
    r = _cli("db", "list", "--db", url, "--json")
    data = json.loads(r.stdout)
    assert data["counts"]["results"] == 15 and data["counts"]["machines"] == 3
    assert sorted({run["hostname"] for run in data["runs"]}) == ["host0", "host1", "host2"]
    assert sum(run["samples"] for run in data["runs"]) == data["counts"]["samples"]


def test_versioned_result_files_and_notebook_folders(db_url, tmp_path):
    """A notebook's output folder holds each measurement twice (results.json
    and its store line): one row each, the same DataFrame as from the files,
    the run named after the notebook, the noise diagnostics in columns."""
    from benchlib.results import resultfile

    m = machine("nbhost")
    recs = [resultfile.upgrade(record("syscall", {"op": "getppid", "cpu": k}, m, 9, seed=k))
            for k in range(4)]
    for r in recs:
        r["provenance"].update(notebook="00_quickstart", git_commit="abc1234")
    run = tmp_path / "nbhost-20261123-170000"
    resultfile.write(run / "00_quickstart" / "results.json", recs)
    write_store(run / "00_quickstart" / "store" / "nbhost.jsonl", recs)
    resultfile.write(tmp_path / "other.results.json",
                     [resultfile.upgrade(record("bcopy", {"size_bytes": 4096}, m, 5, seed=99))])
    engine = bdb.open_db(db_url)
    rep = bdb.import_paths(engine, [run, tmp_path / "other.results.json"])
    runs = bdb.runs_table(engine)
    with engine.connect() as conn:
        ci = conn.execute(sa.select(schema.T["results"].c.ci_low, schema.T["results"].c.ci_high,
                                    schema.T["results"].c.stable)).all()
    engine.dispose()
    assert [f.results_added for f in rep.files] == [4, 0, 1], rep.files  # results.json, then the store
    assert rep.files[1].results_present == 4
    nb_run = runs[runs["producer"] == "notebook 00_quickstart"].iloc[0]
    assert nb_run["label"] == "nbhost-20261123-170000" and nb_run["git_commit"] == "abc1234"
    assert all(lo is not None and lo <= hi for lo, hi, _ in ci)
    assert {s for _, _, s in ci} <= {True, False} and len(ci) == 5
    from_files, from_db = benchlib.load_results(run), benchlib.load_results(db=db_url)
    assert list(from_db["record"][:4]) == list(from_files["record"])  # upgraded, validated, whole
    assert list(from_db["stable"][:4]) == list(from_files["stable"])


def test_invalid_versioned_file_is_named_and_skipped(tmp_path):
    from benchlib.results import resultfile

    good = resultfile.upgrade(record("syscall", {"op": "getppid"}, machine("h"), 5, seed=1))
    resultfile.write(tmp_path / "in" / "good.results.json", [good])
    bad = dict(good)
    del bad["unit"]
    doc = resultfile.document([good])
    doc["results"].append(bad)
    (tmp_path / "in" / "bad.results.json").write_text(json.dumps(doc))
    url = str(tmp_path / "v.sqlite")
    r = _cli("db", "import", str(tmp_path / "in"), "--db", url)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"skipped {tmp_path / 'in' / 'bad.results.json'}: not a valid benchlib result" in r.stderr
    engine = bdb.open_db(url)
    assert bdb.counts(engine)["results"] == 1  # the good file, and nothing of the bad one
    engine.dispose()


@pytest.mark.parametrize("fast", [True, False], ids=["fastjsonschema", "jsonschema"])
def test_both_validators_refuse_the_same_record(fast, tmp_path, monkeypatch):
    from benchlib.results import resultfile
    from benchlib.results.db import importer

    if not fast:
        monkeypatch.setattr(resultfile, "_fast_check", lambda kind: None)
    elif resultfile._fast_check("record") is None:
        pytest.skip("fastjsonschema is not installed")
    good = resultfile.upgrade(record("syscall", {"op": "getppid"}, machine("h"), 5, seed=1))
    write_store(tmp_path / "good.jsonl", [good])
    assert len(importer.read_records(tmp_path / "good.jsonl")[0]) == 1
    bad = json.loads(json.dumps(good))
    bad["samples"][2] = "fast"
    write_store(tmp_path / "bad.jsonl", [good, bad])
    with pytest.raises(bdb.records.BadRecord, match=r"^line 2: not a valid benchlib result record at samples/2"):
        importer.read_records(tmp_path / "bad.jsonl")
