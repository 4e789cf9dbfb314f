"""The timing core through the Python API: structure, calibration, pinning.

No test here orders two live timings: CI runs on a shared VM whose host
stalls it in bursts.  Where a bound is checked it is one that noise can only
move away from (noise adds time, never removes it), or a physical floor."""
import dataclasses
import math
import os
import signal
import threading
import time

import numpy as np
import pytest

import benchlib
from benchlib.measuring.harness import PROFILES


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


def test_summary_statistics_on_known_samples():
    import dataclasses

    r = dataclasses.replace(benchlib.run("syscall", profile="smoke"),
                            samples=[5.0, 1.0, 4.0, 2.0, 3.0])
    assert (r.min, r.median, r.max, r.mean) == (1.0, 3.0, 5.0, 3.0)
    assert r.rel_iqr == pytest.approx((4.0 - 2.0) / 3.0)  # quartiles 2 and 4
    assert r.stdev == pytest.approx(np.std([1, 2, 3, 4, 5], ddof=1))
    skewed = dataclasses.replace(r, samples=[5.0, 1.0, 4.0, 2.0, 13.0])
    assert (skewed.median, skewed.mean, skewed.value) == (4.0, 5.0, 4.0)  # the median, not the mean


def test_calibration_makes_samples_long_against_the_clock():
    # By construction of the calibration: it stops at the first count whose
    # confirmed (least of up to three) reading reaches the target, which is
    # at least 1000 clock steps.  Noise can only lengthen a reading.
    r = benchlib.run("syscall", profile="smoke")
    target_ns = PROFILES["smoke"].target_sample_ms * 1e6
    assert r.calibrated_sample_ns >= max(target_ns, 1000 * r.clock_resolution_ns)
    # a system call takes far less than the 0.2 ms target, so the count grew
    assert r.iterations_per_sample > 1


def test_a_slow_first_reading_does_not_fix_the_count():
    # The body's very first iteration stalls 200 ms, every later one sleeps
    # 50 us.  Calibration's first reading (one iteration, 200 ms) is above
    # the 20 ms target; were it believed, the run would keep one iteration
    # per sample.  Confirmed by two more readings (50 us each), it is not:
    # the count grows until a confirmed reading reaches 20 ms.
    from benchlib._native import ffi, lib

    opts = ffi.new("bl_opts *", {"n_samples": 2, "n_warmup": 0, "target_sample_ns": 20e6,
                                 "iterations": 0, "max_total_ns": 0, "cpu": -1,
                                 "helper_cpu": -1})
    ns, info = ffi.new("double[]", 2), ffi.new("bl_info *")
    assert lib.bl_stall_once_loop(200000.0, 50.0, opts, ns, ffi.NULL, info) == lib.BL_OK
    assert info.calibrated_sample_ns >= 20e6
    assert info.iterations > 1
    # a sleep never returns early: no sample is shorter than its sleeps
    assert all(ns[i] >= 50e3 for i in range(info.n_samples))


def test_tsc_column_agrees_with_the_clock_when_present():
    r = benchlib.run("syscall", profile="smoke")
    if r.tsc_ticks_per_iteration is None:
        pytest.skip("no time-stamp counter on this CPU")
    # Both clocks time the same interval (the TSC reads enclose the
    # CLOCK_MONOTONIC reads), so host noise moves both alike; only the TSC's
    # rate, measured once at start-up, sets the ratio.
    ghz = r.machine["tsc_ghz"]
    ratios = np.array(r.tsc_ticks_per_iteration) / ghz / np.array(r.ns_per_iteration)
    assert np.median(ratios) == pytest.approx(1.0, rel=0.05)


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


def test_the_chase_is_not_optimised_away():
    """DCE guard: a chase the compiler had removed would report ~0 ns.  The
    floor is physical (no dependent load completes in under a cycle at
    5 GHz) and noise can only raise a time, so this cannot flip."""
    l1 = benchlib.run("mem_latency", size_bytes="8k", stride_bytes=64, profile="smoke")
    assert l1.min > 0.2


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
    """The C guard sees SIGINT between samples and returns BL_EINTR with the
    samples taken so far; the harness turns that into KeyboardInterrupt."""
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
    rc = None
    try:
        rc = lib.bl_sleep_loop(20000.0, opts, ns, ffi.NULL, info)  # 1000 x 2 x 20 ms
    except KeyboardInterrupt:
        pass  # Python's own handler also saw the signal; the call had returned
    finally:
        timer.cancel()
    assert rc in (None, lib.BL_EINTR)
    # the whole run would take 40 s: the loop stopped within a sample
    assert time.monotonic() - t0 < 5
    assert 0 < info.n_samples < 1000


