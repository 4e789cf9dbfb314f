"""Registrations for csrc/proc.c: signals, process creation (in this
interpreter or in the small C process csrc/proc_runner.c, with pages mapped
first if asked), thread creation and the context switch of a ring of
processes."""
from __future__ import annotations

import os
import signal
import subprocess

from benchlib.errors import BenchlibError, MeasurementError
from benchlib.measuring.registry import Benchmark, Param, register
from benchlib.measuring.benchmarks.common import (CPU, _check_cpu, _check_cpu_param, _ffi, _lib, _pinned_cpu, _us,
                     no_extras, op_choice, ops)
from benchlib.measuring.benchmarks.compiler_cache import proc_runner, tiny_program


# ---------------------------------------------------------------- signals

SIGNAL_OP, _SIGNAL_OPS = op_choice("BL_SIGNAL_", "install: sigaction; deliver: send and handle")

def _check_signal(p: dict) -> None:
    _check_cpu_param(p)
    if p["op"] != "install" and p["old_action"] != "discard":
        raise BenchlibError("old_action applies to op=install only")
    if p["op"] != "deliver" and (p["sender"] != "tgkill" or p["minus_send"] != "no"):
        raise BenchlibError("sender and minus_send apply to op=deliver only")


def _measure_signal(p, o, ns, tk, info):
    lib = _lib()
    op = _SIGNAL_OPS[p["op"]]
    op |= lib.BL_SIGNAL_SAVE_OLD if p["old_action"] == "save" else 0
    op |= lib.BL_SIGNAL_KILL if p["sender"] == "kill" else 0
    if p["minus_send"] == "yes":
        op |= lib.BL_SIGNAL_MINUS_SEND
        o.subtract_overhead = 1
    return no_extras(lib.bl_signal_latency(op, o, ns, tk, info))


register(Benchmark(
    name="signal_latency",
    description="Signal handling: install a SIGUSR1 handler with sigaction, or send SIGUSR1 to "
                "this process and run its handler (no context switch)",
    unit="us",
    counts="op=install: one sigaction call; op=deliver: one signal sent (tgkill to this thread) "
           "and its handler run, checked by the handler's counter.  lmbench3's lat_sig differs "
           "in three ways, each a parameter here: its install also returns the old action "
           "(old_action=save), it sends with kill() to the process (sender=kill), and its "
           "'signal handler overhead' is the delivery less a kill(me, 0) (minus_send=yes)",
    params=(SIGNAL_OP,
            Param("old_action", "choice", "discard",
                  "op=install: discard (sigaction's third argument NULL) or save the previous "
                  "action (the kernel copies it out, as lmbench3 does)",
                  choices=("discard", "save")),
            Param("sender", "choice", "tgkill",
                  "op=deliver: tgkill() to this thread, or kill() to this process (lmbench3)",
                  choices=("tgkill", "kill")),
            Param("minus_send", "choice", "no",
                  "op=deliver: yes subtracts the cost of sending signal 0 (a permission check, "
                  "no signal) from each delivery, as lmbench3 reports",
                  choices=("no", "yes")),
            CPU),
    measure=_measure_signal,
    to_unit=_us,
    check=_check_signal,
))


# ---------------------------------------------------------------- process creation

_PROCESS_OPS = ops("BL_PROCESS_")  # fork_exit, fork_exec_exit, fork_sh_exit


def _parent_size() -> dict:
    """The forking process's size: fork copies its page tables and exit tears
    the copy down, so a large parent (this interpreter, with numpy and
    pandas) makes every fork dearer than the paper's small C program's."""
    out = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    out["parent_rss_kb"] = int(line.split()[1])
        with open("/proc/self/maps") as f:
            out["parent_mappings"] = sum(1 for _ in f)
    except OSError:
        pass
    return out


def _run_small_parent(op: int, program: str, o, ns, tk, info, pages: int = 0,
                      touch: int = 0) -> int:
    """process_creation in proc_runner, a small C process (see proc_runner.c)
    that first maps ``pages`` one-page mappings (written if ``touch``); its
    figures are copied into the arrays the harness passed."""
    return _in_proc_runner([str(op), program or "-", *_timing_argv(o), str(o.cpu), str(pages),
                            str(touch)], "process_creation", o, ns, tk, info)


#: extras.parent of a measurement run in proc_runner
SMALL_PARENT = "proc_runner (a small C process)"


def _timing_argv(o) -> list[str]:
    """proc_runner's n_samples n_warmup target_sample_ns max_total_ns."""
    return [str(o.n_samples), str(o.n_warmup), repr(o.target_sample_ns), repr(o.max_total_ns)]


