"""The Python side of a measurement: profiles, calling the C timing core,
summary statistics, results, and sweeps over parameter grids.

Nothing here is timed: the C library calibrates, warms up and takes the
samples; this module only decides how many and what to do with them."""
from __future__ import annotations

import datetime as _dt
import functools
import itertools
import math
import time
from dataclasses import replace
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.measuring.metadata import machine_info
from benchlib.profiles import PROFILES, TARGETED_SAMPLE_MS, Profile, get_profile  # noqa: F401  (re-exported)
from benchlib.measuring.registry import Benchmark, get_benchmark
from benchlib.measuring.result import Result  # noqa: F401  (re-exported: benchlib.measuring.harness.Result)


def _opts(profile: Profile, n_samples: int | None, cpu: int):
    from benchlib.measuring.worker import make_opts
    return make_opts(profile, n_samples, cpu)


def _measure(bench: Benchmark, params: dict, profile: Profile, n_samples: int | None,
             setup: dict | None = None) -> Result:
    """Measure in the single-threaded worker (``benchlib.measuring.worker``): one call
    of the C core, then, with adaptive sampling, more calls at the same
    iteration count until the median is known well enough."""
    from benchlib.measuring import worker as _worker
    from benchlib.measuring import diagnostics
    from benchlib.stats.summary import halves_agree, rel_ci_halfwidth
    from benchlib.measuring.metadata import provenance

    if n_samples is not None and n_samples < 1:
        raise BenchlibError(f"n_samples must be at least 1; got {n_samples}")
    if n_samples is None and bench.n_samples_for is not None:
        n_samples = bench.n_samples_for(params, profile)
    machine = machine_info()  # before the run: load average as the run found it
    stop_for = adaptive_stop(bench, params, profile)
    stop = stop_for and stop_for(n_samples or profile.n_samples)   # its ranks made before t0
    t0 = time.monotonic()
    out = _worker.call(bench.name, params, profile, n_samples, setup=setup, stop=stop)
    raw, ticks, ghz, info = out["ns"], out["ticks"], out["ghz"], out["info"]
    first, before, process = dict(info), out["before"], out["process"]
    migrations, adaptive = info["cpu_migrations"], None
    setup_ns, settle_ns = info["setup_ns"], info["settle_ns"]   # every call builds afresh
    if profile.target_rel_ci:
        # more batches at the calibrated iteration count, each timed in C
        cap = profile.time_cap_s or math.inf
        batches, reached = 1, False
        # what one call costs besides its samples (set-up, warm-ups,
        # calibration), in samples: a later batch pays it again, so it takes
        # at least as many samples as that costs
        sample_s = float(np.median(raw)) * first["iterations"] / 1e9 if raw else 0.0
        call_s = time.monotonic() - t0
        setup_samples = (math.ceil(max(0.0, call_s - len(raw) * sample_s) / sample_s)
                         if sample_s > 0 else 0)
        while True:
            to_unit = [bench.to_unit(x, params) for x in raw]
            hw = rel_ci_halfwidth(to_unit)
            reached = hw <= profile.target_rel_ci and halves_agree(to_unit, profile.target_rel_ci)
            left = cap - (time.monotonic() - t0)
            if reached or left <= 0 or len(raw) >= MAX_ADAPTIVE_SAMPLES:
                break
            # what fits in the time left at the pace so far (set-up included):
            # a benchmark that times whole runs itself may not stop at max_total_s
            fits = int(left / ((time.monotonic() - t0) / len(raw)))
            batch = _next_batch(to_unit, profile, n_samples, fits, setup_samples)
            out = _worker.call(bench.name, params, profile, batch,
                               iterations=first["iterations"],
                               max_total_s=min(profile.max_total_s, left), setup=setup,
                               stop=stop_for and stop_for(batch, raw))
            raw = raw + out["ns"]
            ticks = ticks + out["ticks"] if ticks is not None and out["ticks"] is not None else None
            ghz = ghz + out["ghz"] if ghz is not None and out["ghz"] is not None else None
            info = out["info"]
            migrations += info["cpu_migrations"]
            setup_ns, settle_ns = setup_ns + info["setup_ns"], settle_ns + info["settle_ns"]
            process["threads_after"] = max(process["threads_after"],
                                           out["process"]["threads_after"])
            batches += 1
        adaptive = {"target_rel_ci": profile.target_rel_ci, "time_cap_s": profile.time_cap_s,
                    "batches": batches, "reached": bool(reached), "rel_ci_halfwidth": hw,
                    "elapsed_s": time.monotonic() - t0}
    samples = [bench.to_unit(x, params) for x in raw]
    placement = {"cpu_requested": out["cpu"], "helper_cpu": info["helper_cpu"],
                 "cpu_first": first["cpu_first"], "cpu_last": info["cpu_last"],
                 "cpu_migrations": migrations}
    diag = diagnostics.diagnose(samples, ghz, placement,
                                out["after"].since(before, diagnostics.measuring_cpus(placement)))
    if adaptive:
        diag["adaptive"] = adaptive
    if setup_ns > 0:   # where the wall went besides calibration and samples
        diag["setup_s"], diag["settle_s"] = setup_ns / 1e9, settle_ns / 1e9
    return Result(
        benchmark=bench.name,
        params=dict(params),
        unit=bench.unit,
        higher_is_better=bench.higher_is_better,
        samples=samples,
        ns_per_iteration=raw,
        tsc_ticks_per_iteration=ticks,
        clock_ghz=ghz,
        iterations_per_sample=int(first["iterations"]),
        placement=placement,
        clock_resolution_ns=info["clock_resolution_ns"],
        overhead_ns=first["overhead_ns"],
        calibration_s=first["calibration_ns"] / 1e9,
        profile=profile.name,
        machine=machine,
        timestamp=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        counts=bench.counts,
        extras=out["extras"],
        calibrated_sample_ns=first["calibrated_sample_ns"],
        diagnostics=diag,
        provenance=provenance(),
        process=process,
    )


