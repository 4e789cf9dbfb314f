"""What one measurement is: ``Result``, every sample with its summary, where
it ran, the process that ran it and the machine.  Below the harness that
makes Results and the result file that stores them, so both import it and
neither imports the other for it."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd


@dataclass
class Result:
    """One measurement: every sample, its summary, where it ran, and the
    machine it ran on.  ``samples`` are in ``unit``; ``ns_per_iteration`` are
    the raw figures the C core returned."""
    benchmark: str
    params: dict
    unit: str
    higher_is_better: bool
    samples: list[float]
    ns_per_iteration: list[float]
    tsc_ticks_per_iteration: list[float] | None
    clock_ghz: list[float] | None
    iterations_per_sample: int
    placement: dict
    clock_resolution_ns: float
    overhead_ns: float
    calibration_s: float
    profile: str
    machine: dict = field(repr=False)
    timestamp: str = ""
    counts: str = ""
    extras: dict = field(default_factory=dict)
    # calibration's confirmed time of one sample at the chosen count (0 when
    # the count was given, or the benchmark calibrates itself)
    calibrated_sample_ns: float = 0.0
    # noise diagnostics (benchlib.measuring.diagnostics) and where the result came from
    diagnostics: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)
    # the process that ran the loop (benchlib.measuring.process.process_state): kind
    # ("worker", "process"), threads before and after, descriptors, mappings,
    # signals caught; empty for results recorded before schema version 2
    process: dict = field(default_factory=dict)

    @property
    def stable(self) -> bool | None:
        """False when the diagnostics found a reason to distrust the figure."""
        return self.diagnostics.get("stable")

    @property
    def median_ci95(self) -> tuple[float, float] | None:
        ci = self.diagnostics.get("median_ci95")
        return tuple(ci) if ci else None

    @property
    def measured(self):
        """The median with its 95% interval and unstable reasons, as a
        ``benchlib.stats.intervals.Measured`` that tables carry through
        their arithmetic (``r.measured / 1e3`` in ms)."""
        from benchlib.stats.intervals import of_result
        return of_result(self)

    # -- summary statistics (of the samples, in the reported unit) --
    @property
    def n_samples(self) -> int:
        return len(self.samples)

    min = property(lambda self: float(np.min(self.samples)), doc="the smallest sample")
    max = property(lambda self: float(np.max(self.samples)), doc="the largest sample")
    median = property(lambda self: float(np.median(self.samples)), doc="the median sample")
    mean = property(lambda self: float(np.mean(self.samples)), doc="the mean of the samples")

    @property
    def stdev(self) -> float:
        return float(np.std(self.samples, ddof=1)) if self.n_samples > 1 else 0.0

    @property
    def rel_iqr(self) -> float:
        """Spread: interquartile range over the median (0.02 = 2%)."""
        q1, q3 = np.percentile(self.samples, [25, 75])
        med = self.median
        return float((q3 - q1) / med) if med else math.nan

    @property
    def best(self) -> float:
        """The best sample: the fastest time or the highest bandwidth."""
        return self.max if self.higher_is_better else self.min

    @property
    def cycles_per_iteration(self) -> list[float] | None:
        """Core cycles per iteration, sample by sample: ns x the core clock
        probed around each sample.  Steadier than ns where the clock moves
        (turbo, a VM host's power management); None if not probed."""
        if not self.clock_ghz:
            return None
        return [n * g for n, g in zip(self.ns_per_iteration, self.clock_ghz)]

    @property
    def median_cycles(self) -> float | None:
        c = self.cycles_per_iteration
        return float(np.median(c)) if c else None

    @property
    def median_clock_ghz(self) -> float | None:
        return float(np.median(self.clock_ghz)) if self.clock_ghz else None

    @property
    def value(self) -> float:
        """The reported figure: the median of the samples."""
        return self.median

    def summary(self) -> dict:
        return {"value": self.value, "unit": self.unit, "min": self.min,
                "median": self.median, "max": self.max, "mean": self.mean,
                "stdev": self.stdev, "rel_iqr": self.rel_iqr, "best": self.best,
                "n_samples": self.n_samples, "median_cycles": self.median_cycles,
                "median_clock_ghz": self.median_clock_ghz}

    def to_dict(self) -> dict:
        """Everything, JSON-ready: summary first, then samples and metadata."""
        d = {"benchmark": self.benchmark, "params": dict(self.params), **self.summary()}
        d.update({k: v for k, v in asdict(self).items()
                  if k not in ("benchmark", "params", "unit")})
        return d

    def to_row(self) -> dict:
        """One flat row for a tidy DataFrame: parameters as columns."""
        row = {"benchmark": self.benchmark, **self.params, **self.summary(),
               "iterations_per_sample": self.iterations_per_sample,
               "cpu": self.placement.get("cpu_last"),
               "helper_cpu": self.placement.get("helper_cpu"),
               "cpu_migrations": self.placement.get("cpu_migrations"),
               **self.extras,
               "profile": self.profile, "host": self.machine.get("hostname"),
               "timestamp": self.timestamp}
        return row

    def samples_frame(self) -> pd.DataFrame:
        """One row per sample, for distributions and plots."""
        return pd.DataFrame({"benchmark": self.benchmark, **self.params,
                             "sample": range(self.n_samples), self.unit: self.samples,
                             "ns_per_iteration": self.ns_per_iteration})

    def __str__(self) -> str:
        params = " ".join(f"{k}={v}" for k, v in self.params.items())
        clock = (f"; {self.median_cycles:,.0f} cycles at {self.median_clock_ghz:.2f} GHz"
                 if self.clock_ghz else "")
        ci = self.median_ci95
        ci = f", 95% CI {ci[0]:.4g}-{ci[1]:.4g}" if ci else ""
        return (f"{self.benchmark} {params}: {self.value:.4g} {self.unit} "
                f"(median of {self.n_samples}{ci}; min {self.min:.4g}, max {self.max:.4g}, "
                f"spread {100 * self.rel_iqr:.1f}%{clock})")
