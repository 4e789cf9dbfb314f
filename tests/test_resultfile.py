"""The versioned result file: round trip, schema validation, old store lines."""
import json
import math
from pathlib import Path

import jsonschema
import dataclasses
from types import SimpleNamespace

import pytest

import benchlib
from benchlib.results import resultfile
from benchlib.errors import BenchlibError
from benchlib.results.store import Recorder, load_results, notebook_output_dir, save_results

DATA = Path(__file__).parent / "data" / "results"


@pytest.fixture(scope="module")
def result():
    return benchlib.run("syscall", op="getppid", profile="smoke")


def test_schema_is_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(resultfile.schema())


def test_round_trip_keeps_every_sample_exactly(result, tmp_path):
    path = resultfile.write(tmp_path / "r.json", [result])
    doc = json.loads(path.read_text())
    jsonschema.validate(doc, resultfile.schema())
    assert doc["schema_version"] == 2 and doc["format"] == "benchlib-results"
    back = resultfile.read(path)[0]
    assert back.samples == result.samples  # exact floats, not rounded
    assert back.ns_per_iteration == result.ns_per_iteration
    assert back.params == {"op": "getppid", "cpu": -1} and back.unit == "us"
    assert back.median == result.median
    rec = doc["results"][0]
    assert rec["provenance"]["benchlib_version"] == benchlib.__version__
    assert rec["machine"]["hostname"] == result.machine["hostname"]
    assert set(rec["diagnostics"]) >= {"steal_fraction", "involuntary_switches", "cpu_migrations",
                                       "clock_ghz_before", "clock_ghz_after", "loadavg",
                                       "median_ci95", "stable", "unstable_reasons"}
    lo, hi = rec["diagnostics"]["median_ci95"]
    assert lo <= result.median <= hi


def test_nan_is_written_as_null(result, tmp_path):
    result = resultfile.from_record(resultfile.to_record(result))
    result.tsc_ticks_per_iteration = [math.nan] * result.n_samples
    path = resultfile.write(tmp_path / "r.json", [result])
    text = path.read_text()
    assert "NaN" not in text
    assert resultfile.read(path)[0].tsc_ticks_per_iteration == [None] * result.n_samples


@pytest.mark.parametrize("breakage, where", [
    (lambda d: d.pop("schema_version"), r"\(top level\)"),
    (lambda d: d["results"][0].update(samples=[]), "results/0/samples"),
    (lambda d: d["results"][0].update(samples=["1.0"]), "results/0/samples/0"),
    (lambda d: d["results"][0]["diagnostics"].update(stable="yes"), "results/0/diagnostics/stable"),
    (lambda d: d["results"][0]["provenance"].update(git_commit="not a commit"),
     "results/0/provenance/git_commit"),
])
@pytest.mark.parametrize("compiled", [True, False], ids=["fastjsonschema", "jsonschema only"])
def test_validation_names_the_broken_field(result, breakage, where, compiled, monkeypatch):
    """Both paths pass and refuse the same documents: the compiled check
    (fastjsonschema) and jsonschema alone (where fastjsonschema is missing)."""
    if not compiled:
        monkeypatch.setattr(resultfile, "_fast_check", lambda kind: None)
    elif resultfile._fast_check("file") is None:
        pytest.skip("fastjsonschema is not installed")
    doc = resultfile.document([result])
    resultfile.validate(doc)
    breakage(doc)
    with pytest.raises(BenchlibError, match=f"at {where}"):
        resultfile.validate(doc)


