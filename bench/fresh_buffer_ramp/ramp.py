#!/usr/bin/env python3
"""Read ramp.c's output: how a fresh 64 MiB buffer's passes speed up, and
what each settle rule leaves in a six-sample figure.

    python ramp.py FILE [FILE ...]

Per file: the build's time; each pass's median speed over the builds as a
fraction of the build's own steady speed (the median of its last third of
passes); the core clock's 5th to 95th percentile over all passes (a probe
the host preempts reads low, hence not the extremes); how many ms of passes
came before the speed first held (three passes in a row at 0.97 of the
steady speed or more), in percentiles over the builds; and, for settle
rules of a fixed count of passes or a fixed time of passes, the six
samples' median against the steady speed (p10, p50, p90 over builds) and
the wall to the last sample (build + settle + six passes)."""
from __future__ import annotations

import sys

import numpy as np

SAMPLES = 6      # the fewest samples whose median has a 95 % interval
HELD = 0.97      # a pass at this fraction of the steady speed or more


def read(path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(build ms, GB/s per pass, GHz per pass), one row a build."""
    builds, speeds, clocks = [], [], []
    for line in open(path):
        fields = line.split()
        if not fields:
            continue
        builds.append(float(fields[0].split("=")[1]))
        pairs = [f.split("/") for f in fields[1:]]
        speeds.append([float(a) for a, _ in pairs])
        clocks.append([float(b) for _, b in pairs])
    return np.array(builds), np.array(speeds), np.array(clocks)


def steady(speeds: np.ndarray) -> np.ndarray:
    return np.median(speeds[:, 2 * speeds.shape[1] // 3:], axis=1)


def held_after_ms(speeds: np.ndarray, ms: np.ndarray) -> np.ndarray:
    """ms of passes before the speed first holds at HELD (inf: never)."""
    out = []
    for row, t in zip(speeds / steady(speeds)[:, None], ms):
        k = next((i for i in range(len(row) - 2) if (row[i:i + 3] >= HELD).all()), None)
        out.append(np.inf if k is None else (t[k - 1] if k > 0 else 0.0))
    return np.array(out)


def rule_report(name: str, settle: list[int], speeds: np.ndarray, ms: np.ndarray,
                build_ms: np.ndarray) -> str:
    bias, wall = [], []
    for row, t, s, b, p in zip(speeds, ms, settle, build_ms, steady(speeds)):
        s = min(s, len(row) - SAMPLES)
        bias.append(np.median(row[s:s + SAMPLES]) / p - 1)
        wall.append(b + t[s + SAMPLES - 1])
    bias = np.array(bias) * 100
    return (f"  {name:22s} six samples against the steady speed: p10 {np.percentile(bias, 10):+5.1f} %"
            f", p50 {np.median(bias):+5.1f} %, p90 {np.percentile(bias, 90):+5.1f} %; "
            f"wall p50 {np.median(wall):5.1f} ms, p90 {np.percentile(wall, 90):5.1f} ms")


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        build_ms, speeds, clocks = read(path)
        if speeds.shape[1] < 3 * SAMPLES:
            sys.exit(f"ramp.py: {path}: {speeds.shape[1]} passes a build; need {3 * SAMPLES}")
        ms = np.cumsum((64 << 20) / speeds / 1e6, axis=1)
        ratio = np.median(speeds / steady(speeds)[:, None], axis=0)
        held = held_after_ms(speeds, ms)
        print(f"{path}: {len(speeds)} builds of {speeds.shape[1]} passes; build "
              f"{np.median(build_ms):.1f} ms; steady {np.median(steady(speeds)):.1f} GB/s; core "
              f"clock p5-p95 {np.percentile(clocks, 5):.2f}-{np.percentile(clocks, 95):.2f} GHz")
        print("  pass: median fraction of the steady speed  "
              + " ".join(f"{i + 1}:{x:.2f}" for i, x in enumerate(ratio[:24])))
        print(f"  ms of passes before the speed held (>= {HELD} three passes running): p50 "
              f"{np.percentile(held, 50):.0f}, p75 {np.percentile(held, 75):.0f}, p90 "
              f"{np.percentile(held, 90):.0f}, max {held.max():.0f}")
        for n in (0, 8, 11, 16):
            print(rule_report(f"{n} passes", [n] * len(speeds), speeds, ms, build_ms))
        for t in (30, 50, 80):
            settle = [int(np.searchsorted(row, t)) + 1 for row in ms]
            print(rule_report(f"{t} ms of passes", settle, speeds, ms, build_ms))


if __name__ == "__main__":
    main()
