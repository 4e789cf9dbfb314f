"""benchlib.papers.laibaker1996.measure: the rows and curves measured for Lai & Baker's
slides have the slides' columns and units, compare the right way round,
and use valid parameters.  No timing thresholds."""
import math

import pandas as pd
import pytest

from benchlib.stats.intervals import exact
from benchlib.papers.laibaker1996 import measure as lb
from benchlib.papers import TableRows
from benchlib.papers.laibaker1996 import paper
from benchlib.measuring.registry import get_benchmark


class _R:
    """A stand-in Result with the fields the summaries read."""
    def __init__(self, median, lo=None, hi=None, n=5):
        self.median, self.min, self.max, self.n_samples = median, lo or median, hi or median, n
        self.measured = exact(median)   # a median with no interval


def _rows():
    return {
        "system_call": TableRows("system_call", pd.DataFrame(
            [{"os": "this machine, pinned", "time_us": 0.1}]),
            {"pinned": _R(0.1, 0.09, 0.12), "unpinned": _R(0.2)}),
        "tcp_bandwidth": TableRows("tcp_bandwidth", pd.DataFrame(
            [{"os": "this machine, one CPU", "bandwidth_mbit_s": 800.0}]),
            {"one CPU": _R(100.0), "two CPUs": _R(50.0)}),
        "andrew_local": TableRows("andrew_local", pd.DataFrame(
            [{"os": "this machine, local", "time_s": 4.312}]),
            {"time_s": _R(4.312, 4.0, 5.0, 3)}),
    }


def test_then_and_now_the_right_way_round():
    t = lb.then_and_now(_rows()).set_index("table")
    assert t.loc["system_call", "x best 1995"] == pytest.approx(2.31 / 0.1)
    assert t.loc["system_call", "x worst 1995"] == pytest.approx(3.52 / 0.1)
    assert t.loc["tcp_bandwidth", "x best 1995"] == pytest.approx(800.0 / 65.95)
    assert t.loc["andrew_local", "x best 1995"] == pytest.approx(10.0)
    assert math.isnan(t.loc["andrew_nfs", "this machine"])
    assert t.loc["andrew_nfs", "row"] == "not measured here"
    assert t.loc["tcp_bandwidth", "spread 1995"] == pytest.approx(65.95 / 25.03)


def test_spread_on_this_machine():
    ctx = pd.DataFrame({"processes": [2, 64], "placement": "same_cpu", "per_hop_us": [3.0, 4.5]})
    small = pd.DataFrame({"phase": ["create", "create", "read"], "us_per_file": [20.0, 40.0, 1.0]})
    s = lb.spread_on_this_machine(_rows(), ctx, small).set_index("what varies")
    assert (s.ratio >= 1).all() and (s.low <= s.high).all()
    assert s.loc["getpid: pinned or unpinned", "ratio"] == pytest.approx(2.0)
    assert s.loc["TCP bandwidth: one CPU or two", "ratio"] == pytest.approx(2.0)
    assert s.loc["context switch with its pipe: 2 to 64 processes", "ratio"] == pytest.approx(1.5)
    assert s.loc["Andrew benchmark: its runs (fastest, slowest)", "ratio"] == pytest.approx(1.25)
    assert any(k.startswith("small file: creating") for k in s.index)


@pytest.mark.parametrize("profile", ["smoke", "quick", "full"])
def test_grids_are_valid_parameters(profile, tmp_path):
    for n in lb.ctx_processes(profile):
        get_benchmark("context_switch").resolve({"processes": n})
    sizes, files = lb.small_file_sizes(profile)
    for s in sizes:
        get_benchmark("small_file").resolve({"size_bytes": s, "files": files,
                                             "directory": str(tmp_path)})
    for s in lb.net_sizes(profile):
        get_benchmark("udp_bandwidth").resolve({"datagram_bytes": s})
        get_benchmark("ipc_bandwidth").resolve({"transport": "tcp", "transfer_bytes": s})
    assert max(lb.ctx_processes(profile)) <= 64 and min(lb.ctx_processes(profile)) == 2


def test_megabits_are_eight_megabytes():
    assert lb.MBIT_PER_MB == 8 and paper.MEGABIT == 1e6


def test_curves_in_smoke(tmp_path):
    ctx = lb.context_switch_curve("smoke", progress=False)
    assert sorted(ctx.processes) == lb.ctx_processes("smoke")
    # the one-process overhead (a pipe write and read) is a real cost
    assert (ctx.overhead_us > 0.05).all()
    small = lb.small_file_curve("smoke", directory=str(tmp_path), progress=False)
    assert set(small.phase) == {"create", "write", "read", "delete", "total"}
    for size, grp in small.groupby("size_bytes"):
        assert len(grp) == 5 and (grp.us_per_file > 0).all()
    assert list(tmp_path.iterdir()) == []


def test_ext4_journal_is_told_or_unknown(tmp_path):
    import os
    if os.path.isdir("/dev/shm"):
        assert lb.ext4_has_journal("/dev/shm") is None      # tmpfs: not ext4
    j = lb.ext4_has_journal(str(tmp_path))
    fs = lb.filesystem_of(str(tmp_path))
    if fs["fs_type"] != "ext4":
        assert j is None
        return
    # on ext4, the answer agrees with the superblock's feature list, read
    # independently with dumpe2fs (e2fsprogs)
    import shutil
    import subprocess
    device = next((line.split()[0] for line in open("/proc/self/mounts")
                   if line.split()[1] == fs["mount_point"] and line.split()[2] == "ext4"), None)
    if not shutil.which("dumpe2fs") or not device or not device.startswith("/dev/"):
        pytest.skip("dumpe2fs or the ext4 device is not available to cross-check")
    out = subprocess.run(["dumpe2fs", "-h", device], capture_output=True, text=True)
    features = next((line for line in out.stdout.splitlines()
                     if line.startswith("Filesystem features:")), None)
    if out.returncode != 0 or features is None:
        pytest.skip(f"dumpe2fs cannot read {device}")
    assert j is ("has_journal" in features.split())
