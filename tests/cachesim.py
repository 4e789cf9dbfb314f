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

The sequential stride chase of other tools (:func:`stride_curve`,
:func:`stride_figure`: lines visited in a fixed order, backward as
lat_mem_rd walks its array, or forward) on caches of 1 to 32 ways (direct
mapped included), each level indexed by the physical address (pages at
random frames, or ``placement="coloured"``: frames that keep the virtual
colour, as a page-colouring OS or huge pages give) or by the virtual one
(``indexing="virtual"``: the 1990s' virtually indexed L1s and the HP's
cache), with an optional stream prefetcher (:class:`Prefetch`) that hides
the misses of strides it follows.  :data:`NINETIES` holds the machines of
the lmbench paper's time; :func:`exact_lru` replays a chase access by
access (slow; the tests check the fast set-count path with it).

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
    indexing: str = "physical"   # "physical" or "virtual" (the set from the virtual address)


@dataclass(frozen=True)
class Machine:
    levels: tuple
    memory_ns: float
    line_bytes: int = 64
    next_line_prefetch: bool = False
    pair_prefetch: bool = False
    name: str = ""
    prefetch: "Prefetch | None" = None     # a stream prefetcher (sequential chases only)
    page_bytes: int = 4096                 # the machine's page (Alpha: 8 KiB)
    note: str = ""                         # where its caches' facts come from
    placement: str = "random"              # the OS's page frames: "random" or "coloured"
    tlb: tuple = ()                        # (entries, miss penalty ns) per TLB level (strides)

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


