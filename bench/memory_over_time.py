"""How a cache's share moves with time on this machine: the random walk
(mem_latency pattern=walk, the memory fit's own walk sampling) at a few
sizes, interleaved, over and over; each point read at its fastest sample.
A size well inside a cache reads the same every time on a quiet machine; a
size near the cache's capacity shows whether something else takes part of
the cache, and how fast that changes (a host's other tenant on the core's
sibling thread, a neighbour in the shared last level).

    PYTHONPATH=. python bench/memory_over_time.py [--sizes 192K 448K 4M] [--repeats 60]
        [--profile quick] [--out FILE.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from benchlib.errors import BenchlibError
from benchlib.measuring.harness import sweep
from benchlib.profiles import setting
from benchlib.units import parse_size


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["192K", "448K", "4M"])
    ap.add_argument("--repeats", type=int, default=60)
    ap.add_argument("--profile", default="quick", choices=("smoke", "quick", "full"))
    ap.add_argument("--out", default=None, help="every reading as JSON")
    a = ap.parse_args(argv)
    try:
        sizes = [parse_size(s) for s in a.sizes]
    except (BenchlibError, ValueError) as exc:
        print(f"memory_over_time: {exc}", file=sys.stderr)
        return 2
    prof = setting("memory.walk_sampling", a.profile)
    rows, t0 = [], time.monotonic()
    for _ in range(a.repeats):
        for size in sizes:
            r = sweep("mem_latency", {"size_bytes": [size]}, profile=prof, progress=False,
                      stride_bytes=64, pattern="walk", huge_pages="on").iloc[0]
            rows.append({"t_s": time.monotonic() - t0, "size_bytes": size,
                         "fastest_ns": float(r["min"]), "median_ns": float(r["median"])})
    print(f"{a.repeats} readings of each size over {rows[-1]['t_s']:.1f} s "
          f"(walk sampling '{a.profile}'):")
    for size in sizes:
        f = np.array([r["fastest_ns"] for r in rows if r["size_bytes"] == size])
        print(f"  {size / 1024:8.0f} KiB  fastest sample ns: p10 {np.quantile(f, 0.1):.2f}  "
              f"median {np.median(f):.2f}  p90 {np.quantile(f, 0.9):.2f}  max {f.max():.2f}")
    if a.out:
        with open(a.out, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
