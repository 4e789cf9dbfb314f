"""``benchlib export``: results as CSV or as one result file."""
from __future__ import annotations

import sys

from benchlib.errors import BenchlibError


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="results as CSV or as one result file")
    p.add_argument("source", help="result file, store file or directory")
    p.add_argument("--csv", metavar="FILE", help="one row per result (- for stdout)")
    p.add_argument("--samples", action="store_true", help="with --csv: one row per sample")
    p.add_argument("--json", metavar="FILE", help="write one result file (schema v1)")
    p.set_defaults(func=cmd_export)


def cmd_export(args) -> int:
    from benchlib.results import resultfile
    from benchlib.results.store import load_results

    if not args.csv and not args.json:
        raise BenchlibError("export needs --csv FILE (or -) and/or --json FILE")
    recs = resultfile.load_records(args.source)
    if not recs:
        raise BenchlibError(f"no results in {args.source}")
    if args.json:
        resultfile.write(args.json, recs)
    if args.csv:
        import pandas as pd

        if args.samples:
            df = pd.DataFrame([{"benchmark": r["benchmark"], **r["params"], "unit": r["unit"],
                                "timestamp": r["timestamp"], "sample": i, "value": x}
                               for r in recs for i, x in enumerate(r["samples"])])
        else:
            df = load_results(args.source).drop(columns=["record"])
            diag = pd.DataFrame([{"median_ci95_lo": r["diagnostics"]["median_ci95"][0],
                                  "median_ci95_hi": r["diagnostics"]["median_ci95"][1],
                                  "unstable_reasons": " ".join(r["diagnostics"]["unstable_reasons"]),
                                  "git_commit": r["provenance"].get("git_commit")}
                                 for r in resultfile.load_records(args.source)])
            df = pd.concat([df, diag], axis=1)
        try:
            df.to_csv(sys.stdout if args.csv == "-" else args.csv, index=False)
        except OSError as exc:
            raise BenchlibError(f"cannot write {args.csv}: {exc.strerror}") from None
    return 0
