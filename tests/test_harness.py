"""The timing core through the Python API: structure, calibration, pinning,
and relations between benchmarks that hold whatever the noise."""
import os
import signal
import threading
import time

import numpy as np
import pytest

import benchlib
from benchlib.harness import PROFILES


def test_result_structure_and_summary():
    r = benchlib.run("syscall", op="getpid", profile="smoke")
    assert r.benchmark == "syscall" and r.unit == "us" and r.params["op"] == "getpid"
    assert 1 <= r.n_samples <= PROFILES["smoke"].n_samples
    assert len(r.ns_per_iteration) == r.n_samples
    assert all(s > 0 for s in r.samples)
    assert r.min <= r.median <= r.max
    assert r.value == r.median and r.best == r.min
    assert np.allclose(np.array(r.samples) * 1e3, r.ns_per_iteration)
    d = r.to_dict()
    for key in ("benchmark", "params", "value", "unit", "min", "median", "n_samples",
                "samples", "machine", "placement", "iterations_per_sample"):
        assert key in d
    for key in ("cpu_model", "cpus_online", "caches", "kernel", "virtualized", "thp_enabled",
                "cpufreq_governor", "loadavg", "compiler", "cflags", "benchlib_version",
                "timestamp"):
        assert key in d["machine"]


def test_calibration_makes_samples_long_against_the_clock():
    r = benchlib.run("syscall", profile="smoke")
    target_ns = PROFILES["smoke"].target_sample_ms * 1e6
    sample_ns = r.iterations_per_sample * np.median(r.ns_per_iteration)
    assert r.iterations_per_sample > 1
    assert sample_ns > 0.5 * target_ns
    assert sample_ns > 500 * r.clock_resolution_ns


def test_tsc_column_agrees_with_the_clock_when_present():
    r = benchlib.run("syscall", profile="smoke")
    if r.tsc_ticks_per_iteration is None:
        pytest.skip("no time-stamp counter on this CPU")
    ghz = r.machine["tsc_ghz"]
    ratio = np.median(r.tsc_ticks_per_iteration) / ghz / np.median(r.ns_per_iteration)
    assert ratio == pytest.approx(1.0, rel=0.05)


def test_pinning_is_applied_and_then_undone(two_cpus):
    before = os.sched_getaffinity(0)
    r = benchlib.run("syscall", profile="smoke", cpu=two_cpus[1])
    assert r.placement["cpu_first"] == r.placement["cpu_last"] == two_cpus[1]
    assert r.placement["cpu_migrations"] == 0
    assert os.sched_getaffinity(0) == before


def test_pipe_placements(two_cpus):
    same = benchlib.run("pipe_latency", placement="same_cpu", profile="smoke")
    assert same.placement["helper_cpu"] == same.placement["cpu_last"] == two_cpus[0]
    diff = benchlib.run("pipe_latency", placement="different_cpus", profile="smoke")
    assert diff.placement["helper_cpu"] != diff.placement["cpu_last"]
    free = benchlib.run("pipe_latency", placement="unpinned", profile="smoke")
    assert free.placement["helper_cpu"] == -1


def test_a_round_trip_costs_more_than_a_system_call():
    # four system calls and two wake-ups against one system call
    rt = benchlib.run("pipe_latency", profile="smoke").median
    sc = benchlib.run("syscall", profile="smoke").median
    assert rt > 2 * sc


def test_memory_is_slower_than_l1():
    """DCE guard: a chase that was optimised away would report ~0 ns."""
    l1 = benchlib.run("mem_latency", size_bytes="8k", stride_bytes=64, profile="smoke")
    far = benchlib.run("mem_latency", size_bytes="128M", stride_bytes=4096 + 64,
                       profile="smoke")
    assert l1.median > 0.2  # no load completes in under a cycle at 5 GHz
    assert far.median > 3 * l1.median


def test_bcopy_reports_bandwidth_from_the_size():
    r = benchlib.run("bcopy", size_bytes="64k", profile="smoke")
    assert r.unit == "MB/s" and r.higher_is_better and r.best == r.max
    assert r.median == pytest.approx(65536 / np.median(r.ns_per_iteration) * 1e3)
    assert 100 < r.median < 1e7  # between 100 MB/s and 10 TB/s


def test_sweep_is_tidy():
    df = benchlib.sweep("mem_latency", {"size_bytes": ["4k", "16k"], "stride_bytes": [64, 128]},
                        profile="smoke", progress=False)
    assert len(df) == 4
    assert {"size_bytes", "stride_bytes", "value", "median", "min", "unit"} <= set(df.columns)
    assert sorted(df.size_bytes.unique()) == [4096, 16384]
    assert df.attrs["machine"]["cpu_model"] is not None


def test_sweep_validates_every_point_before_measuring():
    results = []
    with pytest.raises(benchlib.BenchlibError, match="larger than size_bytes"):
        benchlib.sweep("mem_latency", {"size_bytes": [4096, 64]}, stride_bytes=128,
                       profile="smoke", progress=False, results=results)
    assert results == []


def test_sigint_stops_a_long_measurement_promptly():
    """The C guard sees SIGINT between samples and returns; Python raises."""
    from benchlib._native import ffi, lib

    opts = ffi.new("bl_opts *", {"n_samples": 1000, "n_warmup": 0, "target_sample_ns": 0,
                                 "iterations": 2, "max_total_ns": 0, "cpu": -1,
                                 "helper_cpu": -1})
    ns, info = ffi.new("double[]", 1000), ffi.new("bl_info *")
    # A thread sends SIGINT while the main thread is inside the C call (the
    # GIL is released there), as a terminal's Ctrl-C would.
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            rc = lib.bl_sleep_loop(20000.0, opts, ns, ffi.NULL, info)  # 1000 x 2 x 20 ms
            assert rc == lib.BL_EINTR
            raise KeyboardInterrupt
    finally:
        timer.cancel()
    assert time.monotonic() - t0 < 5
    assert 0 < info.n_samples < 1000


def test_clock_is_probed_around_every_sample():
    r = benchlib.run("mem_latency", size_bytes="16k", profile="smoke")
    assert len(r.clock_ghz) == r.n_samples
    assert all(0.2 < g < 10 for g in r.clock_ghz)
    assert r.cycles_per_iteration == pytest.approx(
        [n * g for n, g in zip(r.ns_per_iteration, r.clock_ghz)])
    assert r.median_cycles > 1.5  # no load-to-use in under two cycles: the chase is real


def test_cpu_clock_runs_its_chain_at_one_add_per_cycle():
    # The probe and the benchmark time the same chain, so a sample is ~100
    # cycles unless the samples and the probes got out of step.
    r = benchlib.run("cpu_clock", profile="smoke")
    assert r.unit == "GHz" and r.higher_is_better
    assert 80 < r.median_cycles < 150
