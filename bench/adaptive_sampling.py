"""How long each core benchmark takes to know its median within 3% (the 95%
bootstrap interval's half-width over the median), against the fixed quick
profile; quiet, or with a busy loop pinned to another CPU (--noise).

    flock /work/cpu.lock .venv/bin/python bench/adaptive_sampling.py [--noise] [--cap 20] [--json FILE]
    .venv/bin/python bench/adaptive_sampling.py --rounds 7 --cpu 0 [--only syscall ...]

With --rounds N each benchmark is measured N times both ways, interleaved
(which goes first drawn each round), and the table gives the adaptive
median over quick's (the median of the rounds' ratios and its bootstrap 95 %
interval: whether the adaptive run's shorter samples,
benchlib.profiles.TARGETED_SAMPLE_MS, move the figure) and each way's
worker wall time (the measurement alone, as bench/compare_perf.py counts
it).

Every sample is timed in C: after the first batch (calibrated as usual),
the harness asks the C core for further batches at the same iteration
count until the interval is narrow enough or the time cap has passed.
The wall times here are of the whole run() call (calibration, warm-up,
helper processes included), measured around it with a monotonic clock."""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

# the core suite's benchmarks that a user compares most (bench/core_suite.py)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from core_suite import CORE  # noqa: E402

ADAPTIVE = {("syscall", "getpid"), ("syscall", "getppid"), ("pipe_latency", "same_cpu"),
            ("bcopy", "16k"), ("bcopy", "64M"), ("mem_latency", "1M"), ("context_switch", 2),
            ("process_creation", "fork_exit"), ("fs_create_delete", 0), ("ipc_latency", "tcp"),
            ("cpu_clock", None)}
BENCHMARKS = [(name, params) for name, params in CORE
              if (name, next(iter(params.values()), None)) in ADAPTIVE]


def start_noise(cpu: int) -> subprocess.Popen:
    """A busy loop pinned to `cpu`, in its own process group."""
    return subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c", "while :; do :; done"],
                            start_new_session=True)


def stop_noise(p: subprocess.Popen) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


def _pct(x):
    return None if x is None else round(100 * x, 1)


def measure(target: float, cap: float, benchmarks=None, cpu: int | None = None,
            rng=None) -> list[dict]:
    import benchlib

    rows = []
    for name, params in benchmarks or BENCHMARKS:
        if cpu is not None and "cpu" not in params:
            params = {**params, "cpu": cpu}
        ways = {"quick": {}, "adaptive": {"target_rel_ci": target, "time_cap_s": cap}}
        sides = list(ways)
        if rng is not None and rng.random() < 0.5:
            sides.reverse()
        got = {}
        for side in sides:
            t0 = time.monotonic()
            got[side] = (benchlib.run(name, params, profile="quick", **ways[side]),
                         time.monotonic() - t0)
        (fixed, t_fixed), (ad, t_ad) = got["quick"], got["adaptive"]
        a = ad.diagnostics["adaptive"]
        label = " ".join([name, *(f"{k}={v}" for k, v in params.items())])
        rows.append({"benchmark": label, "unit": fixed.unit,
                     "quick_s": t_fixed, "quick_n": fixed.n_samples,
                     "quick_ci_pct": 100 * fixed.diagnostics["ci95_rel_halfwidth"],
                     "quick_median": fixed.median,
                     "adaptive_s": t_ad, "adaptive_n": ad.n_samples,
                     "adaptive_ci_pct": 100 * a["rel_ci_halfwidth"], "reached": a["reached"],
                     "adaptive_median": ad.median,
                     "quick_worker_s": fixed.diagnostics["wall_s"],
                     "adaptive_worker_s": ad.diagnostics["wall_s"],
                     # what the host did during the adaptive run
                     "steal_pct": _pct(ad.diagnostics.get("steal_fraction")),
                     "runqueue_wait_pct": _pct(ad.diagnostics.get("runqueue_wait_fraction")),
                     "loadavg_1min": ad.diagnostics["loadavg"][0]})
        r = rows[-1]
        print(f"{label:34s} quick {r['quick_s']:6.2f} s n={r['quick_n']:<4d} CI ±{r['quick_ci_pct']:5.1f}% | "
              f"to {100 * target:g}%: {r['adaptive_s']:6.2f} s n={r['adaptive_n']:<5d} "
              f"CI ±{r['adaptive_ci_pct']:5.1f}% {'reached' if r['reached'] else 'CAPPED'} | "
              f"steal {r['steal_pct']}% wait {r['runqueue_wait_pct']}% load {r['loadavg_1min']:.1f}",
              flush=True)
    return rows


