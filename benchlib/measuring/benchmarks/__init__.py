"""The benchmarks, each registered once with its parameters and unit, in
one module per C family: ``benchmarks/<family>.py`` registers what
``csrc/<family>.c`` measures (``mem`` for memory.c; ``net`` for the
net_*.c and rpc.c files).  What they share is in ``common``; the compiler
cache for the small programs outside the library in ``compiler_cache``.

Each ``measure`` translates parameters into a call of the C library and
returns ``(rc, extras)``; the timing core in C does the rest.  Importing
this package registers every benchmark.

May import: the registry, placement and the native binding of the
measuring layer, ``benchlib.errors``, ``benchlib.units`` and
``benchlib.profiles``; no numerical library (the measuring worker imports
these modules: an import-linter contract)."""
from __future__ import annotations

from benchlib.measuring.benchmarks import andrew, call, cpu, fs, ipc, iowork, mapping, mem, net, proc, syscall  # noqa: F401 (register)
from benchlib.measuring.benchmarks.andrew import MAB_PHASES, MAB_TREE  # noqa: F401
from benchlib.measuring.benchmarks.common import CPU, DIRECTORY, PINNED_CPU, PLACEMENT  # noqa: F401
from benchlib.measuring.benchmarks.compiler_cache import proc_runner, tiny_program  # noqa: F401
from benchlib.measuring.benchmarks.cpu import instructions_per_repetition  # noqa: F401
from benchlib.measuring.benchmarks.fs import SMALL_FILE_PHASES  # noqa: F401
from benchlib.measuring.benchmarks.net import RPC_MISSING, have_rpc  # noqa: F401
