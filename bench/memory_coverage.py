"""How well the stride-chase fit (benchlib.memory.stride.fit_stride_chase)
recovers simulated machines' caches: the 1990s machines of the lmbench paper
(tests/cachesim.py NINETIES) and today's with stream prefetchers
(MODERN_STRIDE), each measured as lat_mem_rd's figure (one sequential curve
per stride, backward, with 1 % log-normal noise and one random placement of
the array per stride, each size a prefix of it; ``--placed size``: a new
placement for every size, as lmbench3's lat_mem_rd gives, whose every size
is timed in a freshly forked child that mallocs its own array; ``--placed
run``: one placement of one array for every stride and size, as lmbench
1.x and 2.x's lat_mem_rd allocates once, the table saying so).

Per machine: the true capacities, the fitted ones with their 95 % intervals,
levels missed and spurious; then the totals: the share of true levels
recovered within 10 %, and the share whose 95 % interval holds the true size.

    PYTHONPATH=. python bench/memory_coverage.py [--seeds 2] [--noise 0.01] [--placed curve|size|run]
        [--only NAME ...]
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cachesim as cs  # noqa: E402
from benchlib.memory.stride import fit_stride_chase  # noqa: E402

OLD_STRIDES = (16, 32, 64, 128, 256, 512)
NEW_STRIDES = (16, 32, 64, 128, 256, 512, 1024, 4096)


def match(truth, fitted):
    """Each true level with the fitted level nearest in log size (each used
    once); the rest of the fitted levels are spurious."""
    left = list(range(len(fitted)))
    pairs = []
    for t in truth:
        if not left:
            pairs.append((t, None))
            continue
        j = min(left, key=lambda i: abs(math.log(fitted[i][0] / t)))
        if abs(math.log(fitted[j][0] / t)) < math.log(1.5):
            left.remove(j)
            pairs.append((t, fitted[j]))
        else:
            pairs.append((t, None))
    return pairs, [fitted[i] for i in left]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--noise", type=float, default=0.01)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--placed", choices=("size", "curve", "run"), default="curve",
                    help="a new page placement for every size (lmbench3: each size a freshly "
                         "forked child's malloc), one per curve (sizes are prefixes of one array) "
                         "or one per run (every stride's sizes prefixes of one array: lmbench 2)")
    a = ap.parse_args(argv)
    n_lv = n_within = n_cover = n_spur = 0
    t0 = time.time()
    for m in cs.NINETIES + cs.MODERN_STRIDE:
        if a.only and m.name not in a.only:
            continue
        strides = OLD_STRIDES if m in cs.NINETIES else NEW_STRIDES
        for seed in range(a.seeds):
            df = cs.stride_figure(m, strides, max_bytes=int(4 * max(m.truth_sizes())),
                                  noise=a.noise, seed=100 + seed, placed=a.placed)
            t = time.time()
            levels, notes, info = fit_stride_chase(df, line_bytes=m.line_bytes)
            dt = time.time() - t
            fitted = [(lv.size_bytes, lv.size_bytes_low, lv.size_bytes_high) for lv in levels
                      if lv.size_bytes]
            pairs, spurious = match(m.truth_sizes(), fitted)
            cells = []
            for tr, f in pairs:
                n_lv += 1
                if f is None:
                    cells.append(f"{tr / 1024:.0f}K: missed")
                    continue
                within = abs(f[0] / tr - 1) <= 0.10
                cover = f[1] <= tr <= f[2]
                n_within += within
                n_cover += cover
                cells.append(f"{tr / 1024:.0f}K: {f[0] / 1024:.0f} [{f[1] / 1024:.0f}, "
                             f"{f[2] / 1024:.0f}]{'' if within else ' OFF'}"
                             f"{'' if cover else ' NOT-COVERED'}")
            n_spur += len(spurious)
            sp = (" spurious " + ", ".join(f"{s[0] / 1024:.0f}K" for s in spurious)
                  if spurious else "")
            hid = f" hidden {info.hidden}" if info.hidden else ""
            print(f"{m.name:24s} s{seed} {'; '.join(cells)}{sp}{hid} ({dt:.1f} s)", flush=True)

    def share(n):                   # one decimal: 227 of 240 is 94.6 %, not 95
        return f"{100 * n / max(n_lv, 1):.1f} %"
    print(f"\nlevels {n_lv}: within 10 % {n_within} ({share(n_within)}, goal 95 %: "
          f"{'met' if n_within >= 0.95 * n_lv else 'not met'}); 95 % interval holds the truth "
          f"{n_cover} ({share(n_cover)}, goal 90 %: "
          f"{'met' if n_cover >= 0.9 * n_lv else 'not met'}); "
          f"spurious levels {n_spur}; {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
