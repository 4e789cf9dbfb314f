"""Registrations for csrc/syscall.c: kernel entry and exit."""
from __future__ import annotations

from ..registry import Benchmark, Param, register
from .common import CPU, _check_cpu, _lib, _us, no_extras, ops


# ---------------------------------------------------------------- syscall

_SYSCALL_OPS = ops("BL_SYSCALL_")  # getpid, write, getppid, read, stat, fstat

register(Benchmark(
    name="syscall",
    description="Kernel entry and exit: getpid or getppid via syscall(2), a 1-byte write to "
                "/dev/null (the null call: /dev/null ignores the data, so a byte costs what a word "
                "does), a 1-byte read from /dev/zero, stat(\"/dev/null\") or fstat",
    unit="us",
    params=(Param("op", "choice", "getpid", "the call made in the loop",
                  choices=tuple(_SYSCALL_OPS)), CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_syscall_latency(
        _SYSCALL_OPS[p["op"]], o, ns, tk, info)),
    to_unit=_us,
    check=lambda p: _check_cpu(p["cpu"]),
))

