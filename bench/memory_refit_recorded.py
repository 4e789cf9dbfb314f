"""Refit every recorded `benchlib memory --save DIR` run and tabulate L1, L2
(with interval), their ways, the caches the fit found beyond L2 and whether
the last level is one level, against what sysfs said on the machine that
recorded it (the comparison is made here, after the fit; the fit never
sees sysfs).

    PYTHONPATH=. python bench/memory_refit_recorded.py [--md] [DIR ...]

Without DIRs: tests/memory/data/live_xeon/* (Xeon), tests/memory/data/live_epyc/*
and /work/memruns*/* (EPYC), those that exist, each run once (a copy kept in
two places is fitted once)."""
from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

from benchlib.memory.curve_readers import read_input
from benchlib.memory.fit import fit_memory

KiB = 1024
SYSFS = {"epyc": {"L1": (32 * KiB, 8), "L2": (512 * KiB, 8)},
         "xeon": {"L1": (48 * KiB, 12), "L2": (2048 * KiB, 16)}}
ROOT = Path(__file__).resolve().parent.parent


def default_runs() -> list[tuple[str, Path]]:
    runs = [("xeon", p) for p in sorted((ROOT / "tests/memory/data/live_xeon").iterdir())
            if p.is_dir()]
    runs += [("epyc", p) for p in sorted((ROOT / "tests/memory/data/live_epyc").iterdir())
             if p.is_dir()]
    for d in ("/work/memruns", "/work/memruns2", "/work/memruns3", "/work/memruns4"):
        if Path(d).is_dir():
            runs += [("epyc", p) for p in sorted(Path(d).iterdir())
                     if p.is_dir() and (p / "latency.csv").exists()]
    # a run kept in two places (tests/memory/data is a copy of some) once
    seen, out = set(), []
    for m, p in runs:
        key = hashlib.sha1(b"".join((p / f).read_bytes() for f in ("latency.csv", "walk.csv")
                                    if (p / f).exists())).hexdigest()
        if key not in seen:
            seen.add(key)
            out.append((m, p))
    return out


def ways_words(lv, sysfs_ways) -> tuple[str, bool]:
    a = lv.associativity
    if a.ways is None:
        return "n.i.", True
    ok = abs(a.ways - sysfs_ways) <= 1
    return f"{a.ways}" + ("" if a.low == a.high else f" [{a.low},{a.high}]"), ok


def row(machine: str, d: Path) -> dict:
    t0 = time.time()
    fit = fit_memory(read_input(d))
    dt = time.time() - t0
    caches = [lv for lv in fit.levels if lv.size_bytes]
    s = SYSFS[machine]
    out = {"run": f"{d.parent.name}/{d.name}", "machine": machine, "s": dt}
    for k, name in enumerate(("L1", "L2")):
        lv = caches[k] if k < len(caches) else None
        size, ways = s[name]
        if lv is None or lv.name != name:
            out[name] = "missing"
            out[name + "_ok"] = False
            continue
        err = lv.size_bytes / size - 1
        out[name] = (f"{lv.size_bytes / KiB:.0f} [{lv.size_bytes_low / KiB:.0f}, "
                     f"{lv.size_bytes_high / KiB:.0f}] ({err:+.1%})")
        out[name + "_ok"] = abs(err) <= 0.05
        out[name + "_cov"] = lv.size_bytes_low <= size <= lv.size_bytes_high
        out[name + "_ways"], out[name + "_ways_ok"] = ways_words(lv, ways)
        if name == "L2":
            out["L2_from"] = ("walk" if lv.walk is not None else "ring")
    out["beyond"] = ", ".join(f"{lv.size_bytes / KiB:.0f}K" for lv in caches[2:])
    out["one_last"] = len(caches) == 3
    out["notes"] = [n for n in fit.notes if "L2" in n or "walk" in n]
    return out


def main(argv: list[str]) -> None:
    md = "--md" in argv
    verbose = "-v" in argv
    dirs = [a for a in argv if not a.startswith("-")]
    runs = ([("xeon" if "xeon" in a else "epyc", Path(a)) for a in dirs] if dirs
            else default_runs())
    rows = [row(m, d) for m, d in runs]
    head = ["run", "L1 KiB", "L1 ways", "L2 KiB [95 %]", "L2 from", "L2 ways",
            "caches past L2", "ok"]
    if md:
        print("| " + " | ".join(head) + " |")
        print("| " + " | ".join("---" for _ in head) + " |")
    for r in rows:
        ok = all(r.get(k, False) for k in ("L1_ok", "L2_ok", "one_last")) and \
            r.get("L1_ways_ok", False) and r.get("L2_ways_ok", False)
        cells = [r["run"], r["L1"], r.get("L1_ways", ""), r["L2"]
                 + ("" if r.get("L2_cov") else " !cov"), r.get("L2_from", ""),
                 r.get("L2_ways", ""), r["beyond"], "yes" if ok else "no"]
        if md:
            print("| " + " | ".join(cells) + " |")
        else:
            print(f"{cells[0]:24s} {cells[1]:26s} {cells[2]:10s} {cells[3]:32s} "
                  f"{cells[4]:5s} {cells[5]:8s} {cells[6]:16s} {cells[7]:3s} {r['s']:.1f}s")
        if verbose:
            for n in r["notes"]:
                print("     ", n[:300])
    for m in ("epyc", "xeon"):
        rs = [r for r in rows if r["machine"] == m]
        if rs:
            n2 = sum(r.get("L2_ok", False) for r in rs)
            n1 = sum(r.get("L1_ok", False) for r in rs)
            n3 = sum(r["one_last"] for r in rs)
            print(f"{m}: L1 within 5 % in {n1}/{len(rs)}, L2 within 5 % in {n2}/{len(rs)}, "
                  f"one last level in {n3}/{len(rs)}")


if __name__ == "__main__":
    main(sys.argv[1:])
