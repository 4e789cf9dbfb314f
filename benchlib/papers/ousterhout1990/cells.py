"""The cells of Ousterhout's tables (USENIX Summer 1990) this project
measures, declared once: the benchmark and parameters behind each cell of
this machine's rows, the column's unit (its name's suffix) and how the
paper sorted the table.  The notebook's tables (``measure``), the
then-and-now dataset (``papers.across_today``) and the class notebook
(``papers.classroom``) read them from here.

The paper's machines were uniprocessors, so the rows compared with it are
pinned to one CPU (single-process benchmarks) or keep both processes on one
CPU (``same_cpu``); other placements are rows of their own.  Block and file
sizes that depend on the caches are read from this machine (``sized``:
``papers.tables.SIZES``).  Table 7's copy and compile columns, Table 5's
Mbytes/MIPS and Table 8 are computed from these measurements (``measure``)."""
from __future__ import annotations

from benchlib.papers.tables import Column, Table, by_name

PAPER = "ousterhout1990"
KB = 1024        # the paper's kbyte; Table 10's sizes and Table 6's block are in these
MS_FROM_US = 1e-3


def _table(name: str, csv: str, title: str, sort_by: str | None, rows: dict,
           higher: bool = False, drop: tuple = ()) -> Table:
    return Table(name, PAPER, csv, rows, title, "configuration", sort_by, higher, drop)


def _getpid(pin: str) -> Column:
    return Column("syscall", {"op": "getpid"}, pin=pin)


def _create_delete(size: int, fsync: str) -> Column:
    return Column("fs_create_delete", {"file_bytes": size, "fsync": fsync}, file=True)


CELLS: dict[str, Table] = by_name(
    _table("table02", "table02_getpid", "getpid (Table 2)", "time_us",
           {"pinned": {"time_us": _getpid("cpu")}, "unpinned": {"time_us": _getpid("")}}),
    _table("table03", "table03_cswitch", "cswitch round trip (Table 3)", "time_ms",
           {p: {"time_ms": Column("pipe_latency", {"placement": p}, MS_FROM_US, pin="")}
            for p in ("same_cpu", "different_cpus", "unpinned")}),
    _table("table04", "table04_select", "select (Table 4)", "ten_full_us",
           {"pinned": {"one_pipe_us": Column("select_latency", {"pipes": 1, "full": "no"}),
                       "ten_empty_us": Column("select_latency", {"pipes": 10, "full": "no"}),
                       "ten_full_us": Column("select_latency", {"pipes": 10, "full": "yes"})}}),
    _table("table05", "table05_bcopy", "bcopy (Table 5)", "uncached_mb_s",
           {"pinned": {"cached_mb_s": Column("bcopy", {}, sized={"size_bytes": "cached"}),
                       "uncached_mb_s": Column("bcopy", {}, sized={"size_bytes": "uncached"})}},
           higher=True),
    _table("table06", "table06_read", "file-cache read (Table 6)", "mb_s",
           {"pinned": {"mb_s": Column("file_read_bandwidth", {"block_bytes": 16 * KB}, file=True,
                                      sized={"file_bytes": "file_beyond_caches"})}},
           higher=True),
    _table("table07", "table07_andrew", "Modified Andrew Benchmark (Table 7)", "total_s",
           {"local": {"total_s": Column("andrew_benchmark", {"copy": "cp"}, pin="", file=True)}},
           drop=("recovered",)),
    _table("table08", "table08_andrew_relative", "Andrew, MIPS-relative (Table 8)",
           "remote_penalty_pct", {}),
    _table("table09", "table09_open_close", "open-close (Table 9)", "foo_ms",
           {"local": {"foo_ms": Column("open_close_latency", {"path": "foo"}, MS_FROM_US,
                                       file=True),
                      "abc_foo_ms": Column("open_close_latency", {"path": "a/b/c/foo"},
                                           MS_FROM_US, file=True)}}),
    _table("table10", "table10_create_delete", "create-delete (Table 10)", "no_data_ms",
           {f"local{suffix}": {"no_data_ms": _create_delete(0, fsync),
                               "kb10_ms": _create_delete(10 * KB, fsync),
                               "kb100_ms": _create_delete(100 * KB, fsync)}
            for suffix, fsync in (("", "no"), (", fsync", "yes"))}),
)
