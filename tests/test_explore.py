"""The explorer without a browser: the form generated from the registry,
the papers' cells a measurement stands for, the session's runs, sweeps and
comparisons, what is shown, and the widgets driven by their own methods.
Nothing is timed: the harness's measuring step is replaced by results with
known samples (``fake_measure``), so the verdicts and intervals have known
answers."""
import math
import re
from pathlib import Path

import numpy as np
import pytest

from benchlib.errors import BenchlibError
from benchlib.explore import fields as fm
from benchlib.explore.session import Session, compare_results, paper_rows, summary
from benchlib.measuring import harness
from benchlib.measuring.registry import get_benchmark, list_benchmarks
from benchlib.papers import cells_matching

REPO = Path(__file__).resolve().parents[1]
KiB, MiB = 1 << 10, 1 << 20
MACHINE = {"hostname": "box", "cpu_model": "Test CPU", "cpus_online": 2, "kernel": "6.1",
           "l2_bytes": 1 * MiB, "l3_bytes": 32 * MiB}

#: benchmark -> the median its fake samples have, by a parameter's value
MEDIANS = {("pipe_latency", "same_cpu"): 2.0, ("pipe_latency", "different_cpus"): 8.0,
           ("pipe_latency", "unpinned"): 5.0}


def fake_result(bench, params, median, spread=0.01, n=21, stable=True, profile="smoke"):
    x = median * (1 + spread * np.linspace(-1, 1, n))
    return harness.Result(
        benchmark=bench.name, params=dict(params), unit=bench.unit,
        higher_is_better=bench.higher_is_better, samples=list(x), ns_per_iteration=list(x),
        tsc_ticks_per_iteration=None, clock_ghz=None, iterations_per_sample=1, placement={},
        clock_resolution_ns=1.0, overhead_ns=0.0, calibration_s=0.0, profile=profile,
        machine=MACHINE,
        diagnostics={"median_ci95": [median * (1 - spread / 4), median * (1 + spread / 4)],
                     "stable": stable, "unstable_reasons": [] if stable else ["spread"],
                     "unstable_detail": [] if stable else ["stdev 30% of the mean > 10%"]})


@pytest.fixture
def fake_measure(monkeypatch):
    """The harness with its measuring step replaced: pipe_latency's median
    by placement (MEDIANS), mem_latency's growing with the size, anything
    else 1.0; the resolution of the parameters is the registry's own."""
    calls = []

    def measure(bench, params, profile, n_samples, setup=None):
        calls.append((bench.name, dict(params)))
        if bench.name == "mem_latency":
            med = 1.0 + math.log2(params["size_bytes"])
        else:
            med = MEDIANS.get((bench.name, params.get("placement")), 1.0)
        return fake_result(bench, params, med, profile=profile.name)

    monkeypatch.setattr(harness, "_measure", measure)
    return calls


# ------------------------------------------------------------------ the form

def test_every_parameter_of_every_benchmark_gets_a_field():
    for b in list_benchmarks():
        fields = fm.form(b)
        assert [f.name for f in fields] == [p.name for p in b.params]
        for f, p in zip(fields, b.params):
            assert f.widget in fm.WIDGETS
            assert f.help == p.help
            if f.options:             # every value offered is one the registry takes
                for _, v in f.options:
                    assert p.parse(v) == v, (b.name, p.name, v)
                assert f.default in [v for _, v in f.options]


def test_the_rule_by_kind():
    ipc = {f.name: f for f in fm.form("ipc_bandwidth")}
    assert ipc["transport"].widget == "dropdown"
    assert [v for _, v in ipc["transport"].options] == ["pipe", "unix", "tcp"]
    size = ipc["transfer_bytes"]      # 4k..16M, default 64k
    assert size.widget == "size_slider" and size.unit == "bytes"
    assert [label for label, _ in size.options] == [
        "4 KiB", "8 KiB", "16 KiB", "32 KiB", "64 KiB", "128 KiB", "256 KiB", "512 KiB",
        "1 MiB", "2 MiB", "4 MiB", "8 MiB", "16 MiB"]
    assert ipc["buffer_bytes"].options[0] == ("0 B", 0)           # its minimum is 0
    assert ipc["cpu"].widget == "int_text"                          # -1 .. 4095: a number box
    ctx = {f.name: f for f in fm.form("context_switch")}
    assert ctx["processes"].widget == "int_slider" and (ctx["processes"].low, ctx["processes"].high) == (2, 64)
    assert ctx["process_kb"].widget == "int_steps" and ctx["process_kb"].unit == "KiB"
    assert [v for _, v in ctx["process_kb"].options][:5] == [0, 1, 2, 5, 10]
    fs = {f.name: f for f in fm.form("fs_latency")}
    assert 1000 in [v for _, v in fs["files"].options]              # its default, on a 1-2-5 step
    io = {f.name: f for f in fm.form("io_workload")}
    assert io["read_frac"].widget == "float_slider" and io["read_frac"].unit == "fraction"
    assert io["duration_s"].widget == "log_slider" and io["duration_s"].unit == "s"
    assert io["directory"].widget == "text"
    assert fm.form("mem_latency")[0].label == "size_bytes (bytes)"


