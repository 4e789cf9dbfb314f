"""Does a likelihood of the page-colour occupancy chain tell a direct-mapped
board on random pages from a sharper cache, and read its capacity, where
one placement per stride leaves the stride fit 10-50 % off?

For the 1990s machines of tests/cachesim.py whose last cache is a board on
randomly placed pages below a level that keeps nothing at the sizes read,
figures with one placement of the array per stride (placed="curve"), each
size a prefix of it.  The board's kept fraction h is read off each
stride's latencies with the plateau latencies known (an oracle: the fit
has to estimate them), then for each shape (1-4 ways, the machine's page)
and capacity two likelihoods are maximised:

- least squares on the mean curve (the stride fit's model for prefixes),
  with each point's noise (1 % of its latency);
- a Kalman filter on the occupancy chain: the counts of colours holding 1,
  2, ..., ways and more than ways pages, a page added at a time with the
  chain's mean step and its multinomial covariance, the kept pages
  observed at each size with the same noise.

    PYTHONPATH=. python bench/memory_kalman_oracle.py [--seeds 3] [--only NAME ...]

Per figure: the ways each likelihood chooses and its capacity over the
truth; then per likelihood the share of figures that choose the true ways
and the share within 10 %.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cachesim as cs  # noqa: E402
from benchlib.memory.cache_model import _set_keeps_it  # noqa: E402
from benchlib.memory.placement_chain import landing_changes  # noqa: E402

STRIDES = (16, 32, 64, 128, 256, 512)
WAYS = (1, 2, 3, 4)
NOISE = 0.01
#: capacities tried, per shape: the truth x 2^(-0.6 .. 0.6), this many
GRID = 49


def kalman_ll(n_obs: np.ndarray, obs: np.ndarray, sig: np.ndarray, colours: np.ndarray,
              ways: int) -> np.ndarray:
    """The log-likelihood of one prefix curve's kept fractions ``obs`` (at
    ``n_obs`` pages, noise ``sig``) for each of ``colours`` (G,) page
    colours of a ``ways``-way cache: a Kalman filter on the counts of
    colours holding 1 .. ways and more than ways pages."""
    G, d = len(colours), ways + 1
    C = np.asarray(colours, float)
    kept_w = np.array([i + 1.0 for i in range(ways)] + [0.0])
    V = landing_changes(ways)
    # the mean step is linear in the state: p_0 = 1 - sum(m) / C, p_j = m_j / C
    A = (V[1:].T[None, :, :] - np.outer(V[0], np.ones(d))[None]) / C[:, None, None]
    F = np.eye(d)[None] + A                                           # (G, d, d)
    mu = np.zeros((G, d))
    P = np.zeros((G, d, d))
    ll = np.zeros(G)
    j = 0
    for n in range(1, int(n_obs[-1]) + 1):
        p = np.concatenate([(C - mu.sum(axis=1))[:, None], mu], axis=1) / C[:, None]
        p = np.clip(p, 0.0, 1.0)                                      # (G, d + 1)
        inc = p @ V                                                   # (G, d)
        Q = np.einsum("gk,ki,kj->gij", p, V, V) - inc[:, :, None] * inc[:, None, :]
        mu = mu + inc
        P = F @ P @ np.swapaxes(F, 1, 2) + Q
        while j < len(n_obs) and n == n_obs[j]:
            H = kept_w / n
            s = np.einsum("i,gij,j->g", H, P, H) + sig[j] ** 2
            innov = obs[j] - mu @ H
            ll += -0.5 * (np.log(2 * np.pi * s) + innov ** 2 / s)
            K = (P @ H) / s[:, None]
            mu = mu + K * innov[:, None]
            P = P - K[:, :, None] * (H @ P)[:, None, :]
            j += 1
        if j == len(n_obs):
            break
    return ll


def kept_curves(m, seed: int):
    """Each stride's (pages, kept fraction of the board, its noise)."""
    board, page = m.levels[-1], m.page_bytes
    df = cs.stride_figure(m, STRIDES, max_bytes=int(4 * max(m.truth_sizes())), noise=NOISE,
                          seed=100 + seed, placed="curve")
    out = []
    for st, c in df.groupby("stride_bytes"):
        c = c[c.size_bytes >= 4 * m.levels[0].size_bytes]
        n = np.round(c.size_bytes.to_numpy() / page).astype(int)
        keep = np.r_[True, np.diff(n) > 0]
        y, n = c.latency_ns.to_numpy()[keep], n[keep]
        frac = min(1.0, st / m.line_bytes)
        per_line = (y - (1 - frac) * m.levels[0].latency_ns) / frac
        span = m.memory_ns - board.latency_ns
        out.append((n, (m.memory_ns - per_line) / span, NOISE * y / frac / span))
    return out


def machines(only):
    """The 1990s machines whose last cache is a board on random pages, two
    levels, the first keeping nothing from four times its size."""
    for m in cs.NINETIES:
        if only and m.name not in only:
            continue
        last = m.levels[-1]
        if (len(m.levels) == 2 and getattr(m, "placement", "random") == "random"
                and last.indexing != "virtual" and last.size_bytes / last.ways > m.page_bytes):
            yield m


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None)
    a = ap.parse_args(argv)
    tally = {"kalman": [0, 0], "least squares": [0, 0]}
    figures = 0
    t0 = time.time()
    for m in machines(a.only):
        truth, ways, page = m.levels[-1].size_bytes, m.levels[-1].ways, m.page_bytes
        for seed in range(a.seeds):
            curves = kept_curves(m, seed)
            best = {}
            for w in WAYS:
                grid = truth / w / page * 2.0 ** np.linspace(-0.6, 0.6, GRID)
                kl = sum(kalman_ll(n, h, s, grid, w) for n, h, s in curves)
                ls = -0.5 * sum(
                    np.array([np.sum(((h - _set_keeps_it(np.maximum(n, 1.0) - 1.0, w,
                                                         np.full(len(n), 1.0 / c))) / s) ** 2)
                              for c in grid]) for n, h, s in curves)
                for name, v in (("kalman", kl), ("least squares", ls)):
                    i = int(np.argmax(v))
                    if name not in best or v[i] > best[name][0]:
                        best[name] = (float(v[i]), w, grid[i] * w * page / truth)
            figures += 1
            cells = []
            for name, (_, w, r) in best.items():
                tally[name][0] += w == ways
                tally[name][1] += abs(r - 1) <= 0.10
                cells.append(f"{name}: {w} way{'s' if w > 1 else ''} at {r:.2f}")
            print(f"{m.name:18s} s{seed} ({ways} way{'s' if ways > 1 else ''}, "
                  f"{truth / 1024:.0f} KiB): " + "; ".join(cells), flush=True)
    for name, (right, within) in tally.items():
        print(f"{name}: the true ways in {right} of {figures}, within 10 % in {within} of {figures}")
    print(f"({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
