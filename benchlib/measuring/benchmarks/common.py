"""What the benchmark families share: the CPU parameter and its check,
placement of a measuring process and its helper, the transports' enum
values, the file-system parameter and facts, and the C library handle.

Every ``measure(params, opts, ns, ticks, info)`` callback returns one shape:
``(rc, extras)``, the C call's return code and a dict of facts only the
measurement knows (empty when there are none)."""
from __future__ import annotations

import os
import tempfile

from benchlib.errors import BenchlibError
from benchlib.measuring.placement import allowed_cpus, pinned_cpu
from benchlib.measuring.registry import Param, filesystem_of

CPU = Param("cpu", "int", -1, "CPU to pin the measuring process to; -1 leaves it unpinned",
            min=-1, max=4095)


def _lib():
    from benchlib._native import lib
    return lib


def _ffi():
    from benchlib._native import ffi
    return ffi


def ops(prefix: str) -> dict[str, int]:
    """The C enum ``BL_<PREFIX>_*`` as {lower-case name: value}, in value
    order: benchlib.h is the one place an op's number is written.  Values
    from 0x100 up are flags or-ed into an op, not ops."""
    lib = _lib()
    found = {name[len(prefix):].lower(): getattr(lib, name)
             for name in dir(lib) if name.startswith(prefix) and getattr(lib, name) < 0x100}
    return dict(sorted(found.items(), key=lambda kv: kv[1]))


def op_choice(prefix: str, help: str) -> tuple[Param, dict[str, int]]:
    """The ``op`` parameter of a C function that takes one of the enum
    ``BL_<PREFIX>_*`` (its names the choices, the first the default), and
    the enum itself."""
    values = ops(prefix)
    return Param("op", "choice", next(iter(values)), help, choices=tuple(values)), values


def call_with_op(c_function: str, values: dict[str, int]):
    """The measure callback of a benchmark that is one C call
    ``c_function(op, opts, ns, ticks, info)``."""
    def measure(p, o, ns, tk, info):
        return no_extras(getattr(_lib(), c_function)(values[p["op"]], o, ns, tk, info))
    return measure


def no_extras(rc: int) -> tuple[int, dict]:
    """The callback shape for a C call that reports nothing beyond its samples."""
    return rc, {}


_allowed_cpus = allowed_cpus


def _check_cpu(cpu: int) -> None:
    pinned_cpu(cpu)  # raises when cpu is not allowed


def _check_cpu_param(p: dict) -> None:
    _check_cpu(p["cpu"])


def _us(ns: float, params: dict) -> float:
    return ns / 1e3


def phase_buffer(o, n_phases: int):
    """A C array for ``n_phases`` figures per sample, for a benchmark whose
    C side times its own phases (so there is no per-sample clock probe)."""
    ffi = _ffi()
    o.clock_ghz = ffi.NULL
    return ffi.new("double[]", o.n_samples * n_phases)


def phase_extras(buf, names: tuple[str, ...], n_samples: int, divisor: float, per_key: str,
                 median_key: str) -> dict:
    """The extras of a ``phase_buffer``: {per_key: {phase: [figure of each
    sample]}, median_key: {phase: median}}, each figure divided by
    ``divisor`` (ns -> the unit wanted); the median is the upper one of an
    even count, None for a phase with no sample."""
    m = len(names)
    per = {name: [buf[s * m + j] / divisor for s in range(n_samples)]
           for j, name in enumerate(names)}
    return {per_key: per,
            median_key: {name: (sorted(v)[len(v) // 2] if v else None) for name, v in per.items()}}


# ---------------------------------------------------------------- placement of two processes

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


def _pinned_cpu(p: dict) -> int:
    return pinned_cpu(p["cpu"])


PLACEMENT = Param("placement", "choice", "same_cpu",
                  "same_cpu: both processes pinned to one CPU; different_cpus: one CPU each; "
                  "unpinned: scheduler's choice",
                  choices=("same_cpu", "different_cpus", "unpinned"))
PINNED_CPU = Param("cpu", "int", -1,
                   "CPU of the measuring process when pinned; -1 takes the first allowed CPU",
                   min=-1, max=4095)


def _net_transport(name: str) -> int:
    """pipe, unix, tcp or udp as its BL_NET_* value."""
    return ops("BL_NET_")[name]


# ---------------------------------------------------------------- file-system benchmarks

DIRECTORY = Param("directory", "path", tempfile.gettempdir(),
                  "an existing writable directory; a private subdirectory is made and removed")


def _fs_extras(info, p: dict) -> dict:
    return filesystem_of(p["directory"])


def _encode(path: str) -> bytes:
    return os.fsencode(path)

