"""bench/compare_perf.py's pure parts: reading perf's output and mapping
io_workload's request sizes to fio's --bssplit (recorded text, known answers)."""
import contextlib
import json
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

_spec = importlib.util.spec_from_file_location(
    "compare_perf", Path(__file__).resolve().parents[1] / "bench" / "compare_perf.py")
compare_perf = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("compare_perf", compare_perf)  # dataclasses look their module up
_spec.loader.exec_module(compare_perf)

MEMCPY_OUT = """# Running 'mem/memcpy' benchmark:
# function 'default' (Default memcpy() provided by glibc)
# Copying 1MB bytes ...

       8.594988 GB/sec
"""
PIPE_OUT = """# Running 'sched/pipe' benchmark:
# Executed 200000 pipe operations between two processes

     Total time: 0.861 [sec]

       4.306990 usecs/op
         232180 ops/sec
"""


def test_perf_outputs_are_read_in_benchlibs_units():
    assert compare_perf.perf_usecs_per_op(PIPE_OUT) == pytest.approx(4.30699)
    assert compare_perf.perf_bandwidth_mb_s(MEMCPY_OUT) == pytest.approx(8.594988 * 2**30 / 1e6)
    assert compare_perf.perf_bandwidth_mb_s("  512.5 MB/sec\n") == pytest.approx(512.5 * 2**20 / 1e6)
    with pytest.raises(RuntimeError, match="usecs/op"):
        compare_perf.perf_usecs_per_op("no figure here")


@pytest.mark.parametrize("mean", [4096, 8192, 32768])
def test_bssplit_follows_io_workloads_size_distribution(mean):
    split = compare_perf.io_workload_bssplit(mean, 64 << 20)
    pairs = [tuple(int(x) for x in b.split("/")) for b in split.split(":")]
    sizes = np.array([p[0] for p in pairs])
    pct = np.array([p[1] for p in pairs])
    assert pct.sum() == 100 and (pct > 0).all()
    assert (sizes % 4096 == 0).all() and (np.diff(sizes) > 0).all()
    # the expected request: Normal(mean, sd=mean) truncated to [1, 8 mean],
    # rounded up to 4 KiB, integrated independently of the simulation
    dist = stats.truncnorm((1 - mean) / mean, 7, loc=mean, scale=mean)
    edges = np.arange(0, 8 * mean + 4096, 4096)
    probs = np.diff(dist.cdf(edges))
    expected = float((probs * edges[1:]).sum() / probs.sum())
    assert float((sizes * pct).sum() / 100) == pytest.approx(expected, rel=0.03)


@pytest.mark.parametrize("text,value", [
    ("Simple write: 0.0908 microseconds\n", 0.0908),
    ("Signal handler overhead: 0.7352 microseconds\n", 0.7352),
    ("Process fork+exit: 82.9348 microseconds\n", 82.9348),
    ("Pipe latency: 4.4411 microseconds\n", 4.4411),
    ("AF_UNIX sock stream latency: 6.0 microseconds\n", 6.0),
])
def test_lmbench3_output_is_read(text, value):
    assert compare_perf.lmbench_microseconds(text) == value


def test_lat_mem_rd_is_read_at_one_size():
    """The stride pairs read lat_mem_rd's row for their size (MB of 2^20
    bytes): the Zen 4 guest's recorded stride-128 curve, its 8 MB row."""
    text = (Path(__file__).resolve().parent / "memory/data/lat_mem_rd_zen4/"
            "lat_mem_rd_stride128.txt").read_text()
    assert compare_perf.lmbench_mem_row(text, 8) == 5.109
    with pytest.raises(RuntimeError, match="no 1024 MB row"):
        compare_perf.lmbench_mem_row(text, 1024)
    with pytest.raises(RuntimeError, match="cannot read lat_mem_rd"):
        compare_perf.lmbench_mem_row("lat_mem_rd: bad option\n", 8)


def test_the_stride_pairs_are_explained_only_by_lat_mem_rds_loop():
    t = compare_perf.Tools(0, Path("/tmp"), Path("lmbench3"))
    pairs = {p.label: p for p in compare_perf.lmbench_pairs(t) if "lat_mem_rd" in p.label}
    own = [p for label, p in pairs.items()
           if "loop_loads" not in label and "window_bytes" not in label]
    assert own and len(pairs) == 2 * len(own)
    for p in own:
        assert p.explained == "" and p.explained_by in pairs
        # the stride chase with lat_mem_rd's loop, the random one with its order
        assert ("loop_loads=100" if "pattern=stride" in p.label else "window_bytes=0") \
            in p.explained_by
        assert p.explained_by.split(" | ")[1] == p.label.split(" | ")[1]
    assert any("lat_mem_rd -t" in label for label in pairs)