def test_a_size_default_off_the_powers_of_two_is_offered():
    from benchlib.measuring.registry import Param

    f = fm.field(Param("size_bytes", "size", 3000, "x", min=1024, max=1 << 20))
    values = [v for _, v in f.options]
    assert values[0] == 1024 and 3000 in values and values[-1] == 1 << 20
    assert values == sorted(values)


def test_sweep_values_are_parsed_by_the_registry():
    assert fm.parse_values("mem_latency", "size_bytes", "4k, 64k,1M") == [4096, 65536, MiB]
    assert fm.parse_values("pipe_latency", "placement", ["same_cpu", "unpinned"]) == \
        ["same_cpu", "unpinned"]
    with pytest.raises(BenchlibError, match="size_bytes must be >= 16"):
        fm.parse_values("mem_latency", "size_bytes", "8,64k")
    with pytest.raises(BenchlibError, match="placement must be one of"):
        fm.parse_values("pipe_latency", "placement", "same_cpu,far")
    with pytest.raises(BenchlibError, match="at least two"):
        fm.parse_values("mem_latency", "size_bytes", "4k")
    with pytest.raises(BenchlibError, match="twice"):
        fm.parse_values("mem_latency", "size_bytes", "4k,4096")
    with pytest.raises(BenchlibError, match="unknown parameter 'nope'"):
        fm.parse_values("mem_latency", "nope", "1,2")


def test_every_sweepable_field_starts_with_values_the_registry_takes():
    for b in list_benchmarks():
        for f in fm.form(b):
            if fm.sweepable(f):
                values = fm.sweep_default(f)
                assert fm.parse_values(b, f.name, values) == values, (b.name, f.name)
            else:
                with pytest.raises(BenchlibError, match="cannot be swept"):
                    fm.sweep_default(f)


def test_the_docs_list_the_widget_of_every_parameter():
    """docs/papers/explore.md's table is the form's rule applied to the registry."""
    text = (REPO / "docs" / "papers" / "explore.md").read_text()
    text = text.split("## Every benchmark's widgets")[1]
    listed = dict(re.findall(r"^\| (\w+) \| (`.+) \|$", text, re.M))
    want = {c["benchmark"]: ", ".join(f"`{n}` {w}" for n, w in c["fields"])
            for c in fm.coverage()}
    assert listed == want


# ------------------------------------------------------ the papers' cells

def test_a_measurement_finds_every_paper_cell_declared_for_it():
    assert cells_matching("syscall", {"op": "getpid", "cpu": -1}, MACHINE) == [
        ("ousterhout1990", "table02", "time_us", "pinned"),
        ("mach1989", "unix_calls", "getpid_us", ""),
        ("laibaker1996", "system_call", "time_us", "pinned"),
        ("ren2019", "tests", "latency_us", "getpid")]
    assert cells_matching("syscall", {"op": "write", "cpu": 0}, MACHINE) == [
        ("mcvoy1996", "null_syscall", "null_syscall_us", "")]
    assert cells_matching("syscall", {"op": "stat", "cpu": 0}, MACHINE) == []
    # the lmbench paper's pipe cell is a same_cpu pair; Ousterhout's Table 3 has each placement
    assert cells_matching("pipe_latency", {"placement": "different_cpus"}, MACHINE) == [
        ("ousterhout1990", "table03", "time_ms", "different_cpus")]
    assert [c[0] for c in cells_matching("pipe_latency", {"placement": "same_cpu"}, MACHINE)] \
        == ["ousterhout1990", "mcvoy1996", "ren2019"]


def test_a_sized_cell_matches_by_its_rule_on_the_result_s_machine():
    # cached: at most a quarter of L2 (256 KiB); uncached: at least 4x L3 (128 MiB)
    assert [c[:3] for c in cells_matching("bcopy", {"size_bytes": 256 * KiB}, MACHINE)] == [
        ("ousterhout1990", "table05", "cached_mb_s")]
    assert ("ousterhout1990", "table05", "uncached_mb_s") in [
        c[:3] for c in cells_matching("bcopy", {"size_bytes": 128 * MiB}, MACHINE)]
    assert cells_matching("bcopy", {"size_bytes": 4 * MiB}, MACHINE) == []
    assert cells_matching("bcopy", {"size_bytes": 256 * KiB}, {}) == []   # caches unknown


