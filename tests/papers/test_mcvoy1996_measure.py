"""The lmbench paper's OS/IPC/FS tables: every declared cell is a paper
column and a registered benchmark, this machine's row sorts into the
paper's table, speed-ups, relations and the readings of the context-switch
figure and the IPC table are computed the right way round, by the
intervals.  No timing thresholds."""
import math

import pandas as pd
import pytest

from benchlib.stats import intervals as iv
from benchlib.stats.intervals import Measured
from benchlib.errors import BenchlibError
from benchlib.papers import measure_rows, paper_table
from benchlib.papers.mcvoy1996 import measure as lm
from benchlib.papers.mcvoy1996 import paper
from benchlib.papers.mcvoy1996.cells import CELLS


def _row(table, **values):
    return lm.TableRows(table, pd.DataFrame([{"system": "this machine", **values}]),
                        spec=CELLS[table])


def test_paper_table_sorts_best_first():
    t = paper_table(_row("null_syscall", null_syscall_us=3.0))
    assert t.null_syscall_us.is_monotonic_increasing
    assert (t.source == "this machine").sum() == 1
    b = paper_table(_row("tcp_bandwidth", tcp_mb_s=10.0))
    assert "row" not in b.columns and "failed" not in b.columns
    assert b.tcp_mb_s.is_monotonic_decreasing


def test_speedups_are_the_right_way_round():
    p = paper.load("null_syscall").null_syscall_us
    s = lm.speedups(_row("null_syscall", null_syscall_us=0.5)).iloc[0]
    assert s["speed-up vs fastest"] == pytest.approx(p.min() / 0.5)
    assert s["speed-up vs slowest"] == pytest.approx(p.max() / 0.5)
    bw = paper.load("tcp_bandwidth").tcp_mb_s
    s = lm.speedups(_row("tcp_bandwidth", tcp_mb_s=100.0)).iloc[0]
    assert s["speed-up vs fastest"] == pytest.approx(100.0 / bw.max())


class _R:
    def __init__(self, value, lo, hi):
        self.measured = Measured(value, lo, hi)


def test_relations_read_the_intervals_and_flag_failures():
    rows = {"context_switch": lm.TableRows("context_switch", pd.DataFrame(),
                                          {"p2_0kb_us": _R(2.0, 1.9, 2.1)}),
            "pipe_latency": lm.TableRows("pipe_latency", pd.DataFrame(),
                                        {"pipe_us": _R(5.0, 4.8, 5.2)}),
            "process_creation": lm.TableRows("process_creation", pd.DataFrame(),
                                            {"fork_exit_ms": _R(0.3, 0.29, 0.31),
                                             "fork_exec_exit_ms": _R(0.2, 0.19, 0.21),
                                             "fork_exec_sh_exit_ms": _R(0.21, 0.15, 0.3)})}
    rel = lm.relations(rows).set_index("relation")
    assert rel.loc["context switch of 2 processes, 0 KB, below pipe latency", "holds"] is True
    assert rel.loc["fork + exec above fork", "holds"] is False
    assert rel.loc["fork + sh -c above fork + exec", "holds"] is None   # intervals overlap
    assert rel.loc["TCP latency above pipe latency", "holds"] is None   # not measured
    ratio = iv.get(rel, "ratio", "fork + exec above fork")
    assert (ratio.lo, ratio.hi) == pytest.approx((0.19 / 0.31, 0.21 / 0.29))


def test_ipc_over_copy_decides_by_the_interval():
    def ipc(pipe, tcp, copy=Measured(10000.0, 9500.0, 10500.0)):
        return lm.TableRows("ipc_bandwidth", pd.DataFrame([{
            "system": "this machine", "bcopy_libc_mb_s": copy,
            "pipe_mb_s": pipe, "tcp_mb_s": tcp}]), spec=CELLS["ipc_bandwidth"])

    r = lm.ipc_over_copy(ipc(Measured(3000.0, 2900.0, 3100.0), Measured(2000.0, 1800.0, 2200.0)))
    assert list(r.below_copy) == [True, True]
    assert iv.get(r, "over_bcopy", 0).value == pytest.approx(0.3)
    r = lm.ipc_over_copy(ipc(Measured(12000.0, 11000.0, 13000.0), Measured(9900.0, 9000.0, 11000.0)))
    assert list(r.below_copy) == [False, None]   # above; straddles 1
    assert list(lm.ipc_over_copy(ipc(3000.0, 2000.0, 10000.0)).below_copy) == [None, None]   # no interval


def _curve(points):
    """(processes, process_kb, median, lo, hi) -> a ctx_curves frame."""
    df = pd.DataFrame([{"processes": n, "process_kb": k} for n, k, *_ in points])
    iv.put(df, "median", [Measured(m, lo, hi) for *_, m, lo, hi in points])
    return df


def test_ring_rises_past_the_knee_by_the_interval():
    l2 = 1 << 20   # 64 KB processes: the knee at 16
    up = _curve([(2, 0, 1.0, 0.9, 1.1), (8, 64, 2.0, 1.9, 2.1), (16, 64, 2.1, 2.0, 2.2),
                 (32, 64, 6.0, 5.5, 6.5), (4, 4, 1.2, 1.1, 1.3)])
    r = lm.ring_rises(up, l2)
    assert list(r.process_kb) == [64]           # 4 KB: knee at 256, beyond the grid; 0 KB: none
    assert r.rises.tolist() == [True] and (r.before_processes[0], r.after_processes[0]) == (16, 32)
    flat = _curve([(16, 64, 2.1, 2.0, 2.2), (32, 64, 2.0, 1.5, 2.5)])
    assert lm.ring_rises(flat, l2).rises.tolist() == [None]
    down = _curve([(16, 64, 4.0, 3.9, 4.1), (32, 64, 2.0, 1.9, 2.1)])
    assert lm.ring_rises(down, l2).rises.tolist() == [False]
    assert lm.ring_rises(_curve([(2, 64, 1.0, 0.9, 1.1)]), l2).empty


def test_the_knee_l2_is_read_never_invented():
    from types import SimpleNamespace

    fit = SimpleNamespace(levels=[SimpleNamespace(size_bytes=48 << 10),
                                  SimpleNamespace(size_bytes=2 << 20),
                                  SimpleNamespace(size_bytes=None)])
    assert lm.knee_l2({"l2_bytes": 1 << 20}, fit) == (2 << 20, "the memory fit")
    assert lm.knee_l2({"l2_bytes": 1 << 20}) == (1 << 20, "sysfs")
    with pytest.raises(BenchlibError, match="L2 cache size is unknown"):
        lm.knee_l2({})


def test_ctx_grid_goes_beyond_l2():
    procs, sizes = lm.ctx_grid("quick", 1 << 20)
    assert max(procs) >= 32 and {0, 4, 16, 32, 64} <= set(sizes)
    assert max(sizes) * 1024 > 1 << 20
    assert lm.ctx_knee_processes(64, 1 << 20) == 16
    assert math.isinf(lm.ctx_knee_processes(0, 1 << 20))


def test_measure_rows_shares_results_through_the_cache():
    cache = {}
    a = measure_rows(CELLS["ipc_bandwidth"], "smoke", cache=cache)
    b = measure_rows(CELLS["tcp_bandwidth"], "smoke", cache=cache)
    assert b.results["tcp_mb_s"] is a.results["tcp_mb_s"]
    assert a.rows.system.iloc[0] == "this machine"
