#!/usr/bin/env python3
"""How often the median's 95 % interval covers the median of a long run,
drawing a few samples of it at a time: the percentile bootstrap benchlib
used before 2026-11-28 against the order statistics it uses now
(benchlib.stats.summary.median_ci).

    python bench/adaptive_stop/coverage.py [--samples 400] [--draws 1000] [--json FILE]

Each benchmark is measured once with --samples samples of 0.5 ms (pinned
to CPU 0); those samples stand for the benchmark's distribution on this
host, their median for the truth.  Then --draws times, n of them are drawn
without replacement (n = 6, 15, 30) and each interval checked.  It draws
from one run, so drift between runs is not in it.  docs/measuring.md
shows the figures."""
from __future__ import annotations

import argparse
import json

import numpy as np

from benchlib.measuring.harness import run
from benchlib.profiles import Profile
from benchlib.stats.summary import bootstrap_median_ci, median_ci

CASES = [("mem_bandwidth", {"op": "read", "size_bytes": "64M"}), ("syscall", {"op": "getppid"}),
         ("context_switch", {"processes": 8, "process_kb": 16, "placement": "same_cpu",
                             "parent": "small"}),
         ("bcopy", {"size_bytes": "64M"}), ("pipe_latency", {"placement": "same_cpu"})]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=400)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--json", default=None, help="write the samples and the table here")
    args = ap.parse_args()
    prof = Profile("long", n_samples=args.samples, n_warmup=2, target_sample_ms=0.5,
                   max_total_s=30.0)
    rng = np.random.default_rng(0)
    table, pops = [], {}
    for name, params in CASES:
        x = np.asarray(run(name, params, profile=prof, cpu=0).samples)
        pops[name] = x.tolist()
        truth = float(np.median(x))
        for n in (6, 15, 30):
            boot = exact = 0
            for i in range(args.draws):
                s = rng.choice(x, n, replace=False)
                lo, hi = bootstrap_median_ci(s, seed=i)
                boot += lo <= truth <= hi
                lo, hi = median_ci(s)
                exact += lo <= truth <= hi
            row = {"benchmark": name, "params": params, "drawn": n,
                   "bootstrap": boot / args.draws, "order_statistics": exact / args.draws}
            table.append(row)
            print(f"{name:16s} {n:3d} drawn: bootstrap {row['bootstrap']:.3f}, "
                  f"order statistics {row['order_statistics']:.3f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"samples": pops, "table": table}, f)


if __name__ == "__main__":
    main()
