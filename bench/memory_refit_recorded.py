"""Refit recorded `benchlib memory --save DIR` runs and tabulate L1, L2
(with interval), their ways, the caches the fit found beyond L2 and whether
the last level is one level, against the caches the recording machine
reported (each run's own machine description, compared after the fit by
:func:`benchlib.memory.line_tlb.compare_with_reported`, as `benchlib
fit-memory` prints it; the fit never sees them).

    PYTHONPATH=. python bench/memory_refit_recorded.py [--md] [-v] [DIR ...]

Without DIRs: every run kept in tests/memory/data/live_*/; a run given (or
kept) twice is fitted once.  A run is "ok" when L1 and L2 are within 5 % of
the reported sizes, their ways within one of the reported (or not
identified) and the caches past L2 are one level."""
from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.memory.curve_readers import read_input
from benchlib.memory.fit import fit_memory
from benchlib.memory.line_tlb import compare_with_reported

KiB = 1024
ROOT = Path(__file__).resolve().parent.parent


def recorded_runs() -> list[Path]:
    return sorted(p for p in (ROOT / "tests/memory/data").glob("live_*/*")
                  if p.is_dir() and (p / "latency.csv").exists())


def once(dirs: list[Path]) -> list[Path]:
    """Each distinct run once (by its latency and walk tables' bytes)."""
    seen, out = set(), []
    for p in dirs:
        key = hashlib.sha1(b"".join((p / f).read_bytes() for f in ("latency.csv", "walk.csv")
                                    if (p / f).exists())).hexdigest()
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def row(d: Path) -> dict:
    data = read_input(d)
    t0 = time.time()
    fit = fit_memory(data)
    dt = time.time() - t0
    machine = data.machine or {}
    table = compare_with_reported(fit, machine.get("caches", []))
    by_level = {r["level"]: r for r in table.to_dict("records")}
    caches = [lv for lv in fit.levels if lv.size_bytes]
    out = {"run": f"{d.parent.name}/{d.name}", "cpu": machine.get("cpu_model", "?"), "s": dt}
    for k, name in enumerate(("L1", "L2")):
        lv = caches[k] if k < len(caches) else None
        r = by_level.get(name)
        if lv is None or lv.name != name or r is None or pd.isna(r["reported_size_bytes"]):
            out[name], out[name + "_ok"], out[name + "_ways_ok"] = "missing", False, False
            continue
        size = r["reported_size_bytes"]
        err = lv.size_bytes / size - 1
        out[name] = (f"{lv.size_bytes / KiB:.0f} [{lv.size_bytes_low / KiB:.0f}, "
                     f"{lv.size_bytes_high / KiB:.0f}] ({err:+.1%})"
                     + ("" if r["reported_in_interval"] else " !cov"))
        out[name + "_ok"] = abs(err) <= 0.05
        fw, rw = r["fitted_ways"], r["reported_ways"]
        identified = not pd.isna(fw)
        out[name + "_ways"] = f"{fw:.0f}" if identified else "n.i."
        out[name + "_ways_ok"] = not identified or pd.isna(rw) or abs(fw - rw) <= 1
        if name == "L2":
            out["L2_from"] = "walk" if lv.walk is not None else "ring"
            out["L2_err"] = err
            if lv.walk is not None:
                out["walk_upper_ns"] = lv.walk.latencies_ns[1]
    line = fit.line_size_bytes
    out["line"] = f"{line:.0f}" if line else "none"
    out["line_ok"] = line == machine.get("cache_line_bytes")
    out["beyond"] = ", ".join(f"{lv.size_bytes / KiB:.0f}K" for lv in caches[2:])
    out["one_last"] = len(caches) == 3
    out["ok"] = all(out.get(k, False) for k in ("L1_ok", "L2_ok", "L1_ways_ok", "L2_ways_ok",
                                                  "one_last", "line_ok"))
    out["notes"] = [n for n in fit.notes if "L2" in n or "walk" in n]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path, help="saved runs (default: tests/memory/data/live_*/*)")
    ap.add_argument("--md", action="store_true", help="a markdown table")
    ap.add_argument("-v", action="store_true", help="the fit's notes on L2 and the walk")
    ap.add_argument("--walk", action="store_true",
                    help="per machine, how the L2's error follows the latency the walk's fit "
                         "solves for the level above it (its correlation and slope)")
    a = ap.parse_args(argv)
    missing = [str(d) for d in a.dirs if not (d / "latency.csv").exists()]
    if missing:
        print(f"memory_refit_recorded: not a saved run: {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        rows = [row(d) for d in once(a.dirs or recorded_runs())]
    except BenchlibError as exc:
        print(f"memory_refit_recorded: {exc}", file=sys.stderr)
        return 1
    head = ["run", "L1 KiB", "L1 ways", "L2 KiB [95 %]", "L2 from", "L2 ways",
            "caches past L2", "line", "ok"]
    if a.md:
        print("| " + " | ".join(head) + " |")
        print("| " + " | ".join("---" for _ in head) + " |")
    for r in rows:
        cells = [r["run"], r["L1"], r.get("L1_ways", ""), r["L2"], r.get("L2_from", ""),
                 r.get("L2_ways", ""), r["beyond"], r["line"], "yes" if r["ok"] else "no"]
        if a.md:
            print("| " + " | ".join(cells) + " |")
        else:
            print(f"{cells[0]:24s} {cells[1]:26s} {cells[2]:8s} {cells[3]:34s} "
                  f"{cells[4]:5s} {cells[5]:6s} {cells[6]:16s} {cells[7]:5s} {cells[8]:3s} "
                  f"{r['s']:.1f}s")
        if a.v:
            for n in r["notes"]:
                print("     ", n[:300])
    for cpu in dict.fromkeys(r["cpu"] for r in rows):
        rs = [r for r in rows if r["cpu"] == cpu]
        print(f"{cpu}: L1 within 5 % in {sum(r['L1_ok'] for r in rs)}/{len(rs)}, L2 within 5 % "
              f"in {sum(r['L2_ok'] for r in rs)}/{len(rs)}, one last level in "
              f"{sum(r['one_last'] for r in rs)}/{len(rs)}, the line sysfs's in "
              f"{sum(r['line_ok'] for r in rs)}/{len(rs)}, all of it in "
              f"{sum(r['ok'] for r in rs)}/{len(rs)}")
        walked = [r for r in rs if "walk_upper_ns" in r]
        if a.walk and len(walked) >= 3:
            err = np.array([r["L2_err"] for r in walked]) * 100
            up = np.array([r["walk_upper_ns"] for r in walked])
            slope = float(np.polyfit(up, err, 1)[0])
            print(f"  the walk's L2 error (mean {err.mean():+.2f} %, sd {err.std(ddof=1):.2f} %) "
                  f"against its upper latency ({up.min():.2f}-{up.max():.2f} ns), "
                  f"{len(walked)} runs: r = {np.corrcoef(err, up)[0, 1]:+.2f}, "
                  f"{slope:+.1f} % a ns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
