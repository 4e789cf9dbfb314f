#!/usr/bin/env python3
"""Two checkouts of benchlib, interleaved: how long an adaptive run takes
to reach +-3 % under each (the adaptive stop's before and after).

    python bench/adaptive_stop/ab.py OLD_TREE NEW_TREE [--rounds 3] [--runs 3] [--json FILE]

Each round runs every case under each tree (a fresh Python process per
tree and case, the order drawn each time) --runs times, all under
`taskset -c 0`, and records each run's diagnostics["adaptive"] (elapsed_s:
the whole adaptive measurement, the worker's start included in a process's
first run), its sample count and batches, its median and the worker's wall
time (diagnostics["wall_s"], the last call's: what bench/compare_perf.py
compares with the peer's whole run).  A tree is a folder whose
`benchlib` package is built (its _cbench extension beside it)."""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys

import numpy as np

CASES = [("mem_bandwidth", {"op": "read", "size_bytes": "64M"}),
         ("mem_bandwidth", {"op": "write", "size_bytes": "64M"}),
         ("mem_bandwidth", {"op": "copy_unrolled", "size_bytes": "64M"}),
         ("bcopy", {"size_bytes": "64M"}),
         ("file_reread_bandwidth", {"method": "read", "file_bytes": "64M"}),
         ("file_reread_bandwidth", {"method": "mmap_once", "file_bytes": "64M"}),
         ("syscall", {"op": "getppid"}),
         ("context_switch", {"processes": 8, "process_kb": 16, "placement": "same_cpu",
                             "parent": "small"})]

ONE = """
import json, sys
from benchlib.measuring.harness import run
out = []
for _ in range(int(sys.argv[3])):
    r = run(sys.argv[1], json.loads(sys.argv[2]), profile="quick", target_rel_ci=0.03, cpu=0)
    a = r.diagnostics["adaptive"]
    out.append([a["elapsed_s"], len(r.samples), a["batches"], a["reached"], r.median,
                r.diagnostics["wall_s"]])
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", default=None)
    ap.add_argument("--only", nargs="*", default=None,
                    help="only the cases whose benchmark or parameters contain one of these")
    args = ap.parse_args()
    cases = [c for c in CASES if not args.only
             or any(w in c[0] + json.dumps(c[1]) for w in args.only)]
    trees = {"old": args.old, "new": args.new}
    rng = random.Random(1)
    res: dict = {}
    for _ in range(args.rounds):
        for name, params in cases:
            order = list(trees)
            rng.shuffle(order)
            for t in order:
                p = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", ONE, name,
                                    json.dumps(params), str(args.runs)],
                                   capture_output=True, text=True, check=True, cwd="/tmp",
                                   env={"PYTHONPATH": trees[t], "PATH": "/usr/bin:/bin"})
                res.setdefault(f"{name} {json.dumps(params)}", {}).setdefault(t, []).extend(
                    json.loads(p.stdout.splitlines()[-1]))
    for case, v in res.items():
        line = f"{case[:60]:60s}"
        for t in trees:
            ms = np.array([x[0] for x in v[t]]) * 1e3
            wall = np.array([x[5] for x in v[t]]) * 1e3
            med = np.array([x[4] for x in v[t]])
            line += (f" | {t}: {np.median(ms):6.1f} ms [{np.percentile(ms, 25):.0f}, "
                     f"{np.percentile(ms, 75):.0f}], worker {np.median(wall):.1f} ms "
                     f"[{np.percentile(wall, 25):.0f}, {np.percentile(wall, 75):.0f}], "
                     f"{int(np.median([x[1] for x in v[t]]))} samples, reached "
                     f"{sum(x[3] for x in v[t])}/{len(ms)}, median {np.median(med):.4g} "
                     f"[{np.percentile(med, 25):.4g}, {np.percentile(med, 75):.4g}]")
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f)


if __name__ == "__main__":
    main()
