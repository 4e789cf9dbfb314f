"""How well can any fit read a direct-mapped cache on random pages from
stride curves whose sizes are prefixes of one array?  A bound, not a fit:
the kept fraction is observed directly (with noise), and the estimators
are told the shape (direct mapped, random pages); only the number of page
colours N is unknown.

One placement of the array gives each size's kept pages K(n) = the pages
alone in their colour among the first n; a curve observes K(n) / n at
lat_mem_rd's sizes from one page up to 4N pages, with Gaussian noise of
``--noise`` (a kept fraction's; 0.02 is a 1 % latency noise on a board
about twice as fast as memory).  ``--placements`` curves, each its own
placement (lmbench 1.x and 2.x's lat_mem_rd reuses one array for every
stride: 1), are read together by

- least squares on the mean curve (1 - 1/N)^(n-1), the model the stride
  fit uses for prefixes (placement "curve" and "run");
- the exact likelihood: a hidden Markov chain over (colours with one page,
  colours with two or more) that adds one page at a time, the observations
  its kept count over n with the noise.

    PYTHONPATH=. python bench/memory_placement_bound.py [--colours 64 128] [--placements 1 6]
        [--figures 60] [--noise 0.02]

Per (colours, placements): each estimator's spread of N read / N (its
standard deviation, 2.5 and 97.5 % points) and its share within 10 %.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cachesim as cs  # noqa: E402
from benchlib.memory.cache_model import kept_by_prefix  # noqa: E402

PAGE = 4096


def page_counts(colours: int) -> np.ndarray:
    """lat_mem_rd's sizes from one page to 4 x colours pages, in whole pages."""
    sizes = np.array([s for s in cs.lat_mem_rd_sizes(4 * colours * PAGE) if s >= PAGE])
    return np.unique(sizes // PAGE)


def log_likelihood(obs: np.ndarray, n_obs: np.ndarray, colours: int, noise: float) -> float:
    """log P(obs | colours): the chain over (m1, m2+) run page by page, the
    kept fraction m1 / n observed with Gaussian noise at the pages n_obs."""
    c = colours
    m1 = np.arange(c + 1)[:, None]
    m2 = np.arange(c + 1)[None, :]
    m0 = c - m1 - m2
    ok = m0 >= 0
    p_empty = np.where(ok, m0 / c, 0.0)      # the page lands alone: m1 + 1
    p_single = np.where(ok, m1 / c, 0.0)     # on a lone page: m1 - 1, m2 + 1
    p_multi = np.where(ok, m2 / c, 0.0)      # on a clash: nothing changes
    P = np.zeros((c + 1, c + 1))
    P[0, 0] = 1.0
    ll, j = 0.0, 0
    for n in range(1, int(n_obs[-1]) + 1):
        Q = P * p_multi
        Q[1:, :] += P[:-1, :] * p_empty[:-1, :]
        Q[:-1, 1:] += P[1:, :-1] * p_single[1:, :-1]
        P = Q
        if n == n_obs[j]:
            P = P * np.exp(-0.5 * ((obs[j] - np.arange(c + 1) / n) / noise) ** 2)[:, None]
            s = P.sum()
            if s <= 0:
                return -np.inf
            ll += float(np.log(s))
            P /= s
            j += 1
    return ll


def one(colours: int, placements: int, figures: int, noise: float, seed: int) -> dict:
    n_obs = page_counts(colours)
    grid = np.unique(np.round(colours * 2.0 ** np.linspace(-0.5, 0.5, 41)).astype(int))
    rng = np.random.default_rng(seed)
    read = {"least squares": [], "exact likelihood": []}
    for _ in range(figures):
        col = rng.integers(0, colours, (placements, int(n_obs[-1])))
        kept = kept_by_prefix(col, colours, 1)[:, n_obs - 1] / n_obs
        obs = kept + noise * rng.standard_normal(kept.shape)
        lsq = [float(np.sum((obs - (1 - 1 / g) ** (n_obs - 1)) ** 2)) for g in grid]
        read["least squares"].append(grid[int(np.argmin(lsq))] / colours)
        ll = [sum(log_likelihood(o, n_obs, int(g), noise) for o in obs) for g in grid]
        read["exact likelihood"].append(grid[int(np.argmax(ll))] / colours)
    return {k: np.array(v) for k, v in read.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--colours", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--placements", type=int, nargs="+", default=[1, 6])
    ap.add_argument("--figures", type=int, default=60)
    ap.add_argument("--noise", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=2)
    a = ap.parse_args(argv)
    print("| colours | placements | estimator | sd of N read / N | 2.5-97.5 % | within 10 % |")
    print("| --- | --- | --- | --- | --- | --- |")
    for c in a.colours:
        for s in a.placements:
            t0 = time.time()
            for name, r in one(c, s, a.figures, a.noise, a.seed).items():
                lo, hi = np.quantile(r, [0.025, 0.975])
                print(f"| {c} | {s} | {name} | {r.std():.3f} | {lo:.2f}-{hi:.2f} | "
                      f"{np.mean(np.abs(r - 1) <= 0.10):.0%} |", flush=True)
            print(f"  ({a.figures} figures, {time.time() - t0:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
