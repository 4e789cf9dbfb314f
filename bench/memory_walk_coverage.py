"""How well the random walk's fit (benchlib.memory.walk.fit_walk)
recovers simulated L2s and whether its 95 % interval holds them: caches of
256 KiB-2 MiB, 8-20 ways, on 4 KiB pages drawn at random for every point
(each walk point is a buffer of its own), 1 % log-normal noise, and a share
of the points slowed by up to 30 % (a neighbour only slows a point).  The
guess is 0.75-1.3x the truth (the ring's size, in the pipeline).  Compares
the fit_walk of an older cache_model.py (where it lived before), if one is given (``--old FILE``,
e.g. from ``git show f8bfaed:benchlib/memory/cache_model.py``).

``--per-octave``: the walk's sizes an octave (plan.WALK_PER_OCTAVE);
``--cache KIB WAYS``: one cache for every case (the L1, the latencies and
the guess still drawn), e.g. the Zen 4's 1 MiB 8-way L2.

    PYTHONPATH=. python bench/memory_walk_coverage.py SEED N SLOW_SHARE [-v] [--old FILE]
        [--per-octave 12] [--cache 1024 8]
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time

import numpy as np

from benchlib.memory import walk as new
from benchlib.memory.plan import WALK_PER_OCTAVE as PER_OCTAVE

K = 1024
PAGE = 4096


def _load_old(path: str):
    spec = importlib.util.spec_from_file_location("cm_old", path)
    old = importlib.util.module_from_spec(spec)
    sys.modules["cm_old"] = old
    spec.loader.exec_module(old)
    return old


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed", type=int, nargs="?", default=1)
    ap.add_argument("n_cases", type=int, nargs="?", default=40)
    ap.add_argument("slow_share", type=float, nargs="?", default=0.2,
                    help="share of the points a neighbour slows by up to 30 %%")
    ap.add_argument("-v", action="store_true", help="each case whose interval misses the truth")
    ap.add_argument("--old", default=None, metavar="FILE",
                    help="an older module with fit_walk to compare (e.g. from git show)")
    ap.add_argument("--per-octave", type=int, default=PER_OCTAVE,
                    help="the walk's sizes an octave (default: the plan's)")
    ap.add_argument("--cache", type=int, nargs=2, default=None, metavar=("KIB", "WAYS"),
                    help="one cache (KiB, ways) for every case")
    a = ap.parse_args(argv)
    old = _load_old(a.old) if a.old else None
    rng = np.random.default_rng(a.seed)
    res = {"old": [], "new": []} if old else {"new": []}
    t0 = time.time()
    for _case in range(a.n_cases):
        C = float(rng.choice([256, 512, 1024, 1280, 2048])) * K
        ways = int(rng.choice([8, 12, 16, 20]))
        if a.cache:
            C, ways = float(a.cache[0] * K), int(a.cache[1])
        if (C / ways) % PAGE:           # a way a whole number of pages
            ways = 8 if (C / 8) % PAGE == 0 else 16
        l1, l1lat = (32 * K, 4.0) if rng.random() < 0.5 else (48 * K, 5.0)
        L2, L3 = 12.0 + rng.uniform(-1, 3), 45.0 + rng.uniform(-5, 10)
        ppo = a.per_octave
        w = C / 4 * 2.0 ** (np.arange(0, 4 * ppo + 1) / ppo)     # C/4 .. 4C
        w = np.round(w / PAGE) * PAGE
        col = int(C / ways / PAGE)
        y = []
        for W in w:
            P = int(W // PAGE)
            cnt = np.bincount(rng.integers(0, col, P), minlength=col)
            kept = np.minimum(cnt, ways).sum() / P
            hl = min(1.0, l1 / W)
            h = max(kept, hl)
            v = l1lat * hl + L2 * (h - hl) + L3 * (1 - h)
            v *= np.exp(rng.normal(0, 0.01))
            if rng.random() < a.slow_share:
                v *= rng.uniform(1.0, 1.3)
            y.append(v)
        y = np.array(y)
        guess = C * rng.uniform(0.75, 1.3)
        for name, mod in ((("old", old),) if old else ()) + (("new", new),):
            try:
                t = mod.fit_walk(w, y, guess, (l1, l1lat))
                res[name].append((C, t.size_bytes, t.size_bytes_low, t.size_bytes_high, t.edge_of_grid))
            except ValueError:
                res[name].append((C, np.nan, np.nan, np.nan, True))
    for name, r in res.items():
        r = np.array(r, float)
        within = np.mean(np.abs(r[:, 1] / r[:, 0] - 1) <= 0.10)
        within5 = np.mean(np.abs(r[:, 1] / r[:, 0] - 1) <= 0.05)
        cover = np.mean((r[:, 2] <= r[:, 0]) & (r[:, 0] <= r[:, 3]))
        width = np.median(np.log2(r[:, 3] / r[:, 2]))
        rel = r[:, 1] / r[:, 0] - 1
        print(f"{name}: n={len(r)} within10%={within:.2f} within5%={within5:.2f} "
              f"coverage={cover:.2f} median interval width={width:.2f} octaves; "
              f"size/truth - 1: mean {np.nanmean(rel) * 100:+.2f} %, "
              f"sd {np.nanstd(rel) * 100:.2f} %")
    print(f"{time.time() - t0:.0f} s")
    if a.v:
        for (C, s, lo, hi, e) in res["new"]:
            if not (lo <= C <= hi):
                print(f"  miss C={C/K:.0f} est={s/K:.0f} [{lo/K:.0f},{hi/K:.0f}] ratio={s/C:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
