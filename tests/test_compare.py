"""benchlib compare on recorded result files (tests/data/compare/): an A/A
pair of quick runs of bench/core_suite.py (each benchmark measured twice
back to back: `bench/core_suite.py aa_a.json --twice aa_b.json`), and the
real differences inside them.  No live timing."""
import json
import shutil
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

from benchlib.results import compare as bc  # noqa: E402
from benchlib.results import resultfile  # noqa: E402
from benchlib.cli import main  # noqa: E402
from benchlib.errors import BenchlibError  # noqa: E402

DATA = Path(__file__).parent / "data" / "compare"
A, B = DATA / "aa_a.json", DATA / "aa_b.json"


def test_recorded_files_are_valid_and_paired():
    ra, rb = resultfile.read_records(A), resultfile.read_records(B)
    assert len(ra) == len(rb) >= 20
    assert [r["benchmark"] for r in ra] == [r["benchmark"] for r in rb]
    assert all(r["profile"] == "quick" for r in ra + rb)


def test_aa_pair_no_difference_for_90_percent_of_stable_results():
    """Recorded on the shared 2-vCPU VM: back-to-back quick runs still move
    (fork_exit 76 -> 130 us), and the diagnostics flag those runs."""
    df = bc.compare(A, B, margin=0.10)
    s = bc.summary(df)
    assert s["compared"] == len(resultfile.read_records(A)) == 24
    assert s["stable_on_both_sides"] >= 12
    assert s["no_difference_fraction_stable"] >= 0.90
    assert s["no_difference_fraction"] >= 0.80
    # every difference found between the two halves of an A/A pair involves
    # a result the diagnostics had already flagged unstable
    differ = df[df["verdict"].isin(["faster", "slower"])]
    assert (differ["note"] != "").all() and s["differing_with_an_unstable_side"] == len(differ)


def test_aa_pair_at_5_percent_has_few_false_differences():
    df = bc.compare(A, B, margin=0.05)
    s = bc.summary(df)
    assert (s["faster"] + s["slower"]) / s["compared"] <= 0.20
    assert s["no_difference_fraction"] >= 0.5


def test_a_result_against_itself_never_differs():
    # the copies are resampled independently: a wide interval stays inconclusive
    df = bc.compare(A, A)
    assert set(df["verdict"]) <= {"no difference", "inconclusive"} and (df["ratio"] == 1.0).all()
    assert (df["ratio_ci95_lo"] <= 1).all() and (df["ratio_ci95_hi"] >= 1).all()


def test_self_check_halves():
    df = bc.self_check(A)
    s = bc.summary(df)
    assert (s["faster"] + s["slower"]) / s["compared"] <= 0.10
    halves = bc.self_check(A, cycles=True)       # each half keeps its own samples' clock
    assert "cycles" in set(halves["unit"]) and (halves["n_a"] + halves["n_b"] == 15).all()


@pytest.mark.parametrize("spec_a, spec_b, verdict, lo, hi", [
    # a cross-CPU wake-up costs far more than a same-CPU switch on a VM
    ("pipe_latency placement=same_cpu", "pipe_latency placement=different_cpus", "slower", 2, 100),
    # 64 MiB comes from memory, 16 KiB from L1
    ("bcopy size_bytes=16k", "bcopy size_bytes=64M", "slower", 0.005, 0.5),
])
def test_real_differences_are_flagged(spec_a, spec_b, verdict, lo, hi):
    df = bc.compare_pair(A, spec_a, B, spec_b)
    row = df.iloc[0]
    assert row["verdict"] == verdict
    assert lo < row["ratio_ci95_lo"] <= row["ratio"] <= row["ratio_ci95_hi"] < hi
    assert row["p_value"] < 0.001


def test_aa_pair_in_cycles_leaves_the_real_moves():
    """Between the two runs, seconds apart, the host moved the core clock by
    up to 5% (getpid 0.0802 -> 0.0768 us at 3.79 -> 3.98 GHz, 304 cycles
    both).  Each run's interval cannot show that; divided out by the probed
    clock, every result stable on both sides shows no difference, and what
    is left moved for real (fork_exit 76 -> 130 us within run B, the
    cross-CPU wake-up) or has too wide an interval (the 64 MiB random chase)."""
    for margin, at_least in ((0.10, 21), (0.05, 20)):
        df = bc.compare(A, B, margin=margin, cycles=True)
        s = bc.summary(df)
        assert s["no difference"] >= at_least and s["no_difference_fraction_stable"] == 1.0
        assert s["no difference"] > bc.summary(bc.compare(A, B, margin=margin))["no difference"]
    rest = df[df["verdict"] != "no difference"].set_index("benchmark")
    assert rest.loc["process_creation", "verdict"] == "slower"
    assert rest.loc["pipe_latency", "params"].startswith("placement=different_cpus")
    assert set(df.loc[df.benchmark != "cpu_clock", "unit"]) <= {"cycles", "MB/s per GHz"}
    clock = df.set_index("benchmark").loc["cpu_clock"]
    assert clock["unit"] == "GHz" and "not clock-normalised: measures the clock itself" in clock["note"]


