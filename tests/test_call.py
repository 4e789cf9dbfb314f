"""procedure_call and page_fault_latency: structure, correctness of the
calls, the fixed run's accounting, bad input, no process left behind.
Relations only, with wide margins; no timing thresholds."""
import os

import pytest

from benchlib.measuring import harness
from conftest import (comm, interrupt_run, kill_children, measuring_children, processes_named,
                      refuses, subreaper)

CALLS = 2000  # a fixed run long enough to count switches, short enough for a test


def _run(**params):
    params.setdefault("fixed_calls", CALLS)
    return harness.run("procedure_call", params, profile="smoke")


def _no_child_left():
    assert measuring_children() == []


@pytest.mark.parametrize("op", ["loop", "syscall", "null", "add", "string_in", "string_out",
                                "string_inout"])
def test_local_ops(op):
    r = _run(op=op, mode="local")
    assert r.unit == "us" and r.n_samples >= 1 and all(x > 0 for x in r.samples)
    fx = r.extras["fixed_run"]
    assert fx["calls"] == CALLS and fx["elapsed_ms"] > 0
    assert fx["server_user_ms"] is None and fx["server_voluntary_switches"] is None
    assert r.placement["helper_cpu"] == -1


@pytest.mark.parametrize("op", ["null", "add", "string_in", "string_out", "string_inout"])
@pytest.mark.parametrize("transport", ["pipe", "socketpair"])
def test_remote_ops_on_one_cpu(op, transport):
    r = _run(op=op, mode="process", transport=transport, placement="same_cpu")
    assert r.placement["helper_cpu"] == r.placement["cpu_last"]
    fx = r.extras["fixed_run"]
    assert fx["calls"] == CALLS
    client = fx["client_user_ms"] + fx["client_system_ms"]
    server = fx["server_user_ms"] + fx["server_system_ms"]
    assert client > 0 and server > 0
    # on one CPU the two processes take turns: their CPU time together cannot
    # exceed the elapsed time, give or take the kernel's accounting, which
    # may charge each process up to a tick (10 ms at the slowest HZ) too much
    assert client + server <= 1.1 * fx["elapsed_ms"] + 2 * 10.0
    # and every call puts each process to sleep once (it waits for the other),
    # so each is switched out about once per call
    for side in ("client", "server"):
        switches = fx[f"{side}_voluntary_switches"] + fx[f"{side}_involuntary_switches"]
        assert 0.9 * CALLS <= switches <= 2.0 * CALLS + 50, (side, switches)
    _no_child_left()


def test_a_call_to_another_process_costs_far_more_than_a_procedure_call():
    local = _run(op="null", mode="local", fixed_calls=0)
    remote = _run(op="null", mode="process", fixed_calls=0)
    # A round trip through the kernel against a call and return: about 8500x
    # here.  Minima with a 10x margin: every local sample would have to be
    # slowed some 850-fold to flip it (noise only adds time).
    assert remote.min > 10 * local.min
    assert local.extras["fixed_run"] == {} and remote.extras["fixed_run"] == {}


def test_local_calls_are_not_optimised_away():
    # two 200-byte copies (in and out) per call cost more than an empty call;
    # if the compiler had dropped the calls both would be a bare loop
    # (45x here; minima with a 2x margin, so all of null's samples would have
    # to be slowed 20-fold to flip it)
    null = _run(op="null", mode="local", fixed_calls=0)
    inout = _run(op="string_inout", mode="local", fixed_calls=0)
    assert inout.min > 2 * null.min


def test_unpinned_and_two_cpus(two_cpus):
    r = _run(op="add", placement="different_cpus")
    assert r.placement["helper_cpu"] != r.placement["cpu_last"]
    r = _run(op="string_out", transport="socketpair", placement="unpinned")
    assert r.placement["helper_cpu"] == -1 and r.extras["fixed_run"]["calls"] == CALLS
    _no_child_left()


@pytest.mark.parametrize("params,match", [
    ({"op": "loop", "mode": "process"}, "local only"),
    ({"op": "syscall"}, "local only"),
    ({"op": "null", "mode": "local", "transport": "socketpair"}, "mode=process only"),
    ({"op": "null", "mode": "local", "placement": "different_cpus"}, "server process"),
    ({"op": "null", "fixed_calls": -1}, "fixed_calls"),
    ({"op": "null", "fixed_calls": 10**9}, "fixed_calls"),
    ({"op": "bigin"}, "op must be one of"),
    ({"transport": "tcp"}, "transport must be one of"),
    ({"placement": "unpinned", "cpu": 0}, "cannot be set"),
])
def test_bad_parameters(params, match):
    refuses("procedure_call", params, match)


def test_c_side_rejects_bad_arguments():
    from benchlib._native import ffi, lib

    o = harness._opts(harness.get_profile("smoke"), 1, -1)
    ns, tk = ffi.new("double[]", 1), ffi.new("double[]", 1)
    info, usage = ffi.new("bl_info *"), ffi.new("bl_call_usage *")
    for op, mode, transport in ((9, 0, 0), (2, 3, 0), (0, 1, 0), (2, 1, lib.BL_NET_TCP)):
        assert lib.bl_procedure_call(op, mode, transport, 0, usage, o, ns, tk, info) == lib.BL_EINVAL
    assert lib.bl_procedure_call(2, 0, 0, -5, usage, o, ns, tk, info) == lib.BL_EINVAL


def test_interrupting_a_remote_run_leaves_no_server():
    def servers():
        return {p for p in processes_named("bl-call-server") if comm(p) == "bl-call-server"}

    with subreaper():
        before = servers()
        rc, err = interrupt_run("procedure_call", ["op=string_inout"],
                                started=lambda pid: servers() - before, settle_s=0.3)
        assert rc == 130, err
        assert "Traceback" not in err
        assert not servers() - before
        assert kill_children() == []


# ------------------------------------------------------------ page faults

def test_page_fault_latency():
    r = harness.run("page_fault_latency", profile="smoke")
    assert r.unit == "us" and r.n_samples >= 1
    assert r.extras["page_bytes"] == os.sysconf("SC_PAGESIZE")
    assert r.extras["overhead_us"] >= 0 and r.overhead_ns >= 0
    # A fault (trap, allocate, zero 4 KiB, map) costs about 9x a bare system
    # call here; were the writes dropped, body and overhead would cancel to
    # ~0.  Minima on the fault's CPU with a 2x margin: every getpid sample
    # would have to be slowed 4-fold to flip it.
    getpid = harness.run("syscall", op="getpid", profile="smoke", cpu=r.placement["cpu_last"])
    assert r.min > 2 * getpid.min


def test_page_fault_samples_stay_bounded():
    from benchlib._native import ffi, lib

    o = harness._opts(harness.get_profile("smoke"), 1, -1)
    o.iterations = (1 << 16) + 1  # more pages than one sample may map
    ns, tk, info = ffi.new("double[]", 1), ffi.new("double[]", 1), ffi.new("bl_info *")
    assert lib.bl_page_fault(o, ns, tk, info) == lib.BL_EINVAL
    assert "at most" in ffi.string(lib.bl_last_error()).decode()
