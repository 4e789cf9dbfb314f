"""signal_latency, process_creation and context_switch: structure and robust
relations only (the machine is shared; no absolute timing thresholds)."""
import os
import math
import signal
import shutil
import subprocess
import time

import pytest

from benchlib.measuring import harness
from benchlib.measuring.benchmarks import tiny_program
from benchlib.errors import BenchlibError
from conftest import comm, interrupt_run, measuring_children, processes_named, subreaper


def _positive(r, unit):
    assert r.unit == unit
    assert r.n_samples >= 1
    if r.overhead_ns > 0:
        # a sample less its paired overhead run is the difference of two live
        # timings: a host burst in the overhead run makes one negative (CI,
        # 2026-11-27: -5.77 us among four of 2.4), and the median of the
        # differences stays unbiased only if such samples are kept
        assert all(math.isfinite(x) for x in r.samples), r.samples
    else:
        assert all(x > 0 for x in r.samples), r.samples


@pytest.mark.parametrize("op,variant", [
    ("install", {}), ("deliver", {}),
    # lmbench3's definitions, offered as parameters (docs/peers.md)
    ("install", {"old_action": "save"}), ("deliver", {"sender": "kill"}),
    ("deliver", {"sender": "kill", "minus_send": "yes"}),
])
def test_signal_latency(op, variant):
    before = signal.getsignal(signal.SIGUSR1)
    r = harness.run("signal_latency", op=op, profile="smoke", **variant)
    _positive(r, "us")
    assert {k: r.params[k] for k in variant} == variant
    assert signal.getsignal(signal.SIGUSR1) == before  # the old handler is back
    # only minus_send subtracts anything (the cost of sending signal 0)
    assert (r.overhead_ns > 0) == (variant.get("minus_send") == "yes")


def test_fork_exit_through_libc_exit():
    r = harness.run("process_creation", op="fork_exit", child_exit="exit", profile="smoke")
    _positive(r, "ms")
    assert r.params["child_exit"] == "exit"


def _no_env_program(tmp_path):
    """A program that exits 3 when it sees any environment variable."""
    src, prog = tmp_path / "noenv.c", tmp_path / "noenv"
    src.write_text("extern char **environ;\nint main(void) { return environ[0] ? 3 : 0; }\n")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-o", str(prog), str(src)], check=True)
    return prog


def test_exec_with_an_empty_environment(tmp_path):
    """environment=empty execs the program with no variable at all, inherit
    with the forking process's: a program that fails when it sees any, run
    by the small C parent (proc_runner, the C core's bl_process_creation)."""
    from benchlib.measuring.benchmarks import proc_runner
    from benchlib.measuring.benchmarks.proc import _lib
    prog = _no_env_program(tmp_path)
    lib = _lib()

    def run(op):
        # op program n_samples n_warmup target_ns max_total_ns cpu pages touch
        out = subprocess.run([proc_runner(), str(op), str(prog), "2", "0", "1e5", "1e8", "-1",
                              "0", "0"], capture_output=True, text=True, check=True).stdout
        return out.splitlines()

    empty = run(lib.BL_PROCESS_FORK_EXEC_EXIT | lib.BL_PROCESS_EMPTY_ENV)
    assert empty[0].split()[0] == "0" and len(empty) >= 4, empty
    inherit = run(lib.BL_PROCESS_FORK_EXEC_EXIT)
    assert inherit[0].split()[0] != "0" and "status 3" in inherit[1], inherit


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace (.ci/run installs it)")
def test_the_small_parent_does_not_sleep(tmp_path):
    """proc_runner runs one measurement per call (every call of a
    parent=small benchmark): the timing core must not measure the TSC's rate
    there, a 20 ms sleep that was most of a short run's wall time."""
    from benchlib.measuring.benchmarks import proc_runner
    log = tmp_path / "strace.txt"
    # ring processes process_bytes n_samples n_warmup target_ns max_total_ns cpu
    out = subprocess.run(["strace", "-f", "-qq", "-o", str(log), "-e",
                          "trace=nanosleep,clock_nanosleep", proc_runner(), "ring", "2", "0", "2",
                          "0", "1e5", "1e8", "-1"], capture_output=True, text=True, check=True)
    assert out.stdout.split()[0] == "0", out.stdout
    assert "sleep" not in log.read_text(), log.read_text()


