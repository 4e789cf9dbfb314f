"""Registrations for csrc/call.c: a procedure call against the same call
served by another process (the 1989 comp.os.mach IPC tests)."""
from __future__ import annotations

from benchlib.errors import BenchlibError
from benchlib.measuring.registry import Benchmark, Param, register
from benchlib.measuring.benchmarks.common import PINNED_CPU, _check_pipe, _ffi, _lib, _net_transport, _pipe_cpus, _us, ops


# ---------------------------------------------------------------- procedure calls
#
# The comp.os.mach thread of December 1989 ("Mach performance?"): a local
# procedure call against the same operation on a server process on the same
# machine, each also run a fixed number of times with elapsed, user and
# system time (call.c).

_CALL_OPS = ops("BL_CALL_")  # loop, syscall, null, add, string_in, string_out, string_inout
_CALL_MODES = ops("BL_CALLMODE_")  # local, process
_LOCAL_ONLY_OPS = ("loop", "syscall")
_CALL_TRANSPORTS = {"pipe": "pipe", "socketpair": "unix"}


def _check_call(p: dict) -> None:
    _check_pipe(p)
    if p["mode"] == "process" and p["op"] in _LOCAL_ONLY_OPS:
        raise BenchlibError(f"op={p['op']} is local only (no server is involved); "
                            "use mode=local")
    if p["mode"] == "local":
        if p["transport"] != "pipe":
            raise BenchlibError("transport applies to mode=process only; leave it at its "
                                "default (pipe) with mode=local")
        if p["placement"] == "different_cpus":
            raise BenchlibError("placement=different_cpus needs a server process; "
                                "use mode=process, or same_cpu or unpinned")


def _usage_extras(u) -> dict:
    """The fixed run's totals in ms (as the thread's table) and switch counts."""
    if u.calls <= 0:
        return {}
    remote = u.server_user_ns >= 0  # -1 when there is no server (mode=local)
    return {"calls": int(u.calls), "elapsed_ms": u.elapsed_ns / 1e6,
            "client_user_ms": u.client_user_ns / 1e6,
            "client_system_ms": u.client_system_ns / 1e6,
            "server_user_ms": u.server_user_ns / 1e6 if remote else None,
            "server_system_ms": u.server_system_ns / 1e6 if remote else None,
            "client_voluntary_switches": int(u.client_voluntary_switches),
            "client_involuntary_switches": int(u.client_involuntary_switches),
            "server_voluntary_switches": int(u.server_voluntary_switches) if remote else None,
            "server_involuntary_switches": int(u.server_involuntary_switches) if remote else None}


def _measure_call(p, o, ns, tk, info):
    ffi = _ffi()
    o.cpu, o.helper_cpu = _pipe_cpus(p)
    local = p["mode"] == "local"
    if local:
        o.helper_cpu = -1
    usage = ffi.new("bl_call_usage *")
    rc = _lib().bl_procedure_call(_CALL_OPS[p["op"]], _CALL_MODES[p["mode"]],
                                  _net_transport(_CALL_TRANSPORTS[p["transport"]]),
                                  p["fixed_calls"], usage, o, ns, tk, info)
    return rc, {"fixed_run": _usage_extras(usage)}


register(Benchmark(
    name="procedure_call",
    description="A procedure call in this process (mode=local) against the same call served by "
                "another process over a pipe or socketpair (mode=process): null, add two "
                "numbers, a 200-byte string in, out, in and out (the 1989 Mach IPC tests)",
    unit="us",
    counts="one call; mode=process: the arguments copied into a request, one write and one "
           "read each side, the server calls the same procedure and copies the results into "
           "the reply. A fixed run of fixed_calls calls is also timed once with the user and "
           "system time of both processes (extras.fixed_run, totals in ms as the thread's table)",
    params=(Param("op", "choice", "null",
                  "null; add (two 32-bit numbers); string_in, string_out, string_inout (200 "
                  "bytes by value); loop (the loop alone) and syscall (getpid via syscall(2)): "
                  "local only", choices=tuple(_CALL_OPS)),
            Param("mode", "choice", "process", "local: a direct call in this process; "
                  "process: a round trip to a server process", choices=("local", "process")),
            Param("transport", "choice", "pipe", "mode=process: two pipes, or an AF_UNIX "
                  "SOCK_STREAM socketpair", choices=tuple(_CALL_TRANSPORTS)),
            Param("placement", "choice", "same_cpu",
                  "same_cpu: pinned, the server on the same CPU (the thread's uniprocessor); "
                  "different_cpus: the server on another CPU; unpinned: scheduler's choice",
                  choices=("same_cpu", "different_cpus", "unpinned")),
            Param("fixed_calls", "int", 10000, "calls in the fixed run timed with getrusage "
                  "(the thread's 10000); 0 skips it", min=0, max=10_000_000),
            PINNED_CPU),
    measure=_measure_call,
    to_unit=_us,
    check=_check_call,
))