def test_unreadable_lmbench3_output_is_an_error():
    with pytest.raises(RuntimeError, match="cannot read microseconds"):
        compare_perf.lmbench_microseconds("lat_syscall: bad option\n")


@pytest.mark.parametrize("ours,theirs,explained,verdict", [
    ([1.00, 1.01, 0.99, 1.00, 1.02], [1.0] * 5, "", "agree"),
    ([1.30, 1.31, 1.29, 1.30, 1.32], [1.0] * 5, "", "differ-unexplained"),
    ([1.30, 1.31, 1.29, 1.30, 1.32], [1.0] * 5, "lat_sig times kill(), we raise()",
     "differ-explained"),
])
def test_agreement_column(ours, theirs, explained, verdict):
    s = compare_perf.paired_ratio(ours, theirs, band=compare_perf.AGREE_BAND)
    assert compare_perf.agreement(s, explained) == verdict


def test_an_explanation_covers_only_the_ratios_it_was_measured_at():
    s = compare_perf.paired_ratio([1.30, 1.31, 1.29, 1.30, 1.32], [1.0] * 5,
                                  band=compare_perf.AGREE_BAND)
    why = "the summing loop"
    assert compare_perf.agreement(s, why, explained_range=(1.02, 1.35)) == "differ-explained"
    assert compare_perf.agreement(s, why, explained_range=(1.02, 1.17)) == "differ-unexplained"


# Outputs recorded on the 2-vCPU Xeon guest (2026-11-25), one per peer.
@pytest.mark.parametrize("reader,text,value", [
    ("lmbench_bandwidth", "67.11 11105.22\n", 11105.22),                    # bw_mem 64m rd
    ("lmbench_bandwidth", "Pipe bandwidth: 7848.58 MB/sec\n", 7848.58),       # bw_pipe
    ("lmbench_bandwidth", "AF_UNIX sock stream bandwidth: 2673.26 MB/sec\n", 2673.26),
    ("likwid_bandwidth", "Cycles:\t\t\t14616750112\nTime:\t\t\t5.62e+00 sec\n"
                         "MByte/s:\t\t5828.59\nCycles per update:\t3.56\n", 5828.59),
    ("mbw_bandwidth", "0\tMethod: MEMCPY\tElapsed: 0.03484\tMiB: 64.00000\tCopy: 1836.969 MiB/s\n"
                      "AVG\tMethod: MEMCPY\tElapsed: 0.03364\tMiB: 64.00000\tCopy: 1902.478 MiB/s\n",
     1902.478 * (1 << 20) / 1e6),
])
def test_bandwidth_peers_are_read_in_mb_per_s(reader, text, value):
    assert getattr(compare_perf, reader)(text) == pytest.approx(value)


# mbw -h of Debian's 1.2.2 (recorded on the EPYC guest, 2026-11-27) and the
# first line upstream 1.4 added
MBW_1_2_HELP = ("Usage: mbw [options] array_size_in_MiB\nOptions:\n\t-n: number of runs per test\n"
                "\t-a: Don't display average\n\t-t0: memcpy test\n"
                "\t-t1: dumb (b[i]=a[i] style) test\n")
MBW_1_4_HELP = "mbw memory benchmark v1.4, https://github.com/raas/mbw\n" + MBW_1_2_HELP


@pytest.mark.parametrize("text,memcpy,loop", [(MBW_1_2_HELP, 1, 0), (MBW_1_4_HELP, 0, 1)])
def test_mbw_memcpy_test_is_told_by_its_version(text, memcpy, loop):
    """mbw before 1.4 ran the word loop for -t0, which it labelled MEMCPY."""
    assert compare_perf.mbw_tests(text) == {"memcpy": memcpy, "loop": loop}


def test_lat_ctx_output_is_read_for_its_process_count():
    text = '\n"size=16k ovr=1.21\n2 0.88\n8 1.94\n'
    assert compare_perf.lmbench_ctx(text, 8) == 1.94
    with pytest.raises(RuntimeError, match="4 processes"):
        compare_perf.lmbench_ctx(text, 4)


@pytest.mark.parametrize("reader", ["lmbench_bandwidth", "likwid_bandwidth", "mbw_bandwidth"])
def test_unreadable_bandwidth_is_an_error(reader):
    with pytest.raises(RuntimeError, match="cannot read"):
        getattr(compare_perf, reader)("usage: something else\n")


def test_a_difference_is_explained_only_by_a_variant_that_agrees():
    """signal install differs by 13 %; measured with lmbench3's definition
    (old_action=save) it agrees: the first pair counts as explained.  A
    variant that differs too explains nothing."""
    differs = compare_perf.paired_ratio([0.87, 0.86, 0.88, 0.87, 0.87], [1.0] * 5,
                                        band=compare_perf.AGREE_BAND)
    agrees = compare_perf.paired_ratio([1.00, 1.01, 0.99, 1.00, 1.00], [1.0] * 5,
                                       band=compare_perf.AGREE_BAND)
    assert compare_perf.agreement(differs, "", agrees) == "differ-explained"
    assert compare_perf.agreement(differs, "", differs) == "differ-unexplained"


