"""bench/compare_perf.py's pure parts: reading perf's output and mapping
io_workload's request sizes to fio's --bssplit (recorded text, known answers)."""
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