def _interrupt_a_long_run() -> float:
    """SIGINT to this process 0.3 s into a pipe_latency run far longer than
    any profile; the run must raise KeyboardInterrupt.  Returns the seconds
    it took."""
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            benchlib.run("pipe_latency", profile="full", n_samples=100000)
    finally:
        timer.cancel()
    return time.monotonic() - t0


def test_the_harness_turns_an_interrupted_run_into_keyboardinterrupt():
    assert _interrupt_a_long_run() < 10


def test_clock_is_probed_around_every_sample():
    r = benchlib.run("mem_latency", size_bytes="16k", profile="smoke")
    assert len(r.clock_ghz) == r.n_samples
    # a probe that reads outside 0.2-10 GHz timed something other than one
    # add per cycle (on Golden Cove and later, a chain of add-immediates is
    # folded in the renamer and read 22 GHz)
    assert all(0.2 < g < 10 for g in r.clock_ghz)
    assert r.cycles_per_iteration == pytest.approx(
        [n * g for n, g in zip(r.ns_per_iteration, r.clock_ghz)])


def test_cpu_clock_is_the_probe_s_chain():
    # cpu_clock times the same chain as the per-sample probe, in the same
    # samples: the two figures agree by construction, each sample's pair
    # being taken within microseconds of each other.
    r = benchlib.run("cpu_clock", profile="smoke")
    assert r.unit == "GHz" and r.higher_is_better
    assert 0.2 < r.median < 10
    assert r.median == pytest.approx(r.median_clock_ghz, rel=0.2)


