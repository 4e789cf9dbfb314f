"""benchlib.papers.mach1989.measure: this machine's rows in the thread's tables.  The IPC
and Unix tables are measured in the smoke profile; the Andrew and RPC
shaping is checked on stand-in results (the notebook runs them for real)."""
import math
from types import SimpleNamespace

import pandas as pd
import pytest

from benchlib.stats.intervals import exact
from benchlib.papers.mach1989 import measure as mm
from benchlib.papers import TableRows, tables
from benchlib.papers.mips import MipsRating
from benchlib.papers.mach1989 import paper


@pytest.fixture(scope="module")
def ipc():
    return mm.ipc_tests("smoke", fixed_calls=1000)


def test_ipc_tests_rows_follow_the_thread(ipc):
    rows = ipc.rows
    assert list(rows.test) == list(paper.IPC_TESTS) == list(paper.load("ipc_tests").test)
    assert (rows.iterations == 1000).all() and (rows.median_us > 0).all()
    local = rows[~rows.test.str.startswith("remote")]
    remote = rows[rows.test.str.startswith("remote")]
    assert local.server_user_ms.isna().all() and remote.server_user_ms.notna().all()
    # the server runs on the client's CPU: one switch per call on each side
    assert (remote.switches_per_call >= 0.9).all() and (remote.server_switches_per_call >= 0.9).all()
    assert (local.switches_per_call < 0.1).all()
    # a call to another process against an empty local call: thousands of
    # times dearer; with a 10x margin three of five local samples would have
    # to be slowed hundreds of times to flip the medians (noise only adds)
    assert remote.median_us.min() > 10 * local[local.test == "localNull"].median_us.iloc[0]
    assert ipc.results["remoteNull"].params["placement"] == "same_cpu"
    assert ipc.results["localAdd"].params["cpu"] == ipc.notes["cpu"]


def test_per_call_table_and_normalisation(ipc):
    pc = mm.ipc_per_call(ipc).set_index("test")
    assert pc.loc["remoteNull", "pmax_elapsed_us"] == 198
    assert pc.loc["remoteNull", "network_elapsed_us (paper only)"] == 6563
    assert math.isnan(pc.loc["localAdd", "network_elapsed_us (paper only)"])
    fx = ipc.rows.set_index("test").loc["remoteAdd"]
    assert pc.loc["remoteAdd", "elapsed_us"] == pytest.approx(fx.elapsed_ms * 1000 / 1000)
    n = mm.normalised_ipc(pc.reset_index(), rating=1200.0).set_index("test")
    # 1989 per call from the totals, not truncated: 1985 ms / 10000 = 198.5 us
    assert n.loc["remoteNull", "pmax_us"] == pytest.approx(198.5)
    assert math.isnan(n.loc["localNull", "pmax_us"])  # 0 ms: under one tick
    # 1200 VAX MIPS against the pmax's 12: the rating's ratio is 100
    row = n.loc["remoteAdd"]
    assert row.this_machine_vax780_us == pytest.approx(row.this_machine_us * 1200)


def test_normalised_ipc_on_known_figures():
    per_call = pd.DataFrame({"test": ["localAdd", "remoteNull"], "median_us": [0.0016, 0.1985]})
    n = mm.normalised_ipc(per_call, rating=12000.0).set_index("test")
    # 1000x faster on a 1000x faster CPU: exactly as the MIPS predict
    assert n.mips_relative_speed.tolist() == pytest.approx([1.0, 1.0])
    assert n.loc["remoteNull", "pmax_vax780_us"] == pytest.approx(n.loc["remoteNull", "this_machine_vax780_us"])


def test_ipc_variants_smoke():
    df = mm.ipc_variants("smoke", ops=("null",), transports=("socketpair",),
                         placements=("same_cpu", "unpinned"), fixed_calls=500, progress=False)
    assert len(df) == 2 and set(df.placement) == {"same_cpu", "unpinned"}
    assert (df.client_cpu_us > 0).all() and (df.server_cpu_us > 0).all()