def _recorded(result: Result, recorder) -> Result:
    """Hand the result to the caller's recorder, if they gave one (anything
    with ``add``: benchlib.results.store.Recorder)."""
    if recorder is not None:
        recorder.add(result)
    return result


#: An adaptive run stops at this many samples whatever its interval.
MAX_ADAPTIVE_SAMPLES = 100_000


def adaptive_stop(bench: Benchmark, params: dict, profile: Profile):
    """The C core's adaptive stop for ``bench``, or None: a function of a
    call's sample count (and the samples of earlier calls) that gives the
    worker the rule (``rel_ci``, ``reciprocal``, ``ranks``), so that
    bl_measure ends a call as soon as the median's interval of all the
    samples so far is within the target, with no set-up built again for a
    batch that was not needed.  The rule judges the samples in ns: it needs
    the unit to be proportional to the time (us) or to its inverse (MB/s),
    which ``to_unit`` at 1 and 2 ns says; otherwise None, and the harness's
    batches alone decide.  Both stop only where the samples' two halves
    agree (``summary.halves_agree``): a run still settling goes on.  A
    later call's samples are judged with the earlier calls' (``prior``, in
    ns): the interval is of them all.  The harness checks the interval
    again on the samples it gets back, so a benchmark that ignores the rule
    only costs its whole batch."""
    if not profile.target_rel_ci:
        return None
    try:
        a, b = float(bench.to_unit(1.0, params)), float(bench.to_unit(2.0, params))
    except (ArithmeticError, KeyError, TypeError, ValueError):
        return None
    if not (math.isfinite(a) and math.isfinite(b)) or a == 0:
        return None
    if math.isclose(b, 2 * a, rel_tol=1e-9):
        reciprocal = False
    elif math.isclose(b, a / 2, rel_tol=1e-9):
        reciprocal = True
    else:
        return None

    def stop_for(n: int, earlier=()) -> dict:
        total = len(earlier) + n
        return {"rel_ci": profile.target_rel_ci, "reciprocal": reciprocal,
                "ranks": _rank_table(total)[:total + 1].tolist(), "prior": list(earlier)}
    return stop_for


@functools.lru_cache(maxsize=8)
def _ranks_up_to(n_max: int):
    from benchlib.stats.summary import median_ci_rank_table
    return median_ci_rank_table(n_max, 0.95)


def _rank_table(n: int):
    """The 95 % ranks up to at least n (a power of two: a few tables serve
    every batch)."""
    return _ranks_up_to(1 << max(4, int(n).bit_length()))