def _virtual_lines(ws_bytes: int, stride: int, line: int) -> np.ndarray:
    """Virtual line numbers a chase over ws_bytes touches, one slot every
    ``stride`` bytes (every line when the stride is below the line)."""
    if stride <= line:
        return np.arange(-(-ws_bytes // line), dtype=np.int64)         # every line
    return np.arange(0, ws_bytes, stride, dtype=np.int64) // line       # one per slot


def _line_addresses(ws_bytes: int, stride: int, line: int, page: int, rng,
                    placement: str = "random", frames=None) -> np.ndarray:
    """Physical line numbers touched by a chase over ws_bytes, one slot every
    ``stride`` bytes, its pages at random frames (``placement="coloured"``:
    at frames of the virtual page's colour for every cache, i.e. as if
    contiguous)."""
    lines = _virtual_lines(ws_bytes, stride, line)
    if placement == "coloured":
        return lines
    vpage = lines * line // page
    n_pages = int(vpage.max()) + 1
    frames_per_page = page // 4096
    if frames is None:
        frames = rng.choice(PHYS_FRAMES // frames_per_page, size=n_pages, replace=False)
    phys = frames[vpage] * page + (lines * line) % page
    return phys // line


def line_latencies(m: Machine, ws_bytes: int, stride: int, page: int, seed: int,
                   placement: str = "random", frames=None) -> np.ndarray:
    """Latency of an access to each line the chase touches (a cyclic order:
    under LRU a set keeps its lines when it holds at most ``ways`` of them,
    whatever the order within the lap, forward or backward)."""
    rng = np.random.default_rng(seed)
    ln = _line_addresses(ws_bytes, stride, m.line_bytes, page, rng, placement, frames)
    vl = _virtual_lines(ws_bytes, stride, m.line_bytes)
    n = len(ln)
    served = np.full(n, m.memory_ns)
    miss_above = np.ones(n)               # probability the line missed every level above
    held_above = np.zeros(n)              # the ways the level above holds, per line (victim)
    for i, lv in enumerate(m.levels):
        sets = lv.size_bytes // (m.line_bytes * lv.ways)
        s = (vl if lv.indexing == "virtual" else ln) % sets
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


# ----------------------------------------------------- sequential stride chases

@dataclass(frozen=True)
class Prefetch:
    """A stream prefetcher.  On a sequential chase whose stride it follows
    (at most ``max_stride`` bytes) it brings each next line into level
    ``into`` (0: L1) ``depth`` lines ahead of use: a line that would come
    from a slower level costs that level's latency / depth, at least the
    latency of ``into``; the first line the chase touches in each page
    (streams stop at page boundaries) costs its full latency."""
    max_stride: int = 256
    into: int = 1
    depth: float = 8.0


def _prefetched(m: Machine, lat_line: np.ndarray, stride: int, page: int,
                direction: str) -> np.ndarray:
    """Each touched line's latency once the machine's prefetchers have run."""
    pfs = m.prefetch if isinstance(m.prefetch, tuple) else (m.prefetch,)
    pfs = [p for p in pfs if p is not None and stride <= p.max_stride]
    if not pfs:
        return lat_line
    vl = _virtual_lines(len(lat_line) * max(stride, m.line_bytes), stride, m.line_bytes)
    vl = vl[:len(lat_line)]
    vpage = vl * m.line_bytes // page
    order = vpage[::-1] if direction == "backward" else vpage
    first = np.ones(len(order), bool)
    first[1:] = order[1:] != order[:-1]
    start = first[::-1] if direction == "backward" else first
    out = lat_line.copy()
    for p in pfs:
        lat_into = m.levels[p.into].latency_ns if p.into < len(m.levels) else m.memory_ns
        hidden = np.where(lat_line > lat_into, np.maximum(lat_into, lat_line / p.depth), lat_line)
        out = np.minimum(out, np.where(start, lat_line, hidden))
    return out


def stride_curve(m: Machine, sizes, stride: int, *, direction: str = "backward",
                 page: int | None = None, noise: float = 0.01, seed: int = 0,
                 placed: str = "curve", frames_seed: int | None = None) -> pd.DataFrame:
    """A sequential stride chase (lat_mem_rd's kind): each lap visits the
    array's slots ``stride`` bytes apart in one fixed order, from the top
    down (``direction="backward"``) or up; a stride below the line pays the
    line's latency on its first load of each line only.  Pages are placed
    as ``m.placement`` says ("random" frames, or "coloured") on
    ``m.page_bytes`` pages unless ``page`` is given.  Under LRU (and
    tree-PLRU) a set's hits depend only on how many of its lines the lap
    visits, not on the order; the direction matters only to where a
    prefetcher's streams start.  ``placed="size"`` (lmbench3's lat_mem_rd,
    whose every size is timed by a freshly forked child that allocates and
    touches its own array): a new random placement of the pages for every
    size; ``placed="curve"`` (the
    default, as before: one array allocated once for the whole curve, each
    size a prefix of it, as a single-process chase does): one placement
    (``seed``) for every size; ``placed="run"`` (lmbench 1.x and 2.x's
    lat_mem_rd, which allocates one array for every stride and size): the
    placement ``frames_seed`` gives, which :func:`stride_figure` shares
    between its strides."""
    page = page or m.page_bytes
    placement = getattr(m, "placement", "random")
    rows = []
    rng = np.random.default_rng(seed + 7919)
    l1 = m.levels[0].latency_ns
    n_pages = int(max(sizes)) // page + 2
    frames = np.random.default_rng(seed if frames_seed is None else frames_seed).choice(
        PHYS_FRAMES // (page // 4096), size=n_pages, replace=False)
    for j, w in enumerate(sizes):
        w = int(w)
        lat_line = line_latencies(m, w, stride, page, seed * 1000 + j, placement,
                                  frames if placed in ("curve", "run") else None)
        lat_line = _prefetched(m, lat_line, stride, page, direction)
        per_line = float(np.mean(lat_line))
        for entries, penalty in getattr(m, "tlb", ()):
            pages = w / page
            if pages > entries:                      # a cyclic walk over more pages: LRU thrash
                per_line += penalty * min(1.0, max(stride, m.line_bytes) / page)
        frac = min(1.0, stride / m.line_bytes)
        v = frac * per_line + (1 - frac) * l1
        rows.append({"size_bytes": w, "stride_bytes": stride, "pattern": "stride",
                     "latency_ns": v * float(np.exp(noise * rng.standard_normal())),
                     "placement": placed})
    return pd.DataFrame(rows)


def lat_mem_rd_sizes(max_bytes: int, min_bytes: int = 512) -> list[int]:
    """Array sizes as lat_mem_rd prints them (read off its output): 512 B,
    1, 2, 3, 4, 6 KiB, then 2 KiB steps to 16 KiB, then eight steps per
    octave."""
    out = [s for s in (512, 1024, 2048, 3072, 4096, 6144) if s >= min_bytes]
    s = 8192
    while s <= max_bytes:
        out.append(s)
        s += 2048 if s < 16384 else (1 << (int(s).bit_length() - 1)) // 8
    return out


def stride_figure(m: Machine, strides=(16, 32, 64, 128, 256, 512), *, max_bytes=None,
                  direction: str = "backward", noise: float = 0.01, seed: int = 0,
                  placed: str = "curve") -> pd.DataFrame:
    """The lmbench paper's figure for machine ``m``: one :func:`stride_curve`
    per stride over lat_mem_rd's sizes, up to 8x the largest cache
    (``placed``: see there; "curve" draws each stride its own placement,
    "run" one for them all)."""
    top = max_bytes or int(8 * max(m.truth_sizes()))
    sizes = lat_mem_rd_sizes(top)
    return pd.concat([stride_curve(m, [s for s in sizes if s >= st], st, direction=direction,
                                   noise=noise, seed=seed + 17 * st, placed=placed,
                                   frames_seed=seed if placed == "run" else None)
                      for st in strides],
                     ignore_index=True)


def to_lat_mem_rd_text(df: pd.DataFrame) -> str:
    """A table of stride curves written as lat_mem_rd prints them: a
    '"stride=N' line, then 'size_in_MB ns' lines, a blank line between."""
    out = []
    for st, c in df.groupby("stride_bytes", sort=True):
        out.append(f'"stride={int(st)}')
        out += [f"{s / M:.5f} {v:.3f}" for s, v in zip(c["size_bytes"], c["latency_ns"])]
        out.append("")
    return "\n".join(out)


def exact_lru(m: Machine, ws_bytes: int, stride: int, *, direction: str = "backward",
              laps: int = 3, page: int | None = None, seed: int = 0) -> np.ndarray:
    """Access by access: the latency of each line's access in the last lap
    of a sequential chase, every level an LRU set-associative cache
    (non-inclusive: a level sees the misses of the one above).  Slow
    (pure Python); for checking :func:`line_latencies` on small arrays."""
    from collections import OrderedDict
    page = page or m.page_bytes
    rng = np.random.default_rng(seed)
    placement = getattr(m, "placement", "random")
    ln = _line_addresses(ws_bytes, stride, m.line_bytes, page, rng, placement)
    vl = _virtual_lines(ws_bytes, stride, m.line_bytes)
    idx = np.arange(len(ln))[::-1] if direction == "backward" else np.arange(len(ln))
    caches = [dict() for _ in m.levels]
    out = np.zeros(len(ln))
    for lap in range(laps):
        for i in idx:
            lat = m.memory_ns
            for k, lv in enumerate(m.levels):
                sets = lv.size_bytes // (m.line_bytes * lv.ways)
                key = int((vl[i] if lv.indexing == "virtual" else ln[i]) % sets)
                st = caches[k].setdefault(key, OrderedDict())
                if ln[i] in st:
                    st.move_to_end(ln[i])
                    lat = lv.latency_ns
                    break
            # fill every level that missed (a level below sees the misses above)
            for k, lv in enumerate(m.levels):
                if lat == lv.latency_ns:
                    break
                sets = lv.size_bytes // (m.line_bytes * lv.ways)
                key = int((vl[i] if lv.indexing == "virtual" else ln[i]) % sets)
                st = caches[k][key]
                st[ln[i]] = True
                if len(st) > lv.ways:
                    st.popitem(last=False)
            if lap == laps - 1:
                out[i] = lat
    return out


# --------------------------------------------------------- the machines

def _m(name, levels, mem, line=32, page=4096, note="", **kw):
    return Machine(tuple(levels), mem, line_bytes=line, name=name, page_bytes=page, note=note,
                   **kw)


#: The lmbench paper's machines (McVoy & Staelin 1996), as their caches
#: were built: direct-mapped 8-16 KiB L1s with 32-byte lines (the Alphas'
#: and the MIPS R4400's, the UltraSPARC's virtually indexed), the Alpha
#: 21164's 96 KiB 3-way on-chip second level, direct-mapped board caches of
#: 0.5-4 MiB, the HP PA-RISC's one large virtually indexed cache.  Latencies
#: (ns) from the rows of its memory-latency table
#: (../shared/reference/lmbench/lat_allmem.tbl) for that kind of system; the
#: sizes and shapes are the processors' published ones.  The page frames
#: are the OS's: the table's "DEC Alpha" rows ran Digital UNIX, whose VM
#: colours pages for the Alpha's direct-mapped off-chip secondary cache
#: ("if an entire resident working set of a process can fit into the
#: secondary cache, VM places it there": Digital UNIX, Virtual Memory,
#: "Page Coloring"), so their frames keep the virtual pages' colours
#: (placement="coloured"); Linux placed frames at random (page colouring
#: was never merged), and so, with nothing known otherwise, do the others.
#: (Until 2026-11-28 the Digital UNIX Alphas were simulated on random
#: frames and "Linux alpha" on coloured ones.)
NINETIES = [
    _m("alpha21064_512k", [Level(8 * K, 1, 10.0), Level(512 * K, 1, 56.0)], 321.0, page=8192,
       placement="coloured",
       note="DEC Alpha 21064: 8 KiB direct-mapped L1, 512 KiB direct-mapped board cache, 8 KiB "
            "pages coloured by Digital UNIX; lat_allmem DEC Alpha 10/56/321"),
    _m("alpha21064_2m", [Level(8 * K, 1, 9.0), Level(2 * M, 1, 51.0)], 288.0, page=8192,
       placement="coloured",
       note="DEC Alpha 21064 with a 2 MiB board cache, Digital UNIX; DEC Alpha 9/51/288"),
    _m("alpha21164_4m", [Level(8 * K, 1, 3.3), Level(96 * K, 3, 20.0), Level(4 * M, 1, 42.0)],
       396.0, page=8192, placement="coloured",
       note="DEC Alpha 21164: 8 KiB DM L1, 96 KiB 3-way on-chip S-cache, 4 MiB DM board "
            "cache, Digital UNIX; DEC Alpha 3/42/396"),
    _m("alpha21164_2m_linux", [Level(8 * K, 1, 3.3), Level(96 * K, 3, 18.0),
                               Level(2 * M, 1, 43.0)], 361.0, page=8192,
       note="Alpha 21164 with a 2 MiB board cache under Linux (random frames); Linux alpha "
            "3/43/361"),
    _m("pentium_256k", [Level(8 * K, 2, 10.0), Level(256 * K, 1, 106.0)], 181.0,
       note="Intel Pentium: 8 KiB 2-way L1 data, 256 KiB DM board cache; FreeBSD/i586 10/106/181"),
    _m("pentium_512k", [Level(8 * K, 2, 10.0), Level(512 * K, 1, 190.0)], 320.0,
       note="Pentium with a 512 KiB DM board cache; Linux i586 10/190/320"),
    _m("pentium_pro", [Level(8 * K, 2, 14.0), Level(256 * K, 4, 34.0)], 196.0,
       note="Pentium Pro: 8 KiB 2-way L1 data, 256 KiB 4-way L2 in the package; "
            "Unixware/i686 14/34/196"),
    _m("ultra1", [Level(16 * K, 1, 6.0, indexing="virtual"), Level(512 * K, 1, 42.0)], 270.0,
       note="UltraSPARC I: 16 KiB DM virtually indexed L1 data, 512 KiB DM E-cache; Sun Ultra1 "
            "6/42/270"),
    _m("supersparc_1m", [Level(16 * K, 4, 16.0), Level(1 * M, 1, 115.0)], 816.0,
       note="SuperSPARC (sun4m): 16 KiB 4-way L1 data, 1 MiB DM SuperCache; SunOS-5.4 sun4m "
            "16/115/816"),
    _m("indy_r4400", [Level(16 * K, 1, 10.0, indexing="virtual"), Level(1 * M, 1, 76.0)],
       1018.0, note="SGI Indy (IP22) R4400: 16 KiB DM virtually indexed L1 data, 1 MiB DM "
                    "secondary; IRIX5.3 IP22 10/76/1018"),
    _m("challenge_r4400", [Level(16 * K, 1, 10.0, indexing="virtual"), Level(4 * M, 1, 75.0)],
       1150.0, note="SGI Challenge (IP19) R4400 with a 4 MiB DM secondary; IRIX64 IP19 "
                    "10/75/1150"),
    _m("hp735", [Level(256 * K, 1, 10.0, indexing="virtual")], 347.0,
       note="HP 9000/735 PA-7100: one 256 KiB DM virtually indexed off-chip data cache; "
            "HP-UX 9000/735 --/10/347"),
    _m("i486", [Level(8 * K, 4, 12.0), Level(256 * K, 1, 234.0)], 336.0, line=16,
       note="Intel 486: 8 KiB 4-way unified L1 with 16-byte lines, 256 KiB DM board cache; "
            "Linux i486 12/234/336"),
    _m("powerpc601", [Level(32 * K, 8, 6.0), Level(512 * K, 1, 164.0)], 394.0, line=64,
       note="PowerPC 601: 32 KiB 8-way unified L1, 64-byte lines, 512 KiB DM board cache; "
            "IBM PowerPC 6/164/394"),
]

#: Today's machines as a sequential chase sees them: stream prefetchers that
#: follow small strides (a Zen 3 like this machine's: L1 streams hide every
#: level at strides to 32 bytes; its L2 streams bring lines into L2).
MODERN_STRIDE = [
    _m("zen3_like", [Level(32 * K, 8, 1.3), Level(512 * K, 8, 3.4), Level(32 * M, 16, 11.0)],
       90.0, line=64, prefetch=(Prefetch(max_stride=64, into=0, depth=1e9),
                                Prefetch(max_stride=256, into=1, depth=3.0)),
       note="AMD Zen 3 like: 32 KiB 8-way, 512 KiB 8-way, 32 MiB 16-way; streams"),
    _m("xeon_like", [Level(48 * K, 12, 1.4), Level(2 * M, 16, 4.5), Level(24 * M, 12, 18.0)],
       100.0, line=64, prefetch=(Prefetch(max_stride=128, into=1, depth=4.0),),
       note="Intel Xeon like: 48 KiB 12-way, 2 MiB 16-way, 24 MiB 12-way; an L2 streamer"),
    _m("client_noprefetch", [Level(32 * K, 8, 1.2), Level(256 * K, 4, 3.8),
                             Level(8 * M, 16, 13.0)], 80.0, line=64,
       note="a modern core with its prefetchers off"),
    _m("arm_like", [Level(64 * K, 4, 1.5), Level(1 * M, 8, 5.0)], 110.0, line=64,
       prefetch=(Prefetch(max_stride=64, into=1, depth=6.0),),
       note="an ARM core like: 64 KiB 4-way, 1 MiB 8-way, a next-line prefetcher"),
]
