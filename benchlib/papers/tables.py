"""The table machinery every paper package uses: one row type
(``TableRows``), one declarative column spec (``Column``, measured by
``measure_row``) and one join that puts this machine's rows beside a
paper's (``beside_paper``).  The highlight of those rows in a table or a
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

from benchlib.stats import intervals as iv
from benchlib.stats.intervals import Measured
from benchlib.errors import BenchlibError
from benchlib.measuring.placement import pinned_cpu  # noqa: F401  (a paper's pinned rows: the first allowed CPU)
from benchlib.measuring.harness import Result, run

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
    with (``rows`` itself holds plain numbers)."""
    table: str
    rows: pd.DataFrame
    results: dict[str, Result] = field(default_factory=dict)
    notes: dict = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    intervals: dict[tuple[int, str], Measured] = field(default_factory=dict)

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


def table_rows(table: str, rows: list[dict], results: dict, **notes) -> TableRows:
    return TableRows(table, pd.DataFrame(rows), results, notes)


@dataclass(frozen=True)
class Column:
    """One column of a paper table as a measurement: the benchmark and its
    parameters, the factor from the benchmark's unit to the column's, and
    how it is placed."""
    benchmark: str
    params: dict
    scale: float = 1.0           # benchmark unit -> the column's unit
    pin: str = "cpu"             # "cpu": pin the process; "placement": same_cpu pair; "": none
    file: bool = False           # takes the `directory` parameter
    optional: bool = False       # a build may lack it (RPC without libtirpc): skip, say why


def column_params(col: Column, directory: str | None = None) -> dict:
    p = dict(col.params)
    if col.pin == "cpu":
        p["cpu"] = pinned_cpu()
    elif col.pin == "placement":
        p["placement"] = "same_cpu"
    if col.file and directory:
        p["directory"] = directory
    return p


def measure_row(table: str, columns: dict[str, Column], profile: str = "quick",
                directory: str | None = None, label: str = MACHINE_SOURCE,
                label_column: str = "system", cache: dict | None = None) -> TableRows:
    """One row of a table, a measurement per column (median, in the
    column's unit; its 95% interval in ``intervals``).  An ``optional``
    benchmark this build cannot run leaves its cell empty and says why in
    ``skipped``; ``cache`` (a dict) shares results between tables that use
    the same measurement."""
    cache = {} if cache is None else cache
    row, results, skipped = {label_column: label}, {}, {}
    for name, col in columns.items():
        params = column_params(col, directory)
        key = (col.benchmark, tuple(sorted(params.items())))
        try:
            if key not in cache:
                cache[key] = run(col.benchmark, profile=profile, **params)
            r = cache[key]
        except BenchlibError as e:
            if not col.optional:
                raise
            skipped[name] = str(e)
            row[name] = math.nan
            continue
        results[name] = r
        row[name] = r.measured * col.scale
    return TableRows(table, pd.DataFrame([row]), results, skipped=skipped)


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
