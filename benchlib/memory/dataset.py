"""What the memory pipeline measured: the one input of the fit.

:class:`MemoryData` holds every table the measuring step took (the ring and
stride curves, the random walk, the load pairs, the line-size strides, the
TLB chase, the slow revisit, each pass of the ring and of the walk) with the
run's clock and what the machine reports; :func:`.fit.fit_memory` takes it
whole.  A curve
from another tool is a MemoryData with only ``latency``: the fit then says
what it could not determine.

``MemoryData.save(dir)`` writes it as ``benchlib memory --save DIR`` does:
one CSV per table and ``memory.json``, a manifest naming them with the
clock and the machine; :func:`.curve_readers.read_input` reads it back, so
that ``benchlib fit-memory DIR`` fits exactly what ``benchlib memory``
fitted.

Pure: imports no measuring, storing, paper, report or CLI module."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from benchlib.errors import BenchlibError

#: The manifest's name in a saved directory, and its format.
MANIFEST = "memory.json"
FORMAT = "benchlib-memory"
VERSION = 1
#: The tables, each with the columns the fit reads (others are kept as
#: measured), roughly in the order they are measured (the walk's passes are
#: spread over the run).
TABLES = {
    "latency": "ring (pattern=random) and stride curves, and the same-set chase (pattern="
               "same_set: N lines one page apart): size_bytes, stride_bytes, pattern, "
               "huge_pages, latency_ns, latency_cycles, clock_ghz",
    "ring_passes": "every pass of the ring on its own: size_bytes, pass_index, latency_cycles",
    "line_strides": "time per load against stride at the two largest sizes: size_bytes, "
                    "stride_bytes, latency_ns, latency_cycles",
    "pairs": "dependent load pairs: distance_bytes, latency_ns, latency_cycles",
    "tlb": "one line per page against a dense control: pages, latency_ns, control_ns, "
           "latency_cycles, control_cycles",
    "walk": "the random walk around each cache above the first (each size at its fastest pass): size_bytes, latency_ns, "
            "latency_cycles",
    "walk_passes": "every pass of the random walk on its own (passes spread over the run): "
                   "size_bytes, pass_index, latency_ns, latency_cycles",
    "revisit": "the last cache revisited fast and slowly: size_bytes, spin_adds, role "
               "(base: the adds' own time), latency_ns, latency_cycles, clock_ghz",
}


@dataclass(frozen=True)
class MemoryData:
    """Everything measured for one fit.  ``latency`` is required; every
    other table is optional (None: not measured).  ``clock_ghz``: the run's
    median core clock (with ``latency_cycles`` columns the fit works on
    cycles / clock); ``machine``: what the measured machine reports
    (``caches`` from sysfs, ``virtualized``, ``thp_enabled``, ...);
    ``tlb_reported``: the CPU's own TLB figures; ``source``: where the data
    came from ("measured", or the file read)."""
    latency: pd.DataFrame
    pairs: pd.DataFrame | None = None
    tlb: pd.DataFrame | None = None
    line_strides: pd.DataFrame | None = None
    walk: pd.DataFrame | None = None
    revisit: pd.DataFrame | None = None
    ring_passes: pd.DataFrame | None = None
    walk_passes: pd.DataFrame | None = None
    clock_ghz: float | None = None
    machine: dict = field(default_factory=dict, repr=False)
    tlb_reported: dict | None = field(default=None, repr=False)
    profile: str | None = None
    elapsed_s: float | None = None
    source: str = ""

    def __post_init__(self):
        for name in TABLES:
            t = getattr(self, name)
            if t is not None and not isinstance(t, pd.DataFrame):
                raise BenchlibError(f"MemoryData.{name}: expected a pandas DataFrame, got "
                                    f"{type(t).__name__}")
        if self.latency is None:
            raise BenchlibError("MemoryData needs a latency table (size_bytes, latency_ns)")
        if self.clock_ghz is not None and not (self.clock_ghz > 0 and math.isfinite(self.clock_ghz)):
            raise BenchlibError(f"clock_ghz must be > 0 (got {self.clock_ghz})")
        object.__setattr__(self, "machine", dict(self.machine or {}))

    @property
    def inputs(self) -> tuple[str, ...]:
        """The tables present, in measuring order."""
        return tuple(n for n in TABLES if getattr(self, n) is not None)

    def save(self, directory) -> Path:
        """Write every table as CSV and the manifest ``memory.json``; returns
        the manifest's path.  Floats are written exactly (repr), so a fit of
        the files read back is the fit of this data."""
        d = Path(directory)
        try:
            d.mkdir(parents=True, exist_ok=True)
            tables = {}
            for name in self.inputs:
                tables[name] = f"{name}.csv"
                getattr(self, name).to_csv(d / tables[name], index=False)
            manifest = {"format": FORMAT, "version": VERSION, "tables": tables,
                        "clock_ghz": self.clock_ghz, "profile": self.profile,
                        "elapsed_s": self.elapsed_s, "source": self.source,
                        "machine": self.machine,
                        "tlb_reported": None if self.tlb_reported is None else
                        {**self.tlb_reported,
                         "levels": {str(k): v for k, v in
                                    self.tlb_reported.get("levels", {}).items()}},
                        "what": {n: TABLES[n] for n in tables}}
            path = d / MANIFEST
            path.write_text(json.dumps(manifest, indent=1, default=str))
        except OSError as exc:
            raise BenchlibError(f"cannot save the memory data in {d}: {exc}") from None
        return path


__all__ = ["MemoryData", "MANIFEST", "FORMAT", "VERSION", "TABLES"]