def test_paper_rows_insert_the_run_in_the_paper_s_order_and_unit():
    bench = get_benchmark("pipe_latency")
    r = fake_result(bench, {"placement": "different_cpus", "cpu": -1}, 250.0)   # 0.25 ms
    (t3,) = paper_rows(r)
    assert (t3.paper, t3.table, t3.column, t3.unit) == ("ousterhout1990", "table03", "time_ms", "ms")
    f = t3.frame
    mine = f[f.source == "this machine"]
    assert len(mine) == 1 and mine.time_ms.iloc[0] == pytest.approx(0.25)
    assert mine.time_ms_ci95_lo.iloc[0] == pytest.approx(0.25 * (1 - 0.0025))
    times = f.time_ms.tolist()
    assert times == sorted(times)      # lower is better: sorted ascending, ours in its place
    assert 0 < mine.index[0] < len(f) - 1
    assert "different_cpus" in t3.caption
    assert paper_rows(fake_result(get_benchmark("syscall"), {"op": "stat", "cpu": 0}, 1.0)) == []


# ------------------------------------------------------------ the session

def test_a_run_is_summarised_with_its_interval_and_stability(fake_measure):
    s = Session("smoke")
    run = s.run("pipe_latency", {"placement": "different_cpus"})
    assert fake_measure == [("pipe_latency", {"placement": "different_cpus", "cpu": -1})]
    d = run.summary()
    assert d["median"] == pytest.approx(8.0) and d["unit"] == "us" and d["stable"] is True
    assert d["ci95_lo"] < 8.0 < d["ci95_hi"] and d["profile"] == "smoke"
    assert run.label == "#0 pipe_latency placement=different_cpus cpu=-1"
    assert [p.table for p in run.papers] == ["table03"]
    bad = summary(fake_result(get_benchmark("syscall"), {}, 1.0, stable=False))
    assert bad["stable"] is False and "stdev 30%" in bad["why_unstable"]


def test_a_refused_parameter_measures_nothing_and_keeps_no_run(fake_measure):
    s = Session("smoke")
    with pytest.raises(BenchlibError, match="placement must be one of"):
        s.run("pipe_latency", {"placement": "far"})
    with pytest.raises(BenchlibError, match="unknown benchmark"):
        s.run("nope")
    assert s.runs == [] and fake_measure == []
    with pytest.raises(BenchlibError, match="unknown profile|profile"):
        Session("sometimes")


def test_a_sweep_checks_every_point_first_then_keeps_each_as_a_run(fake_measure):
    s = Session("smoke")
    seen = []
    with pytest.raises(BenchlibError, match="size_bytes must be >= 16"):
        s.sweep("mem_latency", "size_bytes", [4096, 8], {"pattern": "random"})
    assert fake_measure == []         # nothing measured before every point was checked
    frame = s.sweep("mem_latency", "size_bytes", [4096, 65536, MiB], {"pattern": "random"},
                    on_point=seen.append)
    assert frame.size_bytes.tolist() == [4096, 65536, MiB]
    assert frame["median"].tolist() == pytest.approx([13.0, 17.0, 21.0])
    assert len(seen) == 3 and len(s.runs) == 3 and s.runs[0].sweep == "sweep of size_bytes"
    assert all(p == "random" for _, q in fake_measure for p in [q["pattern"]])


def test_two_runs_compared_give_the_verdict_and_the_ratio_interval(fake_measure):
    s = Session("smoke")
    s.run("pipe_latency", {"placement": "same_cpu"})          # 2 us
    s.run("pipe_latency", {"placement": "different_cpus"})    # 8 us
    s.run("pipe_latency", {"placement": "same_cpu"})          # 2 us again
    df = s.compare(0, 1)
    r = df.iloc[0]
    assert r["verdict"] == "slower" and r["ratio"] == pytest.approx(4.0, rel=0.02)
    assert r["ratio_ci95_lo"] < 4.0 < r["ratio_ci95_hi"]
    assert "same_cpu" in r["runs"] and "different_cpus" in r["runs"]
    assert s.compare(0, 2).iloc[0]["verdict"] == "no difference"
    assert s.compare(1, 0).iloc[0]["verdict"] == "faster"
    with pytest.raises(BenchlibError, match="no run 7; runs: 0-2"):
        s.compare(0, 7)
    s.run("syscall")
    with pytest.raises(BenchlibError, match="different benchmarks"):
        s.compare(0, 3)
    t = s.table()
    assert t["run"].tolist()[0] == "#0 pipe_latency placement=same_cpu cpu=-1" and len(t) == 4