def _stop_text(o) -> str | None:
    """The adaptive stop in ``o`` (bl_opts.stop_*) as proc_runner reads it
    on stdin, or None when there is none."""
    ffi = _ffi()
    if not o.stop_rel_ci > 0 or o.stop_ranks == ffi.NULL:
        return None
    m = o.stop_prior_n if o.stop_prior != ffi.NULL else 0
    return " ".join([repr(o.stop_rel_ci), str(o.stop_reciprocal), str(m),
                     *(repr(o.stop_prior[i]) for i in range(m)),
                     *(str(o.stop_ranks[i]) for i in range(m + o.n_samples + 1))]) + "\n"


def _in_proc_runner(argv: list[str], name: str, o, ns, tk, info) -> int:
    """Run proc_runner with ``argv`` and copy what it reports (its
    library call's bl_info and samples) into the harness's arrays; the
    adaptive stop, if ``o`` has one, goes to it on stdin."""
    ffi = _ffi()
    stop = _stop_text(o)
    args = [proc_runner(), *argv] + (["-"] if stop else [])
    p = subprocess.Popen(args, stdin=subprocess.PIPE if stop else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(stop)
    except KeyboardInterrupt:
        # The runner stops between processes, reaps its child and exits.
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        raise
    if p.returncode == -signal.SIGINT:
        raise KeyboardInterrupt
    lines = out.splitlines()
    if p.returncode != 0 or len(lines) < 2:
        raise BenchlibError(f"proc_runner failed (status {p.returncode}): {err.strip()}")
    head = lines[0].split()
    rc = int(head[0])
    if rc != 0:
        raise (BenchlibError if rc == _lib().BL_EINVAL else MeasurementError)(
            f"{name}: {lines[1]}")
    info.iterations, info.n_samples = int(head[1]), int(head[2])
    info.overhead_ns, info.clock_resolution_ns = float(head[3]), float(head[4])
    info.has_ticks, info.calibration_ns = int(head[5]), float(head[6])
    info.cpu_first, info.cpu_last, info.cpu_migrations = map(int, head[7:10])
    info.calibrated_sample_ns, info.helper_cpu = float(head[10]), int(head[11])
    for i, line in enumerate(lines[2:2 + info.n_samples]):
        a, b, c = map(float, line.split())
        ns[i], tk[i] = a, b
        if o.clock_ghz != ffi.NULL:
            o.clock_ghz[i] = c
    return rc


def _check_process(p: dict) -> None:
    _check_cpu_param(p)
    if p["op"] != "fork_exit" and p["child_exit"] != "_exit":
        raise BenchlibError("child_exit applies to op=fork_exit only (the other children exec)")
    if p["op"] != "fork_exec_exit" and p["environment"] != "inherit":
        raise BenchlibError("environment applies to op=fork_exec_exit only (fork_exit execs "
                            "nothing; fork_sh_exit's shell needs PATH to find the program)")


def _measure_process(p, o, ns, tk, info):
    program = tiny_program() if p["op"] != "fork_exit" else ""
    lib = _lib()
    op = (_PROCESS_OPS[p["op"]] | (lib.BL_PROCESS_LIBC_EXIT if p["child_exit"] == "exit" else 0)
          | (lib.BL_PROCESS_EMPTY_ENV if p["environment"] == "empty" else 0))
    pages, touch = p["mapped_pages"], int(p["touch_pages"] == "yes")
    if p["parent"] == "small":
        extras = {"parent": SMALL_PARENT}
        rc = _run_small_parent(op, program, o, ns, tk, info, pages, touch)
    else:
        rc = lib.bl_map_extra_pages(pages, touch)
        try:
            extras = _parent_size()
            if rc == lib.BL_OK:
                rc = lib.bl_process_creation(op, os.fsencode(program), o, ns, tk, info)
        finally:
            lib.bl_unmap_extra_pages()
    if program:
        extras["program"] = program
    return rc, extras


register(Benchmark(
    name="process_creation",
    description="Create a process and wait for it: fork and exit, fork and exec a tiny program, "
                "or fork and exec /bin/sh -c to find and run it",
    unit="ms",
    counts="one whole process, from fork to the parent's waitpid; the tiny program exits at once; "
           "fork_sh_exit gives the shell the program's bare name, its directory last in PATH; "
           "parent=small forks from a small C process as the paper did, parent=interpreter "
           "from benchlib's Python measuring process (an interpreter without numpy), whose size "
           "(extras parent_rss_kb, parent_mappings) fork and exit pay for",
    params=(Param("op", "choice", "fork_exit",
                  "fork_exit: the child _exits; fork_exec_exit: it execs the tiny program; "
                  "fork_sh_exit: it execs /bin/sh -c <tiny program>",
                  choices=tuple(_PROCESS_OPS)),
            Param("parent", "choice", "small",
                  "small: the forking process is a small C program (the paper's case); "
                  "interpreter: benchlib's Python measuring process, with all its memory",
                  choices=("small", "interpreter")),
            Param("child_exit", "choice", "_exit",
                  "op=fork_exit: the child leaves with _exit() (no libc clean-up) or exit() "
                  "(atexit handlers and stdio flushed, as lmbench3's lat_proc does; each page "
                  "it touches is a copy-on-write fault)", choices=("_exit", "exit")),
            Param("environment", "choice", "inherit",
                  "op=fork_exec_exit: the program is exec'd with the forking process's "
                  "environment (inherit) or with none (empty, as lmbench3's lat_proc exec "
                  "does); the dynamic loader and the C library's start-up read every "
                  "variable: 1-2 % of an exec with a 1.3 KB environment (EPYC guest, "
                  "2026-11-27)", choices=("inherit", "empty")),
            Param("mapped_pages", "int", 0,
                  "pages the forking process maps first, each its own one-page shared "
                  "anonymous mapping, so fork copies that many mappings (LEBench's big fork: "
                  "6000, huge fork: 12000)", min=0, max=100_000),
            Param("touch_pages", "choice", "no",
                  "yes: each mapped page is written once before the timing (LEBench leaves "
                  "them untouched)", choices=("no", "yes")),
            CPU),
    measure=_measure_process,
    to_unit=lambda ns, p: ns / 1e6,
    check=_check_process,
    memory_bytes=lambda p: p["mapped_pages"] * os.sysconf("SC_PAGESIZE"),
))


# ---------------------------------------------------------------- thread creation

register(Benchmark(
    name="thread_creation",
    description="Create a thread that returns at once and join it (pthread_create and "
                "pthread_join, default attributes)",
    unit="us",
    counts="one thread, from pthread_create to the return of pthread_join; the C library "
           "keeps the stack of a joined thread for the next one, so after the first the stack "
           "is not mapped anew",
    params=(CPU,),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_thread_creation(o, ns, tk, info)),
    to_unit=_us,
    check=_check_cpu_param,
))


