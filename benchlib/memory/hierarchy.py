"""Step 4 of the memory pipeline: the result, an immutable hierarchy.

:class:`Level` (one plateau), :class:`Revisit` (the last cache at a fast and
at a slow revisit) and :class:`MemoryFit` (everything :func:`.fit.fit_memory`
found) are frozen: the fit builds them once and nothing changes them after.
:class:`MemoryResult` pairs a fit with the :class:`.data.MemoryData` it came
from and says what they mean beside what the system reports: the comparison
with sysfs, the shared last level, the evidence per level, the JSON that
``benchlib memory`` and ``benchlib fit-memory`` print.  The revisit rule
("inconclusive inside the passes' spread") is :func:`read_revisit`, the one
place that reads a slow revisit; the notebook states it from there.

Pure: imports no measuring, storing, paper, report or CLI module."""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from benchlib.memory.cache_model import Transition, describe_shape
from benchlib.memory.line_tlb import compare_with_reported
from benchlib.memory.segments import _json_num


# --------------------------------------------------------------------- levels

@dataclass(frozen=True)
class Associativity:
    """A level's ways as the measured curves identify them.  ``ways`` is None
    where they are not identified; ``low``/``high`` bound them where anything
    does (a 95 % interval for a fitted shape, the measured bracket for a
    chase), and ``reason`` says where the reading came from, or why there
    is none."""
    ways: int | None = None
    low: int | None = None
    high: int | None = None
    source: str = ""
    reason: str = "no chase in the input reads this level's ways"

    @property
    def identified(self) -> bool:
        return self.ways is not None

    def words(self) -> str:
        if self.ways is not None:
            span = "" if self.low == self.high else f" [{self.low}, {self.high}]"
            return f"{self.ways} ways{span} ({self.source})"
        if self.low is not None:
            top = "?" if self.high is None else str(self.high)
            return f"ways not identified: between {self.low} and {top} ({self.reason})"
        return f"ways not identified ({self.reason})"

    def to_dict(self) -> dict:
        return {"ways": self.ways, "low": self.low, "high": self.high, "source": self.source,
                "reason": self.reason}


@dataclass(frozen=True)
class Level:
    """One plateau of the staircase.  ``size_bytes`` is None for main memory."""
    name: str
    size_bytes: float | None
    size_bytes_low: float | None
    size_bytes_high: float | None
    latency_ns: float
    latency_ns_err: float
    latency_cycles: float | None
    n_points: int
    #: the transition model's fit (None for main memory, or when not fitted)
    transition: Transition | None = None
    #: where latency has risen a tenth of the way to the next plateau
    threshold_size_bytes: float | None = None
    #: 95% bootstrap interval of the plateau's median latency over its points (ns)
    latency_ns_ci95: tuple[float, float] | None = None
    #: the ring chase's capacity (size, low, high) where a random walk replaced it
    ring_size_bytes: tuple[float, float, float] | None = None
    #: the random walk's fit (walk.fit_walk) that gave the size
    walk: Transition | None = None
    #: the ways, where a chase or the curve's shape identifies them
    associativity: Associativity = field(default_factory=Associativity)
    #: the ring's capacity (size, low, high) where the ways pinned the size
    #: (a first level: ways x a power-of-two way, associativity.pin_first_level)
    pinned_from: tuple[float, float, float] | None = None

    def to_dict(self) -> dict:
        # the shape of the fit the size came from: the walk's where it gave it
        t = self.walk if self.walk is not None else self.transition
        return {
            "name": self.name,
            "size_bytes": _json_num(self.size_bytes),
            "size_bytes_low": _json_num(self.size_bytes_low),
            "size_bytes_high": _json_num(self.size_bytes_high),
            "latency_ns": _json_num(self.latency_ns),
            "latency_ns_err": _json_num(self.latency_ns_err),
            "latency_cycles": _json_num(self.latency_cycles),
            "n_points": int(self.n_points),
            "ways": self.associativity.ways,
            "ways_low": self.associativity.low,
            "ways_high": self.associativity.high,
            "ways_note": self.associativity.words() if self.size_bytes else None,
            "page_bytes_fitted": None if t is None or not t.page_resolved else int(t.page_bytes),
            "shape": None if t is None else describe_shape(t) + (
                ", fitted to the random walk" if self.walk is not None else ""),
            "threshold_size_bytes": _json_num(self.threshold_size_bytes),
            "size_from": "walk" if self.ring_size_bytes else (
                "ways x way" if self.pinned_from else ("ring" if self.transition else
                                                      ("threshold" if self.size_bytes
                                                       else None))),
            "ring_size_bytes": None if not self.ring_size_bytes
            else _json_num(self.ring_size_bytes[0]),
        }


