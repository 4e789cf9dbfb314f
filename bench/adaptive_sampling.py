"""How long each core benchmark takes to know its median within 3% (the 95%
bootstrap interval's half-width over the median), against the fixed quick
profile; quiet, or with a busy loop pinned to another CPU (--noise).

    flock /work/cpu.lock .venv/bin/python bench/adaptive_sampling.py [--noise] [--cap 20] [--json FILE]

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


def measure(target: float, cap: float) -> list[dict]:
    import benchlib

    rows = []
    for name, params in BENCHMARKS:
        t0 = time.monotonic()
        fixed = benchlib.run(name, params, profile="quick")
        t_fixed = time.monotonic() - t0
        t0 = time.monotonic()
        ad = benchlib.run(name, params, profile="quick", target_rel_ci=target, time_cap_s=cap)
        t_ad = time.monotonic() - t0
        a = ad.diagnostics["adaptive"]
        label = " ".join([name, *(f"{k}={v}" for k, v in params.items())])
        rows.append({"benchmark": label, "unit": fixed.unit,
                     "quick_s": t_fixed, "quick_n": fixed.n_samples,
                     "quick_ci_pct": 100 * fixed.diagnostics["ci95_rel_halfwidth"],
                     "quick_median": fixed.median,
                     "adaptive_s": t_ad, "adaptive_n": ad.n_samples,
                     "adaptive_ci_pct": 100 * a["rel_ci_halfwidth"], "reached": a["reached"],
                     "adaptive_median": ad.median,
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--noise", action="store_true", help="busy loop pinned to the last allowed CPU")
    ap.add_argument("--target", type=float, default=0.03)
    ap.add_argument("--cap", type=float, default=20.0, help="time cap per benchmark, seconds")
    ap.add_argument("--json", metavar="FILE", help="also write the rows here")
    args = ap.parse_args(argv)
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
        rows = measure(args.target, args.cap)
    finally:
        if noise:
            stop_noise(noise)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"noise": args.noise, "target": args.target, "cap_s": args.cap, "rows": rows},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