def _pair(label, ours, theirs, explained_by="", rel_ci=None):
    p = compare_perf.Pair(label, "us", lambda: 0.0, lambda: 0.0, "lmbench3",
                          explained_by=explained_by, min_rounds_rel_ci=rel_ci)
    p.values["ours"], p.values["theirs"] = list(ours), list(theirs)
    p.values["ours_wall_s"] = [0.05] * len(ours)
    p.values["theirs_wall_s"] = [1.0] * len(theirs)
    return p


def test_summaries_read_their_variant_and_wall_times():
    base = _pair("install | lat_sig", [0.87] * 5, [1.0] * 5, explained_by="install save | lat_sig")
    var = _pair("install save | lat_sig", [1.0, 1.01, 0.99, 1.0, 1.0], [1.0] * 5)
    out = compare_perf.summarise_all([base, var])
    assert list(out) == ["install | lat_sig", "install save | lat_sig"]  # the pairs' order kept
    assert out["install | lat_sig"]["agreement"] == "differ-explained"
    assert "install save" in out["install | lat_sig"]["explained"]
    assert out["install | lat_sig"]["wall_ratio"] == pytest.approx(0.05)


def test_where_benchlibs_wall_went_is_summarised_shown_and_kept_on_a_reread(tmp_path):
    p = _pair("bw_mem 64m rd | lmbench3", [1.0] * 5, [1.0] * 5)
    p.values["ours_breakdown"] = [{"setup_s": 0.030 + i / 1000, "settle_s": 0.015, "samples": 6}
                                  for i in range(5)] + [None]  # a round that said nothing
    s = compare_perf.summarise(p)
    assert s["benchlib_setup_s"] == pytest.approx(0.032) and s["benchlib_samples"] == 6
    row = compare_perf.markdown_table({"pairs": {p.label: s}}).splitlines()[2]
    assert "(50 ms: build 17, settle 15; 6 samples)" in row
    # a recorded run read again keeps it (--reread measures nothing)
    rec = json.loads((Path(__file__).resolve().parents[1]
                      / "docs/peers/zen4-2026-11-28-s24-latest.json").read_text())
    label = next(k for k in rec["pairs"] if k.startswith("mem_bandwidth op=read size_bytes=64M |"))
    rec["pairs"][label].update(benchlib_setup_s=0.032, benchlib_settle_s=0.015, benchlib_samples=6,
                               other_interval_runs=9, other_interval_wall_s=4.5,
                               other_interval_reached=True)
    (tmp_path / "run.json").write_text(json.dumps(rec))
    again = compare_perf.reread(tmp_path / "run.json", tmp_path)["pairs"][label]
    assert again["benchlib_settle_s"] == pytest.approx(0.015) and again["benchlib_samples"] == 6
    assert again["other_interval_runs"] == 9 and again["interval_wall_ratio"] == pytest.approx(
        again["benchlib_wall_s"] / 4.5)
    nothing = compare_perf.summarise(_pair("x | y", [1.0] * 5, [1.0] * 5))
    assert "benchlib_setup_s" not in nothing
    assert "build" not in compare_perf.markdown_table({"pairs": {"x | y": nothing}})


def test_lmbench3_as_it_ships_is_run_once_per_command_and_is_the_wall_compared():
    class FakeTools:
        env = "ENOUGH=50000"
        seen = []

        @contextlib.contextmanager
        def lmbench_default_calibration(self):
            saved, self.env = self.env, None
            yield
            self.env = saved

    tools = FakeTools()

    def theirs():
        tools.seen.append(tools.env)
        return 1.0, 40.0                 # its figure and its wall, calibrating itself
    a, b = _pair("install | lat_sig", [1.0] * 5, [1.0] * 5), _pair("save | lat_sig", [1.0] * 5, [1.0] * 5)
    other = _pair("pipe | perf", [1.0] * 5, [1.0] * 5)
    other.tool = "perf"
    for p in (a, b):
        p.theirs, p.theirs_cmd = theirs, "lat_sig install"
    compare_perf.measure_default_walls([a, b, other], tools)
    assert tools.seen == [None] and tools.env == "ENOUGH=50000"   # once, as shipped, then back
    s = compare_perf.summarise(b)
    assert s["other_default_wall_s"] == 40.0 and s["other_wall_s"] == 1.0
    assert s["wall_ratio"] == pytest.approx(0.05 / 40.0)
    assert "own calibration" in s["wall_basis"]
    assert "theirs_default" not in other.values
    assert compare_perf.summarise(other)["wall_basis"] == "the rounds' runs"


