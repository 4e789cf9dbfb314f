#!/usr/bin/env python3
"""Record the example result files the class notebook and its test use
besides this machine's own run: the class set (benchlib.papers.classroom.CORE) on
THIS machine under a stated condition, labelled as such.

    flock /work/cpu.lock python bench/record_class_examples.py --condition loaded
    flock /work/cpu.lock python bench/record_class_examples.py --condition smoke

  loaded  quick profile, every benchmark pinned to CPU 1 while a busy loop
          pinned to CPU 0 keeps it loaded (needs 2 CPUs)
  smoke   smoke profile, unpinned, no load started by this script

Each record's machine description is this machine's, with ``hostname``
suffixed by the condition, ``recorded_condition`` saying it in words and
``recorded_note`` saying these are test data recorded here, so the class
database counts each as a machine of its own and nobody mistakes them for
another computer.  The numbers are measured, never edited."""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONDITIONS = {
    "loaded": ("quick", 1, "quick profile, pinned to CPU 1 while a busy loop loads CPU 0"),
    "smoke": ("smoke", -1, "smoke profile, unpinned, no load started by the recording script"),
}


def _busy(cpu: int) -> None:
    os.sched_setaffinity(0, {cpu})
    x = 0
    while True:  # a load, not a measurement
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--condition", choices=CONDITIONS, required=True)
    ap.add_argument("--out", type=Path, default=REPO / "data" / "class")
    args = ap.parse_args(argv)
    from benchlib.results import resultfile
    from benchlib.papers.classroom import measure_core

    profile, cpu, words = CONDITIONS[args.condition]
    load = None
    if args.condition == "loaded":
        if len(os.sched_getaffinity(0)) < 2 or 1 not in os.sched_getaffinity(0):
            print("the loaded condition needs CPUs 0 and 1", file=sys.stderr)
            return 2
        load = mp.Process(target=_busy, args=(0,), daemon=True)
        load.start()
    try:
        results = measure_core(profile, cpu=cpu)
    finally:
        if load is not None:
            load.terminate()
            load.join()
    host = results[0].machine["hostname"]
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"recorded-here_{host}_{args.condition}.results.json"
    records = []
    for r in results:
        d = resultfile.to_record(r)
        d["machine"] = {**d["machine"], "hostname": f"{host}~{args.condition}",
                        "recorded_condition": words,
                        "recorded_note": "test data: recorded on this project's development "
                                         "machine by bench/record_class_examples.py, not another computer"}
        records.append(d)
    resultfile.write(path, records)
    for r in results:
        print(r)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