def _alive(pid: int) -> bool:
    """A process that exists and is not a zombie awaiting its parent."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_the_loop_runs_in_a_process_with_one_thread():
    """Structure, not timing: this process holds a second thread, the
    measuring process does not (a shared file table takes the slow fd path)."""
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert len(os.listdir("/proc/self/task")) >= 2
        r = benchlib.run("syscall", op="write", profile="smoke")
    finally:
        stop.set()
        t.join()
    p = r.process
    assert p["kind"] == "worker" and p["pid"] != os.getpid()
    assert p["threads"] == 1 and p["threads_after"] == 1
    assert p["open_fds"] >= 3 and p["mappings"] > 0


def test_in_process_mode_records_the_callers_threads(monkeypatch):
    monkeypatch.setenv("BENCHLIB_MEASURE_IN", "process")
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        r = benchlib.run("syscall", op="getppid", profile="smoke")
    finally:
        stop.set()
        t.join()
    assert r.process["kind"] == "process" and r.process["pid"] == os.getpid()
    assert r.process["threads"] >= 2


def test_a_bad_measuring_mode_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("BENCHLIB_MEASURE_IN", "elsewhere")
    with pytest.raises(benchlib.BenchlibError, match="BENCHLIB_MEASURE_IN must be"):
        benchlib.run("syscall", profile="smoke")


def test_an_interrupted_run_ends_its_worker_and_the_next_run_starts_another():
    from benchlib.measuring import worker as _worker

    benchlib.run("syscall", profile="smoke")
    old = _worker._current.proc.pid
    _interrupt_a_long_run()
    assert not _alive(old)
    r = benchlib.run("syscall", profile="smoke")
    assert r.process["pid"] != old and r.process["kind"] == "worker"


def test_the_worker_dies_with_its_caller(tmp_path):
    import subprocess
    import sys

    script = ("import os, signal, benchlib\n"
              "r = benchlib.run('syscall', profile='smoke')\n"
              "print(r.process['pid'], flush=True)\n"
              "os.kill(os.getpid(), signal.SIGKILL)\n")
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    pid = int(p.stdout.split()[0])
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_a_python_error_in_the_worker_reaches_the_caller_as_itself(tmp_path):
    """A benchmark's own check inside the worker (a file system that refuses
    O_DIRECT here, or any BenchlibError) comes back as a BenchlibError."""
    from benchlib.measuring import worker as _worker
    from benchlib.profiles import PROFILES

    with pytest.raises(benchlib.BenchlibError):
        _worker.call("no_such_benchmark", {}, PROFILES["smoke"], 1)


def test_calibration_readings_are_the_warm_ups():
    # A warm-up is a run of the body at the sample's count before the first
    # sample; calibration's confirming readings at its final count are
    # exactly that, so no more are made than n_warmup asks for in all.  A
    # 1 ms sleep against a 2 ms target: the count settles at 3 after one,
    # two or three readings there.
    from benchlib._native import ffi, lib

    def run(n_warmup, iterations):
        opts = ffi.new("bl_opts *", {"n_samples": 2, "n_warmup": n_warmup,
                                     "target_sample_ns": 2e6, "iterations": iterations,
                                     "max_total_ns": 0, "cpu": -1, "helper_cpu": -1})
        ns, info = ffi.new("double[]", 2), ffi.new("bl_info *")
        assert lib.bl_sleep_loop(1000.0, opts, ns, ffi.NULL, info) == lib.BL_OK
        return info

    calibrated = run(2, 0)
    assert calibrated.iterations >= 2
    assert 2 <= calibrated.warmup_runs <= 3          # not 2 more on top of calibration's
    assert run(0, 0).warmup_runs in (1, 2, 3)        # calibration's readings alone
    assert run(2, 3).warmup_runs == 2                # no calibration: the warm-ups asked for
    assert run(0, 3).warmup_runs == 0


def test_adaptive_batches_are_sized_by_what_the_interval_lacks():
    from benchlib.measuring.harness import MAX_ADAPTIVE_SAMPLES, _next_batch, adaptive_profile

    prof = adaptive_profile("quick", 0.03)
    # a robust spread (1.4826 MAD) of 6 % of the median: the median's interval
    # is about +-1.96 x 1.2533 x 6 % / sqrt(n), so +-3 % needs 24.6 samples;
    # half again to spare, less the six there are
    x = [100.0 - 6 / 1.4826, 100.0, 100.0, 100.0 + 6 / 1.4826, 100.0 - 6 / 1.4826,
         100.0 + 6 / 1.4826]
    assert _next_batch(x, prof, None) == math.ceil(1.5 * (1.96 * 1.2533 * 2) ** 2) - 6
    # one outlier in six does not ask for hundreds more (their range would)
    assert _next_batch([1.0, 1.0, 1.001, 0.999, 1.0, 3.0], prof, None) == prof.n_samples
    # close to the target or no spread: at least the first batch's size again
    assert _next_batch([1.0] * 6, prof, None) == prof.n_samples
    assert _next_batch([1.0] * 6, prof, 40) == 40
    # a call whose set-up costs 14 or 40 samples' time: a batch pays for it with as many
    assert _next_batch(x, prof, None, setup_samples=14) == _next_batch(x, prof, None) > 14
    assert _next_batch([1.0] * 6, prof, None, setup_samples=40) == 40
    assert _next_batch([1.0] * 6, prof, None, fits=20, setup_samples=40) == 20
    assert _next_batch([], prof, None) == prof.n_samples
    assert _next_batch([0.0] * 6, prof, None) == prof.n_samples
    # never past the cap on samples
    wide = [-1.0, 0.001, 1.0]         # a spread a thousand times the median
    assert _next_batch(wide * ((MAX_ADAPTIVE_SAMPLES - 10) // 3), prof, None) == \
        MAX_ADAPTIVE_SAMPLES - 3 * ((MAX_ADAPTIVE_SAMPLES - 10) // 3)
    # nor past what the time left holds, but at least a first batch's size
    assert _next_batch(wide, prof, None, fits=100) == 100
    assert _next_batch(wide, prof, None, fits=3) == prof.n_samples


def test_adaptive_profile_shortens_samples_and_checks_its_arguments():
    from benchlib.measuring.harness import TARGETED_SAMPLE_MS, adaptive_profile
    from benchlib.profiles import PROFILES

    quick = adaptive_profile("quick", 0.05)
    assert quick.target_rel_ci == 0.05 and quick.time_cap_s == 30.0
    assert quick.target_sample_ms == TARGETED_SAMPLE_MS < PROFILES["quick"].target_sample_ms
    # a profile whose samples are shorter already keeps them
    assert adaptive_profile("smoke", 0.05).target_sample_ms == PROFILES["smoke"].target_sample_ms
    assert adaptive_profile("quick") is PROFILES["quick"]      # nothing asked: unchanged
    assert adaptive_profile("quick", time_cap_s=5).target_rel_ci == 0.03
    for bad in (0, 1, -0.1, 1.5):
        with pytest.raises(benchlib.BenchlibError, match="target_rel_ci"):
            adaptive_profile("quick", bad)
    with pytest.raises(benchlib.BenchlibError, match="time_cap_s"):
        adaptive_profile("quick", 0.03, 0)


def test_an_adaptive_run_records_its_batches():
    r = benchlib.run("syscall", profile="smoke", target_rel_ci=0.2, time_cap_s=5)
    a = r.diagnostics["adaptive"]
    assert a["target_rel_ci"] == 0.2 and a["time_cap_s"] == 5
    assert a["batches"] >= 1 and isinstance(a["reached"], bool)
    assert len(r.samples) >= 6          # the fewest with a 95 % interval
    if a["reached"]:
        assert a["rel_ci_halfwidth"] <= 0.2
        lo, hi = r.median_ci95
        assert (hi - lo) / 2 / r.median == pytest.approx(a["rel_ci_halfwidth"])


def test_the_tsc_rate_is_known_before_the_first_snapshot(monkeypatch):
    # what the C core measures once per process (worker._process_facts):
    # in the calling process too ('process' mode), call_here has it
    # measured before the snapshot that starts the result's wall time
    from benchlib.measuring import worker

    order = []
    real_facts = worker._process_facts
    monkeypatch.setattr(worker, "_process_facts", lambda: (order.append("facts"), real_facts())[1])
    import benchlib.measuring.process as process

    real = process.Snapshot

    class Spy(real):
        def __init__(self, *a, **k):
            order.append("snapshot")
            super().__init__(*a, **k)

    monkeypatch.setattr(process, "Snapshot", Spy)
    worker.call_here("syscall", {"op": "getppid", "cpu": -1}, benchlib.PROFILES["smoke"], None)
    assert order[:2] == ["facts", "snapshot"]


def test_the_c_core_stops_a_batch_at_the_interval():
    """The adaptive stop (structure, not timing): a target no interval can
    miss stops bl_measure at six samples, the fewest with a 95 % interval;
    one none can reach takes the whole batch; earlier samples count."""
    from benchlib.measuring import worker
    from benchlib.measuring.harness import adaptive_profile, adaptive_stop
    from benchlib.measuring.registry import get_benchmark

    bench = get_benchmark("syscall")
    params = {"op": "getppid"}
    loose = adaptive_profile("smoke", 0.999)
    stop_for = adaptive_stop(bench, params, loose)
    out = worker.call("syscall", params, loose, 15, stop=stop_for(15))
    assert len(out["ns"]) == 6
    strict = adaptive_profile("smoke", 1e-12)
    out = worker.call("syscall", params, strict, 15, stop=adaptive_stop(bench, params, strict)(15))
    assert len(out["ns"]) == 15         # 15 samples of 0.2 ms: well inside max_total_s
    # a hundred earlier samples that agree: the next sample completes an interval
    earlier = [out["ns"][0]] * 100
    out = worker.call("syscall", params, loose, 15, stop=stop_for(15, earlier))
    assert len(out["ns"]) == 1
    # earlier samples that drifted (the first 30 of 100 a fifth lower): an
    # interval within +-3 % at once, but the halves disagree until new
    # samples outweigh the first 30 in the first half (about 20 of them)
    v = sorted(out["ns"] + earlier)[50]
    settling = [0.8 * v] * 30 + [v] * 70
    tight = adaptive_profile("smoke", 0.03)
    out = worker.call("syscall", params, tight, 40,
                      stop=adaptive_stop(bench, params, tight)(40, settling))
    assert len(out["ns"]) > 10
    # a unit that is neither proportional nor inverse to the time: no stop in C
    odd = dataclasses.replace(bench, to_unit=lambda ns, p: ns ** 2)
    assert adaptive_stop(odd, params, loose) is None
    assert adaptive_stop(bench, params, PROFILES["quick"]) is None     # not adaptive