def test_lmbench3_is_run_as_it_ships_until_its_own_interval_and_compared_beside():
    class FakeTools:
        env = "ENOUGH=50000"

        @contextlib.contextmanager
        def lmbench_default_calibration(self):
            saved, self.env = self.env, None
            yield
            self.env = saved

    tools, calls = FakeTools(), []
    steady = iter([100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 100.1] + [100.0] * 40)

    def theirs():
        calls.append(tools.env)
        return next(steady), 0.5
    a, b = _pair("rd | bw_mem", [1.0] * 5, [1.0] * 5), _pair("rd16 | bw_mem", [1.0] * 5, [1.0] * 5)
    noisy = _pair("cp | bw_mem", [1.0] * 5, [1.0] * 5)
    for p in (a, b):
        p.theirs, p.theirs_cmd = theirs, "bw_mem 64m rd"
    jumps = iter([100.0, 140.0] * 40)
    noisy.theirs, noisy.theirs_cmd = (lambda: (next(jumps), 0.5)), "bw_mem 64m cp"
    compare_perf.measure_interval_walls([a, b, noisy], tools, rel_ci=0.03, max_runs=10)
    assert calls == [None] * 6 and tools.env == "ENOUGH=50000"  # six runs, shared, as shipped
    s = compare_perf.summarise(b)
    assert s["other_interval_runs"] == 6 and s["other_interval_wall_s"] == pytest.approx(3.0)
    assert s["interval_wall_ratio"] == pytest.approx(0.05 / 3.0) and s["other_interval_reached"]
    n = compare_perf.summarise(noisy)
    assert n["other_interval_runs"] == 10 and not n["other_interval_reached"]
    report = {"pairs": {"rd | bw_mem": s, "cp | bw_mem": n}}
    assert "at most 1/10 of lmbench3's wall to a +-3 % interval of its own" in \
        compare_perf.interval_tally(report)
    assert "2 of 2 (reached by lmbench3 in 1)" in compare_perf.interval_tally(report)
    assert compare_perf.interval_tally({"pairs": {"x": compare_perf.summarise(_pair(
        "x | y", [1.0] * 5, [1.0] * 5))}}) == ""


def test_a_pair_without_walls_is_not_run_for_them(monkeypatch):
    """lat_mem_rd's pairs time no wall (it times every size below the one
    read): neither wall step runs them (a full run once stopped there)."""
    ran = []
    mem = _pair("mem_latency | lat_mem_rd", [1.0] * 5, [1.0] * 5)
    mem.values["ours_wall_s"] = mem.values["theirs_wall_s"] = [None] * 5
    mem.theirs, mem.theirs_cmd = (lambda: ran.append(1) or 1.0), "lat_mem_rd 8 128"

    class FakeTools:
        @contextlib.contextmanager
        def lmbench_default_calibration(self):
            yield
    compare_perf.measure_default_walls([mem], FakeTools())
    compare_perf.measure_interval_walls([mem], FakeTools())
    assert ran == [] and "theirs_default" not in mem.values


def test_a_recorded_run_gets_lmbench3s_walls_measured_on_request(tmp_path, monkeypatch):
    called = []
    monkeypatch.setattr(compare_perf, "measure_default_walls", lambda p, t: called.append(("d", t)))
    monkeypatch.setattr(compare_perf, "measure_interval_walls", lambda p, t: called.append(("i", t)))
    src = Path(__file__).resolve().parents[1] / "docs/peers/zen4-2026-11-28-s27-64m.json"
    tools = compare_perf.Tools(0, tmp_path, Path("/nowhere/lmbench3"))
    out = compare_perf.reread(src, tmp_path, tools=tools, default_wall=True, interval_wall=True)
    assert called == [("d", tools), ("i", tools)]
    header = json.loads((tmp_path / "compare_perf.json").read_text())
    assert header["lmbench_default_wall"] and header["lmbench_interval_wall"] and out["pairs"]
    called.clear()
    compare_perf.reread(src, tmp_path)                     # measures nothing
    assert called == []


def test_a_bandwidth_pair_that_never_settles_says_so():
    noisy = _pair("bw | peer", [0.6, 1.8, 0.9, 1.6, 0.7, 1.9, 1.0, 1.5], [1.0] * 8, rel_ci=0.05)
    assert compare_perf.needs_more_rounds(noisy)
    s = compare_perf.summarise(noisy)
    assert s["host_unstable"] and s["agreement"] == "host-unstable"
    steady = _pair("bw2 | peer", [1.0, 1.01, 0.99, 1.0, 1.0, 1.0], [1.0] * 6, rel_ci=0.05)
    assert not compare_perf.needs_more_rounds(steady)


