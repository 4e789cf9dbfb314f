"""The cells of the comp.os.mach thread's tables (December 1989) this
project measures with one benchmark each, declared once: the benchmark and
parameters behind each figure of this machine, its unit (the name's
suffix).  The thread's exec / fork / touch table and its getpid row
(``unix_calls``, one row of this machine: a column per test), and the
Andrew benchmark's total.  The IPC tests (``measure.ipc_tests``) run every
test of the thread's program in one transport and placement the notebook
chooses, and the Andrew phases are read from the same run's extras: those
are computed in ``measure``."""
from __future__ import annotations

from benchlib.papers.tables import Column, Table, by_name

PAPER = "mach1989"
MS_FROM_US = 1e-3

CELLS: dict[str, Table] = by_name(
    Table("unix_calls", PAPER, "unix_calls",
          {"": {"exec_ms": Column("process_creation", {"op": "fork_exec_exit"}, pin=""),
                "fork_ms": Column("process_creation", {"op": "fork_exit"}, pin=""),
                "touch_ms": Column("page_fault_latency", {}, MS_FROM_US),
                "getpid_us": Column("syscall", {"op": "getpid"})}},
          "exec, fork, touch (a fresh page), getpid", "test"),
    Table("andrew", PAPER, "andrew",
          {"": {"total_s": Column("andrew_benchmark", {"copy": "cp"}, pin="", file=True)}},
          "Satya's (Andrew) benchmark", "phase"),
)
