"""The memory curve, questioned: for one fitted cache level, the fitted
model against the measured points, the other shapes the model could have
taken (associativity, page size) each at its own best capacity, and why the
fit chose its shape; and the line size's two readings side by side.

Built on a ``benchlib.memory.hierarchy.MemoryResult`` without changing the
fit (``benchlib.memory.fit.fit_memory``): the fitted model is drawn with
the fit's own capacities, shapes and plateau latencies
(``benchlib.memory.cache_model.staircase``), and the alternatives are this
view's re-evaluation of the one level, every other level held where the
fit put it.  The fit's own rule decides; the re-evaluation shows it."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.memory.cache_model import (DELTA_CHI2, GRID_PER_OCTAVE, HUGE_PAGE, SEARCH_OCTAVES,
                                        SMALL_PAGE, WAYS_GRID, describe_shape, staircase)
from benchlib.memory.hierarchy import Level, MemoryResult
from benchlib.memory.levels import RING_WINDOW_BYTES, tlb_penalty_ns
from benchlib.units import format_size

#: The measured points shown around a level: this factor either side of its size.
SPAN = 8.0


def _shape_key(ways: int, page: int, capacity: float) -> str:
    """A shape's name at a capacity: a sharp step where one way fits in a
    page (the set index inside the page: any page size gives the same
    curve), else a gradual onset on pages of that size."""
    if capacity / ways <= page:
        return f"{ways}-way, sharp step"
    return f"{ways}-way, {format_size(page, iec=True)} pages"


def human_bytes(n: float) -> str:
    """A size to read, rounded: 52.5 KiB, 1.38 MiB."""
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f:
            v = n / f
            return f"{v:.3g} {unit}"
    return f"{n:.0f} B"


@dataclass
class LevelView:
    """One level questioned.  ``points``: the ring chase's measured curve
    around the level (median per size); ``model``: the fitted model over
    them; ``alternatives``: shape name -> its curve at its best capacity;
    ``shapes``: per shape its best capacity, the sum of squared ln
    residuals over ``points``, Δχ² from the best shape (noise from the
    fitted model's residuals), whether it fits as well (Δχ² <= 4, the fit's
    rule) and which one the fit chose; ``why``: the reasons in words."""
    level: Level
    shape: str
    points: pd.DataFrame
    model: pd.DataFrame
    alternatives: dict = field(default_factory=dict)
    shapes: pd.DataFrame = field(default_factory=pd.DataFrame)
    why: list = field(default_factory=list)
    sysfs_bytes: int | None = None
    chosen: str = ""         # the fitted shape's name (a row of ``shapes``)

    @property
    def model_bytes(self) -> float:
        """The capacity the drawn (ring) model has: the ring's where a
        random walk gave the level's size."""
        return self._ring()[0]

    @property
    def model_low(self) -> float:
        return self._ring()[1]

    @property
    def model_high(self) -> float:
        return self._ring()[2]

    def _ring(self) -> tuple:
        lv = self.level
        return lv.ring_size_bytes or (lv.size_bytes, lv.size_bytes_low, lv.size_bytes_high)


def level_names(m: MemoryResult) -> list[str]:
    """The fitted cache levels (main memory has no capacity to question)."""
    return [lv.name for lv in m.fit.caches]


def _ring(lv: Level) -> tuple[float, int, int]:
    """The ring's (capacity, ways, page) of a level, as the ring's model
    drew it (the ring's capacity where a random walk gave the size)."""
    t = lv.transition
    size = lv.ring_size_bytes[0] if lv.ring_size_bytes else lv.size_bytes
    return (float(size), t.ways if t else 8, t.page_bytes if t else HUGE_PAGE)


def _curve(m: MemoryResult) -> pd.DataFrame:
    lat = m.latency
    if "pattern" in lat:
        lat = lat[lat["pattern"].astype(str) == "random"]
    if lat.empty:
        raise BenchlibError("the memory result has no ring-chase (pattern=random) curve to "
                            "question")
    return (lat.groupby("size_bytes", as_index=False)["latency_ns"].median()
            .sort_values("size_bytes").reset_index(drop=True))


