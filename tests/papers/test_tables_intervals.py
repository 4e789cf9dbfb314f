"""Every paper's tables carry this machine's 95% intervals through the shared
machinery (``TableRows``, ``measure_rows``, ``paper_table``) and through
each paper's normalisations, on made-up results with known answers (no
live timing)."""
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from benchlib.stats import intervals as iv
from benchlib.stats.intervals import Measured
from benchlib.measuring.harness import Result
from benchlib.papers import Column, Table, TableRows, measure_rows, tables


def _result(samples, ci=None, stable=True, reasons=(), unit="us", benchmark="x"):
    x = np.asarray(samples, dtype=float)
    diag = {"median_ci95": list(ci) if ci else None, "stable": stable,
            "unstable_reasons": list(reasons)}
    return Result(benchmark=benchmark, params={}, unit=unit, higher_is_better=False,
                  samples=list(x), ns_per_iteration=list(x), tsc_ticks_per_iteration=None,
                  clock_ghz=None, iterations_per_sample=1, placement={}, clock_resolution_ns=1.0,
                  overhead_ns=0.0, calibration_s=0.0, profile="quick", machine={},
                  diagnostics=diag)


def test_result_measured_is_the_median_with_its_recorded_interval():
    r = _result([1.0, 2.0, 3.0, 4.0, 5.0], ci=(1.5, 4.5), stable=False, reasons=["spread"])
    assert r.measured == Measured(3.0, 1.5, 4.5, ("spread",))
    assert r.measured.value == r.median


def test_measure_rows_records_each_column_s_interval_in_its_unit(monkeypatch):
    results = {"a": _result([10.0, 11.0, 12.0], ci=(10.0, 12.0)),
               "b": _result([2000.0, 2100.0, 2200.0], ci=(2000.0, 2200.0), stable=False,
                            reasons=["steal"])}
    monkeypatch.setattr(tables, "run", lambda name, profile, **p: results[name])
    monkeypatch.setattr(tables, "pinned_cpu", lambda: 0)
    spec = Table("t", "p", "t", {"": {"us": Column("a", {}), "ms": Column("b", {}, scale=1e-3, pin="")}})
    t = measure_rows(spec)
    assert t.spec is spec and set(t.results) == {"us", "ms"}
    assert t.rows.us.tolist() == [11.0] and t.rows.ms.tolist() == [2.1]
    assert t.intervals[(0, "us")] == Measured(11.0, 10.0, 12.0)
    ms = t.intervals[(0, "ms")]
    assert (ms.lo, ms.hi, ms.unstable) == (pytest.approx(2.0), pytest.approx(2.2), ("steal",))
    w = t.with_intervals()
    assert w.ms_ci95_note.tolist() == ["unstable: steal"] and w.us_ci95_lo.tolist() == [10.0]
    assert list(t.rows.columns) == ["system", "us", "ms"]     # the CSV's columns as before


# ------------------------------------------------------------ Ousterhout 1990

def test_ousterhout_mips_relative_speed_maps_the_time_s_interval():
    from benchlib.papers.ousterhout1990 import measure as ous

    t = TableRows("table02", pd.DataFrame([{"configuration": "this machine, pinned",
                                            "time_us": Measured(0.1, 0.09, 0.12)}]))
    p = ous.paper_table(t, rating=1000)
    mine = p[p.source == "this machine"].index[0]
    speed = iv.get(p, "mips_relative_speed", mine)
    rule = lambda v: (207 / v) / (1000 / 0.9)  # noqa: E731  the MVAX2's 207 us, 0.9 MIPS
    assert (speed.value, speed.lo, speed.hi) == pytest.approx((rule(0.1), rule(0.12), rule(0.09)))
    assert not speed.propagated
    assert iv.get(p, "time_us", mine) == Measured(0.1, 0.09, 0.12)
    t8 = ous.table8(TableRows("table07", pd.DataFrame([{"configuration": "this machine, local",
                                                        "total_s": Measured(4.0, 3.5, 4.5)}])),
                    rating=1000)
    local = iv.get(t8, "mips_relative_local", t8[t8.source == "this machine"].index[0])
    assert local.lo < local.value < local.hi


def test_ousterhout_figure1_point_with_an_interval_from_the_endpoints():
    from benchlib.papers.ousterhout1990 import measure as ous

    rows = {"table02": ("time_us", "this machine, pinned", 0.1),
            "table06": ("mb_s", "this machine, pinned", 5000.0)}
    tabs = {k: TableRows(k, pd.DataFrame([{"configuration": c, col: Measured(v, 0.9 * v, 1.1 * v)}]))
            for k, (col, c, v) in rows.items()}
    g = ous.figure1_measured(tabs, 1000)
    fig = ous.figure1_with_machine(tabs, 1000).set_index("machine")
    assert g.value == pytest.approx(fig.loc["this machine", "geometric_mean"])
    # a time 10% up and a rate 10% down both lower the speed: the low end
    assert g.lo == pytest.approx(g.value * math.sqrt(1 / 1.1 * 0.9))
    assert g.propagated


