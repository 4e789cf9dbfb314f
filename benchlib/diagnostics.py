"""Noise diagnostics collected around a measurement: what the machine did
while the C core took samples.  Snapshots only (nothing here is timed):
/proc/stat per CPU (steal, busy time), getrusage of the measuring thread
(context switches), the load average.  The verdict (`stable` and its
reasons) is benchlib.analysis.noise."""
from __future__ import annotations

import os
import resource
import time

from .analysis import noise

MIN_TICKS = 10  # per CPU: runs shorter than this many clock ticks get no busy/steal figure
_WHO = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)


def _cpu_times() -> dict[int, list[int]]:
    """Per-CPU jiffies from /proc/stat: user nice system idle iowait irq softirq steal."""
    out = {}
    try:
        with open("/proc/stat") as f:
            for line in f:
                if line.startswith("cpu") and line[3].isdigit():
                    name, *vals = line.split()
                    out[int(name[3:])] = [int(v) for v in vals[:8]] + [0] * (8 - len(vals[:8]))
    except OSError:
        pass
    return out


def _run_delay_ns() -> int | None:
    """Nanoseconds this thread has waited on a run queue, ready but not
    running (/proc/thread-self/schedstat, second field)."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            return int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return None


class Snapshot:
    """The machine's counters at one moment; ``since(earlier, ...)`` gives the
    diagnostics of the interval between two snapshots."""

    def __init__(self):
        self.t = time.monotonic()
        self.cpus = _cpu_times()
        ru = resource.getrusage(_WHO)
        self.nivcsw, self.nvcsw = ru.ru_nivcsw, ru.ru_nvcsw
        self.loadavg = list(os.getloadavg())
        self.run_delay_ns = _run_delay_ns()

    def since(self, before: "Snapshot", measuring_cpus: set[int]) -> dict:
        busy, steal, total = {}, 0, 0
        for cpu, now in self.cpus.items():
            then = before.cpus.get(cpu)
            if then is None:
                continue
            d = [a - b for a, b in zip(now, then)]
            tot = sum(d)
            # /proc/stat counts in clock ticks (10 ms): under MIN_TICKS, too short to tell
            busy[str(cpu)] = (tot - d[3] - d[4]) / tot if tot >= MIN_TICKS else None
            if cpu in measuring_cpus or not measuring_cpus:
                steal += d[7]
                total += tot
        others = [v for k, v in busy.items() if int(k) not in measuring_cpus and v is not None]
        hz = os.sysconf("SC_CLK_TCK")
        wall = self.t - before.t
        waited = (self.run_delay_ns - before.run_delay_ns) / 1e9 \
            if self.run_delay_ns is not None and before.run_delay_ns is not None else None
        return {
            "wall_s": wall,
            # ready to run but waiting for a CPU (the measuring thread; ns precision)
            "runqueue_wait_s": waited,
            "runqueue_wait_fraction": waited / wall if waited is not None and wall > 0 else None,
            "steal_fraction": steal / total if total >= MIN_TICKS else None,
            "steal_s": steal / hz,
            "involuntary_switches": self.nivcsw - before.nivcsw,
            "voluntary_switches": self.nvcsw - before.nvcsw,
            "loadavg": before.loadavg,
            "cpu_busy_fraction": busy,
            "other_cpus_busy_max": max(others) if others else None,
            "other_cpus_busy": (max(others) > 0.5) if others else None,
        }


def measuring_cpus(placement: dict) -> set[int]:
    """CPUs the measurement ran on (the measuring thread and its helper)."""
    cpus = {placement.get(k) for k in ("cpu_first", "cpu_last", "helper_cpu")}
    return {c for c in cpus if isinstance(c, int) and c >= 0}


RUN_FACTS = ("wall_s", "runqueue_wait_s", "runqueue_wait_fraction", "steal_fraction", "steal_s", "involuntary_switches", "voluntary_switches",
             "loadavg", "other_cpus_busy_max", "other_cpus_busy")


def diagnose(samples, clock_ghz, placement: dict, run: dict | None) -> dict:
    """Every diagnostic of one result.  ``run`` is Snapshot.since(...) or None
    (a result recorded before diagnostics existed: only the samples speak)."""
    d = dict(run or dict.fromkeys(RUN_FACTS))
    d["cpu_migrations"] = placement.get("cpu_migrations")
    before, after = noise.clock_before_after(clock_ghz)
    d["clock_ghz_before"], d["clock_ghz_after"] = before, after
    d["clock_change"] = after / before - 1 if before and after else None
    d.update(noise.sample_statistics(samples))
    stable, codes, words = noise.assess(d["n_samples"], d["rel_stdev"], d.get("steal_fraction"),
                                        d["clock_change"])
    d["stable"], d["unstable_reasons"], d["unstable_detail"] = stable, codes, words
    d["thresholds"] = dict(noise.THRESHOLDS)
    return d
