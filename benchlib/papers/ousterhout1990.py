"""Ousterhout, "Why Aren't Operating Systems Getting Faster As Fast as
Hardware?", USENIX Summer 1990: its tables and its MIPS-relative speed.

Transcriptions live in ``data/papers/ousterhout1990``; ``python -m
benchlib.papers.ousterhout1990 SEED.txt`` regenerates them from the seed
text (see that folder's README for what was checked by hand)."""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from . import load_table, paper_dir
from .markdown import tables_with_captions

PAPER = "ousterhout1990"
REFERENCE = "MVAX2 Ultrix 3.0"  # the paper's yardstick configuration
REFERENCE_MIPS = 0.9            # Table 1: Microvax II

# Table number -> (CSV stem, column names).  Header rows in the seed are
# dropped and replaced by these names, which carry the units.
TABLES = {
    1: ("table01_hardware", ["hardware", "abbrev", "type", "mips"]),
    2: ("table02_getpid", ["configuration", "time_us", "mips_relative_speed"]),
    3: ("table03_cswitch", ["configuration", "time_ms", "mips_relative_speed"]),
    5: ("table05_bcopy", ["configuration", "cached_mb_s", "uncached_mb_s", "mbytes_per_mips"]),
}


def mips_relative(value, mips, ref_value, ref_mips=REFERENCE_MIPS, higher_is_better=False):
    """The paper's normalisation: the speed ratio to the reference machine
    divided by the ratio of MIPS ratings.  1.0 means the benchmark ran as
    fast as the MIPS ratings predict; below 1.0, slower.  For times
    (lower is better) the speed ratio is ref/value; for rates, value/ref."""
    speed = (value / ref_value) if higher_is_better else (ref_value / value)
    return speed / (mips / ref_mips)


def implied_mips(value, ref_value, ref_mips=REFERENCE_MIPS, higher_is_better=False):
    """The MIPS rating at which a measurement would have a MIPS-relative
    speed of exactly 1.0: what the benchmark 'thinks' the machine's MIPS is."""
    speed = (value / ref_value) if higher_is_better else (ref_value / value)
    return speed * ref_mips


def mips_of(configuration: str, hardware: pd.DataFrame | None = None) -> float:
    """MIPS rating of a configuration ("DS5000 Ultrix 3.1D" -> 18), by the
    Table 1 abbreviation that starts its name."""
    hw = hardware if hardware is not None else load_table(PAPER, "table01")
    abbrev = configuration.split()[0]
    row = hw[hw["abbrev"] == abbrev]
    if row.empty:
        raise KeyError(f"no Table 1 machine for {configuration!r}")
    return float(row["mips"].iloc[0])


def table_with_machine(table: str, value_column: str, ours: dict[str, float],
                       mips_rating: float | None = None) -> pd.DataFrame:
    """A Ousterhout table (lower is better) with this machine's rows added.

    ``ours`` maps a configuration label to a value in ``value_column``'s
    unit.  Added columns: ``speedup_vs_mvax2`` (how many times faster than
    the paper's yardstick), ``implied_mips`` (the MIPS rating that would
    make the row's MIPS-relative speed exactly 1.0) and, for this
    machine's rows, ``mips_relative_speed`` computed from ``mips_rating``
    when one is given (left empty otherwise: it needs a MIPS rating)."""
    from . import with_rows

    paper = load_table(PAPER, table)
    ref = paper.loc[paper.configuration == REFERENCE, value_column].item()
    mine = pd.DataFrame({"configuration": list(ours), value_column: list(ours.values())})
    if mips_rating:
        mine["mips_relative_speed"] = [mips_relative(v, mips_rating, ref) for v in ours.values()]
    df = with_rows(paper, mine, value_column)
    df["speedup_vs_mvax2"] = ref / df[value_column]
    df["implied_mips"] = [implied_mips(v, ref) for v in df[value_column]]
    return df


def mips_sensitivity(value: float, ref_value: float, ratings) -> pd.DataFrame:
    """MIPS-relative speed of one measurement under several MIPS ratings:
    how much the conclusion depends on the rating assumed."""
    return pd.DataFrame({"mips_rating": list(ratings),
                         "mips_relative_speed": [mips_relative(value, m, ref_value)
                                                 for m in ratings]})


def _is_header(row: list[str]) -> bool:
    return row[0] in ("Configuration", "Hardware") or not any(
        c.replace(".", "", 1).isdigit() for c in row[1:])


def transcribe(seed_text: str) -> dict[str, pd.DataFrame]:
    """Tables of the paper as DataFrames, from the seed text."""
    found = tables_with_captions(seed_text)
    out = {}
    for number, (stem, columns) in TABLES.items():
        rows = [r for r in found[number] if not _is_header(r)]
        df = pd.DataFrame(rows, columns=columns)
        for c in columns[1:]:
            if c not in ("abbrev", "type"):
                df[c] = pd.to_numeric(df[c])
        out[stem] = df
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m benchlib.papers.ousterhout1990 SEED.txt", file=sys.stderr)
        return 2
    tables = transcribe(Path(argv[0]).read_text())
    for stem, df in tables.items():
        df.to_csv(paper_dir(PAPER) / f"{stem}.csv", index=False)
        print(f"wrote {stem}.csv ({len(df)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
