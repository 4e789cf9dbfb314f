"""The lmbench paper's OS/IPC/FS tables: every column maps to a registered
benchmark, this machine's row sorts into the paper's table, speed-ups and
relations are computed the right way round.  No timing thresholds."""
import math

import pandas as pd
import pytest

from benchlib.papers import column_params
from benchlib.papers.mcvoy1996 import measure as lm
from benchlib.papers.mcvoy1996 import paper
from benchlib.measuring.registry import get_benchmark


def test_every_column_is_a_paper_column_and_a_benchmark():
    assert "remote_network" not in lm.SPECS and "memory_latency" not in lm.SPECS
    for table, (sort_col, _, cols) in lm.SPECS.items():
        df = paper.load(table)
        assert sort_col in cols and set(cols) <= set(df.columns), table
        for col in cols.values():
            b = get_benchmark(col.benchmark)
            b.resolve(column_params(col, "/tmp"))   # the parameters are valid


def _row(table, **values):
    return lm.TableRows(table, pd.DataFrame([{"system": "this machine", **values}]))


def test_paper_table_sorts_best_first():
    t = lm.paper_table(_row("null_syscall", null_syscall_us=3.0))
    assert t.null_syscall_us.is_monotonic_increasing
    assert (t.source == "this machine").sum() == 1
    b = lm.paper_table(_row("tcp_bandwidth", tcp_mb_s=10.0))
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
    def __init__(self, best):
        self.best = best


def test_relations_use_best_samples_and_flag_failures():
    rows = {"context_switch": lm.TableRows("context_switch", pd.DataFrame(),
                                          {"p2_0kb_us": _R(2.0)}),
            "pipe_latency": lm.TableRows("pipe_latency", pd.DataFrame(), {"pipe_us": _R(5.0)}),
            "process_creation": lm.TableRows("process_creation", pd.DataFrame(),
                                            {"fork_exit_ms": _R(0.3), "fork_exec_exit_ms": _R(0.2),
                                             "fork_exec_sh_exit_ms": _R(2.0)})}
    rel = lm.relations(rows).set_index("relation")
    assert rel.loc["context switch of 2 processes, 0 KB, below pipe latency", "holds"] is True
    assert rel.loc["fork + exec above fork", "holds"] is False
    assert rel.loc["fork + sh -c above fork + exec", "holds"] is True
    assert rel.loc["TCP latency above pipe latency", "holds"] is None   # not measured


def test_ctx_grid_goes_beyond_l2():
    procs, sizes = lm.ctx_grid("quick", 1 << 20)
    assert max(procs) >= 32 and {0, 4, 16, 32, 64} <= set(sizes)
    assert max(sizes) * 1024 > 1 << 20
    assert lm.ctx_knee_processes(64, 1 << 20) == 16
    assert math.isinf(lm.ctx_knee_processes(0, 1 << 20))
    # an unknown L2 invents no size beyond it
    assert lm.ctx_grid("quick", None)[1] == [0, 4, 16, 32, 64]


def test_measure_table_shares_results_through_the_cache():
    cache = {}
    a = lm.measure_table("ipc_bandwidth", "smoke", cache=cache)
    b = lm.measure_table("tcp_bandwidth", "smoke", cache=cache)
    assert b.results["tcp_mb_s"] is a.results["tcp_mb_s"]
    assert a.rows.system.iloc[0] == "this machine"