def test_unix_tests():
    tr = mm.unix_tests("smoke")
    t = tr.rows.set_index("test")
    assert list(t.index) == ["exec", "touch", "fork"]
    assert (t.this_machine_ms > 0).all()
    # the thread's rows come from the paper's CSV, ours from the run
    assert t.loc["touch", "mach_ms"] == 0.684
    assert t.loc["exec", "mach_ms"] == 12.0
    # this machine's column is the right result in the right unit (ms)
    assert t.loc["exec", "this_machine_ms"] == tr.results["exec_ms"].median
    assert t.loc["touch", "this_machine_ms"] == pytest.approx(tr.results["touch_ms"].median / 1e3)
    assert tr.results["exec_ms"].params["op"] == "fork_exec_exit"   # as cells.CELLS declares


def _fake_result(median, extras=None, params=None):
    return SimpleNamespace(median=median, extras=extras or {}, params=params or {},
                           n_samples=3, min=median, max=median, measured=exact(median))


def test_andrew_rows(monkeypatch):
    phases = {"mkdir": 0.01, "copy": 0.4, "stat": 0.02, "read": 0.07, "compile": 4.5}
    fake = _fake_result(5.0, {"phase_median_s": phases, "fs_type": "tmpfs"})
    monkeypatch.setattr(tables, "run", lambda *a, **k: fake)
    t = mm.andrew("smoke").rows.set_index("phase")
    assert t.loc["Phase V", "this_machine_s"] == 4.5 and t.loc["Total elapsed", "this_machine_s"] == 5.0
    assert t.loc["Phase I", "mach_s"] == 4
    for col in ("ultrix_pct", "mach_pct", "this_machine_pct"):
        assert t[col].drop("Total elapsed").sum() == pytest.approx(100)
        assert math.isnan(t.loc["Total elapsed", col])
    assert t.loc["Phase V", "mach_pct"] == pytest.approx(79 / 108 * 100)


def test_rpc_rows_and_ranking(monkeypatch):
    ipc = TableRows("ipc_tests", pd.DataFrame(), {"remoteNull": _fake_result(5.0)},
                    {"transport": "pipe", "placement": "same_cpu"})
    rating = MipsRating(result=None, native_mips=10000.0, rating=10000.0, low=5000.0, high=20000.0)
    monkeypatch.setattr(mm, "run", lambda *a, **k: _fake_result(20.0))
    monkeypatch.setattr(mm, "have_rpc", lambda: True)
    rows = mm.rpc_rows(ipc, rating, "smoke")
    assert rows.rows.time_ms.tolist() == pytest.approx([0.005, 0.02])
    ranking = paper.rpc_ranking(rows.rows)
    ours = ranking[ranking.source == "this machine"].set_index("time_ms")
    assert ours.loc[0.005, "vax780_ms"] == pytest.approx(50.0)
    assert ours.loc[0.005, "vax780_ms_high"] == pytest.approx(100.0)
    monkeypatch.setattr(mm, "have_rpc", lambda: False)
    rows = mm.rpc_rows(ipc, rating, "smoke")
    assert len(rows.rows) == 1 and "rpc_latency" in rows.notes["skipped"]


@pytest.mark.parametrize("config,mode,hz", [
    ("CONFIG_TICK_CPU_ACCOUNTING=y\nCONFIG_HZ=250\n", "tick", 250),
    ("CONFIG_VIRT_CPU_ACCOUNTING_GEN=y\nCONFIG_HZ=1000\n", "precise", 1000),
    ("# CONFIG_VIRT_CPU_ACCOUNTING_GEN is not set\n", "unknown", None),
    ("", "unknown", None),
])
def test_cpu_time_accounting(monkeypatch, config, mode, hz):
    monkeypatch.setattr(mm, "kernel_config_text", lambda: (config, "/proc/config.gz"))
    got = mm.cpu_time_accounting()
    assert got["accounting"] == mode and got["hz"] == hz
    if hz:
        assert got["tick_ms"] == pytest.approx(1000 / hz)