def level_view(m: MemoryResult, level: str) -> LevelView:
    """Level ``level`` (a name of ``level_names(m)``) questioned: see
    ``LevelView``.  A level the transition model did not size (its size is
    a threshold crossing) has no alternatives; ``why`` says so."""
    caches = m.fit.caches
    names = [lv.name for lv in caches]
    if level not in names:
        raise BenchlibError(f"no cache level {level!r}; fitted levels: {', '.join(names) or 'none'}")
    k = names.index(level)
    lv = caches[k]
    lats = [x.latency_ns for x in m.fit.levels]
    trans = [_ring(x) for x in caches]
    curve = _curve(m)
    centre = trans[k][0]
    pts = curve[(curve.size_bytes >= centre / SPAN) & (curve.size_bytes <= centre * SPAN)]
    if len(pts) < 3:
        pts = curve
    sizes = np.geomspace(pts.size_bytes.min(), pts.size_bytes.max(), 300)
    tlb = (lambda s: tlb_penalty_ns(s, m.fit.tlb, window_bytes=RING_WINDOW_BYTES)) \
        if m.fit.tlb_removed else (lambda s: 0.0)

    def model(s, t):
        return staircase(s, lats, t) + tlb(s)

    rep = {c["level"]: c for c in m.reported_caches}
    sysfs = rep.get(k + 1, {}).get("size_bytes")
    fitted = pd.DataFrame({"size_bytes": sizes, "latency_ns": model(sizes, trans)})
    why = []
    if lv.walk is not None:
        why.append(f"{lv.name}'s size, {human_bytes(lv.size_bytes)}, comes from "
                   f"the random walk (any replacement policy keeps ways/n of a shared set); "
                   f"the ring chase questioned here, fitted as LRU sets, gave "
                   f"{human_bytes(centre)}")
    t = lv.transition
    if t is None:
        why.append(f"{lv.name}: the transition model did not size this level (its size is "
                   "where the latency has risen a tenth of the way to the next plateau), so "
                   "there is no shape to question; the fit's notes say why")
        return LevelView(lv, "threshold crossing", pts, fitted, why=why, sysfs_bytes=sysfs,
                         chosen="threshold crossing")
    n = int(SEARCH_OCTAVES * GRID_PER_OCTAVE)
    grid = centre * 2.0 ** (np.arange(-n, n + 1) / GRID_PER_OCTAVE)
    w, y = pts.size_bytes.to_numpy(float), np.log(pts.latency_ns.to_numpy(float))
    chosen = _shape_key(t.ways, t.page_bytes, centre)
    rows, curves = {}, {}
    for page in sorted({SMALL_PAGE, HUGE_PAGE, t.page_bytes}):
        for ways in sorted({*WAYS_GRID, t.ways}):
            ssr = np.array([np.sum((y - np.log(np.maximum(
                model(w, trans[:k] + [(c, ways, page)] + trans[k + 1:]), 1e-12))) ** 2)
                for c in grid])
            i = int(np.argmin(ssr))
            mine = (ways, page) == (t.ways, t.page_bytes)
            key = chosen if mine else _shape_key(ways, page, grid[i])
            if key in rows and (rows[key]["fitted"] or rows[key]["ssr"] <= ssr[i]) and not mine:
                continue                 # the same shape on the other page size
            rows[key] = {"ways": ways, "page_bytes": page, "size_bytes": float(grid[i]),
                         "ssr": float(ssr[i]), "fitted": mine}
            curves[key] = pd.DataFrame({"size_bytes": sizes, "latency_ns": model(
                sizes, trans[:k] + [(float(grid[i]), ways, page)] + trans[k + 1:])})
    shapes = pd.DataFrame.from_dict(rows, orient="index")
    ssr_fit = float(np.sum((y - np.log(np.maximum(model(w, trans), 1e-12))) ** 2))
    s2 = max(ssr_fit / max(len(w) - 3, 1), 1e-12)
    shapes["delta_chi2"] = (shapes["ssr"] - shapes["ssr"].min()) / s2
    shapes["fits_as_well"] = shapes["delta_chi2"] <= DELTA_CHI2
    shapes["chosen"] = shapes.pop("fitted")
    shapes = shapes.sort_values("delta_chi2")
    shape = describe_shape(t)
    why.append(f"the fit chose {chosen} ({shape}): capacity {human_bytes(centre)}, "
               f"95 % interval {human_bytes(t.size_bytes_low)} to {human_bytes(t.size_bytes_high)}")
    why.append("associativity: " + (f"only {t.ways} ways fit within Δχ² = {DELTA_CHI2:g} of the "
                                    "best (the fit's rule)" if t.ways_resolved else
                                    "not resolved: other associativities fit as well (within "
                                    f"Δχ² = {DELTA_CHI2:g}), or the step is sharp and the ways "
                                    "do not shape it"))
    why.append("page size: " + (f"only {format_size(t.page_bytes, iec=True)} pages fit"
                                if t.page_resolved else "not resolved: both page sizes fit as "
                                                        "well"))
    alike = [s for s in shapes.index[shapes["fits_as_well"]] if s != chosen]
    why.append(f"re-evaluated here on {len(w)} points around the level (each shape at its best "
               "capacity, the other levels where the fit put them, ln-latency residuals with "
               "the noise of the fitted model): "
               + (f"{', '.join(alike)} fit as well" if alike else
                  "no other shape comes within Δχ² = 4")
               + f"; the fitted shape is {shapes.loc[chosen, 'delta_chi2']:.1f} from the best "
                 "here (the fit also weighs each shape's placement variance, so near-ties may "
                 "rank differently)")
    return LevelView(lv, shape, pts, fitted, curves, shapes, why, sysfs, chosen)