def test_a_valid_file_is_checked_without_importing_jsonschema(result, tmp_path):
    """jsonschema, with the format checkers the notebook stack installs,
    takes 1.5-2 s to import: a valid file is passed by the compiled check."""
    import subprocess
    import sys

    if resultfile._fast_check("file") is None:
        pytest.skip("fastjsonschema is not installed")
    path = tmp_path / "r.json"
    path.write_text(json.dumps(resultfile.document([result])))
    code = ("import sys; from benchlib.results import resultfile; "
            f"resultfile.read_records({str(path)!r}); print('jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_old_store_lines_still_load():
    """A store file as written before the format was versioned (recorded)."""
    path = DATA / "store-v0.jsonl"
    recs = resultfile.read_records(path)
    assert len(recs) == 2 and all(r["schema_version"] == 2 for r in recs)
    raw = [json.loads(line) for line in path.read_text().splitlines()]
    assert "schema_version" not in raw[0] and "diagnostics" not in raw[0]
    assert recs[0]["samples"] == raw[0]["samples"]
    d = recs[0]["diagnostics"]
    assert d["steal_fraction"] is None and d["n_samples"] == len(raw[0]["samples"])
    assert d["median_ci95"][0] <= raw[0]["median"] <= d["median_ci95"][1]
    df = load_results(path)
    assert list(df["benchmark"]) == [r["benchmark"] for r in raw]


def test_store_lines_are_records(result, tmp_path):
    path = save_results([result], tmp_path)
    line = json.loads(path.read_text().splitlines()[0])
    resultfile.validate(line, kind="record")
    assert line["schema_version"] == 2


def test_newer_version_is_refused(result, tmp_path):
    doc = resultfile.document([result])
    doc["schema_version"] = 99
    (tmp_path / "r.json").write_text(json.dumps(doc))
    with pytest.raises(BenchlibError, match="newer than this benchlib"):
        resultfile.read(tmp_path / "r.json")


def test_not_a_result_file(tmp_path):
    (tmp_path / "x.json").write_text('{"a": 1}')
    with pytest.raises(BenchlibError, match="not a benchlib result file"):
        resultfile.read(tmp_path / "x.json")
    (tmp_path / "y.json").write_text('{"a": ')
    with pytest.raises(BenchlibError, match="not JSON"):
        resultfile.read(tmp_path / "y.json")


def test_a_recorder_records_what_it_is_given_and_nothing_else(tmp_path):
    """Recording is explicit: a notebook's output folder records nothing by
    itself; a Recorder records what is handed to it (run/sweep's recorder=,
    add of a Result, a list or a TableRows-like), each Result once."""
    out = notebook_output_dir(tmp_path / "nb", "demo")
    benchlib.run("syscall", profile="smoke")                  # no recorder: not recorded
    assert not (out / "results.json").exists()
    rec = Recorder(out, "demo")
    a = benchlib.run("syscall", profile="smoke", recorder=rec)
    save_results([a], out)  # the same measurement in the store: loaded once
    got = []
    benchlib.sweep("syscall", {"op": ["getpid", "write"]}, profile="smoke", progress=False,
                   recorder=rec, results=got)
    rec.add(got, a, SimpleNamespace(results={"x": got[0]}))  # already recorded: once each
    recs = resultfile.read_records(out / "results.json")
    assert [r["params"]["op"] for r in recs] == ["getpid", "getpid", "write"]
    assert {r["provenance"]["notebook"] for r in recs} == {"demo"}
    assert len(resultfile.load_records(out)) == 3  # results.json + store line, deduplicated
    assert not list(out.glob(".*tmp"))  # no temporary file left
    other = Recorder(tmp_path / "other")
    benchlib.run("syscall", profile="smoke", recorder=other)  # another recorder, another file
    assert len(resultfile.read_records(out / "results.json")) == 3
    assert len(resultfile.read_records(tmp_path / "other" / "results.json")) == 1
    with pytest.raises(BenchlibError, match="records Results"):
        rec.add(42)


def test_recording_is_throttled_after_20_results_and_flushed(tmp_path, monkeypatch, result):
    from benchlib.results import store

    monkeypatch.setattr(store, "REWRITE_EVERY_S", 1e9)
    rec = Recorder(tmp_path, "demo")
    copies = [dataclasses.replace(result, provenance=dict(result.provenance)) for _ in range(30)]
    rec.add(copies)
    path = tmp_path / "results.json"
    assert len(resultfile.read_records(path)) == 20  # the file lags behind...
    rec.flush()
    assert len(resultfile.read_records(path)) == 30  # ...until flushed (at exit, or here)
    again = Recorder(tmp_path, "demo")                 # a new recorder keeps what is there
    again.add(dataclasses.replace(result, provenance=dict(result.provenance))).flush()
    assert len(resultfile.read_records(path)) == 31


def test_result_file_mode_follows_the_umask(result, tmp_path):
    import os

    old = os.umask(0o022)
    try:
        path = resultfile.write(tmp_path / "r.json", [result])
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644


def test_version_1_records_upgrade_with_an_empty_process_record():
    """A store line of schema version 1 (validated against the v1 schema when
    it was recorded): read as version 2, its process record empty, since the
    process that ran it was not recorded then."""
    path = DATA / "store-v1.jsonl"
    raw = json.loads(path.read_text().splitlines()[0])
    assert raw["schema_version"] == 1 and "process" not in raw
    (rec,) = resultfile.read_records(path)
    assert rec["schema_version"] == 2 and rec["process"] == {}
    resultfile.validate(rec, kind="record")
    assert rec["samples"] == raw["samples"] and rec["diagnostics"] == raw["diagnostics"]
    assert resultfile.from_record(rec).process == {}


def test_a_record_names_the_process_that_ran_its_loop(result):
    rec = resultfile.to_record(result)
    p = rec["process"]
    assert p["kind"] in ("worker", "process") and p["threads"] >= 1
    for key in ("open_fds", "mappings", "signals_caught", "threads_after"):
        assert key in p
    for key in ("cpu_vulnerabilities", "smt", "kernel_cmdline", "thp_defrag"):
        assert key in rec["machine"]


def test_damon_pageout_is_read_from_sysfs(tmp_path):
    """A running kdamond whose scheme pages out memory cold for 12
    aggregation intervals of 5 s: the machine info says so, with the age in
    seconds; a stopped one, or none, gives nothing."""
    from benchlib.measuring.metadata import damon_schemes
    assert damon_schemes(tmp_path) == []
    k = tmp_path / "sys/kernel/mm/damon/admin/kdamonds/0"
    sc = k / "contexts/0/schemes/0"
    for rel, text in (("state", "on"), ("contexts/0/operations", "paddr"),
                      ("contexts/0/monitoring_attrs/intervals/aggr_us", "5000000"),
                      ("contexts/0/schemes/0/action", "pageout"),
                      ("contexts/0/schemes/0/access_pattern/age/min", "12"),
                      ("contexts/0/schemes/0/access_pattern/nr_accesses/max", "1")):
        (k / rel).parent.mkdir(parents=True, exist_ok=True)
        (k / rel).write_text(text + "\n")
    assert sc.is_dir()
    assert damon_schemes(tmp_path) == [{"kdamond": "0", "operations": "paddr", "action": "pageout",
                                        "min_age_s": 60.0, "max_accesses": "1"}]
    (k / "state").write_text("off\n")
    assert damon_schemes(tmp_path) == []