# -------------------------------------------------------------------- revisit

@dataclass(frozen=True)
class Revisit:
    """The last cache's capacity with the chase as fast as it goes
    (``normal``) and with each line revisited ``spin_adds`` dependent adds
    later (``slow``); None where the transition model did not fit.  The
    curves are the latencies the capacities were fitted to (the adds' own
    time taken out)."""
    spin_adds: int
    normal_bytes: float | None
    slow_bytes: float | None
    normal_ns_per_load: float
    slow_ns_per_load: float
    normal_curve: dict = field(default_factory=dict)
    slow_curve: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"spin_adds": int(self.spin_adds), "normal_bytes": _json_num(self.normal_bytes),
                "slow_bytes": _json_num(self.slow_bytes),
                "normal_ns_per_load": _json_num(self.normal_ns_per_load),
                "slow_ns_per_load": _json_num(self.slow_ns_per_load),
                "normal_curve": {k: list(v) for k, v in self.normal_curve.items()},
                "slow_curve": {k: list(v) for k, v in self.slow_curve.items()}}


#: A capacity that moves by less than this fraction at the slow revisit has
#: not moved (the revisit chase's own repeatability).
REVISIT_SAME = 0.15


@dataclass(frozen=True)
class RevisitReading:
    """What a slow revisit says about the last cache.  ``kind``: "no loss",
    "inconclusive" (the passes alone move the capacity more), "time-dependent"
    (it loses capacity when lines wait: something else evicts them) or "more
    when slow"; ``loses_capacity``: True, False, or None (inconclusive)."""
    kind: str
    loses_capacity: bool | None
    moved: float             # slow capacity / normal capacity
    spread: float            # largest / smallest capacity over the passes (1.0: one pass)
    words: str


def read_revisit(revisit: Revisit | None, passes_sizes) -> RevisitReading | None:
    """The revisit rule: the slow revisit's capacity against the normal one,
    read against the passes' own spread (how far the capacity moves with no
    change at all: a revisit effect inside it says nothing).  None when
    either capacity is missing."""
    if revisit is None or not revisit.slow_bytes or not revisit.normal_bytes:
        return None
    moved = revisit.slow_bytes / revisit.normal_bytes
    passes = [p for p in passes_sizes or () if p]
    spread = max(passes) / min(passes) if len(passes) >= 2 else 1.0
    said = (f"revisiting each line {revisit.slow_ns_per_load:.0f} ns apart instead of "
            f"{revisit.normal_ns_per_load:.0f} ns, the chase keeps {100 * moved:.0f} % of it")
    if 1 - REVISIT_SAME <= moved <= 1 + REVISIT_SAME:
        kind, loses = "no loss", False
        said += " (no loss to time: capacity, not neighbours)"
    elif max(moved, 1 / moved) <= spread:
        kind, loses = "inconclusive", None
        said += (f" (inconclusive: the passes alone differ by x{spread:.1f}, "
                 f"{', '.join(f'{p / 2**20:.1f}' for p in passes)} MiB: the neighbours "
                 "move it more than the revisit does)")
    elif moved < 1 - REVISIT_SAME:
        kind, loses = "time-dependent", True
        said += " (time-dependent: something else evicts it)"
    else:
        kind, loses = "more when slow", False
        said += " (more at the slower revisit: the neighbours were quieter then)"
    return RevisitReading(kind, loses, moved, spread, said)


# ------------------------------------------------------------------------ fit