@pytest.mark.parametrize("parent", ["small", "interpreter"])
def test_the_environment_parameter_reaches_the_exec(parent, tmp_path, monkeypatch):
    """The parameter, through the registration, to the exec (measured in
    this process, so that the tiny program can be swapped)."""
    from benchlib.errors import MeasurementError
    from benchlib.measuring.benchmarks import proc
    monkeypatch.setenv("BENCHLIB_MEASURE_IN", "process")
    monkeypatch.setattr(proc, "tiny_program", lambda: str(_no_env_program(tmp_path)))
    r = harness.run("process_creation", op="fork_exec_exit", parent=parent,
                    environment="empty", profile="smoke")
    _positive(r, "ms")
    with pytest.raises((MeasurementError, BenchlibError), match="status 3"):
        harness.run("process_creation", op="fork_exec_exit", parent=parent, profile="smoke")


def test_tiny_program_exists_and_exits_zero():
    path = tiny_program()
    assert os.path.isabs(path) and os.access(path, os.X_OK)
    assert subprocess.run([path]).returncode == 0
    assert tiny_program() == path  # cached, not rebuilt


def test_tiny_program_without_compiler(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("CC", "no-such-compiler-xyz")
    with pytest.raises(BenchlibError, match="C compiler"):
        tiny_program()


def test_process_creation_ops_and_order():
    cpu = min(os.sched_getaffinity(0))
    res = {op: harness.run("process_creation", op=op, profile="smoke", cpu=cpu)
           for op in ("fork_exit", "fork_exec_exit", "fork_sh_exit")}
    for op, r in res.items():
        _positive(r, "ms")
        assert r.params["parent"] == "small"
    assert "program" in res["fork_exec_exit"].extras
    # From a small parent, exec adds a whole program start: 11x the bare
    # fork here, and the shell 26x.  Minima, on one CPU, with a 1.5x margin:
    # noise only adds time, so every fork_exit sample would have to be slowed
    # sevenfold for this to flip.  This is the exec path's DCE guard (an exec
    # that did not happen would cost a fork).  Shell against plain exec is
    # not asserted: a shell that execs a -c command without forking (dash)
    # is barely dearer.
    assert res["fork_exec_exit"].min > 1.5 * res["fork_exit"].min
    assert res["fork_sh_exit"].min > 1.5 * res["fork_exit"].min


def test_process_creation_from_the_interpreter():
    r = harness.run("process_creation", op="fork_exec_exit", parent="interpreter",
                    profile="smoke")
    _positive(r, "ms")
    assert r.extras["parent_mappings"] > 0 and r.extras["parent_rss_kb"] > 0


@pytest.mark.parametrize("parent", ["small", "interpreter"])
def test_process_creation_leaves_no_child(parent):
    harness.run("process_creation", op="fork_sh_exit", parent=parent, profile="smoke")
    assert measuring_children() == []


@pytest.mark.parametrize("params", [
    {"processes": 2, "process_kb": 0},
    {"processes": 4, "process_kb": 16},
    {"processes": 2, "process_kb": 256},
    {"processes": 3, "process_kb": 0, "placement": "unpinned"},
    {"processes": 4, "process_kb": 16, "parent": "interpreter"},
    {"processes": 3, "process_kb": 0, "placement": "unpinned", "parent": "interpreter"},
])
def test_context_switch(params):
    with subreaper():
        before = set(_ring_processes())
        r = harness.run("context_switch", params, profile="smoke")
        time.sleep(0.1)
        assert _reap_exited() == [] and set(_ring_processes()) <= before  # none left, none orphaned
    assert r.unit == "us" and r.n_samples >= 1
    assert r.extras["overhead_us"] > 0
    assert r.extras["hops_per_iteration"] == params["processes"]
    assert r.overhead_ns > 0
    if params.get("placement", "same_cpu") == "same_cpu":
        assert r.placement["helper_cpu"] == r.placement["cpu_last"]
    else:
        assert r.placement["helper_cpu"] == -1
    # the ring forked from the small C process (default) or from the worker
    if params.get("parent", "small") == "small":
        assert r.extras["parent"].startswith("proc_runner")
        assert r.calibrated_sample_ns > 0      # as proc_runner reported it
    else:
        assert r.extras["parent_mappings"] > 0 and "parent" not in r.extras
    assert measuring_children() == []  # the runner, or every ring process, reaped


@pytest.mark.parametrize("name,params,match", [
    ("context_switch", {"processes": 1}, "processes"),
    ("context_switch", {"processes": 65}, "processes"),
    ("context_switch", {"process_kb": -4}, "process_kb"),
    ("context_switch", {"processes": 64, "process_kb": 16384 * 4}, "process_kb"),
    ("context_switch", {"placement": "unpinned", "cpu": 0}, "cpu"),
    ("process_creation", {"op": "vfork"}, "op"),
    ("process_creation", {"parent": "init"}, "parent"),
    ("signal_latency", {"op": "raise"}, "op"),
    ("signal_latency", {"op": "deliver", "old_action": "save"}, "install only"),
    ("signal_latency", {"op": "install", "sender": "kill"}, "deliver only"),
    ("signal_latency", {"op": "install", "minus_send": "yes"}, "deliver only"),
    ("process_creation", {"op": "fork_exec_exit", "child_exit": "exit"}, "fork_exit only"),
    ("process_creation", {"op": "fork_sh_exit", "environment": "empty"}, "fork_exec_exit only"),
    ("process_creation", {"op": "fork_exit", "environment": "empty"}, "fork_exec_exit only"),
])
def test_bad_parameters(name, params, match):
    with pytest.raises(BenchlibError, match=match):
        harness.run(name, params, profile="smoke")


def test_context_switch_beyond_memory(monkeypatch):
    from benchlib.measuring import registry
    monkeypatch.setattr(registry, "available_memory_bytes", lambda: 100 << 20)
    with pytest.raises(BenchlibError, match="memory"):
        harness.run("context_switch", processes=64, process_kb=16384, profile="smoke")


def _ring_processes():
    return [p for p in processes_named("bl-ctx-ring") if comm(p) == "bl-ctx-ring"]


def _reap_exited():
    """Reap the children that have already exited; their PIDs."""
    kids = []
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        kids.append(pid)
    return kids


def test_interrupting_process_creation_leaves_no_process():
    """Ctrl-C (to the Python process alone) while the small C parent forks
    shells: exit 130, the runner and its children gone."""
    with subreaper():
        before = set(processes_named("bl-proc-runner"))
        rc, err = interrupt_run("process_creation", ["op=fork_sh_exit"], wait_s=60,
                                started=lambda pid: set(processes_named("bl-proc-runner")) - before)
        assert rc == 130, err
        assert "Traceback" not in err
        time.sleep(0.3)
        kids = _reap_exited()
        assert not set(processes_named("bl-proc-runner")) - before
        assert kids == []  # nothing was orphaned to us


@pytest.mark.parametrize("parent", ["small", "interpreter"])
def test_interrupting_the_ring_leaves_no_process(parent):
    """Ctrl-C during context_switch: exit 130 and no ring process left.  We
    become a subreaper so that an orphan would be ours (and visible)."""
    with subreaper():
        before = set(_ring_processes())
        rc, err = interrupt_run("context_switch", ["processes=16", f"parent={parent}"],
                                started=lambda pid: set(_ring_processes()) - before)
        assert rc == 130, err
        assert "Traceback" not in err
        time.sleep(0.3)
        _reap_exited()  # reap anything handed to us before judging
        leftover = set(_ring_processes()) - before
        for k in leftover:
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
        assert not leftover

def test_thread_creation():
    before = len(os.listdir("/proc/self/task"))
    r = harness.run("thread_creation", profile="smoke")
    _positive(r, "us")
    assert r.process["threads_after"] == 1     # every thread joined, in the worker
    assert len(os.listdir("/proc/self/task")) == before


@pytest.mark.parametrize("parent", ["small", "interpreter"])
def test_fork_with_mapped_pages(parent):
    r = harness.run("process_creation", op="fork_exit", mapped_pages=600, touch_pages="yes",
                    parent=parent, profile="smoke", n_samples=2)
    _positive(r, "ms")
    assert r.params["mapped_pages"] == 600 and r.params["touch_pages"] == "yes"
    if parent == "interpreter":
        # the pages were mapped while it forked (600 more mappings), and are gone after
        assert r.extras["parent_mappings"] >= 600
        assert r.process["mappings"] < r.extras["parent_mappings"]


def test_mapped_pages_are_bounded():
    from conftest import refuses

    refuses("process_creation", {"mapped_pages": 100_001}, "mapped_pages must be <= 100000")
    refuses("process_creation", {"mapped_pages": -1}, "mapped_pages must be >= 0")
    refuses("process_creation", {"touch_pages": "maybe"}, "touch_pages must be one of no, yes")
