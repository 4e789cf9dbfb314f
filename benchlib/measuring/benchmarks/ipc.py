"""Registrations for csrc/ipc.c: pipe round trips and their parts
(write + read alone, a yield switch) and select()."""
from __future__ import annotations

from benchlib.measuring.registry import Benchmark, Param, register
from benchlib.measuring.benchmarks.common import (CPU, _check_cpu_param, _check_pipe, _ffi, _lib, _pinned_cpu, _pipe_cpus, _us,
                     no_extras)


# ---------------------------------------------------------------- pipe_latency

def _measure_pipe(p, o, ns, tk, info):
    o.cpu, o.helper_cpu = _pipe_cpus(p)
    return no_extras(_lib().bl_pipe_latency(o, ns, tk, info))


register(Benchmark(
    name="pipe_latency",
    description="One-byte round trip between two processes over a pair of pipes",
    unit="us",
    params=(Param("placement", "choice", "same_cpu",
                  "same_cpu: both pinned to one CPU (two context switches per round trip); "
                  "different_cpus: one CPU each (cross-CPU wake-ups); unpinned: scheduler's choice",
                  choices=("same_cpu", "different_cpus", "unpinned")),
            Param("cpu", "int", -1,
                  "CPU of the measuring process when pinned; -1 takes the first allowed CPU",
                  min=-1, max=4095)),
    measure=_measure_pipe,
    to_unit=_us,
    check=_check_pipe,
))


register(Benchmark(
    name="pipe_write_read",
    description="One process writes a byte into a pipe and reads it back: the system-call part "
                "of a pipe round trip, without a context switch",
    unit="us",
    counts="one write plus one read",
    params=(CPU,),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_pipe_self(o, ns, tk, info)),
    to_unit=_us,
    check=_check_cpu_param,
))


def _measure_yield(p, o, ns, tk, info):
    ffi = _ffi()
    o.cpu = _pinned_cpu(p)
    ratio = ffi.new("double *")
    rc = _lib().bl_yield_switch(o, ratio, ns, tk, info)
    return rc, {"child_yields_per_parent_yield": float(ratio[0])}


register(Benchmark(
    name="yield_switch",
    description="Two processes pinned to one CPU call sched_yield in turn: two system calls and "
                "two context switches per iteration, with no wake-up and no data",
    unit="us",
    counts="one sched_yield in each process; extras say whether they really alternated "
           "(child_yields_per_parent_yield near 1)",
    params=(Param("cpu", "int", -1, "CPU both processes are pinned to; -1 takes the first "
                  "allowed CPU", min=-1, max=4095),),
    measure=_measure_yield,
    to_unit=_us,
    check=_check_cpu_param,
))


# ---------------------------------------------------------------- select

_WAIT_CALLS = ("select", "poll", "epoll")
_DESCRIPTORS = ("pipe", "file", "file_dup")  # csrc/ipc.c's files = 0, 1, 2

register(Benchmark(
    name="select_latency",
    description="select(), poll() or epoll_wait() with a zero timeout over pipes that are "
                "empty or each hold a byte, or over opens of a regular file",
    unit="us",
    counts="one call over every descriptor; select starts from a copy of a set built once, poll reuses "
           "its array, epoll's interest set is built before the loop (its cost does not grow "
           "with the pipes that are not ready).  lmbench3's lat_select 'file' waits on a "
           "regular file (descriptor=file here): a file has no poll method, so each "
           "descriptor costs only its lookup, where a pipe's poll takes its lock",
    params=(Param("pipes", "int", 10, "pipes in the set (each a descriptor to wait on; "
                  "select only below FD_SETSIZE, 1024)", min=1, max=1000),
            Param("full", "choice", "no", "whether every pipe holds data", choices=("no", "yes")),
            Param("call", "choice", "select", "the waiting call: select, poll or epoll "
                  "(epoll_wait)", choices=_WAIT_CALLS),
            Param("descriptor", "choice", "pipe",
                  "pipe: the read ends of `pipes` pipes; file: `pipes` separate opens of one "
                  "regular file (a memfd, a struct file each), always ready (full is then "
                  "moot), select or poll only (epoll refuses regular files); file_dup: one "
                  "open and its dups (one struct file behind them all, as lmbench3's "
                  "lat_select has them)", choices=_DESCRIPTORS),
            CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_select_latency(
        p["pipes"], p["full"] == "yes", _WAIT_CALLS.index(p["call"]),
        _DESCRIPTORS.index(p["descriptor"]), o, ns, tk, info)),
    to_unit=_us,
    check=_check_cpu_param,
))

