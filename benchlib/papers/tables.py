"""The table machinery every paper package uses: one declaration of a
paper table as this project measures it (``Table``: the paper, its CSV and
the ``Column`` behind each cell of this machine's rows; each paper's
``cells.CELLS``), one row type (``TableRows``, measured from a ``Table`` by
``measure_rows``) and one join that puts this machine's rows beside a
paper's (``paper_table``, over ``beside_paper``).  The highlight of those rows in a table or a
bar chart is ``benchlib.report.figures.highlight_machine`` / ``bar_table``, which
read the ``source`` column ``beside_paper`` writes.

Intervals: a cell of a row may be given as a
``benchlib.stats.intervals.Measured`` (``r.measured``, or arithmetic on
it); ``TableRows`` keeps the plain figure in ``rows`` (what the CSVs hold)
and the interval in ``intervals``, and ``with_intervals()`` gives the rows
with ``<column>_ci95_lo/_hi/_note`` beside each such column, which
``beside_paper`` carries into the paper's table and ``highlight_machine``
shows as ``1.23 [1.20, 1.26]``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from benchlib.profiles import setting
from benchlib.stats import intervals as iv
from benchlib.stats.intervals import Measured
from benchlib.errors import BenchlibError
from benchlib.measuring.placement import pinned_cpu  # noqa: F401  (a paper's pinned rows: the first allowed CPU)
from benchlib.measuring.harness import Result, run
from benchlib.memory.measure import cache_sizes
from benchlib.measuring.metadata import machine_info
from benchlib.papers.data import load_table

PAPER_SOURCE = "paper"
MACHINE_SOURCE = "this machine"


@dataclass
class TableRows:
    """This machine's rows of one paper table and the results behind them.

    ``rows`` has the paper's columns and units; ``results`` every
    measurement behind them (name -> Result); ``notes`` what a reader needs
    besides (the CPU used, the file system, ...); ``skipped`` the columns a
    build could not measure and why (they are NaN in ``rows``);
    ``intervals`` the 95% interval of each measured cell, (row position,
    column) -> Measured, taken from the Measured cells ``rows`` was built
    with (``rows`` itself holds plain numbers); ``spec`` the paper table
    the rows stand beside (``paper_table`` reads it)."""
    table: str
    rows: pd.DataFrame
    results: dict[str, Result] = field(default_factory=dict)
    notes: dict = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    intervals: dict[tuple[int, str], Measured] = field(default_factory=dict)
    spec: "Table | None" = None

    def __post_init__(self):
        rows = self.rows.reset_index(drop=True)
        for col in rows.columns:
            if rows[col].dtype == object and rows[col].map(lambda v: isinstance(v, Measured)).any():
                for i, v in enumerate(rows[col]):
                    if isinstance(v, Measured):
                        self.intervals[(i, col)] = v
                rows[col] = [iv.value(v) if isinstance(v, (Measured, int, float)) else v
                             for v in rows[col]]
        self.rows = rows

    def measurements(self) -> pd.DataFrame:
        return pd.DataFrame([{"measurement": k, **r.to_row()} for k, r in self.results.items()])

    def cell(self, column: str, row: int | str = 0):
        """One cell as a Measured when it has an interval, else its number;
        ``row`` a position or the label in the rows' first column."""
        if isinstance(row, str):
            labels = list(self.rows.iloc[:, 0])
            if row not in labels:
                raise KeyError(f"{self.table}: no row {row!r}; rows: {labels}")
            row = labels.index(row)
        return self.intervals.get((row, column), self.rows[column].iloc[row])

    def column(self, column: str) -> list:
        """A column's cells, each a Measured where it has an interval."""
        return [self.cell(column, i) for i in range(len(self.rows))]

    def with_intervals(self, df: pd.DataFrame | None = None) -> pd.DataFrame:
        """``rows`` (or ``df``, a copy of rows with columns added, rows in
        the same order) with ``<column>_ci95_lo/_hi/_note`` beside every
        column that has an interval."""
        out = (self.rows if df is None else df).copy()
        for col in dict.fromkeys(c for _, c in self.intervals):
            if col in out.columns:
                vals = self.column(col)
                iv.put(out, col, [v if isinstance(v, Measured) else out[col].iloc[i]
                                  for i, v in enumerate(vals)])
        return out


def table_rows(table: str, rows: list[dict], results: dict, spec: "Table | None" = None,
               **notes) -> TableRows:
    return TableRows(table, pd.DataFrame(rows), results, notes, spec=spec)


# ------------------------------------------------------------ declaring a table's cells

# A size that depends on this machine's caches, by name (``Column.sized``).
# Each is read from the machine (``benchlib.memory.measure.cache_sizes``: sysfs, or a fitted
# hierarchy); a cache that cannot be read is an error that says so, never a
# default.  At the smoke profile a size is capped (benchlib.profiles,
# "papers.max_sized_bytes": every code path, tiny sizes).
MIN_FILE_BYTES = 64 << 20


def _cached(machine: dict) -> int:
    return cache_sizes(machine)[0]


