"""Registrations for csrc/cpu.c: the core clock and native integer speed."""
from __future__ import annotations

import functools
import hashlib
import json
import os
import sys

from benchlib.errors import BenchlibError
from benchlib.files import write_text_atomic
from benchlib.measuring.registry import Benchmark, register
from benchlib.measuring.benchmarks.common import CPU, _check_cpu_param, _ffi, _lib, no_extras
from benchlib.measuring.benchmarks.compiler_cache import _cache_dir


# ---------------------------------------------------------------- cpu_clock

ADDS_PER_ITERATION = 100  # cpu.c

register(Benchmark(
    name="cpu_clock",
    description="Core clock the CPU actually runs at: a chain of dependent integer adds (one per cycle)",
    unit="GHz",
    counts="one dependent add per core cycle, as on current x86 and Arm cores",
    params=(CPU,),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_cpu_clock(o, ns, tk, info)),
    to_unit=lambda ns, p: ADDS_PER_ITERATION / ns,
    check=_check_cpu_param,
))


# ---------------------------------------------------------------- integer_speed

def _count_file() -> str:
    """Where the count is kept: named by a hash of the compiled library, the
    one thing the count depends on (the program calls no libc routine)."""
    _lib()                                    # loaded, so its module is known
    h = hashlib.sha256()
    with open(sys.modules["benchlib._cbench"].__file__, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return os.path.join(_cache_dir(), f"integer-speed-instructions-{h.hexdigest()[:16]}.json")


@functools.lru_cache(maxsize=1)
def instructions_per_repetition() -> int:
    """Instructions one repetition of integer_speed's program executes, counted
    by single-stepping it under ptrace (a second on hardware, several in a VM,
    where every step exits to the hypervisor), once per build of the library:
    the count is kept in the per-user cache, named by the library's hash."""
    path = _count_file()
    try:
        with open(path) as f:
            return int(json.load(f)["instructions_per_repetition"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    ffi = _ffi()
    per, fixed = ffi.new("int64_t *"), ffi.new("int64_t *")
    rc = _lib().bl_count_instructions(per, fixed)
    if rc == -1:
        raise KeyboardInterrupt
    if rc != 0:
        raise BenchlibError(ffi.string(_lib().bl_last_error()).decode())
    try:
        write_text_atomic(path, json.dumps({"instructions_per_repetition": int(per[0]),
                                            "fixed": int(fixed[0])}))
    except BenchlibError:
        pass                                # an unwritable cache only costs the recount
    return int(per[0])


def _measure_integer(p, o, ns, tk, info):
    n = instructions_per_repetition()
    return _lib().bl_integer_speed(o, ns, tk, info), {"instructions_per_repetition": n}


register(Benchmark(
    name="integer_speed",
    description="Native integer speed: a small integer program (tokenise and hash a line, sort, "
                "walk a linked list, small calls) whose instructions are counted by single-stepping",
    unit="MIPS",
    counts="native instructions per microsecond (millions per second), instructions counted "
           "exactly under ptrace; not VAX MIPS: see benchlib.papers.mips.vax_mips",
    params=(CPU,),
    measure=_measure_integer,
    to_unit=lambda ns, p: instructions_per_repetition() / ns * 1e3,
    check=_check_cpu_param,
))