def test_compare_results_is_the_compare_of_benchlib_compare():
    b = get_benchmark("pipe_latency")
    a, c = fake_result(b, {"placement": "same_cpu"}, 2.0), fake_result(b, {"placement": "unpinned"}, 2.02)
    r = compare_results(a, c, margin=0.05).iloc[0]
    assert r["verdict"] == "no difference" and r["params"] == "placement=same_cpu -> placement=unpinned"


# ---------------------------------------------------------- what is shown

def _shown(monkeypatch):
    """What ``explore.show`` displays, as text (HTML, tables, styled tables)."""
    from benchlib.explore import show

    seen = []

    def display(obj):
        to_html = getattr(obj, "to_html", None)
        seen.append(obj.data if hasattr(obj, "data") and isinstance(obj.data, str)
                    else to_html() if to_html else repr(obj))
    monkeypatch.setattr(show, "display", display)
    return seen


def test_show_writes_the_figures_and_names_the_paper(fake_measure, tmp_path, monkeypatch):
    from benchlib.explore import show

    shown = _shown(monkeypatch)
    s = Session("smoke")
    a = s.run("pipe_latency", {"placement": "same_cpu"})
    b = s.run("pipe_latency", {"placement": "different_cpus"})
    show.show_run(s, b, tmp_path)
    frame = s.sweep("mem_latency", "size_bytes", [4096, 65536], {"pattern": "random"})
    show.show_sweep(frame, "size_bytes", tmp_path, MACHINE)
    show.show_compare(s.compare(a.number, b.number))
    out = "\n".join(shown)
    assert {p.name for p in tmp_path.glob("*.png")} == {
        "run1_pipe_latency.png", "sweep_mem_latency_size_bytes.png"}
    assert "ousterhout1990" in out and "B is slower" in out
    assert "95 % interval" in show.summary_html(b)
    c = s.run("syscall", {"op": "stat"})
    shown.clear()
    show.show_papers(c)
    out = "\n".join(shown)
    assert "No paper has a cell" in out and "op=getpid" in out    # the cells it could have
    assert any("op=write" in d for d in show.declared_cells("syscall"))


# ------------------------------------------------------------ the widgets

@pytest.fixture
def widgets():
    return pytest.importorskip("benchlib.explore.widgets", reason="needs ipywidgets "
                               "(the notebooks extra)")


def test_the_form_follows_the_benchmark(widgets):
    ex = widgets.Explorer(Session("smoke"))
    for b in list_benchmarks():
        ex.benchmark.value = b.name
        assert list(ex.fields) == [p.name for p in b.params]
        for name, (f, w) in ex.fields.items():    # each starts at its declared default
            if f.widget in ("log_slider", "float_slider"):
                assert w.value == pytest.approx(f.default, rel=0.01), (b.name, name)
            else:
                assert w.value == f.default, (b.name, name)
        assert all(f"benchlib-param-{n}" in w._dom_classes for n, (_, w) in ex.fields.items())


def test_run_sweep_and_compare_through_the_widgets(widgets, fake_measure):
    ex = widgets.Explorer(Session("smoke"))
    ex.benchmark.value = "pipe_latency"
    ex.fields["placement"][1].value = "different_cpus"
    ex.run_button.click()
    assert ex.status.value.startswith("done in") and ex.progress.bar_style == "success"
    assert fake_measure[-1] == ("pipe_latency", {"placement": "different_cpus", "cpu": -1})
    ex.run("pipe_latency", {"placement": "same_cpu"})
    assert ex.fields["placement"][1].value == "same_cpu"
    assert [label for label, _ in ex.run_b.options] == [r.label for r in ex.session.runs]
    assert (ex.run_a.value, ex.run_b.value) == (0, 1)        # the last two, ready to compare
    ex.compare_button.click()
    assert ex.session.compare(0, 1).iloc[0]["verdict"] == "faster"
    ex.mode.value = "sweep"
    assert ex.sweep_box.layout.display == ""
    ex.sweep_param.value = "placement"
    assert ex.sweep_values.value == "same_cpu,different_cpus,unpinned"
    ex.run_button.click()
    assert ex.progress.value == ex.progress.max == 3 and len(ex.session.runs) == 5