def _uncached(machine: dict) -> int:
    return cache_sizes(machine)[1]


def _file_beyond_caches(machine: dict) -> int:
    return max(MIN_FILE_BYTES, cache_sizes(machine)[1])


SIZES = {
    "cached": (_cached, "a block whose source and destination fit in L2 (a quarter of it)"),
    "uncached": (_uncached, "4x the last-level cache, at most the memory scan's 128 MiB "
                 "(a guest's sysfs may present a whole socket's last level)"),
    "file_beyond_caches": (_file_beyond_caches, "a file past the last-level cache (as uncached) "
                           f"and {MIN_FILE_BYTES >> 20} MiB: in the page cache, not the CPU's"),
}


def sized_bytes(rule: str, machine: dict, profile: str = "quick") -> int:
    """The size ``rule`` (a key of ``SIZES``) gives on ``machine``; a
    BenchlibError naming the cache when it cannot be read."""
    try:
        size = SIZES[rule][0](machine)
    except KeyError:
        raise BenchlibError(f"unknown size rule {rule!r}; known: {', '.join(SIZES)}") from None
    cap = setting("papers.max_sized_bytes", profile)
    return size if cap is None else min(size, cap)


UNITS = {"_us": "us", "_ms": "ms", "_ns": "ns", "_mb_s": "MB/s", "_mbit_s": "Mbit/s", "_s": "s"}


def unit_of(column: str) -> str:
    """A paper column's unit, from the suffix its name carries (the data
    conventions: ``time_us``, ``cached_mb_s`` ...)."""
    for suffix, unit in sorted(UNITS.items(), key=lambda kv: -len(kv[0])):
        if column.endswith(suffix) or column == suffix[1:]:
            return unit
    raise BenchlibError(f"column {column!r} names no unit (one of {', '.join(UNITS)})")


@dataclass(frozen=True)
class Column:
    """One cell of this machine's row as a measurement: the benchmark and
    its parameters, the factor from the benchmark's unit to the column's,
    and how it is placed."""
    benchmark: str
    params: dict
    scale: float = 1.0           # benchmark unit -> the column's unit
    pin: str = "cpu"             # "cpu": pin the process; "placement": same_cpu pair; "": none
    file: bool = False           # takes the `directory` parameter
    optional: bool = False       # a build may lack it (RPC without libtirpc): skip, say why
    sized: dict = field(default_factory=dict)   # parameter -> a SIZES rule (from the caches)

    def describe(self, params: dict | None = None) -> str:
        """The measurement in words: the benchmark, its parameters (``params``
        as run, else as declared, sized ones by their rule) and placement."""
        p = {k: v for k, v in (params if params is not None else
                               {**self.params, **self.sized}).items()
             if k not in ("cpu", "directory")}
        text = " ".join([self.benchmark] + [f"{k}={v}" for k, v in p.items()])
        where = {"cpu": "pinned to one CPU", "placement": "both processes on one CPU"}.get(self.pin)
        return f"{text}, {where}" if where else text


@dataclass(frozen=True)
class Table:
    """One paper table as this project measures it: the paper and its CSV,
    the ``Column`` behind each cell of this machine's rows (``rows``: row
    key -> {column: Column}; the key "" for a table with one row of this
    machine, else what the row's label adds, "pinned", "local, fsync" ...),
    and how the paper sorted it.  A table whose cells are computed, not
    measured by one benchmark each, declares no rows."""
    name: str                   # the key its paper's CELLS and TableRows use
    paper: str
    csv: str                    # the CSV stem in data/papers/<paper>/
    rows: dict = field(default_factory=dict)
    title: str = ""
    label_column: str = "system"
    sort_by: str | None = None
    higher_is_better: bool = False
    drop: tuple = ()            # the CSV's columns that are not the paper's figures

    def cell(self, column: str, row: str | None = None) -> Column:
        if row is None:
            if len(self.rows) != 1:
                raise BenchlibError(f"{self.paper} {self.name}: say which row "
                                    f"({', '.join(map(repr, self.rows))})")
            row = next(iter(self.rows))
        try:
            return self.rows[row][column]
        except KeyError:
            raise BenchlibError(f"{self.paper} {self.name}: no cell {column!r} in row {row!r}") from None

    def column_names(self) -> list[str]:
        return list(dict.fromkeys(c for cols in self.rows.values() for c in cols))

    def row_label(self, row: str, label: str | None = None) -> str:
        label = MACHINE_SOURCE if label is None else label
        return f"{label}, {row}" if row else label

    def unit(self, column: str) -> str:
        return unit_of(column)


def by_name(*tables: Table) -> dict[str, Table]:
    """A paper's ``CELLS``: its tables by name."""
    return {t.name: t for t in tables}