@dataclass
class LineReading:
    """One measurement of the line size: its curve (x, y), the line it
    reads (None: none), axis labels and what it says."""
    name: str
    line: int | None
    curve: pd.DataFrame | None
    x_label: str
    y_label: str
    words: str


@dataclass
class LineReadings:
    """The two readings (load pairs, stride curves), the line kept, whether
    they agree, and the fit's notes about the line."""
    pairs: LineReading
    strides: LineReading
    line: int | None
    agree: bool | None
    notes: list

    def table(self) -> pd.DataFrame:
        return pd.DataFrame([{"reading": r.name, "line_bytes": r.line, "says": r.words}
                             for r in (self.pairs, self.strides)])


def line_readings(m: MemoryResult) -> LineReadings:
    """The line size's two readings as the fit took them (``m.fit.line``:
    each reading on its own, whether they agree, the prefetchers seen), with
    the curves each was read from and the fit's notes on the line."""
    info = m.fit.line
    pairs = None
    if m.pairs is not None and len(m.pairs):
        pairs = (m.pairs.groupby("distance_bytes", as_index=False)["latency_ns"].median())
    strides = None
    src = m.line_strides if m.line_strides is not None else (
        m.latency[m.latency["pattern"].astype(str) == "stride"] if "pattern" in m.latency
        else m.latency)
    if src is not None and "stride_bytes" in src and len(src):
        big = src[src["size_bytes"] >= src.groupby("stride_bytes")["size_bytes"].max().min()]
        strides = big.groupby("stride_bytes", as_index=False)["latency_ns"].median()
    lp, ls = info.get("pairs"), info.get("strides")
    pw = (f"the second load of a pair costs a miss from {lp} bytes away on"
          if lp else "no step in the pairs' time: no line read from them")
    if lp and info.get("adjacent_line_prefetch"):
        pw += f" (adjacent-line prefetch: lines are fetched in pairs of {2 * lp})"
    sw = (f"time per load stops growing with the stride at {ls} bytes" if ls else
          "a prefetcher serves every stride (each load a fraction of a memory access): no "
          "line read from them" if info.get("strides_prefetch_served") else
          "no stride where the growth stops: no line read from them")
    if ls and info.get("next_line_prefetch"):
        sw += f" (next-line prefetch: stride {ls} is served from the prefetched line)"
    notes = [n for n in m.fit.notes if "line" in n and ("size" in n or "prefetch" in n)]
    return LineReadings(
        LineReading("load pairs", lp, pairs, "distance of the second load (bytes, log scale)",
                    "time per pair of dependent loads (ns)", pw),
        LineReading("stride curves", ls, strides, "stride (bytes, log scale)",
                    "time per load beyond the last cache (ns)", sw),
        m.fit.line_size_bytes, info.get("agree"), notes)
