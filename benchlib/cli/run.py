"""``benchlib run``: run a benchmark (a sweep where a value has commas), print, save."""
from __future__ import annotations

import json
import sys

from benchlib.cli._common import _parse_kv, unstable_line


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run a benchmark")
    p.add_argument("name")
    p.add_argument("-p", "--param", action="append", metavar="KEY=VALUE",
                   help="a parameter; commas give a list to sweep (repeatable)")
    p.add_argument("--profile", default="quick", help="smoke, quick (default) or full")
    p.add_argument("--samples", type=int, default=None, help="timed samples (overrides the profile)")
    p.add_argument("--target-ci", type=float, default=None, metavar="F",
                   help="adaptive: sample until the 95%% interval of the median is within F of it "
                        "(e.g. 0.03)")
    p.add_argument("--time-cap", type=float, default=None, metavar="S",
                   help="adaptive: stop sampling after S seconds (default 30)")
    p.add_argument("--output", metavar="FILE", help="also write a result file (JSON) here")
    p.add_argument("--json", action="store_true", help="one JSON object per result")
    p.add_argument("--all", action="store_true", help="with --json: include machine metadata")
    p.add_argument("--save", nargs="?", const="results", default=None, metavar="DIR",
                   help="append results to the store under DIR (default results/)")
    p.set_defaults(func=cmd_run)


def cmd_run(args) -> int:
    from benchlib.measuring.harness import adaptive_profile, expand_grid, get_profile, run
    from benchlib.measuring.registry import get_benchmark
    from benchlib.results.store import save_results

    from benchlib.results import resultfile

    bench = get_benchmark(args.name)
    get_profile(args.profile)
    adaptive_profile(args.profile, args.target_ci, args.time_cap)  # checks both
    points = expand_grid(_parse_kv(args.param))
    for p in points:  # validate every point before measuring any
        bench.resolve(p)
    done = []
    for p in points:
        r = run(args.name, p, profile=args.profile, n_samples=args.samples,
                target_rel_ci=args.target_ci, time_cap_s=args.time_cap)
        done.append(r)
        if args.save is not None:
            save_results([r], args.save)
        if args.output:
            resultfile.write(args.output, done)
        if r.diagnostics.get("stable") is False:
            print(f"benchlib: warning: {unstable_line(r)}", file=sys.stderr, flush=True)
        if args.json:
            d = r.to_dict() if args.all else {"benchmark": r.benchmark, "params": r.params,
                                               **r.summary(), "samples": r.samples,
                                               "placement": r.placement, "extras": r.extras,
                                               "diagnostics": r.diagnostics}
            print(json.dumps(d, default=float), flush=True)
        else:
            print(r, flush=True)
    return 0