@dataclass(frozen=True)
class MemoryFit:
    """What :func:`.fit.fit_memory` found: levels smallest first, main memory
    last; the line size and what each line reading said (``line``); the TLB
    levels; notes in words.  ``passes_sizes`` (the last cache's capacity in
    each pass of the ring, fitted alone) and ``revisit`` come from their own
    chases when the input holds them."""
    levels: tuple[Level, ...]
    line_size_bytes: int | None
    tlb: tuple[dict, ...]
    stride_bytes_used: int
    notes: tuple[str, ...] = ()
    #: each line-size measurement on its own ("pairs", "strides") and what
    #: they say together ("adjacent_line_prefetch", "agree")
    line: dict = field(default_factory=dict)
    #: whether the levels were fitted with the TLB's misses taken out
    tlb_removed: bool = False
    passes_sizes: tuple = ()
    revisit: Revisit | None = None
    #: which access model the levels were fitted with and why ({"model":
    #: "ring" | "stride" | "threshold", "why": ...}; for "stride" also the
    #: strides, the flat ones and the levels a prefetcher hides at each)
    access_model: dict = field(default_factory=dict)

    def __post_init__(self):
        # owned copies: what the caller passed can change, the fit cannot
        object.__setattr__(self, "levels", tuple(self.levels))
        object.__setattr__(self, "tlb", tuple(dict(t) for t in self.tlb))
        object.__setattr__(self, "notes", tuple(str(n) for n in self.notes))
        object.__setattr__(self, "line", dict(self.line))
        object.__setattr__(self, "passes_sizes", tuple(self.passes_sizes))
        object.__setattr__(self, "access_model", dict(self.access_model))

    @property
    def caches(self) -> list[Level]:
        return [lv for lv in self.levels if lv.size_bytes]

    def to_dict(self) -> dict:
        return {
            "levels": [lv.to_dict() for lv in self.levels],
            "line_size_bytes": None if self.line_size_bytes is None else int(self.line_size_bytes),
            "line": {k: _json_num(v) for k, v in self.line.items()},
            "tlb": [{k: _json_num(v) for k, v in t.items()} for t in self.tlb],
            "stride_bytes_used": int(self.stride_bytes_used),
            "notes": [str(n) for n in self.notes],
            "access_model": {k: _json_num(v) if isinstance(v, float) else v
                             for k, v in self.access_model.items()},
        }

    def table(self) -> pd.DataFrame:
        cols = ["name", "size_bytes", "size_bytes_low", "size_bytes_high", "latency_ns",
                "latency_ns_err", "latency_cycles", "n_points", "ways", "shape"]
        return pd.DataFrame([lv.to_dict() for lv in self.levels], columns=cols)


# --------------------------------------------------------------------- result

def _tlb_with_reported(fitted, reported: dict | None) -> list[dict]:
    """Each fitted TLB level with ``reported_entries`` (None where the CPU
    reports nothing, or nothing was recorded) and ``page_bytes``."""
    levels = (reported or {}).get("levels") or {}
    return [{**t, "reported_entries": levels.get(int(t["level"])),
             "page_bytes": t.get("page_bytes", 4096)} for t in fitted]