def test_the_figure_is_written(tmp_path):
    base = _pair("install | lat_sig", [0.87] * 5, [1.0] * 5)
    report = {"pairs": compare_perf.summarise_all([base]), "cpu": 0, "rounds": 5,
              "machine": {"cpu_model": "test CPU", "cpus_online": 2, "kernel": "6.x"}}
    compare_perf.plot(report, tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 1000


def test_the_report_is_rewritten_after_every_round_from_the_second(tmp_path):
    """A long run keeps what it measured: after_round writes the report with
    the rounds done so far (the measuring is faked: structure, not timing)."""
    import json
    import random

    values = iter(range(1, 1000))
    p = compare_perf.Pair("x | peer", "us", lambda: (1.0 + next(values) % 3 / 100, 0.01),
                          lambda: (1.0, 0.5), "lmbench3")
    header = {"rounds": 3, "cpu": 0, "seed": 1,
              "machine": {"cpu_model": "test CPU", "cpus_online": 2, "kernel": "6.x"}}
    seen = []

    def after(k):
        report = compare_perf.write_report([p], header, tmp_path, quiet=True)
        seen.append((k, report["rounds_done"],
                     json.loads((tmp_path / "compare_perf.json").read_text())["rounds_done"]))

    compare_perf.run_rounds([p], 3, random.Random(0), after_round=after)
    assert seen == [(2, 2, 2), (3, 3, 3)]
    assert (tmp_path / "compare_perf.csv").read_text().count("\n") == 2
    assert not list(tmp_path.glob("*.tmp"))


def test_an_undecided_latency_pair_gets_more_rounds():
    # median 1.01, one round of five at 1.25: the interval crosses 1.10
    undecided = _pair("fstat | lat_syscall", [1.0, 1.01, 1.02, 0.99, 1.25], [1.0] * 5)
    assert compare_perf.needs_more_rounds(undecided)
    decided = _pair("stat | lat_syscall", [1.0, 1.01, 1.02, 0.99, 1.0], [1.0] * 5)
    assert not compare_perf.needs_more_rounds(decided)
    # a real difference (median outside the band) is not chased with more rounds
    differs = _pair("fork | lat_proc", [0.85, 0.86, 0.84, 0.87, 0.99], [1.0] * 5)
    assert not compare_perf.needs_more_rounds(differs)


def test_agreement_is_the_equivalence_test_benchlib_compare_uses():
    """A pair agrees when its 90 % interval lies inside +-10 % (two
    one-sided tests at 0.05, ratio_verdict's "no difference"); the 95 %
    interval is reported beside it.  Ratios chosen so the two intervals fall
    on either side of the band's edge."""
    from benchlib.stats.summary import bootstrap_median_ci

    ratios = [1.09, 1.03, 1.04, 1.12, 1.07, 1.01, 1.03, 1.07, 1.14]
    s = compare_perf.paired_ratio(ratios, [1.0] * len(ratios), band=compare_perf.AGREE_BAND)
    assert (s["ci90_low"], s["ci90_high"]) == bootstrap_median_ci(ratios, 0.90)
    assert (s["ci_low"], s["ci_high"]) == bootstrap_median_ci(ratios, 0.95)
    assert s["ci_high"] > 1.10 >= s["ci90_high"]          # the 95 % crosses, the 90 % does not
    assert s["equivalent"] and not s["ci_inside_band"]
    assert compare_perf.agreement(s, "") == "agree"
    wide = compare_perf.paired_ratio([0.8, 1.2, 1.0, 0.85, 1.15], [1.0] * 5,
                                     band=compare_perf.AGREE_BAND)
    assert not wide["equivalent"] and compare_perf.agreement(wide, "") == "differ-unexplained"


def test_a_recorded_report_is_summarised_again_without_measuring(tmp_path):
    """--reread: the per-round values of a recorded report (the EPYC guest's
    lmbench3 run) go through today's summary; the pairs, their values and
    the wall times are the report's, the agreement is today's rule's."""
    src = Path(__file__).resolve().parents[1] / "docs/peers/epyc-2026-11-27-lmbench-paired-overhead.json"
    old = json.loads(src.read_text())
    new = compare_perf.reread(src, tmp_path)
    # all but the lat_ctx pairs, whose labels name their parent since that
    # run (a ring forked elsewhere is another measurement)
    assert set(new["pairs"]) <= set(old["pairs"]) and len(new["pairs"]) >= 28
    assert not [k for k in new["pairs"] if "lat_ctx" in k]
    for label, v in new["pairs"].items():
        o = old["pairs"][label]
        assert v["benchlib_values"] == o["benchlib_values"] and v["other_values"] == o["other_values"]
        assert v["wall_ratio"] == pytest.approx(o["wall_ratio"])
        s = compare_perf.paired_ratio(o["benchlib_values"], o["other_values"],
                                      band=compare_perf.AGREE_BAND)
        assert v["equivalent"] == s["equivalent"]
    assert new["reread_from"] == str(src)
    assert (tmp_path / "compare_perf.csv").exists() and (tmp_path / "compare_perf.md").exists()


def test_several_reports_are_read_each_pair_from_the_last_that_has_it(tmp_path):
    """--reread A B: the night's all-pairs run, then a targeted run of the
    pairs it left unexplained; a pair in both is read from the later run
    alone (its rounds are not pooled with the earlier run's)."""
    docs = Path(__file__).resolve().parents[1] / "docs/peers"
    first = docs / "epyc-2026-11-27-night-all-pairs.json"
    later = docs / "epyc-2026-11-27-night-unexplained-again.json"
    a, b = (json.loads(f.read_text())["pairs"] for f in (first, later))
    new = compare_perf.reread([first, later], tmp_path)
    both = set(a) & set(b)
    assert both and set(b) <= set(new["pairs"])
    for label, v in new["pairs"].items():
        src = b if label in b else a
        assert v["benchlib_values"] == src[label]["benchlib_values"]
        assert new["pair_read_from"][label] == str(later if label in b else first)
    assert new["reread_from"] == [str(first), str(later)]


def test_an_a_a_run_pairs_each_peer_command_with_itself_once():
    # two benchlib figures share lmbench3's `lat_sig install`: one A/A pair,
    # both sides the peer's own call, with no explanation carried over
    calls = []

    def peer(name):
        return lambda: calls.append(name) or 1.0
    pairs = [compare_perf.Pair("a | lat_sig install", "us", lambda: 2.0, peer("sig"), "lmbench3",
                               ours_cmd="benchlib a", theirs_cmd="lat_sig install",
                               explained_by="b | lat_sig install"),
             compare_perf.Pair("b | lat_sig install", "us", lambda: 2.0, peer("sig"), "lmbench3",
                               ours_cmd="benchlib b", theirs_cmd="lat_sig install"),
             compare_perf.Pair("c | fio read", "MB/s", lambda: 2.0, peer("fio"), "fio",
                               ours_cmd="benchlib c", theirs_cmd="fio read", min_rounds_rel_ci=0.05)]
    aa = compare_perf.same_tool_pairs(pairs)
    assert [p.label for p in aa] == ["lat_sig install | itself (A/A)", "fio read | itself (A/A)"]
    assert [p.ours_cmd for p in aa] == [p.theirs_cmd for p in aa]
    assert all(p.explained == "" and p.explained_by == "" for p in aa)
    assert aa[1].min_rounds_rel_ci == 0.05 and aa[0].tool == "lmbench3"
    assert aa[0].ours() == aa[0].theirs() == 1.0 and calls == ["sig", "sig"]


def test_a_pair_whose_peer_does_not_agree_with_itself_is_host_limited():
    """A pair not shown to agree reads host-limited when the peer's own A/A
    pair was not shown to agree either; a peer that agrees with itself
    leaves the pair unexplained; a written explanation or an agreeing
    variant still comes first."""
    band = compare_perf.AGREE_BAND
    wide = compare_perf.paired_ratio([0.8, 1.2, 1.0, 0.85, 1.15], [1.0] * 5, band=band)
    tight = compare_perf.paired_ratio([1.0, 1.01, 0.99, 1.0, 1.0], [1.0] * 5, band=band)
    assert compare_perf.agreement(wide, "", None, wide) == "host-limited"
    assert compare_perf.agreement(wide, "", None, tight) == "differ-unexplained"
    assert compare_perf.agreement(wide, "timed differently", None, wide) == "differ-explained"
    assert compare_perf.agreement(wide, "", tight, wide) == "differ-explained"
    assert compare_perf.agreement(tight, "", None, wide) == "agree"
    # a ratio shown to lie outside the band is a difference, whatever the host
    far = compare_perf.paired_ratio([1.3, 1.31, 1.29, 1.3, 1.32], [1.0] * 5, band=band)
    assert compare_perf.agreement(far, "", None, wide) == "differ-unexplained"


def test_a_recorded_run_is_reread_beside_its_hosts_a_a_run(tmp_path):
    """--reread REPORT --a-a AA: the EPYC all-pairs run beside the same
    day's A/A run; each pair carries its peer's A/A summary and only pairs
    whose peer failed to agree with itself become host-limited."""
    docs = Path(__file__).resolve().parents[1] / "docs/peers"
    aa = json.loads((docs / "epyc-2026-11-27-a-a.json").read_text())
    assert aa["same_tool"]
    by_cmd = {v["other"]: v for v in aa["pairs"].values()}
    new = compare_perf.reread(docs / "epyc-2026-11-27-all-pairs.json", tmp_path,
                              docs / "epyc-2026-11-27-a-a.json")
    limited = [v for v in new["pairs"].values() if v["agreement"] == "host-limited"]
    assert limited
    for v in new["pairs"].values():
        peer = by_cmd.get(v["other"])
        assert (v.get("peer_a_a") is not None) == (peer is not None)
        if v["agreement"] == "host-limited":
            assert not v["equivalent"] and not peer["equivalent"]
            assert v["ci_low"] <= compare_perf.AGREE_BAND[1] and v["ci_high"] >= compare_perf.AGREE_BAND[0]
        if v["agreement"] == "differ-unexplained" and peer is not None and not peer["equivalent"]:
            assert v["ci_low"] > compare_perf.AGREE_BAND[1] or v["ci_high"] < compare_perf.AGREE_BAND[0]
    with pytest.raises(SystemExit, match="not a --same-tool"):
        compare_perf.reread(docs / "epyc-2026-11-27-all-pairs.json", tmp_path,
                            docs / "epyc-2026-11-27-all-pairs.json")


def test_the_peers_file_is_made_afresh_in_the_writes_of_benchlibs_side(tmp_path, monkeypatch):
    """The page cache keeps a file in folios as large as the writes that
    made it, so the peer's file is made as the pair's benchlib side makes
    its own (write_bytes, default 16 KiB), before every run."""
    from peer_tools import FILE_WRITE_BYTES, MiB, Tools, lmbench_pairs, make_file

    f = tmp_path / "f.dat"
    f.write_bytes(b"old")
    make_file(f, 3 * 16384 + 5, 16384)
    assert f.stat().st_size == 3 * 16384 + 5 and f.read_bytes()[:3] == b"xxx"

    made = []

    class FakeTools(Tools):
        def timed(self, fn):
            return fn()

        def lmbench_mb_s(self, program, *args):
            return 1.0

    tools = FakeTools(0, tmp_path, lmbench=tmp_path)
    import peer_tools
    monkeypatch.setattr(peer_tools, "make_file", lambda path, size, w: made.append((path.name, size, w)))
    pairs = [p for p in lmbench_pairs(tools) if "file_reread" in p.label]
    for p in pairs:
        p.theirs()
    writes = {p.label: w for p, (_, _, w) in zip(pairs, made)}
    assert all(size == 64 * MiB for _, size, _ in made) and len(made) == len(pairs)
    for label, w in writes.items():
        assert w == (64 * MiB if "write_bytes=64M" in label else FILE_WRITE_BYTES), label
    assert any("open2close" in p.label and "method=mmap " in p.label for p in pairs)
    assert all("writes)" in p.theirs_cmd for p in pairs)
    assert all(p.explained == peer_tools.SUM_LOOP for p in pairs)  # measured: bench/sum_loops


def test_every_explanation_names_a_pair_of_the_same_harness(tmp_path):
    """A default pair is explained by the pair that measures benchlib with the
    peer's definition: its explained_by must be that pair's label exactly (a
    typo would leave the default unexplained, silently).  Built offline: no
    peer runs while the pairs are made."""
    t = compare_perf.Tools(0, tmp_path, lmbench=tmp_path / "no-lmbench")
    pairs = (compare_perf.make_pairs(t) + compare_perf.lmbench_pairs(t)
             + compare_perf.bandwidth_pairs(t))
    labels = [p.label for p in pairs]
    assert len(labels) == len(set(labels))
    variants = [p for p in pairs if p.explained_by]
    assert variants
    for p in variants:
        assert p.explained_by in labels and p.explained_by != p.label
        other = pairs[labels.index(p.explained_by)]
        # the same peer figure and benchlib with its definition, or the same
        # figure of benchlib and the peer's other kernel (likwid-bench's AVX
        # store beside its scalar one)
        assert other.theirs_cmd == p.theirs_cmd or (
            other.ours_cmd == p.ours_cmd and other.tool == p.tool)
        assert not other.explained_by               # a variant is not explained in turn


def test_a_peer_figure_takes_the_best_verdict_of_its_pairs():
    """Each peer command once: it agrees when benchlib with its definition
    agrees (the variant), whatever benchlib's own definition reads; the
    tally gives both counts."""
    base = _pair("install | lat_sig", [0.87] * 5, [1.0] * 5, explained_by="install save | lat_sig")
    var = _pair("install save | lat_sig", [1.0, 1.01, 0.99, 1.0, 1.0], [1.0] * 5)
    lone = _pair("deliver | lat_sig catch", [1.3, 1.31, 1.29, 1.3, 1.3], [1.0] * 5)
    for p, cmd in ((base, "lat_sig install"), (var, "lat_sig install"), (lone, "lat_sig catch")):
        p.theirs_cmd = cmd
    report = {"pairs": compare_perf.summarise_all([base, var, lone])}
    assert compare_perf.by_peer_figure(report) == {"lat_sig install": "agree",
                                                   "lat_sig catch": "differ-unexplained"}
    t = compare_perf.tally(report)
    assert "pairs: 1 agree, 1 differ-explained" in t and "of 3 (33 % agree)" in t
    assert "1 agree, 0 differ-explained" in t and "of 2 (50 % agree)" in t


def test_a_peer_figure_is_inside_the_band_by_its_median_ratio_alone():
    """The issue's "inside +-10 %": the median ratio, looser than agree (an
    interval inside the band); a variant of the same command stands in, and
    one pair outside puts its command outside."""
    noisy = _pair("read | bw_file_rd", [1.02, 1.18, 1.08, 0.95, 1.09], [1.0] * 5)
    base = _pair("deliver | lat_sig", [1.2] * 5, [1.0] * 5, explained_by="deliver kill | lat_sig")
    var = _pair("deliver kill | lat_sig", [1.05] * 5, [1.0] * 5)
    fine = _pair("fork | lat_proc", [1.0] * 5, [1.0] * 5)
    off = _pair("fork small | lat_proc", [0.85] * 5, [1.0] * 5)
    for p, cmd in ((noisy, "bw_file_rd"), (base, "lat_sig"), (var, "lat_sig"), (fine, "lat_proc"),
                   (off, "lat_proc")):
        p.theirs_cmd = cmd
    report = {"pairs": compare_perf.summarise_all([noisy, base, var, fine, off])}
    assert report["pairs"]["read | bw_file_rd"]["agreement"] != "agree"   # looser than agree
    assert compare_perf.inside_band_by_peer_figure(report) == {
        "bw_file_rd": True, "lat_sig": True, "lat_proc": False}
    assert "the median ratio inside +-10 %: 2 of 3 peer figures" in compare_perf.tally(report)


def test_a_variant_of_another_peer_command_explains_only_inside_its_range_and_stands_for_no_figure():
    """likwid's scalar store beside its AVX kernel: the scalar pair is
    explained when the AVX pair agrees and the ratio lies in the range the
    explanation covers; the scalar peer command keeps its own verdict in
    the per-figure count.  And a pair that differs with no variant is not
    hidden by another pair of the same peer command that agrees."""
    avx = _pair("write | store_avx", [1.0, 0.99, 1.01, 1.0, 1.0], [1.0] * 5)
    fast = _pair("write | store", [1.15] * 5, [1.0] * 5, explained_by="write | store_avx")
    slow = _pair("write | store", [0.8] * 5, [1.0] * 5, explained_by="write | store_avx")
    for p in (fast, slow):
        p.explained_range = (1.0, 1.3)
    for p, cmd in ((avx, "likwid store_avx"), (fast, "likwid store"), (slow, "likwid store")):
        p.theirs_cmd = cmd
    assert compare_perf.summarise_all([fast, avx])["write | store"]["agreement"] == "differ-explained"
    assert compare_perf.summarise_all([slow, avx])["write | store"]["agreement"] == "differ-unexplained"
    figs = compare_perf.by_peer_figure({"pairs": compare_perf.summarise_all([fast, avx])})
    assert figs == {"likwid store": "differ-explained", "likwid store_avx": "agree"}
    a = _pair("pipe | sched pipe", [1.0, 1.01, 0.99, 1.0, 1.0], [1.0] * 5)
    b = _pair("ctx | sched pipe", [1.3] * 5, [1.0] * 5)
    for p in (a, b):
        p.theirs_cmd = "perf bench sched pipe"
    figs = compare_perf.by_peer_figure({"pairs": compare_perf.summarise_all([a, b])})
    assert figs == {"perf bench sched pipe": "differ-unexplained"}


def test_a_later_targeted_run_keeps_lmbench3s_as_shipped_wall(tmp_path):
    """--reread ALL AGAIN: the Zen 4 guest's run of every pair with lmbench3
    as it ships timed once per command, then two pairs again without it; the
    pairs read from the later run keep the earlier run's as-shipped wall,
    so the wall criterion keeps one basis."""
    docs = Path(__file__).resolve().parents[1] / "docs/peers"
    first = docs / "zen4-2026-11-28-short-samples-all.json"
    later = docs / "zen4-2026-11-28-short-samples-again.json"
    a, b = (json.loads(f.read_text())["pairs"] for f in (first, later))
    new = compare_perf.reread([first, later], tmp_path)
    again = [k for k in b if "lmbench3" in k]
    assert again and all(b[k].get("other_default_wall_s") is None for k in again)
    for label in again:
        v = new["pairs"][label]
        assert v["benchlib_values"] == b[label]["benchlib_values"]
        assert v["other_default_wall_s"] == a[label]["other_default_wall_s"]
        assert v["wall_basis"] == "lmbench3's own calibration (one run)"
        assert v["wall_ratio"] == pytest.approx(b[label]["benchlib_wall_s"]
                                                / a[label]["other_default_wall_s"])
