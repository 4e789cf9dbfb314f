import json

import benchlib
from benchlib.results.store import load_results, save_results, store_path


def test_round_trip_two_machines(tmp_path):
    a = benchlib.run("syscall", profile="smoke")
    b = benchlib.run("syscall", op="write", profile="smoke")
    b.machine = {**b.machine, "hostname": "other-machine", "cpu_model": "Other CPU"}
    save_results([a], tmp_path)
    save_results([b], tmp_path)
    assert store_path(tmp_path, a.machine["hostname"]).exists()
    df = load_results(tmp_path)
    assert len(df) == 2
    assert set(df["machine.hostname"]) == {a.machine["hostname"], "other-machine"}
    row = df[df["machine.hostname"] == "other-machine"].iloc[0]
    assert row["op"] == "write" and row["value"] == b.value
    assert row["record"]["samples"] == b.samples


def test_appending_keeps_earlier_results(tmp_path):
    r = benchlib.run("syscall", profile="smoke")
    save_results([r], tmp_path)
    save_results([r], tmp_path)
    lines = store_path(tmp_path, r.machine["hostname"]).read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["benchmark"] == "syscall"


def test_empty_dir(tmp_path):
    assert load_results(tmp_path).empty
