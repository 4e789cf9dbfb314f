#!/usr/bin/env python3
"""How fast result files import into the results database.

    flock /work/cpu.lock python bench/db_import_speed.py [--samples 100000] [--db URL]

Writes store files of simulated results (versioned records as a notebook
writes them: every sample and its per-sample arrays, the noise diagnostics
computed from the samples, a full machine description) into a
temporary folder, then times ``benchlib.results.db.import_paths`` into a fresh
database (SQLite in the same temporary folder unless --db is given) and a
second, idempotent import of the same folder.  The target is 100,000
samples in under 10 s on SQLite.  Wall-clock time of a Python import, not a
microbenchmark: the threshold lives here, not in the unit tests."""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path


def _records(n_results: int, per_result: int, seed: int = 1):
    from benchlib.measuring.metadata import machine_info
    from benchlib.results.resultfile import upgrade

    m = machine_info()
    rng = random.Random(seed)
    for i in range(n_results):
        s = [1.0 + rng.random() for _ in range(per_result)]
        srt = sorted(s)
        yield upgrade({"benchmark": "syscall", "params": {"op": "getppid", "cpu": i}, "value": srt[per_result // 2],
               "unit": "us", "min": srt[0], "median": srt[per_result // 2], "max": srt[-1],
               "mean": sum(s) / per_result, "stdev": 0.0, "rel_iqr": 0.0, "best": srt[0],
               "n_samples": per_result, "median_cycles": None, "median_clock_ghz": None,
               "higher_is_better": False, "samples": s, "ns_per_iteration": [x * 1e3 for x in s],
               "tsc_ticks_per_iteration": None, "clock_ghz": [2.0 + rng.random() for _ in s],
               "iterations_per_sample": 1000, "placement": {"cpu_first": 0, "cpu_last": 0},
               "clock_resolution_ns": 20.0, "overhead_ns": 1.0, "calibration_s": 0.0,
               "profile": "simulated", "machine": m, "timestamp": m["timestamp"], "counts": "",
               "extras": {"simulated": True}})  # v1: diagnostics computed from the samples


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--per-result", type=int, default=15, help="samples per result (quick profile: 15)")
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--db", default=None, help="default: a fresh SQLite file in a temporary folder")
    args = ap.parse_args(argv)

    from benchlib.results import db as bdb

    n_results = -(-args.samples // args.per_result)
    with tempfile.TemporaryDirectory(prefix="bl-dbspeed-") as tmp:
        tree = Path(tmp) / "tree"
        recs = list(_records(n_results, args.per_result))
        per_file = -(-n_results // args.files)
        for f in range(args.files):
            chunk = recs[f * per_file:(f + 1) * per_file]
            if chunk:
                p = tree / f"run{f:02d}" / "store" / "host.jsonl"
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text("".join(json.dumps(r) + "\n" for r in chunk))
        size = sum(p.stat().st_size for p in tree.rglob("*.jsonl"))
        url = args.db or f"sqlite:///{Path(tmp) / 'speed.sqlite'}"
        engine = bdb.open_db(url)
        t0 = time.perf_counter()
        rep = bdb.import_paths(engine, [tree])
        t1 = time.perf_counter()
        again = bdb.import_paths(engine, [tree])
        t2 = time.perf_counter()
        n = bdb.counts(engine)
        engine.dispose()
    print(f"{n['samples']:,} samples in {n['results']:,} results ({args.files} files, "
          f"{size / 1e6:.1f} MB) into {bdb.redacted(url) if args.db else 'a fresh SQLite file'}: "
          f"{t1 - t0:.2f} s ({n['samples'] / (t1 - t0):,.0f} samples/s); "
          f"second import of the same folder {t2 - t1:.2f} s, {again.results_added} added")
    ok = rep.results_added == n_results and n["samples"] >= args.samples and (t1 - t0) < 10
    print("target (all imported, under 10 s):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