def _next_batch(samples, profile: Profile, n_samples: int | None,
                fits: int | None = None, setup_samples: int = 0) -> int:
    """The size of an adaptive run's next batch: the samples the interval
    still lacks, half again to spare, at least the first batch's size.
    How many it needs in all comes from the samples' robust spread (1.4826
    times their median absolute deviation, sigma): the median's 95 %
    interval spans about 1.96 x 1.2533 sigma / sqrt(n) either side of it
    (1.2533 = sqrt(pi / 2), the median's standard error over the mean's),
    so (1.96 x 1.2533 sigma / (target x median))^2 samples.  Not from the
    interval so far: six samples' interval is their range, which one
    outlier widens five-fold.  Each batch is a call that builds its
    benchmark's set-up again (a 64 MiB buffer: 20-30 ms, the time of 10
    samples of its read; eight processes: 5-8 ms), so a batch too large
    costs less than one batch more: a batch takes at least
    ``setup_samples``, what the first call cost besides its samples, in
    samples (its set-up is then at most half of the batch's time).
    ``fits``: the samples the time left holds at the pace so far; a larger
    batch is cut to it (never below the first batch's size)."""
    first = n_samples or profile.n_samples
    x = np.asarray(samples, dtype=float)
    n = x.size
    med = float(np.median(x)) if n else math.nan
    sigma = 1.4826 * float(np.median(np.abs(x - med))) if n else math.nan
    if not (math.isfinite(med) and med and math.isfinite(sigma)):
        return first
    needed = (1.96 * 1.2533 * sigma / (profile.target_rel_ci * abs(med))) ** 2
    lacking = max(math.ceil(1.5 * needed) - n, setup_samples)
    if fits is not None:
        lacking = min(lacking, fits)
    return int(min(max(lacking, first), MAX_ADAPTIVE_SAMPLES - n))


def adaptive_profile(profile: str | Profile, target_rel_ci: float | None = None,
                     time_cap_s: float | None = None) -> Profile:
    """``profile`` with adaptive sampling asked for (either argument may be
    None): its samples TARGETED_SAMPLE_MS long, or its own if shorter."""
    prof = get_profile(profile)
    if target_rel_ci is None and time_cap_s is None:
        return prof
    if target_rel_ci is not None and not 0 < target_rel_ci < 1:
        raise BenchlibError(f"target_rel_ci must be between 0 and 1; got {target_rel_ci}")
    if time_cap_s is not None and not time_cap_s > 0:
        raise BenchlibError(f"time_cap_s must be > 0; got {time_cap_s}")
    return replace(prof, target_rel_ci=target_rel_ci or prof.target_rel_ci or 0.03,
                   time_cap_s=time_cap_s or prof.time_cap_s or 30.0,
                   target_sample_ms=min(prof.target_sample_ms, TARGETED_SAMPLE_MS))


def run(name: str, params: Mapping[str, Any] | None = None, *, profile: str | Profile = "quick",
        n_samples: int | None = None, target_rel_ci: float | None = None,
        time_cap_s: float | None = None, recorder=None, setup: dict | None = None,
        **kwparams) -> Result:
    """Run one benchmark once and return its Result.

    Parameters may be given as a dict, as keywords, or both; values may be
    strings (``"64k"``) as on the command line.  ``target_rel_ci`` (e.g.
    0.03) and ``time_cap_s`` ask for adaptive sampling (see Profile).
    ``recorder`` (a ``benchlib.results.store.Recorder``) records the result.
    ``setup`` (per-process switches, ``benchlib.measuring.worker.SETUPS``)
    measures in a worker made with them (the result's ``process["setup"]``)."""
    bench = get_benchmark(name)
    resolved = bench.resolve({**(params or {}), **kwparams})
    prof = adaptive_profile(profile, target_rel_ci, time_cap_s)
    return _recorded(_measure(bench, resolved, prof, n_samples, setup), recorder)


def expand_grid(grid: Mapping[str, Iterable]) -> list[dict]:
    keys = list(grid)
    values = [list(v) if not isinstance(v, (str, bytes)) else [v] for v in grid.values()]
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


def sweep(name: str, grid: Mapping[str, Iterable], *, profile: str | Profile = "quick",
          n_samples: int | None = None, progress: bool = True, results: list | None = None,
          recorder=None, shuffle: bool = False, **fixed) -> pd.DataFrame:
    """Run a benchmark over the cartesian product of ``grid`` and return a
    tidy DataFrame, one row per point, parameters as columns.

    Every point is validated before anything is measured.  Pass a list as
    ``results`` to receive the full Result objects; pass ``recorder`` (a
    ``benchlib.results.store.Recorder``) to record each as it is measured.
    ``shuffle=True`` measures the points in random order (the rows still
    come back in grid order): a stretch of interference from outside then
    spreads over scattered points instead of shifting neighbouring ones,
    where it would look like a feature of the curve."""
    from benchlib.progress import tqdm

    bench = get_benchmark(name)
    prof = get_profile(profile)
    points = [bench.resolve({**fixed, **p}) for p in expand_grid(grid)]
    order = list(range(len(points)))
    if shuffle:
        np.random.default_rng().shuffle(order)
    rows: list = [None] * len(points)
    with tqdm(order, desc=name, unit="point", disable=not progress, leave=False) as bar:
        for i in bar:
            r = _recorded(_measure(bench, points[i], prof, n_samples), recorder)
            if results is not None:
                results.append(r)
            rows[i] = r.to_row()
    df = pd.DataFrame(rows)
    df.attrs["machine"] = machine_info()
    return df
