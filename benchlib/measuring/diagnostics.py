"""Noise diagnostics collected around a measurement: what the machine did
while the C core took samples.  Snapshots only (nothing here is timed):
/proc/stat per CPU (steal, busy time), getrusage of the measuring thread
(context switches), the load average.  The verdict (`stable` and its
reasons) is benchlib.stats.noise."""
from __future__ import annotations

from benchlib.measuring.process import RUN_FACTS, Snapshot  # noqa: F401  (the facts around a run)
from benchlib.stats import noise

def measuring_cpus(placement: dict) -> set[int]:
    """CPUs the measurement ran on (the measuring thread and its helper)."""
    cpus = {placement.get(k) for k in ("cpu_first", "cpu_last", "helper_cpu")}
    return {c for c in cpus if isinstance(c, int) and c >= 0}




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
