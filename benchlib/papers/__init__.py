"""Paper data: loaders for ``data/papers/<paper><year>/*.csv`` and the
papers' own normalisations.  No measurement happens here."""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ..errors import BenchlibError


def data_dir() -> Path:
    """The repository's ``data/`` folder (or $BENCHLIB_DATA_DIR)."""
    env = os.environ.get("BENCHLIB_DATA_DIR")
    path = Path(env) if env else Path(__file__).resolve().parents[2] / "data"
    if not path.is_dir():
        raise BenchlibError(
            f"paper data not found at {path}; install benchlib from its source tree "
            "(pip install -e .) or set BENCHLIB_DATA_DIR to the data/ folder")
    return path


def paper_dir(paper: str) -> Path:
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


def with_rows(paper: pd.DataFrame, ours: pd.DataFrame, sort_by: str,
              ascending: bool = True) -> pd.DataFrame:
    """A paper's table with this machine's rows inserted in sorted position.
    A ``source`` column says which rows are the paper's ("paper") and which
    were measured here ("this machine"), for highlighting."""
    a = paper.assign(source="paper")
    b = ours.assign(source="this machine")
    out = pd.concat([a, b], ignore_index=True)
    return out.sort_values(sort_by, ascending=ascending, kind="stable").reset_index(drop=True)


def transcribe_main(paper: str, transcribe, argv: list[str] | None = None) -> int:
    """``python -m benchlib.papers.<paper> SEED.txt``: parse the seed text with
    ``transcribe`` (text -> {stem: DataFrame}) and rewrite the paper's CSVs."""
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(f"usage: python -m benchlib.papers.{paper} SEED.txt", file=sys.stderr)
        return 2
    for stem, df in transcribe(Path(argv[0]).read_text()).items():
        df.to_csv(paper_dir(paper) / f"{stem}.csv", index=False)
        print(f"wrote {stem}.csv ({len(df)} rows)")
    return 0