def by_benchmark(rows: list[dict]) -> list[dict]:
    """Per benchmark over the rounds: the adaptive median over quick's (the
    rounds' ratios' median and bootstrap 95 % interval) and the median worker
    wall time of each way."""
    import numpy as np

    from benchlib.stats.paired import paired_ratio

    out = []
    for label in dict.fromkeys(r["benchmark"] for r in rows):
        rs = [r for r in rows if r["benchmark"] == label]
        pr = paired_ratio([r["adaptive_median"] for r in rs], [r["quick_median"] for r in rs],
                          band=(0.97, 1.03))
        out.append({"benchmark": label, "rounds": len(rs), "ratio": pr["ratio_median"],
                    "ci_low": pr["ci_low"], "ci_high": pr["ci_high"],
                    "quick_worker_s": float(np.median([r["quick_worker_s"] for r in rs])),
                    "adaptive_worker_s": float(np.median([r["adaptive_worker_s"] for r in rs])),
                    "adaptive_samples": int(np.median([r["adaptive_n"] for r in rs]))})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--noise", action="store_true", help="busy loop pinned to the last allowed CPU")
    ap.add_argument("--target", type=float, default=0.03)
    ap.add_argument("--cap", type=float, default=20.0, help="time cap per benchmark, seconds")
    ap.add_argument("--json", metavar="FILE", help="also write the rows here")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure each benchmark this many times both ways, interleaved, and "
                         "tabulate the adaptive median over quick's")
    ap.add_argument("--cpu", type=int, help="pin both ways to this CPU")
    ap.add_argument("--only", nargs="+", metavar="NAME",
                    help="these benchmarks of the core suite (bench/core_suite.py), not the default "
                         "eleven; 'all': every one")
    ap.add_argument("--seed", type=int, default=20261128)
    args = ap.parse_args(argv)
    benchmarks = BENCHMARKS if not args.only else [
        (n, p) for n, p in CORE if "all" in args.only or n in args.only]
    noise = None
    if args.noise:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            print("--noise needs two CPUs", file=sys.stderr)
            return 2
        noise = start_noise(cpus[-1])
    try:
        print(f"condition: {'busy loop on CPU ' + str(sorted(os.sched_getaffinity(0))[-1]) if noise else 'quiet'}; "
              f"target ±{100 * args.target:g}%, cap {args.cap:g} s", flush=True)
        import random
        rng = random.Random(args.seed) if args.rounds > 1 else None
        rows = []
        for _ in range(args.rounds):
            rows += measure(args.target, args.cap, benchmarks, args.cpu, rng)
    finally:
        if noise:
            stop_noise(noise)
    summary = by_benchmark(rows) if args.rounds > 1 else []
    if summary:
        print("\n| benchmark | rounds | adaptive median / quick median [95 % CI] | quick: worker s "
              "| adaptive: worker s (samples) |\n| --- | --- | --- | --- | --- |")
        for r in summary:
            print(f"| {r['benchmark']} | {r['rounds']} | {r['ratio']:.3f} [{r['ci_low']:.3f}, "
                  f"{r['ci_high']:.3f}] | {r['quick_worker_s']:.3f} | "
                  f"{r['adaptive_worker_s']:.3f} ({r['adaptive_samples']}) |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"noise": args.noise, "target": args.target, "cap_s": args.cap,
                       "rounds": args.rounds, "rows": rows, "summary": summary}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