@dataclass(frozen=True)
class MemoryResult:
    """A fit beside the data it came from (:class:`.data.MemoryData`): what
    ``benchlib memory``, ``benchlib fit-memory`` and the notebook show."""
    data: object              # benchlib.memory.dataset.MemoryData
    fit: MemoryFit

    # the measured tables, as the figures and the notebook read them
    latency = property(lambda self: self.data.latency)
    pairs = property(lambda self: self.data.pairs)
    tlb = property(lambda self: self.data.tlb)
    walk = property(lambda self: self.data.walk)
    line_strides = property(lambda self: self.data.line_strides)
    machine = property(lambda self: self.data.machine)
    profile = property(lambda self: self.data.profile)
    elapsed_s = property(lambda self: self.data.elapsed_s)
    passes_sizes = property(lambda self: list(self.fit.passes_sizes))
    revisit = property(lambda self: None if self.fit.revisit is None
                       else self.fit.revisit.to_dict())

    @property
    def reported_caches(self) -> list[dict]:
        return [c for c in self.machine.get("caches", []) if c["type"] in ("Data", "Unified")]

    @property
    def comparison(self) -> pd.DataFrame:
        """The fitted caches beside the ones the measured machine reports."""
        return compare_with_reported(self.fit, self.machine.get("caches", []))

    @property
    def huge_page_fraction(self) -> float | None:
        """Fraction of the random curve's bytes that huge pages backed."""
        lat = self.latency
        if "pattern" not in lat or "huge_page_bytes" not in lat:
            return None
        r = lat[lat["pattern"] == "random"]
        if r.empty:
            return None
        return float((r["huge_page_bytes"] / r["size_bytes"]).clip(upper=1).mean())

    def revisit_reading(self) -> RevisitReading | None:
        """:func:`read_revisit` on this fit's revisit and passes."""
        return read_revisit(self.fit.revisit, self.fit.passes_sizes)

    def shared_last_level(self) -> dict | None:
        """The last fitted cache beside the last level sysfs reports: its
        effective capacity, sysfs's size, who shares it (shared_cpu_list),
        and how the capacity moved between passes (``passes_sizes``)."""
        caches = self.fit.caches
        rep = self.reported_caches
        if not caches or not rep:
            return None
        last_rep = max(rep, key=lambda c: c["level"])
        lv = caches[-1]
        shared = last_rep.get("shared_cpu_list") or ""
        ratio = lv.size_bytes / last_rep["size_bytes"] if last_rep["size_bytes"] else None
        reason = []
        reading = self.revisit_reading()
        if reading is not None:
            reason.append(reading.words)
        if ratio is not None and ratio < 0.9:     # a gap beyond the 10 % a fit is held to
            reason.append(f"the chase kept {100 * ratio:.0f} % of the {last_rep['size_bytes'] >> 20} "
                          f"MiB sysfs reports")
            if "-" in shared or "," in shared:
                reason.append(f"sysfs says CPUs {shared} share it")
            if self.machine.get("virtualized"):
                reason.append("this is a guest: the host's other tenants share the physical "
                              "last level, and sysfs shows what the hypervisor presents")
        held = sum(c["size_bytes"] for c in rep if c["level"] <= last_rep["level"])
        if lv.size_bytes_low and lv.size_bytes_low > held and lv.ring_size_bytes is None:
            reason.append(f"the chase kept more than the {held / 2**20:.1f} MiB the reported caches "
                          "hold together: a cache whose replacement policy is not LRU keeps part "
                          "of a ring larger than itself, which the ring's LRU model reads as "
                          "capacity" + (" (as the ring does at this machine's L2, where the "
                                        "random walk shows the true size)"
                                        if any(c.ring_size_bytes for c in caches) else ""))
        return {"level": lv.name, "effective_bytes": lv.size_bytes,
                "effective_bytes_low": lv.size_bytes_low,
                "effective_bytes_high": lv.size_bytes_high, "latency_ns": lv.latency_ns,
                "sysfs_level": last_rep["level"], "sysfs_bytes": last_rep["size_bytes"],
                "shared_cpu_list": shared, "passes_sizes": self.passes_sizes,
                "revisit": self.revisit,
                "reason": "; ".join(reason)}

    def level_evidence(self) -> pd.DataFrame:
        """One row per fitted level: size with its interval, latency, the
        shape of its transition, what sysfs reports at that level, and the
        evidence in words."""
        rep = {c["level"]: c for c in self.reported_caches}
        rows = []
        for i, lv in enumerate(self.fit.levels):
            sysfs = rep.get(i + 1) if lv.size_bytes else None
            if lv.size_bytes is None:
                ev = f"the last plateau, {lv.n_points} points past every cache"
            else:
                ev = (f"plateau of {lv.n_points} points at {lv.latency_ns:.3g} ns; its end fits "
                      + (describe_shape(lv.transition) if lv.transition else "a threshold crossing"))
                if lv.ring_size_bytes:
                    ev += (f"; size from the random walk (whatever the replacement policy, a set "
                           f"keeps ways/n of its lines), where the ring chase fitted as LRU sets "
                           f"gave {lv.ring_size_bytes[0] / 1024:.0f} KiB")
                if sysfs and sysfs.get("size_bytes"):
                    r = lv.size_bytes / sysfs["size_bytes"]
                    ev += (f"; {100 * r:.0f} % of sysfs's L{i + 1}"
                           + ("" if 0.9 <= r <= 1.1 else
                              f" (shared by CPUs {sysfs.get('shared_cpu_list')})" if r < 0.9 else ""))
                    lo, hi = lv.size_bytes_low, lv.size_bytes_high
                    if lo is not None and hi is not None and not lo <= sysfs["size_bytes"] <= hi:
                        ev += (f"; sysfs's size is outside the 95 % interval "
                               f"[{lo / 1024:.0f}, {hi / 1024:.0f}] KiB: the model with sysfs's "
                               "capacity explains the curve worse than the fitted one")
            rows.append({"level": lv.name, "size_bytes": lv.size_bytes,
                         "size_low": lv.size_bytes_low, "size_high": lv.size_bytes_high,
                         "latency_ns": lv.latency_ns,
                         "sysfs_bytes": sysfs.get("size_bytes") if sysfs else None,
                         "evidence": ev})
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """The JSON of ``benchlib memory --json`` and ``benchlib fit-memory
        --json``: the fit, with the machine's reports beside it."""
        d = self.fit.to_dict()
        rep = self.data.tlb_reported
        d["tlb"] = _tlb_with_reported(d["tlb"], rep)
        clock = self.data.clock_ghz
        d.update({"tlb_reported": None if rep is None else
                  {"levels": {str(k): v for k, v in rep.get("levels", {}).items()},
                   "note": rep.get("note", "")},
                  "huge_page_fraction": self.huge_page_fraction,
                  "shared_last_level": self.shared_last_level(),
                  "elapsed_s": self.elapsed_s, "profile": self.profile,
                  "clock_ghz": None if clock is None else float(clock),
                  "thp_enabled": self.machine.get("thp_enabled"),
                  "reported_caches": self.reported_caches,
                  "inputs": list(self.data.inputs),
                  "source": self.data.source,
                  "comparison": self.comparison.to_dict(orient="records")})
        return d


__all__ = ["Associativity", "Level", "MemoryFit", "MemoryResult", "Revisit", "RevisitReading", "read_revisit",
           "REVISIT_SAME"]