def test_clock_normalising_removes_a_clock_change_and_keeps_a_real_one():
    """Known answer: the same 1000 cycles (1% spread) at 3.8 GHz and at 4.0 GHz
    are 5% apart in ns and the same in cycles; 1200 cycles are 20% slower
    either way.  A rate scales with the clock and is divided by it."""
    import numpy as np

    rng = np.random.default_rng(3)

    def rec(cycles, ghz, unit="us", hib=False):
        c = cycles * np.exp(rng.normal(0, 0.01, 15))
        ns = c / ghz
        samples = (1e3 / ns) if hib else ns / 1e3   # MB/s of a 1000-byte copy, or us
        return {"benchmark": "b", "params": {}, "unit": unit, "higher_is_better": hib,
                "samples": list(samples), "ns_per_iteration": list(ns), "clock_ghz": [ghz] * 15,
                "diagnostics": {"stable": True}}
    ns_only = bc.compare([rec(1000, 3.8)], [rec(1000, 4.0)], margin=0.03)
    assert ns_only.iloc[0]["verdict"] != "no difference"
    same = bc.compare([rec(1000, 3.8)], [rec(1000, 4.0)], margin=0.03, cycles=True).iloc[0]
    assert same["verdict"] == "no difference" and same["unit"] == "cycles"
    slower = bc.compare([rec(1000, 3.8)], [rec(1200, 4.0)], margin=0.05, cycles=True).iloc[0]
    assert slower["verdict"] == "slower" and abs(slower["ratio"] - 1.2) < 0.02
    rate = bc.compare([rec(1000, 3.8, "MB/s", True)], [rec(1000, 4.0, "MB/s", True)],
                      margin=0.03, cycles=True).iloc[0]
    assert rate["verdict"] == "no difference" and rate["unit"] == "MB/s per GHz"
    # no per-sample clock on one side: compared as measured, and said so
    bare = {**rec(1000, 4.0), "clock_ghz": None}
    row = bc.compare([rec(1000, 3.8)], [bare], margin=0.03, cycles=True).iloc[0]
    assert row["unit"] == "us" and row["note"] == "not clock-normalised: no per-sample clock"


def test_real_differences_stay_flagged_in_cycles():
    pipe = bc.compare_pair(A, "pipe_latency placement=same_cpu", B,
                           "pipe_latency placement=different_cpus", cycles=True).iloc[0]
    assert pipe["verdict"] == "slower" and pipe["ratio_ci95_lo"] > 10
    copy = bc.compare_pair(A, "bcopy size_bytes=16k", B, "bcopy size_bytes=64M", cycles=True).iloc[0]
    assert copy["verdict"] == "slower" and copy["ratio_ci95_hi"] < 0.1


def test_direction_follows_the_unit():
    # bandwidth: B higher is faster; the same pair reversed flips the verdict
    df = bc.compare_pair(A, "bcopy size_bytes=64M", A, "bcopy size_bytes=16k")
    assert df.iloc[0]["verdict"] == "faster" and df.iloc[0]["ratio"] > 2


def test_directories_are_searched_and_duplicates_dropped(tmp_path):
    (tmp_path / "run1" / "nb").mkdir(parents=True)
    shutil.copy(A, tmp_path / "run1" / "nb" / "results.json")
    store = tmp_path / "run1" / "nb" / "store"
    store.mkdir()
    with open(store / "host.jsonl", "w") as f:  # the same results again, as store lines
        for rec in resultfile.read_records(A):
            f.write(json.dumps(rec) + "\n")
    df = bc.compare(tmp_path / "run1", B)
    assert len(df) == len(resultfile.read_records(A))
    assert (df["n_a"] == df["n_b"]).mean() > 0.5  # not doubled


def test_unmatched_results_are_listed():
    recs = resultfile.read_records(A)
    df = bc.compare(recs[:5], recs[3:8])
    assert len(df) == 2 and len(df.attrs["only_a"]) == 3 and len(df.attrs["only_b"]) == 3


