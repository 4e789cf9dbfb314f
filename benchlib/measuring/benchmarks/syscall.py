"""Registrations for csrc/syscall.c: kernel entry and exit."""
from __future__ import annotations

from benchlib.measuring.registry import Benchmark, register
from benchlib.measuring.benchmarks.common import CPU, _check_cpu_param, _us, call_with_op, op_choice


# ---------------------------------------------------------------- syscall

# getpid, write, getppid, read, stat, fstat
OP, _SYSCALL_OPS = op_choice("BL_SYSCALL_", "the call made in the loop")

register(Benchmark(
    name="syscall",
    description="Kernel entry and exit: getpid or getppid via syscall(2), a 1-byte write to "
                "/dev/null (the null call: /dev/null ignores the data, so a byte costs what a word "
                "does), a 1-byte read from /dev/zero, stat(\"/dev/null\") or fstat",
    unit="us",
    params=(OP, CPU),
    measure=call_with_op("bl_syscall_latency", _SYSCALL_OPS),
    to_unit=_us,
    check=_check_cpu_param,
))