# ---------------------------------------------------------------- context switch

def _check_ring(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["placement"] == "unpinned" and p["cpu"] >= 0:
        raise BenchlibError("cpu cannot be set with placement=unpinned; "
                            "use placement=same_cpu to pin")


def _measure_ring(p, o, ns, tk, info):
    n = p["processes"]
    cpu = -1 if p["placement"] == "unpinned" else _pinned_cpu(p)
    o.cpu, o.helper_cpu = cpu, cpu
    o.subtract_overhead = 1
    if p["parent"] == "small":
        rc = _in_proc_runner(["ring", str(n), str(p["process_kb"] * 1024), *_timing_argv(o),
                              str(cpu)], "context_switch", o, ns, tk, info)
        extras = {"parent": SMALL_PARENT}
    else:
        extras = _parent_size()
        rc = _lib().bl_context_switch(n, p["process_kb"] * 1024, o, ns, tk, info)
    return rc, {"overhead_us": info.overhead_ns / n / 1e3, "hops_per_iteration": n, **extras}


register(Benchmark(
    name="context_switch",
    description="A ring of processes connected by pipes passes a one-word token; each sums a "
                "private array of process_kb between receiving and passing it on",
    unit="us",
    counts="one hop (one context switch when the ring shares a CPU), after subtracting the "
           "same pipe write, read and array sum done by one process alone "
           "(extras.overhead_us, per hop, hot caches); the sum runs in four independent "
           "chains, so that it is bound by the loads and a refill shows",
    params=(Param("processes", "int", 2, "processes in the ring, the forking one included",
                  min=2, max=64),
            Param("process_kb", "int", 0, "kbytes (2^10) of private array each process sums "
                  "per hop: its cache footprint", min=0, max=16384),
            Param("placement", "choice", "same_cpu",
                  "same_cpu: every process pinned to one CPU (the paper's uniprocessor); "
                  "unpinned: scheduler's choice", choices=("same_cpu", "unpinned")),
            Param("cpu", "int", -1, "CPU of the ring with placement=same_cpu; -1 takes the "
                  "first allowed CPU", min=-1, max=4095),
            Param("parent", "choice", "small",
                  "small: the ring's processes are forked from a small C process, as the "
                  "paper's were; interpreter: from benchlib's Python measuring process, whose "
                  "ring read a lower hop than lmbench3's lat_ctx at 8 x 16 KB (docs/peers.md)",
                  choices=("small", "interpreter"))),
    measure=_measure_ring,
    to_unit=lambda ns, p: ns / p["processes"] / 1e3,
    check=_check_ring,
    memory_bytes=lambda p: p["processes"] * p["process_kb"] * 1024,
))

