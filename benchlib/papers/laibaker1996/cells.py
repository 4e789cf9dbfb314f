"""The cells of Lai and Baker's slide tables (1996) this project measures,
declared once: the benchmark and parameters behind each cell of this
machine's rows; the column's unit is its name's suffix, and the sort (the
column "normalized to best" is computed from, best first) is the slides'
(``paper.TABLES``).  The slides' machine was a uniprocessor, so the rows
compared with them run pinned to one CPU, or with both processes on one
CPU; other placements are rows of their own (the two-CPU row where there
are two).  The curves the slides only drew are ``measure``'s."""
from __future__ import annotations

from benchlib.papers.tables import Column, Table, by_name
from benchlib.papers.laibaker1996.paper import PAPER, TABLES

MBIT_PER_MB = 8.0                # MB/s (10^6 bytes) -> megabits/s (10^6 bits)
TCP_TRANSFER_BYTES = 64 << 10    # bytes per write for the TCP table (the slides do not say)


def _table(name: str, rows: dict) -> Table:
    s = TABLES[name]
    return Table(name, PAPER, s.csv.removesuffix(".csv"), rows, s.slide, "os", s.value,
                 s.higher_is_better)


def _tcp(placement: str) -> Column:
    return Column("ipc_bandwidth", {"transport": "tcp", "transfer_bytes": TCP_TRANSFER_BYTES,
                                    "placement": placement}, MBIT_PER_MB, pin="")


CELLS: dict[str, Table] = by_name(
    _table("system_call", {"pinned": {"time_us": Column("syscall", {"op": "getpid"})},
                           "unpinned": {"time_us": Column("syscall", {"op": "getpid"}, pin="")}}),
    _table("tcp_bandwidth", {"one CPU": {"bandwidth_mbit_s": _tcp("same_cpu")},
                             "two CPUs": {"bandwidth_mbit_s": _tcp("different_cpus")}}),
    _table("andrew_local", {"local": {"time_s": Column("andrew_benchmark", {"copy": "cp"},
                                                       pin="", file=True)}}),
)
