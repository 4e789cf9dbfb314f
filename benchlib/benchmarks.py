"""The benchmarks, each registered once with its parameters and unit.

Each ``measure`` translates parameters into a call of the C library; the
timing core in C does the rest."""
from __future__ import annotations

import os

from .errors import BenchlibError
from .registry import Benchmark, Param, register

CPU = Param("cpu", "int", -1, "CPU to pin the measuring process to; -1 leaves it unpinned",
            min=-1, max=4095)


def _lib():
    from ._native import lib
    return lib


def _allowed_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def _check_cpu(cpu: int) -> None:
    if cpu >= 0 and cpu not in _allowed_cpus():
        raise BenchlibError(
            f"cpu={cpu} is not available to this process; allowed CPUs: "
            f"{', '.join(map(str, _allowed_cpus()))}")


def _us(ns: float, params: dict) -> float:
    return ns / 1e3


# ---------------------------------------------------------------- cpu_clock

ADDS_PER_ITERATION = 100  # cpu.c

register(Benchmark(
    name="cpu_clock",
    description="Core clock the CPU actually runs at: a chain of dependent integer adds (one per cycle)",
    unit="GHz",
    higher_is_better=True,
    counts="one dependent add per core cycle, as on current x86 and Arm cores",
    params=(CPU,),
    measure=lambda p, o, ns, tk, info: _lib().bl_cpu_clock(o, ns, tk, info),
    to_unit=lambda ns, p: ADDS_PER_ITERATION / ns,
    check=lambda p: _check_cpu(p["cpu"]),
))


# ---------------------------------------------------------------- syscall

_SYSCALL_OPS = {"getpid": 0, "write": 1, "getppid": 2}

register(Benchmark(
    name="syscall",
    description="Kernel entry and exit: getpid or getppid via syscall(2), or a 1-byte write to /dev/null",
    unit="us",
    params=(Param("op", "choice", "getpid", "the call made in the loop",
                  choices=tuple(_SYSCALL_OPS)), CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_syscall_latency(
        _SYSCALL_OPS[p["op"]], o, ns, tk, info),
    to_unit=_us,
    check=lambda p: _check_cpu(p["cpu"]),
))


# ---------------------------------------------------------------- pipe_latency

def _pipe_cpus(p: dict) -> tuple[int, int]:
    """(measuring process CPU, echo child CPU) for a placement."""
    allowed = _allowed_cpus()
    if p["placement"] == "unpinned":
        return -1, -1
    first = p["cpu"] if p["cpu"] >= 0 else allowed[0]
    if p["placement"] == "same_cpu":
        return first, first
    others = [c for c in allowed if c != first]
    if not others:
        raise BenchlibError(
            "placement=different_cpus needs two CPUs, but this process may use only "
            f"CPU {first}")
    return first, others[0]


def _check_pipe(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["placement"] == "unpinned" and p["cpu"] >= 0:
        raise BenchlibError("cpu cannot be set with placement=unpinned; "
                            "use placement=same_cpu or different_cpus to pin")
    _pipe_cpus(p)


def _measure_pipe(p, o, ns, tk, info):
    o.cpu, o.helper_cpu = _pipe_cpus(p)
    return _lib().bl_pipe_latency(o, ns, tk, info)


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


# ---------------------------------------------------------------- bcopy

MAX_BUFFER = 1 << 40

register(Benchmark(
    name="bcopy",
    description="memcpy bandwidth copying size_bytes from one buffer to another",
    unit="MB/s",
    higher_is_better=True,
    counts="size_bytes counted once per copy (not read + write); MB = 10^6 bytes",
    params=(Param("size_bytes", "size", 1 << 20, "bytes copied per memcpy",
                  min=1, max=MAX_BUFFER), CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_bcopy(p["size_bytes"], o, ns, tk, info),
    to_unit=lambda ns, p: p["size_bytes"] / ns * 1e3,  # bytes/ns = GB/s; x1e3 = MB/s
    check=lambda p: _check_cpu(p["cpu"]),
    memory_bytes=lambda p: 2 * p["size_bytes"],
))


# ---------------------------------------------------------------- mem_latency

def _check_mem_latency(p: dict) -> None:
    _check_cpu(p["cpu"])
    size, stride = p["size_bytes"], p["stride_bytes"]
    if stride % 8:
        raise BenchlibError(f"stride_bytes must be a multiple of 8 (a pointer); got {stride}")
    if stride > size:
        raise BenchlibError(f"stride_bytes ({stride}) is larger than size_bytes ({size})")
    if size // stride < 2:
        raise BenchlibError(
            f"size_bytes ({size}) must hold at least two slots of stride_bytes ({stride})")


register(Benchmark(
    name="mem_latency",
    description="Dependent-load latency: a pointer chase over size_bytes, one pointer every stride_bytes",
    unit="ns",
    params=(Param("size_bytes", "size", 1 << 20, "bytes covered by the chain", min=16, max=MAX_BUFFER),
            Param("stride_bytes", "size", 64, "distance between consecutive loads", min=8,
                  max=MAX_BUFFER),
            CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_mem_latency(
        p["size_bytes"], p["stride_bytes"], o, ns, tk, info),
    to_unit=lambda ns, p: ns,
    check=_check_mem_latency,
    memory_bytes=lambda p: p["size_bytes"],
))