def test_ousterhout_speedups_carry_intervals():
    from benchlib.papers.ousterhout1990 import measure as ous

    def t2(v):
        return TableRows("table02", pd.DataFrame([{"configuration": "here", "time_us": v}]))

    df = ous.paper_table(t2(Measured(0.1, 0.09, 0.12)), rating=1000, speedups=True)
    i = df[df.source == "this machine"].index[0]
    sp = iv.get(df, "speedup_vs_mvax2", i)
    assert (sp.lo, sp.value, sp.hi) == pytest.approx((207 / 0.12, 2070, 207 / 0.09))
    assert isinstance(iv.get(df, "implied_mips", i), Measured)
    mvax2 = df[df.configuration == "MVAX2 Ultrix 3.0"].index[0]
    assert df.loc[mvax2, "speedup_vs_mvax2"] == 1.0 and df.loc[mvax2, "implied_mips"] == 0.9
    # plain numbers: no interval columns for them
    df = ous.paper_table(t2(0.1), speedups=True)
    assert "speedup_vs_mvax2" in df and not iv.interval_columns(df)
    rate = ous.paper_table(TableRows("table06", pd.DataFrame([{"configuration": "here", "mb_s": 100.0}])),
                           speedups=True)
    assert rate.loc[rate.configuration == "here", "speedup_vs_mvax2"].item() > 1   # higher is better


# ------------------------------------------------------------ the lmbench paper

def test_mcvoy_speedups_and_relations_read_the_medians_intervals():
    from benchlib.papers.mcvoy1996 import measure as lm
    from benchlib.papers.mcvoy1996 import paper

    t = TableRows("null_syscall", pd.DataFrame([{"system": "this machine",
                                                 "null_syscall_us": Measured(0.5, 0.4, 0.6)}]))
    s = lm.speedups(t)
    fast = iv.get(s, "speed-up vs fastest", 0)
    best = paper.load("null_syscall").null_syscall_us.min()
    assert (fast.lo, fast.value, fast.hi) == pytest.approx((best / 0.6, best / 0.5, best / 0.4))
    assert iv.get(s, "this machine", 0) == Measured(0.5, 0.4, 0.6)
    # the relation holds on the medians' intervals (10 vs 3, clear), and cannot be
    # told from medians whose intervals overlap (10 [9, 11] vs 4.8 [4, 20])
    rows = {"context_switch": TableRows("context_switch", pd.DataFrame(),
                                        {"p2_0kb_us": _result([2.9, 3.0, 3.1], ci=(2.9, 3.1))}),
            "pipe_latency": TableRows("pipe_latency", pd.DataFrame(),
                                      {"pipe_us": _result([9.0, 10.0, 11.0], ci=(9.0, 11.0))}),
            "tcp_latency": TableRows("tcp_latency", pd.DataFrame(),
                                     {"tcp_us": _result([4.0, 4.8, 20.0], ci=(4.0, 20.0))})}
    rel = lm.relations(rows).set_index("relation")
    clear = "context switch of 2 processes, 0 KB, below pipe latency"
    assert rel.loc[clear, "holds"] is True
    ratio = iv.get(rel, "ratio", clear)
    assert (ratio.lo, ratio.hi) == pytest.approx((2.9 / 11, 3.1 / 9)) and ratio.propagated
    tcp = "TCP latency above pipe latency"
    assert rel.loc[tcp, "holds"] is None


# ------------------------------------------------------------ Lai & Baker 1996

def test_laibaker_slide_table_normalises_the_interval():
    from benchlib.papers.laibaker1996 import measure as lb
    from benchlib.papers.laibaker1996 import paper

    df = lb.paper_table(TableRows("system_call", pd.DataFrame(
        [{"os": "this machine", "time_us": Measured(0.1, 0.08, 0.125)}])))
    i = df[df.source == "this machine"].index[0]
    vs = iv.get(df, "vs_best_1995", i)
    assert (vs.lo, vs.value, vs.hi) == pytest.approx((2.31 / 0.125, 23.1, 2.31 / 0.08))
    # this machine is the best row now: 1.00 by definition, the others against its interval
    assert iv.value(iv.get(df, "normalized_to_best_now", i)) == 1.0
    linux = df[df.os == "Linux"].index[0]
    now = iv.get(df, "normalized_to_best_now", linux)
    assert (now.lo, now.hi) == pytest.approx((0.08 / 2.31, 0.125 / 2.31))
    a = paper.andrew_paper_table({"this machine, local": Measured(5.0, 4.0, 6.0)})
    j = a[a.source == "this machine"].index[0]
    best = paper.load("andrew_local").time_s.min()
    rel = iv.get(a, "local_vs_best_1995", j)
    assert (rel.lo, rel.value, rel.hi) == pytest.approx((best / 6.0, best / 5.0, best / 4.0))
    assert iv.get(a, "local_s", j) == Measured(5.0, 4.0, 6.0)


# ------------------------------------------------------------ Mach 1989

