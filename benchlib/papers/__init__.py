"""The papers: one package per paper, ``benchlib/papers/<id>/``, with its
transcription and loaders (``paper.py``) and this machine's rows
(``measure.py``); its tables are ``data/papers/<id>/*.csv``, its notebook
``notebooks/<id>.ipynb``, its tests ``tests/papers/test_<id>*.py``.

This shared part finds and loads the CSVs (``load_table``), and holds the
table machinery every paper uses (``tables``: ``TableRows``, ``Column``,
``measure_row``, ``beside_paper``) and the MIPS rating (``mips``).

Ids: ``ousterhout1990``, ``mcvoy1996``, ``chen1994``, ``laibaker1996``,
``mach1989``."""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.papers.tables import (Column, TableRows, beside_paper, column_params, measure_row,  # noqa: F401
                     pinned_cpu, table_rows)

with_rows = beside_paper   # the join's earlier name (notebooks/memory_hierarchy.ipynb uses it)


def data_dir() -> Path:
    """The repository's ``data/`` folder (or $BENCHLIB_DATA_DIR)."""
    env = os.environ.get("BENCHLIB_DATA_DIR")
    path = Path(env) if env else Path(__file__).resolve().parents[2] / "data"
    if not path.is_dir():
        raise BenchlibError(
            f"paper data not found at {path}; install benchlib from its source tree "
            "(pip install -e .) or set BENCHLIB_DATA_DIR to the data/ folder")
    return path


PAPERS = ("ousterhout1990", "mcvoy1996", "chen1994", "laibaker1996", "mach1989")
# Ids a paper had before the one-id reshape, still accepted by load_table.
RENAMED = {"lmbench1996": "mcvoy1996"}


def paper_dir(paper: str) -> Path:
    paper = RENAMED.get(paper, paper)
    d = data_dir() / "papers" / paper
    if not d.is_dir():
        known = sorted(p.name for p in (data_dir() / "papers").iterdir() if p.is_dir())
        raise BenchlibError(f"unknown paper {paper!r}; known: {', '.join(known)}")
    return d


def list_tables(paper: str) -> list[str]:
    """Table names (CSV stems) of one paper."""
    return sorted(p.stem for p in paper_dir(paper).glob("*.csv"))


def load_table(paper: str, table: str) -> pd.DataFrame:
    """One table as printed: first column the configuration, numeric columns
    with units in their names, NaN where the paper gives no value.  ``table``
    is the CSV stem (``table02_getpid``) or its prefix (``table02``)."""
    names = list_tables(paper)
    match = [n for n in names if n == table] or [n for n in names if n.startswith(table + "_")]
    if len(match) != 1:
        raise BenchlibError(f"no table {table!r} for {paper}; tables: {', '.join(names)}")
    return pd.read_csv(paper_dir(paper) / f"{match[0]}.csv")


def transcribe_main(paper: str, transcribe, argv: list[str] | None = None) -> int:
    """``python -m benchlib.papers.<paper>.paper SEED.txt``: parse the seed text with
    ``transcribe`` (text -> {stem: DataFrame}) and rewrite the paper's CSVs."""
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(f"usage: python -m benchlib.papers.{paper}.paper SEED.txt", file=sys.stderr)
        return 2
    for stem, df in transcribe(Path(argv[0]).read_text()).items():
        df.to_csv(paper_dir(paper) / f"{stem}.csv", index=False)
        print(f"wrote {stem}.csv ({len(df)} rows)")
    return 0