def test_refused_input_is_refused_with_the_registry_s_message(widgets, fake_measure):
    ex = widgets.Explorer(Session("smoke"))
    ex.benchmark.value = "syscall"
    ex.fields["cpu"][1].value = 5000
    ex.run_button.click()
    assert "cpu must be &lt;= 4095" in ex.status.value or "cpu must be <= 4095" in ex.status.value
    assert ex.progress.bar_style == "danger" and not ex.run_button.disabled
    ex.mode.value = "sweep"
    ex.sweep_param.value = "op"
    ex.sweep_values.value = "getpid,fork"
    ex.run_button.click()
    assert "op must be one of" in ex.status.value
    assert fake_measure == [] and ex.session.runs == []
    assert ex.compare(0, 1) is None          # no runs: said in the comparison area


# ------------------------------------------------------ the memory curve

@pytest.fixture(scope="module")
def memory_result():
    import sys

    sys.path.insert(0, str(REPO / "tests" / "memory"))
    from simulated import simulate

    from benchlib.memory.fit import fit_memory
    from benchlib.memory.hierarchy import MemoryResult

    with pytest.MonkeyPatch.context() as mp:
        data = simulate(mp).measure("quick", progress=False)
    return MemoryResult(data, fit_memory(data))


def test_a_level_questioned_keeps_the_fit_and_weighs_every_shape(memory_result):
    from benchlib.explore.memory import level_names, level_view
    from benchlib.report.figures import memory_model_curve

    m = memory_result
    assert level_names(m) == [lv.name for lv in m.fit.caches]
    checked = []
    for name in level_names(m):
        v = level_view(m, name)
        t = v.level.transition
        chosen = v.shapes[v.shapes.chosen]
        assert len(chosen) == 1
        assert (chosen.ways.iloc[0], chosen.page_bytes.iloc[0]) == (t.ways, t.page_bytes)
        assert v.shapes.delta_chi2.min() == 0.0 and v.shapes.delta_chi2.is_monotonic_increasing
        assert set(v.alternatives) == set(v.shapes.index)
        # the fitted curve is the fit's own model (no TLB removed on this machine)
        assert not m.fit.tlb_removed
        want = memory_model_curve(m.fit, v.model.size_bytes)
        assert np.allclose(v.model.latency_ns, want.latency_ns)
        # each shape at its best capacity: the fitted shape does no worse than at the
        # fit's own capacity (the profile over capacity contains it)
        w, y = v.points.size_bytes.to_numpy(), np.log(v.points.latency_ns.to_numpy())
        model = memory_model_curve(m.fit, w).latency_ns.to_numpy()
        fitted_ssr = float(((y - np.log(model)) ** 2).sum())
        assert chosen.ssr.iloc[0] <= fitted_ssr * (1 + 1e-9)
        # where the fit resolved the page size, this view rejects a gradual onset on the
        # other (the simulated machine's chase is on huge pages: L2 and L3 sharp)
        other = v.shapes[(v.shapes.page_bytes != t.page_bytes)
                         & ~v.shapes.index.str.contains("sharp")]
        if t.page_resolved and len(other):
            assert not other.fits_as_well.any(), v.shapes
            checked.append(name)
        assert any("the fit chose" in x for x in v.why)
    assert checked == ["L2", "L3"]
    with pytest.raises(BenchlibError, match="no cache level 'L9'; fitted levels: L1"):
        level_view(m, "L9")


def test_a_threshold_level_has_no_shapes_to_question(memory_result):
    from dataclasses import replace

    from benchlib.explore.memory import level_view

    m = memory_result
    lv = m.fit.caches[0]
    fit = replace(m.fit, levels=tuple(replace(x, transition=None) if x is lv else x
                                      for x in m.fit.levels))
    v = level_view(type(m)(m.data, fit), lv.name)
    assert v.shapes.empty and v.alternatives == {} and v.shape == "threshold crossing"
    assert any("did not size this level" in w for w in v.why)


def test_the_line_size_is_read_two_ways_side_by_side(memory_result):
    from benchlib.explore.memory import line_readings

    lr = line_readings(memory_result)
    assert lr.pairs.line == memory_result.fit.line["pairs"] == 64     # the simulator's line
    assert lr.line == memory_result.fit.line_size_bytes
    assert list(lr.table().reading) == ["load pairs", "stride curves"]
    assert lr.pairs.curve.distance_bytes.is_monotonic_increasing


def test_the_memory_widget_shows_each_level(widgets, memory_result, tmp_path):
    mx = widgets.MemoryExplorer(memory_result, save_to=tmp_path)
    names = list(mx.level.options)
    assert names == [lv.name for lv in memory_result.fit.caches]
    mx.show(names[-1])
    assert mx.level.value == names[-1]
    assert {p.name for p in tmp_path.glob("level_*.png")} == {f"level_{names[0]}.png",
                                                             f"level_{names[-1]}.png"}
