"""The class notebook's helpers on simulated records with known answers,
and the recorded example files' labels."""
from __future__ import annotations

import pandas as pd
import pytest

from benchlib.papers import classroom as cl
from benchlib.results.store import result_row
from db_helpers import machine, record


def _frame(recs):
    return pd.DataFrame([result_row(r) for r in recs])


def _rec(bench, params, m, value, reasons=(), clock_change=0.0, seed=1, unit="us"):
    r = record(bench, params, m, 5, seed=seed)
    r.update(median=value, value=value, unit=unit, samples=[value] * 5)
    r["diagnostics"] = {"stable": not reasons, "unstable_reasons": list(reasons),
                        "clock_change": clock_change}
    return r


QUIET = machine("quiet", cpu="A", virt=False)
NOISY = machine("noisy", cpu="B", virt=True)


def test_anonymised_names_are_salted_hashes():
    df = _frame([_rec("syscall", {"op": "getppid"}, QUIET, 0.1), _rec("syscall", {"op": "getppid"}, NOISY, 0.2)])
    a = cl.add_machine_columns(df, "s1")
    b = cl.add_machine_columns(df, "s1")
    c = cl.add_machine_columns(df, "s2")
    assert list(a["machine"]) == list(b["machine"])  # same salt, same names
    assert set(a["machine"]).isdisjoint(set(c["machine"]))
    assert all(n.startswith("M-") and len(n) == 8 for n in a["machine"])
    assert not any("quiet" in n or "noisy" in n for n in a["machine"])
    assert list(cl.add_machine_columns(df, None)["machine"]) == ["quiet", "noisy"]


def test_flags_from_metadata_and_noise_diagnostics():
    recs = [_rec("syscall", {"op": "getppid"}, QUIET, 0.1, seed=1, reasons=["too_few_samples"]),
            _rec("bcopy", {"size_bytes": 8 << 20}, QUIET, 9000.0, seed=2, unit="MB/s", clock_change=0.01),
            _rec("syscall", {"op": "getppid"}, NOISY, 0.2, reasons=["spread"], seed=3),
            _rec("bcopy", {"size_bytes": 8 << 20}, NOISY, 5000.0, seed=4, unit="MB/s",
                 reasons=["clock_moved"], clock_change=-0.2)]
    f = cl.machine_flags(cl.add_machine_columns(_frame(recs), None)).set_index("machine")
    assert not f.loc["quiet", "virtual"] and f.loc["noisy", "virtual"]
    assert not f.loc["quiet", "noisy"] and f.loc["noisy", "noisy"]  # too few samples is not noise
    assert f.loc["noisy", "noisy_share"] == 0.5 and f.loc["quiet", "noisy_share"] == 0.0
    assert f.loc["noisy", "max_clock_change"] == pytest.approx(0.2)
    assert f.loc["noisy", "throttled"] and not f.loc["quiet", "throttled"]


def test_a_machine_is_noisy_from_a_quarter_of_its_results():
    recs = [_rec("syscall", {"op": "getppid"}, NOISY, 0.2, reasons=["steal"], seed=1)]
    recs += [_rec("syscall", {"op": f"op{k}"}, NOISY, 0.2, seed=k + 2) for k in range(3)]
    recs += [_rec("syscall", {"op": "getppid"}, QUIET, 0.2, reasons=["spread"], seed=9)]
    recs += [_rec("syscall", {"op": f"op{k}"}, QUIET, 0.2, seed=k + 10) for k in range(4)]
    f = cl.machine_flags(cl.add_machine_columns(_frame(recs), None)).set_index("machine")
    assert f.loc["noisy", "noisy_share"] == 0.25 and f.loc["noisy", "noisy"]   # 1 of 4
    assert f.loc["quiet", "noisy_share"] == 0.2 and not f.loc["quiet", "noisy"]  # 1 of 5


def test_class_results_and_paper_rows():
    recs = [_rec("syscall", {"op": "write"}, QUIET, 0.1, seed=1),
            _rec("syscall", {"op": "write"}, QUIET, 0.3, seed=2),
            _rec("syscall", {"op": "write"}, NOISY, 50.0, seed=3),
            _rec("syscall", {"op": "getppid"}, NOISY, 99.0, seed=4)]  # not in the class set
    df = cl.add_machine_columns(_frame(recs), None)
    t = cl.class_results(df)
    null = t[t["benchmark"] == "syscall op=write"].set_index("machine")
    assert null.loc["quiet", "median"] == pytest.approx(0.2) and null.loc["quiet", "results"] == 2
    assert null.loc["noisy", "median"] == 50.0
    c = cl.CORE[0]
    both = cl.against_paper(t, c)
    assert list(both[c.unit]) == sorted(both[c.unit])  # lower is better: ascending
    assert (both["source"] == "class").sum() == 2 and (both["source"] != "class").sum() >= 5
    assert both.iloc[0]["system"] == "quiet"  # 0.2 us beats every 1996 system
    assert set(t["benchmark"]) == {"syscall op=write"}  # one row per machine, not per paper


