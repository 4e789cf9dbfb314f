"""A small cache simulator for the memory-fit tests: chase latencies for a
declared hierarchy, deterministic (fixed seeds), a fraction of a second each.

It simulates, line by line, what a pointer chase that revisits its lines in
the same cyclic order every lap does to set-associative caches:

* each line's physical address: its page placed at a random physical frame
  (4 KiB or 2 MiB pages, the ``page_bytes`` of the chase);
* each level's set = (physical address / line) mod sets; a cyclic chase over
  the k lines of one set hits on every access when k <= ways under LRU, on a
  fraction that a short exact simulation of the set gives under tree-PLRU;
* level k + 1 sees only the lines that miss level k (non-inclusive), or all
  of them (``inclusive``); a ``victim`` level is filled by what the level
  above evicts, so the two hold the sum of their ways;
* a ``neighbour`` steals that fraction of a shared level's ways;
* ``next_line_prefetch`` serves a sequential stride no larger than the line
  from the level above memory; ``pair_prefetch`` brings the other line of an
  aligned pair into L2 on a miss.

Latency of an access = the latency of the fastest level that holds its line.
Noise is multiplicative and log-normal with a fixed seed.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

K = 1024
M = 1024 * K
PHYS_FRAMES = 1 << 22          # 16 GiB of 4 KiB frames to place pages in


@dataclass(frozen=True)
class Level:
    size_bytes: int
    ways: int
    latency_ns: float
    policy: str = "lru"          # "lru" or "plru"
    inclusive: bool = False
    victim: bool = False
    neighbour: float = 0.0       # fraction of the ways another core takes


@dataclass(frozen=True)
class Machine:
    levels: tuple
    memory_ns: float
    line_bytes: int = 64
    next_line_prefetch: bool = False
    pair_prefetch: bool = False
    name: str = ""

    def truth_sizes(self) -> list[float]:
        """The capacity each level offers a chase: a victim level adds the
        level above; a neighbour takes its share."""
        out = []
        for i, lv in enumerate(self.levels):
            c = lv.size_bytes * (1 - lv.neighbour)
            if lv.victim and i:
                c += self.levels[i - 1].size_bytes
            out.append(c)
        return out


@functools.lru_cache(maxsize=None)
def _set_hit_fraction(k: int, ways: int, policy: str) -> float:
    """Steady-state hit fraction of a cyclic walk over k lines in one set."""
    if k <= ways:
        return 1.0
    if policy == "lru":
        return 0.0
    # tree-PLRU (ways a power of two; otherwise the next one down)
    w = 1 << int(np.log2(ways))
    bits = [0] * (w - 1)
    where = {}                           # line -> way
    held = [None] * w
    hits = total = 0
    for lap in range(6):
        for line in range(k):
            if line in where:
                way = where[line]
                if lap >= 3:
                    hits += 1
            else:
                node, way = 0, 0
                for _ in range(int(np.log2(w))):
                    b = bits[node]
                    way = way * 2 + b
                    node = 2 * node + 1 + b
                if held[way] is not None:
                    del where[held[way]]
                held[way] = line
                where[line] = way
            if lap >= 3:
                total += 1
            node = 0
            for depth in range(int(np.log2(w)) - 1, -1, -1):      # point away from `way`
                b = (way >> depth) & 1
                bits[node] = 1 - b
                node = 2 * node + 1 + b
    return hits / total


def _kept(counts: np.ndarray, ways: float, policy: str) -> np.ndarray:
    """Hit fraction per set from the number of lines cycling through it."""
    ways_i = int(round(ways))
    if policy == "lru":
        return (counts <= ways_i).astype(float)
    uniq = np.unique(counts)
    table = {int(c): _set_hit_fraction(int(c), ways_i, policy) for c in uniq}
    return np.vectorize(table.get, otypes=[float])(counts)


def _line_addresses(ws_bytes: int, stride: int, line: int, page: int, rng) -> np.ndarray:
    """Physical line numbers touched by a chase over ws_bytes, one slot every
    ``stride`` bytes, its pages at random frames."""
    if stride <= line:
        lines = np.arange(-(-ws_bytes // line), dtype=np.int64)        # every line
    else:
        lines = np.arange(0, ws_bytes, stride, dtype=np.int64) // line  # one per slot
    vpage = lines * line // page
    n_pages = int(vpage.max()) + 1
    frames_per_page = page // 4096
    frames = rng.choice(PHYS_FRAMES // frames_per_page, size=n_pages, replace=False)
    phys = frames[vpage] * page + (lines * line) % page
    return phys // line


def line_latencies(m: Machine, ws_bytes: int, stride: int, page: int, seed: int) -> np.ndarray:
    """Latency of an access to each line the chase touches."""
    rng = np.random.default_rng(seed)
    ln = _line_addresses(ws_bytes, stride, m.line_bytes, page, rng)
    n = len(ln)
    served = np.full(n, m.memory_ns)
    miss_above = np.ones(n)               # probability the line missed every level above
    held_above = np.zeros(n)              # the ways the level above holds, per line (victim)
    for i, lv in enumerate(m.levels):
        sets = lv.size_bytes // (m.line_bytes * lv.ways)
        s = ln % sets
        ways = lv.ways * (1 - lv.neighbour)
        if lv.inclusive or i == 0:
            demand = np.ones(n)
        elif lv.victim:
            demand = miss_above * (1 - held_above)
        else:
            demand = miss_above
        counts = np.bincount(s, weights=demand, minlength=sets)
        k = np.ceil(counts[s] - 1e-9).astype(int)
        hit = _kept(k, ways, lv.policy)
        take = miss_above * hit
        served = np.where(take > 0, served - take * (served - lv.latency_ns), served)
        # what the level above holds of each set's lines (for a victim below)
        occ = np.bincount(s, minlength=sets)[s]
        held_above = np.minimum(1.0, lv.ways / np.maximum(occ, 1))
        miss_above = miss_above * (1 - hit)
    return served


def chase_curve(m: Machine, sizes, *, stride: int = 64, pattern: str = "random",
                page: int = 4096, noise: float = 0.01, seed: int = 0) -> pd.DataFrame:
    """Latency per load over the sizes: ``random`` (slots of ``stride`` bytes
    in random order; every slot is a fresh line access) or ``stride``
    (sequential, the paper's: a stride below the line hits the line's first
    access only)."""
    rows = []
    rng = np.random.default_rng(seed + 7919)
    l1 = m.levels[0].latency_ns
    for j, w in enumerate(sizes):
        w = int(w)
        lat_line = line_latencies(m, w, stride, page, seed * 1000 + j)
        per_line = float(np.mean(lat_line))
        if pattern == "stride" and stride <= m.line_bytes:
            if m.next_line_prefetch:
                l2 = m.levels[1].latency_ns if len(m.levels) > 1 else m.memory_ns
                per_line = float(np.mean(np.minimum(lat_line, l2)))
            frac = stride / m.line_bytes
            v = frac * per_line + (1 - frac) * l1
        else:
            v = per_line
        rows.append({"size_bytes": w, "stride_bytes": stride, "pattern": pattern,
                     "latency_ns": v * float(np.exp(noise * rng.standard_normal()))})
    return pd.DataFrame(rows)


def pair_table(m: Machine, distances=(8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128, 160,
                                     192, 256, 512), noise: float = 0.01, seed: int = 0
               ) -> pd.DataFrame:
    """The load-pair chase far beyond every cache: the first load at the
    last word of a 256-byte block (``line_pair_latency``'s layout), the
    second ``d`` bytes before it."""
    rng = np.random.default_rng(seed + 31)
    anchor = 2048 + 248
    L = m.line_bytes
    l1 = m.levels[0].latency_ns
    l2 = m.levels[1].latency_ns if len(m.levels) > 1 else m.memory_ns
    rows = []
    for d in distances:
        a_line, b_line = anchor // L, (anchor - d) // L
        if a_line == b_line:
            second = l1
        elif m.pair_prefetch and a_line // 2 == b_line // 2:
            second = l2
        else:
            second = m.memory_ns
        for _ in range(3):
            rows.append({"distance_bytes": d, "latency_ns": (m.memory_ns + second)
                         * float(np.exp(noise * rng.standard_normal()))})
    return pd.DataFrame(rows)


def size_grid(m: Machine, per_octave: int = 6, min_bytes: int = 1024,
              top_factor: float = 2.5) -> list[int]:
    """Sizes from min_bytes to top_factor x the largest capacity."""
    top = top_factor * max(m.truth_sizes())
    n = int(np.floor(np.log2(top / min_bytes) * per_octave)) + 1
    return sorted({int(round(min_bytes * 2 ** (i / per_octave) / 64)) * 64 for i in range(n)})


def stride_table(m: Machine, strides=(8, 16, 32, 64, 128, 256, 512), per_octave: int = 6,
                 noise: float = 0.01, seed: int = 0) -> pd.DataFrame:
    """The paper's figure: one sequential curve per stride (4 KiB pages)."""
    sizes = size_grid(m, per_octave, top_factor=4.0)    # memory's plateau for the line
    return pd.concat([chase_curve(m, [s for s in sizes if s >= 2 * st], stride=st,
                                  pattern="stride", noise=noise, seed=seed + st)
                      for st in strides], ignore_index=True)


#: (size, ways) pairs whose set count is a power of two for every line size
L1_CHOICES = [(16 * K, 4), (32 * K, 8), (48 * K, 12), (64 * K, 4)]
L2_CHOICES = [(256 * K, 8), (512 * K, 8), (1 * M, 16), (1280 * K, 20), (2 * M, 16)]
L3_CHOICES = [(6 * M, 12), (8 * M, 16), (12 * M, 12), (16 * M, 16)]


def spread(n: int = 36, seed: int = 2024) -> list[tuple[Machine, str, int]]:
    """``n`` machines: 2 to 4 levels, 32/64/128-byte lines, LRU or tree-PLRU
    L1s, inclusive or victim last levels, neighbours taking a quarter of a
    shared last level, next-line and adjacent-pair prefetchers; each with the
    curve it is measured by ("random4k"/"random2m": random chase on 4 KiB or
    2 MiB pages; "stride": the paper's sequential curves) and a seed.  A last
    level is at least 3x the level before (as on every machine we know)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        ncache = 1 + i % 3                            # 2..4 levels with memory
        line = (32, 64, 128)[(i // 3) % 3]
        chosen = [L1_CHOICES[int(rng.integers(len(L1_CHOICES)))]]
        lats = [float(rng.uniform(0.8, 1.6))]
        if ncache >= 2:
            chosen.append(L2_CHOICES[int(rng.integers(len(L2_CHOICES)))])
            lats.append(lats[-1] * float(rng.uniform(3.0, 4.5)))
        if ncache >= 3:
            ok = [c for c in L3_CHOICES if c[0] * 0.75 >= 3 * chosen[-1][0]]
            chosen.append(ok[int(rng.integers(len(ok)))])
            lats.append(lats[-1] * float(rng.uniform(2.5, 4.0)))
        mem = float(rng.uniform(70, 120))
        levels = []
        for j, ((c, w), lat) in enumerate(zip(chosen, lats)):
            last = j == len(chosen) - 1 and j >= 1
            plru = j == 0 and i % 5 == 3 and w & (w - 1) == 0
            levels.append(Level(c, w, lat, policy="plru" if plru else "lru",
                                victim=last and j >= 2 and i % 7 == 2,
                                inclusive=last and i % 7 == 4,
                                neighbour=0.25 if last and j >= 2 and i % 6 == 5 else 0.0))
        kind = ("random4k", "random2m", "stride", "random4k")[i % 4]
        m = Machine(tuple(levels), mem, line_bytes=line,
                    next_line_prefetch=kind == "stride" and i % 8 == 6,
                    pair_prefetch=line == 64 and i % 4 == 1,
                    name=f"m{i:02d}")
        out.append((m, kind, int(rng.integers(1 << 30))))
    return out


def measure(m: Machine, kind: str, seed: int, noise: float = 0.01) -> dict:
    """The tables ``fit_memory`` takes, for one simulated machine."""
    if kind == "stride":
        df = stride_table(m, noise=noise, seed=seed)
        return {"df": df, "pairs": None}
    page = 4096 if kind == "random4k" else 2 * M
    df = chase_curve(m, size_grid(m, 6), stride=64, pattern="random", page=page, noise=noise,
                     seed=seed).assign(huge_pages=page > 4096)
    return {"df": df, "pairs": pair_table(m, noise=noise, seed=seed)}
