"""``benchlib results``: the results stored under a folder."""
from __future__ import annotations

import sys


def add_parser(sub) -> None:
    p = sub.add_parser("results", help="show stored results")
    p.add_argument("dir", nargs="?", default="results")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_results)


def cmd_results(args) -> int:
    from benchlib.results.store import load_results

    df = load_results(args.dir)
    if df.empty:
        print(f"no results under {args.dir}", file=sys.stderr)
        return 0
    if args.json:
        print(df.drop(columns=["record"]).to_json(orient="records", indent=1))
    else:
        cols = [c for c in df.columns if c not in ("record",) and not c.startswith("machine.")]
        print(df[cols + ["machine.hostname"]].to_string(index=False))
    return 0