def test_the_class_set_reads_the_papers_declarations():
    from benchlib.papers import cell

    for c in cl.CORE:
        col = cell(c.paper, c.table, c.column, c.row)
        assert c.cell is col and c.benchmark == col.benchmark
        assert c.params.items() >= col.params.items()
    labels = {(c.paper, c.table): c.label for c in cl.CORE}
    assert labels[("ousterhout1990", "table02")].startswith("getpid (Table 2)")
    # Table 2 is getpid: the class measures what the paper's cell declares, not getppid
    t2 = next(c for c in cl.CORE if c.table == "table02")
    assert t2.name == "syscall op=getpid"
    # the two pipe cells (lmbench's pipe, Ousterhout's cswitch) are one measurement
    pipes = {c.name for c in cl.CORE if c.benchmark == "pipe_latency"}
    assert pipes == {"pipe_latency placement=same_cpu"}
    cs = next(c for c in cl.CORE if c.table == "table03")
    assert cs.unit == "us" and cs.paper_scale == pytest.approx(1000.0)


def test_numeric_parameters_match_across_benchmarks():
    """size_bytes is a float column once other benchmarks lack it: 8 MiB must still match."""
    recs = [_rec("syscall", {"op": "write"}, QUIET, 0.1, seed=1),
            _rec("bcopy", {"size_bytes": 8 << 20}, QUIET, 9000.0, seed=2, unit="MB/s"),
            _rec("bcopy", {"size_bytes": 4096}, QUIET, 50000.0, seed=3, unit="MB/s")]
    t = cl.class_results(cl.add_machine_columns(_frame(recs), None))
    assert t.set_index("benchmark").loc["bcopy size_bytes=8388608", "median"] == 9000.0


def test_recorded_files_are_labelled_as_recorded_here():
    from benchlib.results import resultfile

    files = cl.recorded_files()
    assert len(files) >= 2
    conditions = set()
    for f in files:
        assert f.name.startswith("recorded-here_")
        recs = resultfile.read_records(f)  # valid result files
        assert {r["benchmark"] for r in recs} == {b for b, _ in cl.core_points()}
        for r in recs:
            assert "test data" in r["machine"]["recorded_note"]
            assert r["machine"]["hostname"].endswith("~" + f.name.split(".")[0].rsplit("_", 1)[-1])
            assert len(r["samples"]) == r["n_samples"] > 0
        conditions.add(recs[0]["machine"]["recorded_condition"])
    assert len(conditions) == len(files)  # each file a different condition


def test_distributions_one_panel_per_benchmark_every_sample_drawn():
    import matplotlib
    matplotlib.use("Agg")
    import numpy as np

    rng = np.random.default_rng(0)
    rows = [{"benchmark": b, "unit": u, "machine": m, "value": v}
            for b, u, base in (("null system call (getppid)", "us", 0.08), ("bcopy 8 MiB", "MB/s", 1e4))
            for m, n in (("M-b", 7), ("M-a", 5), ("M-c", 9))
            for v in base * rng.lognormal(0, 0.1, n)]
    fig = cl.plot_distributions(pd.DataFrame(rows), "the class set on 3 machines")
    assert fig._suptitle.get_text() == "the class set on 3 machines"
    assert [ax.get_xlabel() for ax in fig.axes] == ["null system call (getppid) (us)", "bcopy 8 MiB (MB/s)"]
    for ax in fig.axes:
        assert ax.get_xscale() == "log"
        assert [t.get_text() for t in ax.get_yticklabels()] == ["M-a", "M-b", "M-c"]
        points = [len(c.get_offsets()) for c in ax.collections]
        assert points == [5, 7, 9]                           # every sample, per machine in order
        assert len(ax.patches) == 3                          # one box per machine


def test_against_paper_bars_the_class_in_orange():
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.container import BarContainer

    c = cl.CORE[0]
    t = cl.against_paper(pd.DataFrame({"benchmark": [c.name] * 2, "machine": ["M-a", "M-b"],
                                       "median": [0.2, 50.0]}), c)
    fig = cl.plot_against_paper(t, c, "null call and the class")
    ax = fig.axes[0]
    assert ax.get_title() == "null call and the class" and ax.get_xlabel() == f"{c.name} (us; lower is better)"
    assert [x.get_text() for x in ax.get_yticklabels()] == list(t["system"])
    bars = [p for b in ax.containers if isinstance(b, BarContainer) for p in b]
    orange = sorted(p.get_width() for p in bars
                    if matplotlib.colors.to_hex(p.get_facecolor()) == matplotlib.colors.to_hex("tab:orange"))
    assert orange == [0.2, 50.0] and len(bars) == len(t)