def test_mach_ratios_ranking_and_normalisation_carry_intervals():
    from benchlib.papers.mach1989 import measure as mm
    from benchlib.papers.mach1989 import paper

    per_call = pd.DataFrame({"test": ["localBigInOut", "remoteBigInOut", "remoteNull"]})
    iv.put(per_call, "median_us", [Measured(0.02, 0.019, 0.021), Measured(2.0, 1.9, 2.2),
                                   Measured(1.5, 1.4, 1.6)])
    r = mm.forin_ratios(per_call).set_index("operation")
    now = iv.get(r, "remote_over_local_now", "BigInOut")
    assert (now.lo, now.value, now.hi) == pytest.approx((1.9 / 0.021, 100.0, 2.2 / 0.019))
    assert r.loc["BigInOut", "remote_over_local_1989"] == pytest.approx(
        paper.rpc_to_local_ratios(paper.load("ipc_tests_per_call")).set_index("operation")
        .loc["BigInOut", "remote_over_local"])
    n = mm.normalised_ipc(per_call, rating=1200.0).set_index("test")
    mr = iv.get(n, "mips_relative_speed", "remoteNull")
    assert mr.lo < mr.value < mr.hi and not mr.propagated
    extra = pd.DataFrame({"system": ["here"], "hardware": ["this machine"], "path": ["one machine"],
                          "mips": [1000.0], "mips_low": [500.0], "mips_high": [2000.0]})
    iv.put(extra, "time_ms", [Measured(0.005, 0.004, 0.006)])
    ranking = paper.rpc_ranking(extra)
    i = ranking[ranking.source == "this machine"].index[0]
    v = iv.get(ranking, "vax780_ms", i)
    assert (v.lo, v.value, v.hi) == pytest.approx((4.0, 5.0, 6.0))
    assert ranking.loc[i, "vax780_ms_high"] == pytest.approx(10.0)   # the rating's range, apart


# ------------------------------------------------------------ Chen & Patterson 1994

def test_chen_median_error_over_workloads_has_its_bootstrap_interval():
    from benchlib.analysis import self_scaling_model as A

    meas = np.array([100.0, 200.0, 300.0, 400.0, 500.0, 600.0])
    df = pd.DataFrame({"mb_s": meas, "predicted_mb_s": meas * [1.1, 0.9, 1.2, 0.8, 1.05, 0.95],
                       "interpolated_mb_s": meas * 1.3, "mb_s_again": meas * 1.01,
                       "in_border": [False] * 6})
    t = A.accuracy_table(df, {"one point": 300.0}, n_model=10, n_orthogonal=20)
    model = iv.get(t.set_index("predictor"), "median_error_pct", "product of single-parameter functions")
    errors = 100 * np.abs(df.predicted_mb_s - meas) / meas
    assert model == iv.of_samples(errors)
    from benchlib.papers.chen1994.measure import figure15_rows

    p = tables.paper_table(figure15_rows(t, "vm"))
    mine = p[p.source == "this machine"].index[0]
    assert iv.get(p, "median_error_pct", mine) == model
    assert isinstance(iv.get(p, "repeatability_error_pct", mine), Measured)


# ------------------------------------------------------------ the memory hierarchy

def test_memory_rows_carry_the_bandwidth_and_plateau_intervals():
    from benchlib.memory import measure as memory

    lev = lambda ns, size, ci: SimpleNamespace(latency_ns=ns, size_bytes=size,  # noqa: E731
                                               latency_ns_ci95=ci)
    m = SimpleNamespace(fit=SimpleNamespace(levels=[lev(1.0, 32768, (0.9, 1.1)),
                                                    lev(4.0, 1 << 20, (3.8, 4.2)),
                                                    lev(90.0, None, (80.0, 100.0))]))
    bw = pd.DataFrame({"op": ["copy_unrolled", "copy_libc", "read", "write", "copy_libc"],
                       "counting": "once", "where": ["uncached"] * 4 + ["cached"]})
    iv.put(bw, "value", [Measured(v, 0.9 * v, 1.1 * v) for v in (1000.0, 2000.0, 3000.0, 4000.0,
                                                                  9000.0)])
    rows = memory.lmbench_rows(m, bw, "this machine")
    assert iv.get(rows["memory_latency"], "main_memory_ns", 0) == Measured(90.0, 80.0, 100.0)
    read = iv.get(rows["memory_bandwidth"], "memory_read_mb_s", 0)
    assert read.value == pytest.approx(3000.0 * 1e6 / 2**20) and read.hi == pytest.approx(1.1 * read.value)
    from benchlib.papers.ousterhout1990.measure import table5_from_bandwidth

    t5 = table5_from_bandwidth(bw, "here", rating=1000.0)
    assert iv.get(t5, "cached_mb_s", 0) == Measured(9000.0, 8100.0, 9900.0)
    assert iv.get(t5, "mbytes_per_mips", 0) == Measured(2.0, 1.8, 2.2)
    assert math.isnan(iv.value(memory.lmbench_rows(
        SimpleNamespace(fit=SimpleNamespace(levels=[lev(90.0, None, None)])), bw, "x")
        ["memory_latency"].l1_ns[0]))
