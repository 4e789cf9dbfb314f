"""The papers: one package per paper, ``benchlib/papers/<id>/``, with its
transcription and loaders (``paper.py``), the one declaration of the cells
this project measures for it (``cells.py``: benchmark, parameters, unit,
cell of a paper table) and this machine's rows (``measure.py``); its
tables are ``data/papers/<id>/*.csv``, its notebook ``notebooks/<id>.ipynb``,
its tests ``tests/papers/test_<id>*.py``.

This shared part holds the one list of papers and the CSV loaders
(``data``: ``PAPERS``, ``load_table``), the table machinery every paper
uses (``tables``: ``Table``, ``Column``, ``TableRows``, ``measure_rows``,
``paper_table``, ``beside_paper``) and the MIPS rating (``mips``).
``cells(paper)`` is a paper's declaration of its cells, for the readers
outside its package (the then-and-now dataset, the class notebook);
``cells_matching(benchmark, params, machine)`` finds, over every paper, the
cells a measurement stands for (``tables.matches``: the explorer's paper rows).

Ids: ``ousterhout1990``, ``mcvoy1996``, ``chen1994``, ``laibaker1996``,
``mach1989``, ``ren2019``.

May import every layer below it: measuring, results, stats, analysis,
memory and the shared figures (``benchlib.report.figures``); never the
HTML report or the CLI (the layers contract in ``.importlinter``)."""
from __future__ import annotations

import importlib

from benchlib.errors import BenchlibError
from benchlib.papers.data import PAPERS, Paper, data_dir, list_tables, load_table, paper_dir, transcribe_main  # noqa: F401
from benchlib.papers.tables import (Column, Table, TableRows, beside_paper, column_params, measure_rows,  # noqa: F401
                     matches, paper_table, pinned_cpu, table_rows)

with_rows = beside_paper   # the join's earlier name (notebooks/memory_hierarchy.ipynb uses it)


def cells(paper: str) -> dict[str, Table]:
    """A paper's tables as this project measures them (its ``cells.CELLS``)."""
    if paper not in PAPERS:
        raise BenchlibError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    return importlib.import_module(f"{__name__}.{paper}.cells").CELLS


def cell(paper: str, table: str, column: str, row: str | None = None) -> Column:
    """One cell of a paper's declaration (``row``: the row's key where the
    table has several rows of this machine)."""
    try:
        spec = cells(paper)[table]
    except KeyError:
        raise BenchlibError(f"{paper} declares no table {table!r}; "
                            f"tables: {', '.join(cells(paper))}") from None
    return spec.cell(column, row)


def cells_matching(benchmark: str, params: dict, machine: dict) -> list[tuple[str, str, str, str]]:
    """Every paper cell that a result of ``benchmark`` with ``params`` on
    ``machine`` is the declared measurement of (``tables.matches``: the
    declared parameters equal, others free; a same_cpu pair for a
    "placement" cell; sized parameters by their rule on ``machine``), as
    (paper, table, column, row key), in ``PAPERS``' order.  Several rows of
    one table that declare the same measurement (a pinned and an unpinned
    row) are one cell: the first row's."""
    found: dict[tuple[str, str, str], str] = {}
    for paper in PAPERS:
        for name, spec in cells(paper).items():
            for row, columns in spec.rows.items():
                for column, col in columns.items():
                    if (col.benchmark == benchmark and (paper, name, column) not in found
                            and matches(col, params, machine)):
                        found[(paper, name, column)] = row
    return [(*key, row) for key, row in found.items()]
