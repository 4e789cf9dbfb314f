"""How well the random walk's fit (benchlib.memory.walk.fit_walk)
recovers simulated L2s and whether its 95 % interval holds them: caches of
256 KiB-2 MiB, 8-20 ways, on 4 KiB pages drawn at random for every point
(each walk point is a buffer of its own), 1 % log-normal noise, and a share
of the points slowed by up to 30 % (a neighbour only slows a point).  The
guess is 0.75-1.3x the truth (the ring's size, in the pipeline).  Compares
the fit_walk of an older cache_model.py (where it lived before), if one is given (``--old FILE``,
e.g. from ``git show f8bfaed:benchlib/memory/cache_model.py``).

    PYTHONPATH=. python bench/memory_walk_coverage.py SEED N SLOW_SHARE [-v] [--old FILE]
"""
import importlib.util, sys, time
import numpy as np
from benchlib.memory import walk as new
OLD = sys.argv[sys.argv.index("--old") + 1] if "--old" in sys.argv else None
if OLD:
    spec = importlib.util.spec_from_file_location("cm_old", OLD)
    old = importlib.util.module_from_spec(spec)
    sys.modules["cm_old"] = old
    spec.loader.exec_module(old)
    sys.argv = [a for a in sys.argv if a not in ("--old", OLD)]
K = 1024; PAGE = 4096
rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
n_cases = int(sys.argv[2]) if len(sys.argv) > 2 else 40
slow_share = float(sys.argv[3]) if len(sys.argv) > 3 else 0.2
res = {"old": [], "new": []} if OLD else {"new": []}
t0 = time.time()
for case in range(n_cases):
    C = float(rng.choice([256, 512, 1024, 1280, 2048])) * K
    ways = int(rng.choice([8, 12, 16, 20]))
    if (C / ways) % PAGE:           # a way a whole number of pages
        ways = 8 if (C / 8) % PAGE == 0 else 16
    l1, l1lat = (32 * K, 4.0) if rng.random() < 0.5 else (48 * K, 5.0)
    L2, L3 = 12.0 + rng.uniform(-1, 3), 45.0 + rng.uniform(-5, 10)
    w = C / 4 * 2.0 ** (np.arange(0, 33) / 8)           # C/4 .. 4C, 8 per octave
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
        if rng.random() < slow_share:
            v *= rng.uniform(1.0, 1.3)
        y.append(v)
    y = np.array(y)
    guess = C * rng.uniform(0.75, 1.3)
    for name, mod in ((("old", old),) if OLD else ()) + (("new", new),):
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
    print(f"{name}: n={len(r)} within10%={within:.2f} within5%={within5:.2f} coverage={cover:.2f} median interval width={width:.2f} octaves")
print(f"{time.time() - t0:.0f} s")
if "-v" in sys.argv:
    for (C, s, lo, hi, e) in res["new"]:
        if not (lo <= C <= hi):
            print(f"  miss C={C/K:.0f} est={s/K:.0f} [{lo/K:.0f},{hi/K:.0f}] ratio={s/C:.3f}")
