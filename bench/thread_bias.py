#!/usr/bin/env python3
"""What a second thread in the measuring process costs the fd system calls.

    python bench/thread_bias.py [--cpu 0] [--profile quick]

Runs syscall op=write, read and getppid twice each: in benchlib's
single-threaded measuring worker (the default), and in this process
(BENCHLIB_MEASURE_IN=process) after numpy's OpenBLAS pool has started.
Prints each figure with the thread count its result recorded.  A relation
between live timings: reported here, never asserted in a unit test."""
from __future__ import annotations

import argparse
import os

import numpy as np

import benchlib


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpu", type=int, default=0)
    ap.add_argument("--profile", default="quick")
    args = ap.parse_args()
    np.dot(np.ones((300, 300)), np.ones((300, 300)))  # start the BLAS pool, as a notebook would
    print(f"this process: {len(os.listdir('/proc/self/task'))} threads")
    for where in ("worker", "process"):
        os.environ["BENCHLIB_MEASURE_IN"] = where
        for op in ("write", "read", "getppid"):
            r = benchlib.run("syscall", op=op, cpu=args.cpu, profile=args.profile)
            print(f"{where:>8} {op:>8}: {r.median * 1e3:7.1f} ns "
                  f"(threads {r.process['threads']}, pid {r.process['pid']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
