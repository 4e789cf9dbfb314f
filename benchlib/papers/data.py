"""The papers and their transcribed tables: the one list of papers
(``PAPERS``: id -> year and citation) and the loaders of
``data/papers/<id>/*.csv`` every paper package and notebook uses."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from benchlib.errors import BenchlibError


@dataclass(frozen=True)
class Paper:
    year: int             # date of the paper / post
    cite: str


# The one list of papers.  An id names the paper's package
# (benchlib/papers/<id>/), data folder, notebook and tests; the order is the
# then-and-now dataset's (its counts, its figures' colours).
PAPERS: dict[str, Paper] = {
    "ousterhout1990": Paper(1990, "Ousterhout, USENIX Summer 1990"),
    "mach1989": Paper(1989, "comp.os.mach thread 'Mach performance?', Dec 1989"),
    "mcvoy1996": Paper(1996, "McVoy & Staelin, USENIX Jan 1996"),
    "laibaker1996": Paper(1996, "Lai & Baker, slides, 1996"),
    "chen1994": Paper(1994, "Chen & Patterson, ACM TOCS 1994"),
    "ren2019": Paper(2019, "Ren, Rodrigues, Chen, Vega, Stumm & Yuan, SOSP 2019 (LEBench)"),
}


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
    if paper not in PAPERS or not d.is_dir():
        raise BenchlibError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
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