def test_a_record_from_before_a_parameter_existed_is_compared_at_its_default():
    """file_reread_bandwidth gained write_bytes (default 16 KiB, what it did
    before): a record without it and one with the default are one
    configuration; one with another value is another."""
    import copy

    recs = [r for r in resultfile.read_records(A) if r["benchmark"] == "syscall"][:1]
    old = copy.deepcopy(recs[0])
    old["benchmark"], old["params"] = "file_reread_bandwidth", {
        "method": "read", "file_bytes": 64 << 20, "block_bytes": 64 << 10, "cpu": 0}
    new = copy.deepcopy(old)
    new["params"] = {**old["params"], "write_bytes": 16 << 10}
    other = copy.deepcopy(old)
    other["params"] = {**old["params"], "write_bytes": 64 << 20}
    df = bc.compare([old], [new, other])
    assert len(df) == 1
    assert len(df.attrs["only_b"]) == 1
    assert len(bc.select([old], "file_reread_bandwidth write_bytes=16k")) == 1
    gone = copy.deepcopy(old)
    gone["benchmark"] = "a_benchmark_since_removed"
    assert bc._params(gone) == old["params"]


def test_pair_errors():
    with pytest.raises(BenchlibError, match="matches 6 parameter sets"):
        bc.compare_pair(A, "syscall", B, "syscall op=getpid")
    with pytest.raises(BenchlibError, match="no result matches"):
        bc.compare_pair(A, "syscall op=nothing", B, "syscall op=getpid")
    with pytest.raises(BenchlibError, match="different benchmarks"):
        bc.compare_pair(A, "cpu_clock", B, "syscall op=getpid")


def test_cli_compare_json(capsys):
    assert main(["compare", str(A), str(B), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["summary"]["compared"] == len(out["rows"])
    assert {"ratio", "ratio_ci95_lo", "ratio_ci95_hi", "p_value", "verdict"} <= set(out["rows"][0])


def test_cli_compare_text_and_pair(capsys):
    assert main(["compare", str(A), "--pair", "pipe_latency placement=same_cpu",
                 "pipe_latency placement=different_cpus"]) == 0
    out = capsys.readouterr().out
    assert "slower" in out and "1 compared" in out
    assert main(["compare", str(A), str(B), "--cycles", "--margin", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "cycles" in out and "samples clock-normalised" in out


def test_cli_compare_plot_writes_the_figure(tmp_path, capsys):
    """--plot draws benchlib.report.figures.compare_figure; an unwritable
    place is a one-line error."""
    assert main(["compare", str(A), str(B), "--plot", str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "c.png").stat().st_size > 1000
    capsys.readouterr()
    assert main(["compare", str(A), str(B), "--plot", str(tmp_path / "no" / "c.png")]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "Traceback" not in err


def test_compare_names_the_machines_of_each_side():
    df = bc.compare(A, B)
    assert df.attrs["machines_a"] == df.attrs["machines_b"]
    (m,) = df.attrs["machines_a"]
    assert (m["hostname"], m["cpus_online"], m["virtualized"]) == ("vm", 2, True)
    other = [{**r, "machine": {**r["machine"], "hostname": "other"}} for r in resultfile.read_records(B)]
    df = bc.compare(A, other)
    assert [x["hostname"] for x in df.attrs["machines_b"]] == ["other"] != \
        [x["hostname"] for x in df.attrs["machines_a"]]


@pytest.mark.parametrize("argv, message", [
    (["compare", "/nonexistent/x.json", "/nonexistent/y.json"], "no such file"),
    (["compare", str(A)], "needs two sources"),
    (["compare", "--self-check", str(A), str(B)], "takes one source"),
    (["compare", str(A), str(B), "--margin", "0"], "margin"),
])
def test_cli_compare_bad_input(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_export_csv(tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert main(["export", str(A), "--csv", str(out)]) == 0
    import pandas as pd

    df = pd.read_csv(out)
    assert len(df) == len(resultfile.read_records(A))
    assert {"median", "median_ci95_lo", "median_ci95_hi", "stable", "unit"} <= set(df.columns)
    assert (df["median_ci95_lo"] <= df["median"]).all() and (df["median"] <= df["median_ci95_hi"]).all()
    assert main(["export", str(A), "--csv", str(tmp_path / "s.csv"), "--samples"]) == 0
    assert len(pd.read_csv(tmp_path / "s.csv")) == sum(r["n_samples"] for r in resultfile.read_records(A))


def test_cli_run_warns_once_for_an_unstable_result(monkeypatch, capsys):
    import benchlib.measuring.harness

    rec = resultfile.read_records(A)[0]
    rec["diagnostics"].update(stable=False, unstable_reasons=["spread"],
                              unstable_detail=["stdev 14.0% of the mean > 10%"])
    monkeypatch.setattr(benchlib.measuring.harness, "run", lambda *a, **k: resultfile.from_record(rec))
    assert main(["run", rec["benchmark"], "--profile", "smoke"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unstable (stdev 14.0% of the mean > 10%)" in err[0]
    rec["diagnostics"].update(stable=True, unstable_reasons=[], unstable_detail=[])
    assert main(["run", rec["benchmark"], "--profile", "smoke"]) == 0
    assert capsys.readouterr().err == ""
