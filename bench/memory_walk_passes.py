"""How many of the random walk's passes the L2's size needs: each saved run
(`benchlib memory --save DIR`, which keeps every pass in walk_passes.csv)
refitted with its walk taken from each pass alone, from each pair of passes
and from all of them (each size at its fastest of the passes named), and
the L2 against the size the run's machine reports.

    PYTHONPATH=. python bench/memory_walk_passes.py DIR [DIR ...]

Prints each run's L2 (KiB) per choice of passes, then per choice: the
share within 5 % and 10 % of the reported size, the median error and the
share of 95 % intervals that hold it."""
from __future__ import annotations

import argparse
import itertools
import sys
from collections import defaultdict
from dataclasses import replace

import numpy as np

from benchlib.errors import BenchlibError
from benchlib.memory.curve_readers import read_input
from benchlib.memory.fit import fit_memory


def _reported_l2(data) -> int | None:
    return next((c["size_bytes"] for c in data.machine.get("caches", [])
                 if c.get("level") == 2), None)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args(argv)
    errors, covered = defaultdict(list), defaultdict(list)
    for d in a.dirs:
        try:
            data = read_input(d)
        except BenchlibError as exc:
            print(f"{d}: {exc}", file=sys.stderr)
            return 2
        every, true = data.walk_passes, _reported_l2(data)
        if every is None or not true:
            print(f"{d}: no walk_passes.csv or no reported L2: skipped", file=sys.stderr)
            continue
        ks = sorted(every["pass_index"].unique())
        row = []
        for r in range(1, len(ks) + 1):
            for sub in itertools.combinations(ks, r):
                g = every[every["pass_index"].isin(sub)]
                walk = g.loc[g.groupby("size_bytes")["latency_cycles"].idxmin()]
                fit = fit_memory(replace(data, walk=walk.sort_values("size_bytes")
                                         .reset_index(drop=True)))
                if len(fit.caches) < 2:
                    continue
                c, name = fit.caches[1], "+".join(str(k) for k in sub)
                errors[name].append(c.size_bytes / true - 1)
                covered[name].append(bool(c.size_bytes_low <= true <= c.size_bytes_high))
                row.append(f"{name}: {c.size_bytes / 1024:.0f}")
        print(f"{d}  " + "  ".join(row), flush=True)
    print("\npasses   runs  within 5 %  within 10 %  median |error|  interval holds it")
    for name, e in errors.items():
        e = np.abs(np.array(e))
        print(f"{name:8s} {len(e):4d}  {np.mean(e <= 0.05):10.0%}  {np.mean(e <= 0.10):11.0%}"
              f"  {np.median(e):14.1%}  {np.mean(covered[name]):17.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
