"""Compare two notebook output folders (``python -m benchlib.notebooks --out
DIR``, or ``./reproduce.sh``): the same set of CSV, figure and result files,
and the same columns in every CSV.  Numbers are not compared (two runs
measure two different moments); what a change of code must keep is what the
notebooks write and in which columns.

    python bench/compare_outputs.py BEFORE AFTER [--rename OLD=NEW ...]

``--rename`` maps a name in BEFORE's paths to its name in AFTER's (a
notebook or paper id that changed: ``--rename lmbench1996=mcvoy1996``).
A notebook that failed in either run (``<stem>.error.txt``) is reported.
Exit status 0 when the folders agree, 1 when they differ, 2 on bad input.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

KINDS = {".csv": "CSV", ".png": "figure", ".svg": "figure", ".json": "result",
         ".jsonl": "result"}


def outputs(folder: Path, renames: dict[str, str] | None = None) -> dict[str, Path]:
    """{relative path, renamed: file} for every output file of a folder."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in KINDS:
            rel = path.relative_to(folder).as_posix()
            for old, new in (renames or {}).items():
                rel = rel.replace(old, new)
            out[rel] = path
    return out


def csv_columns(path: Path) -> list[str]:
    with path.open(newline="") as f:
        return next(csv.reader(f), [])


def failures(folder: Path) -> list[str]:
    return sorted(p.name.removesuffix(".error.txt") for p in folder.glob("*.error.txt"))


def compare(before: Path, after: Path, renames: dict[str, str] | None = None) -> list[str]:
    """Every difference, one line each (empty: the folders agree)."""
    a, b = outputs(before, renames), outputs(after)
    diffs = [f"only before: {KINDS[Path(r).suffix]} {r}" for r in sorted(a.keys() - b.keys())]
    diffs += [f"only after: {KINDS[Path(r).suffix]} {r}" for r in sorted(b.keys() - a.keys())]
    for rel in sorted(a.keys() & b.keys()):
        if rel.endswith(".csv"):
            ca, cb = csv_columns(a[rel]), csv_columns(b[rel])
            if ca != cb:
                gone, new = [c for c in ca if c not in cb], [c for c in cb if c not in ca]
                what = (f"lost {gone}" if gone else "") + (" " if gone and new else "") + \
                       (f"gained {new}" if new else "") or "the same columns in another order"
                diffs.append(f"columns differ: {rel}: {what}")
    diffs += [f"failed before: {n}" for n in failures(before)]
    diffs += [f"failed after: {n}" for n in failures(after)]
    return diffs


def summary(before: Path, after: Path, renames: dict[str, str] | None = None) -> str:
    a, b = outputs(before, renames), outputs(after)
    kinds = {}
    for rel in a.keys() & b.keys():
        kinds[KINDS[Path(rel).suffix]] = kinds.get(KINDS[Path(rel).suffix], 0) + 1
    return (f"{len(a)} files before, {len(b)} after, {len(a.keys() & b.keys())} in both ("
            + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ")")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--rename", action="append", default=[], metavar="OLD=NEW",
                    help="a name in BEFORE's paths that AFTER spells NEW")
    args = ap.parse_args(argv)
    for folder in (args.before, args.after):
        if not folder.is_dir():
            print(f"compare_outputs: {folder} is not a folder", file=sys.stderr)
            return 2
    renames = {}
    for r in args.rename:
        old, sep, new = r.partition("=")
        if not sep or not old or not new:
            print(f"compare_outputs: --rename wants OLD=NEW, got {r!r}", file=sys.stderr)
            return 2
        renames[old] = new
    diffs = compare(args.before, args.after, renames)
    print(summary(args.before, args.after, renames))
    for line in diffs:
        print("  " + line)
    print("the same files and columns" if not diffs else f"{len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