def column_params(col: Column, directory: str | None = None, machine: dict | None = None,
                  profile: str = "quick") -> dict:
    """The parameters a column runs with here: its own, the sizes its rules
    give on ``machine`` (this machine when None), its placement and directory."""
    p = dict(col.params)
    if col.sized:
        m = machine_info() if machine is None else machine
        p.update({k: sized_bytes(rule, m, profile) for k, rule in col.sized.items()})
    if col.pin == "cpu":
        p["cpu"] = pinned_cpu()
    elif col.pin == "placement":
        p["placement"] = "same_cpu"
    if col.file and directory:
        p["directory"] = directory
    return p


def matches(col: Column, params: dict, machine: dict) -> bool:
    """Is a stored result (its parameters, the machine it ran on) the
    measurement ``col`` declares?  Declared parameters equal (others free),
    a same_cpu pair for a "placement" column, and each sized parameter by
    its rule on that machine: at most the cached size, at least the
    uncached one.  A machine whose caches its record does not give matches
    no sized column (its size cannot be judged)."""
    if any(params.get(k) != v for k, v in col.params.items()):
        return False
    if col.pin == "placement" and params.get("placement") != "same_cpu":
        return False
    for k, rule in col.sized.items():
        try:
            want = sized_bytes(rule, machine)
        except BenchlibError:
            return False
        size = params.get(k) or 0
        if not (0 < size <= want if rule == "cached" else size >= want):
            return False
    return True


def _result_key(row: str, column: str, many_rows: bool, many_columns: bool) -> str:
    if not many_rows or not row:
        return column
    return f"{column}, {row}" if many_columns else row


def measure_rows(spec: Table, profile: str = "quick", directory: str | None = None,
                 label: str = MACHINE_SOURCE, cache: dict | None = None,
                 machine: dict | None = None) -> TableRows:
    """This machine's rows of one table, a measurement per declared cell
    (median, in the column's unit; its 95% interval in ``intervals``).  An
    ``optional`` benchmark this build cannot run leaves its cell empty and
    says why in ``skipped``; ``cache`` (a dict) shares results between
    tables that use the same measurement.  ``results`` are keyed by column
    (one row), by row (one column) or "column, row"."""
    if not spec.rows:
        raise BenchlibError(f"{spec.paper} {spec.name}: its cells are computed, not measured")
    cache = {} if cache is None else cache
    if machine is None and any(c.sized for cols in spec.rows.values() for c in cols.values()):
        machine = machine_info()
    many_rows = len(spec.rows) > 1
    many_columns = any(len(cols) > 1 for cols in spec.rows.values())
    rows, results, skipped = [], {}, {}
    for key, cols in spec.rows.items():
        row = {spec.label_column: spec.row_label(key, label)}
        for name, col in cols.items():
            rkey = _result_key(key, name, many_rows, many_columns)
            params = column_params(col, directory, machine, profile)
            ckey = (col.benchmark, tuple(sorted(params.items())))
            try:
                if ckey not in cache:
                    cache[ckey] = run(col.benchmark, profile=profile, **params)
                r = cache[ckey]
            except BenchlibError as e:
                if not col.optional:
                    raise
                skipped[rkey] = str(e)
                row[name] = math.nan
                continue
            results[rkey] = r
            row[name] = r.measured * col.scale
        rows.append(row)
    return TableRows(spec.name, pd.DataFrame(rows), results, skipped=skipped, spec=spec)


# ------------------------------------------------------------ beside the paper

def paper_table(t: TableRows, mine: pd.DataFrame | None = None,
                spec: Table | None = None) -> pd.DataFrame:
    """The paper's table (``spec``, else ``t.spec``) with this machine's rows
    inserted where the paper's order puts them (its sort column, best
    first) or appended when it has none; ``source`` marks which rows are
    whose and this machine's figures carry their 95% intervals.  ``mine``:
    the rows to insert when a paper adds columns to ``t``'s (its
    normalisation).  A paper whose table adds columns wraps this with the
    same shape, ``paper_table(t, ...)``."""
    spec = spec or t.spec
    if spec is None:
        raise BenchlibError(f"{t.table}: these rows name no paper table (TableRows.spec)")
    paper = load_table(spec.paper, spec.csv).drop(columns=list(spec.drop), errors="ignore")
    return beside_paper(paper, t if mine is None else mine, spec.sort_by,
                        ascending=not spec.higher_is_better)


def beside_paper(paper: pd.DataFrame, ours: pd.DataFrame | TableRows, sort_by: str | None = None,
                 ascending: bool = True, na_position: str = "last") -> pd.DataFrame:
    """A paper's table with this machine's rows added; sorted by ``sort_by``
    (stable, so ties keep the paper's order) or appended when it is None.
    A ``source`` column says which rows are the paper's ("paper") and which
    were measured here ("this machine"), for ``plots.highlight_machine``.
    ``ours`` as a TableRows brings its intervals (``with_intervals``)."""
    if isinstance(ours, TableRows):
        ours = ours.with_intervals()
    out = pd.concat([paper.assign(source=PAPER_SOURCE), ours.assign(source=MACHINE_SOURCE)],
                    ignore_index=True)
    if sort_by is not None:
        out = out.sort_values(sort_by, ascending=ascending, kind="stable",
                              na_position=na_position)
    return out.reset_index(drop=True)
