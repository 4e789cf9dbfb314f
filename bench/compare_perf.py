#!/usr/bin/env python3
"""benchlib beside lmbench3, `perf bench` and fio: paired, interleaved rounds.

    python bench/compare_perf.py [--rounds 7] [--cpu 0] [--directory DIR] [--only WORD ...]
                                 [--lmbench BIN] [--out results/bench]

--lmbench BIN: the folder of lmbench3's programs (../shared/peers/build-lmbench3.sh
prints it); its pairs are then measured too (lat_syscall, lat_sig, lat_proc,
lat_pipe, lat_unix, lat_ctx, lat_select, bw_mem, bw_pipe, bw_unix,
bw_file_rd, bw_mmap_rd), each program run with -N 5 under the same taskset,
benchlib's side with --target-ci 0.03; each pair also records both tools'
wall time (benchlib's: the measurement in its worker; with --lmbench-enough
and --lmbench-default-wall, lmbench3's is that of one more run of each of
its commands as it ships, calibrating itself, after the rounds; with
--lmbench-interval-wall, beside it, lmbench3's wall to a +-3 % interval of
its own figure: each command run as it ships until its runs' median has
one, as benchlib's adaptive run stops).  Where a peer
times something else (lmbench3's signal install, delivery, fork; where perf's
and mbw's buffers lie), a second pair measures benchlib with the peer's
definition (a parameter): the first pair's difference counts as explained
when the second agrees.

Every round measures every pair once, the pairs in a new random order and,
inside a pair, the two tools back to back in a random order; both run
under the same `taskset -c CPU` (benchlib is also given cpu=CPU where the
benchmark pins itself).  A slow phase of a shared host then hits both tools
of a pair alike, and the per-round ratio benchlib/other cancels it.  The
summary of a pair is the median of its per-round ratios with a percentile
bootstrap 95% interval (benchlib.stats.paired), in the pair's unit
(us: below 1 means benchlib measured less time; MB/s: below 1 means
benchlib measured less bandwidth).

Pairs:
  syscall op=getppid / op=getpid      perf bench syscall basic (getppid in a loop)
  pipe_latency same_cpu               perf bench sched pipe (two processes; and -T, two threads)
  context_switch 2 x 0 KB, rebuilt into a round trip, 2 x (hop + overhead)
                                       perf bench sched pipe
  bcopy size_bytes=64 KiB and 64 MiB  perf bench mem memcpy -f default, same size; and bcopy
                                       with perf's buffer offsets (src/dst_offset_bytes)
  disk_io read, 4 KiB, O_DIRECT, sequential and random
                                       fio --direct=1 --ioengine=psync --rw=read|randread --bs=4k
  mem_bandwidth read/write/copy 64 MiB likwid-bench -t load|store|store_avx|copy -w S0:64MB:1
  bcopy 64 MiB                        mbw's memcpy test (-t1 before mbw 1.4, -t0 since)
  mem_bandwidth copy_unrolled 64 MiB  mbw's b[i] = a[i] word loop (-t0 before 1.4, -t1 since)
  mem_bandwidth memset 64 MiB         perf bench mem memset
  io_workload, three workloads, O_DIRECT
                                       fio --rw=randrw --rwmixread --percentage_random --bssplit
                                       (the workload's own request-size distribution)
`perf bench sched messaging` (groups of senders and receivers, many to
many) has no counterpart here: no benchlib benchmark fans out like it.
Nor have `perf bench epoll wait` and `epoll ctl`: they count epoll_wait
wake-ups and epoll_ctl operations per second over many threads fed by
writer threads, where select_latency call=epoll times one thread's
epoll_wait over N ready pipes (lmbench3's lat_select and LEBench's figure).
The files of disk_io and fio live in a temporary folder under --directory
(default: the temp dir, which must allow O_DIRECT), removed at the end.
Bandwidth pairs get more rounds (up to --max-rounds) until their ratio's
95% interval is within +-5 %; one that never narrows is reported as
host-unstable, not as a median.  A pair agrees when its ratio is shown to
lie inside +-10 %: its 90% interval inside the band (two one-sided tests at
alpha 0.05, the rule `benchlib compare` uses for "no difference").  Any pair
whose median is inside +-10 % but whose 90% interval crosses the band's edge
also gets more rounds, up to --max-rounds, until it falls inside (or the
rounds run out).  Output: compare_perf.json, .csv and .png
(the ratios with their intervals and the +-10 % band, the machine named)
and .md (the table for docs/peers.md),
rewritten after every round from the second and on Ctrl-C, so that a long
run keeps what it measured.
Timing thresholds live here, not in the unit tests."""
from __future__ import annotations

import argparse
import csv
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peer_tools import (BANDWIDTH_REL_CI, BENCHLIB, Pair, Tools, bandwidth_pairs,  # noqa: E402,F401
                        io_workload_bssplit, likwid_bandwidth, lmbench_bandwidth, lmbench_ctx,
                        lmbench_mem_row, lmbench_microseconds, lmbench_pairs, make_pairs,
                        mbw_bandwidth, mbw_tests, perf_bandwidth_mb_s, perf_usecs_per_op,
                        same_tool_pairs)

from benchlib.stats.paired import paired_ratio  # noqa: E402

def _one(f: Callable[[], object]) -> tuple[float, float | None, dict | None]:
    """A tool's figure, its wall time and (benchlib) where the wall went."""
    v = f()
    if not isinstance(v, tuple):
        return float(v), None, None
    return float(v[0]), float(v[1]), (v[2] if len(v) > 2 else None)


def measure_round(pairs: list[Pair], rng: random.Random) -> None:
    """Every pair once, in a new random order, the two tools of a pair back
    to back in a random order."""
    order = pairs[:]
    rng.shuffle(order)
    for p in order:
        ours_first = rng.random() < 0.5
        if ours_first:
            ours, ours_s, spent = _one(p.ours)
            theirs, theirs_s, _ = _one(p.theirs)
        else:
            theirs, theirs_s, _ = _one(p.theirs)
            ours, ours_s, spent = _one(p.ours)
        p.values["ours"].append(ours)
        p.values["ours_breakdown"].append(spent)
        p.values["theirs"].append(theirs)
        p.values["ours_wall_s"].append(ours_s)
        p.values["theirs_wall_s"].append(theirs_s)
        p.values["first"].append("benchlib" if ours_first else p.tool)


def needs_more_rounds(p: Pair) -> bool:
    """A pair whose verdict more rounds can still change: a bandwidth pair
    whose ratio's 95 % interval is still wider than +-min_rounds_rel_ci of
    its median, or any pair whose median lies inside the +-10 % band while
    its 90 % interval crosses the band's edge (one noisy round of five stretches
    a bootstrap interval of the median to that round; more rounds decide
    whether the pair agrees)."""
    if len(p.values["ours"]) < 3:
        return p.min_rounds_rel_ci is not None
    s = paired_ratio(p.values["ours"], p.values["theirs"], band=AGREE_BAND)
    if p.min_rounds_rel_ci is not None and \
            (s["ci_high"] - s["ci_low"]) / 2 > p.min_rounds_rel_ci * s["ratio_median"]:
        return True
    return AGREE_BAND[0] <= s["ratio_median"] <= AGREE_BAND[1] and not s["equivalent"]


def run_rounds(pairs: list[Pair], rounds: int, rng: random.Random, max_rounds: int | None = None,
               after_round: Callable[[int], None] | None = None) -> None:
    """``rounds`` rounds of every pair; then, up to ``max_rounds`` in all,
    more rounds of the pairs whose verdict is not yet decided
    (:func:`needs_more_rounds`: a noisy host needs more of them; a
    bandwidth pair that never settles is reported as such)."""
    for k in range(rounds):
        t0 = time.monotonic()
        measure_round(pairs, rng)
        print(f"round {k + 1}/{rounds} done ({time.monotonic() - t0:.0f} s)", flush=True)
        if after_round and k >= 1:
            after_round(k + 1)
    k = rounds
    while max_rounds and k < max_rounds:
        more = [p for p in pairs if needs_more_rounds(p)]
        if not more:
            break
        k += 1
        measure_round(more, rng)
        print(f"round {k}/{max_rounds}: {len(more)} pairs not yet decided "
              f"(bandwidth to +-{100 * BANDWIDTH_REL_CI:.0f} %, or an interval across the "
              f"+-10 % band's edge)", flush=True)
        if after_round:
            after_round(k)


AGREE_BAND = (0.90, 1.10)


def agreement(s: dict, explained: str, variant: dict | None = None,
              same_tool: dict | None = None,
              explained_range: tuple[float, float] | None = None) -> str:
    """agree: the ratio shown inside +-10 % (its 90% interval inside the
    band: TOST at alpha 0.05, as ``ratio_verdict``'s "no difference").  Otherwise
    differ-explained when the pair that measures benchlib with the peer's
    definition (``variant``'s summary) agrees, or when a written explanation
    names what each tool times (either way, where ``explained_range`` gives
    the ratios the explanation was measured to cover, only when the median
    lies inside them); else host-limited when the pair is not shown
    to differ either (its 95 % interval reaches into the band) and the peer's
    own A/A pair (``same_tool``: the peer against itself on the same host,
    from a --same-tool run) was not shown to agree, so the host's noise alone
    keeps the pair undecided; else differ-unexplained.  A bandwidth pair
    whose interval never narrowed to +-5 % is host-unstable."""
    if s["equivalent"]:
        return "agree"
    in_range = explained_range is None or \
        explained_range[0] <= s["ratio_median"] <= explained_range[1]
    if variant is not None and variant.get("equivalent") and in_range:
        return "differ-explained"
    if s.get("host_unstable"):
        return "host-unstable"
    if explained and in_range:
        return "differ-explained"
    not_shown_to_differ = s["ci_low"] <= AGREE_BAND[1] and s["ci_high"] >= AGREE_BAND[0]
    if same_tool is not None and not same_tool.get("equivalent") and not_shown_to_differ:
        return "host-limited"
    return "differ-unexplained"


def summarise(p: Pair, variant: dict | None = None, same_tool: dict | None = None) -> dict:
    s = paired_ratio(p.values["ours"], p.values["theirs"], band=AGREE_BAND)
    if p.min_rounds_rel_ci is not None:
        s["host_unstable"] = (s["ci_high"] - s["ci_low"]) / 2 > p.min_rounds_rel_ci * s["ratio_median"]
    s["agreement"] = agreement(s, p.explained, variant, same_tool, p.explained_range)
    if same_tool is not None:
        s["peer_a_a"] = {k: same_tool[k] for k in ("ratio_median", "ci_low", "ci_high",
                                                   "ci90_low", "ci90_high", "equivalent")}
    ours_v, theirs_v = (p.explained_by.split(" | ") + [""])[:2]
    what = (f"{p.tool}'s definition ({ours_v})" if ours_v != p.label.split(" | ")[0]
            else f"{p.tool}'s other kernel ({theirs_v})")     # the same figure of ours
    s["explained"] = p.explained or (f"with {what}: ratio {variant['ratio_median']:.3f} "
                                     f"[{variant['ci_low']:.3f}, {variant['ci_high']:.3f}]"
                                     if variant else "")
    walls = [w for w in p.values["ours_wall_s"] if w is not None]
    their_walls = [w for w in p.values["theirs_wall_s"] if w is not None]
    spent = [b for b in p.values.get("ours_breakdown", []) if b]
    for k in ("setup_s", "settle_s", "samples"):
        got = [b[k] for b in spent if b.get(k) is not None]
        if got:   # where benchlib's wall went, the median over rounds
            s[f"benchlib_{k}"] = float(np.median(got))
    if walls and their_walls:
        s["benchlib_wall_s"] = float(np.median(walls))
        s["other_wall_s"] = float(np.median(their_walls))
        s["wall_ratio"] = s["benchlib_wall_s"] / s["other_wall_s"]
        s["wall_basis"] = "the rounds' runs"
    default = p.values.get("theirs_default")
    if walls and default:
        # lmbench3 as it ships (its own calibration): the wall a user waits
        s["other_default_value"], s["other_default_wall_s"] = default
        s["wall_ratio"] = s["benchlib_wall_s"] / s["other_default_wall_s"]
        s["wall_basis"] = "lmbench3's own calibration (one run)"
    interval = p.values.get("theirs_interval")
    if walls and interval:
        # beside the criterion: lmbench3 run until its own +-3 % interval
        s["other_interval_runs"], s["other_interval_wall_s"] = interval["runs"], interval["wall_s"]
        s["other_interval_reached"] = interval["reached"]
        s["interval_wall_ratio"] = s["benchlib_wall_s"] / interval["wall_s"]
    return {"unit": p.unit, "benchlib": p.ours_cmd, "other": p.theirs_cmd,
            "explained_by": p.explained_by,
            "benchlib_values": p.values["ours"], "other_values": p.values["theirs"],
            "first": p.values["first"],
            "benchlib_median": float(np.median(p.values["ours"])),
            "other_median": float(np.median(p.values["theirs"])), **s}


def summarise_all(pairs: list[Pair], same_tool: dict | None = None) -> dict[str, dict]:
    """Every pair's summary, the variants first (a pair's explanation reads
    its variant's); ``same_tool``: an A/A report's pairs by the peer's
    command (:func:`same_tool_by_command`)."""
    by_label = {p.label: p for p in pairs}
    out: dict[str, dict] = {}
    for p in sorted(pairs, key=lambda p: bool(p.explained_by)):
        v = by_label.get(p.explained_by)
        out[p.label] = summarise(p, out.get(v.label) if v else None,
                                 (same_tool or {}).get(p.theirs_cmd))
    return {p.label: out[p.label] for p in pairs}


def plot(report: dict, path: Path) -> None:
    """One row per pair: the ratio's median and 95 % interval, the +-10 %
    band shaded, the machine in the title."""
    import matplotlib
    import matplotlib.ticker
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(report["pairs"].items())
    colours = {"agree": "tab:green", "differ-explained": "tab:orange",
               "differ-unexplained": "tab:red", "host-unstable": "tab:purple",
               "host-limited": "tab:blue"}
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(rows) + 1.5))
    for i, (label, s) in enumerate(rows):
        ax.errorbar(s["ratio_median"], i, xerr=[[s["ratio_median"] - s["ci_low"]],
                                                [s["ci_high"] - s["ratio_median"]]],
                    fmt="o", color=colours[s["agreement"]], capsize=2)
    ax.axvspan(*AGREE_BAND, color="0.9", zorder=0)
    ax.axvline(1, color="0.5", lw=0.8)
    ax.set_yticks(range(len(rows)), [label for label, _ in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    lo = min(s["ci_low"] for _, s in rows)
    hi = max(s["ci_high"] for _, s in rows)
    ticks = [t for t in (0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 10) if lo / 1.2 <= t <= hi * 1.2]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("benchlib / peer (median of per-round ratios, 95 % interval)\n"
                  "grey: +-10 %")
    m = report.get("machine", {})
    ax.set_title(f"benchlib against its peers on {m.get('cpu_model', '?')}\n"
                 f"({m.get('cpus_online', '?')} CPUs, {m.get('kernel', '?')}), pinned to CPU "
                 f"{report['cpu']}, {report['rounds']}+ rounds", fontsize=9)
    for name, c in colours.items():
        ax.plot([], [], "o", color=c, label=name)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")  # long labels stay whole
    plt.close(fig)


def run_to_run(windows: int) -> list[dict]:
    """Windows of five back-to-back CLI calls, so that one noisy phase of
    the host is seen as such rather than taken for the rule."""
    from benchlib.stats.summary import relative_spread

    out = []
    for window in range(windows):
        runs = [json.loads(subprocess.run([*BENCHLIB, "run", "syscall", "--json"], check=True,
                                          capture_output=True, text=True).stdout)
                for _ in range(5)]
        medians = [r["median"] for r in runs]
        cycles = [r["median_cycles"] for r in runs]
        spread, cspread = relative_spread(medians), relative_spread(cycles)
        out.append({"medians_us": medians, "spread": spread, "median_cycles": cycles,
                    "cycles_spread": cspread})
        print(f"five `benchlib run syscall` (window {window + 1}): medians "
              f"{' '.join(f'{v:.4f}' for v in medians)} us -> spread {100 * spread:.1f}%; "
              f"cycles {' '.join(f'{c:.0f}' for c in cycles)} -> {100 * cspread:.1f}%", flush=True)
    return out


#: A peer figure's verdict is the best of its pairs' in this order.
VERDICT_ORDER = ("agree", "differ-explained", "host-unstable", "host-limited", "differ-unexplained")


def by_peer_figure(report: dict) -> dict[str, str]:
    """Each peer command's verdict.  A pair whose variant measures the same
    peer command with the peer's definition (``explained_by``) reads the
    better of its own verdict and the variant's; the peer command then
    reads the worst of its pairs (VERDICT_ORDER): so a figure agrees when
    benchlib, measuring what the peer measures, agrees, and one pair that
    differs with no such variant is not hidden by another pair of the same
    command that agrees.  A variant of another peer command (likwid-bench's
    AVX store beside its scalar one) does not stand for this one."""
    pairs = report["pairs"]
    rank = VERDICT_ORDER.index
    out: dict[str, str] = {}
    for v in pairs.values():
        own = v["agreement"]
        var = pairs.get(v.get("explained_by") or "")
        if var is not None and var["other"] == v["other"] and rank(var["agreement"]) < rank(own):
            own = var["agreement"]
        cur = out.get(v["other"])
        if cur is None or rank(own) > rank(cur):
            out[v["other"]] = own
    return out


def inside_band_by_peer_figure(report: dict) -> dict[str, bool]:
    """Each peer command: is the median ratio inside the +-10 % band (the
    issue's "inside +-10 %", looser than ``agree``, which asks the 90 %
    interval to be)?  Read as :func:`by_peer_figure` reads verdicts: a pair
    whose variant measures the same peer command with the peer's definition
    counts as inside when either is, and a command is inside when all its
    pairs are."""
    pairs = report["pairs"]

    def inside(v: dict) -> bool:
        return AGREE_BAND[0] <= v["ratio_median"] <= AGREE_BAND[1]
    out: dict[str, bool] = {}
    for v in pairs.values():
        var = pairs.get(v.get("explained_by") or "")
        own = inside(v) or (var is not None and var["other"] == v["other"] and inside(var))
        out[v["other"]] = out.get(v["other"], True) and own
    return out


def tally(report: dict) -> str:
    """The counts over every pair, and over the peer figures
    (:func:`by_peer_figure`)."""
    def counts(verdicts):
        return ", ".join(f"{sum(a == x for x in verdicts)} {a}" for a in VERDICT_ORDER)
    pairs = [v["agreement"] for v in report["pairs"].values()]
    figs = list(by_peer_figure(report).values())
    inside = list(inside_band_by_peer_figure(report).values())
    return (f"pairs: {counts(pairs)} of {len(pairs)} ({100 * pairs.count('agree') / len(pairs):.0f} % "
            f"agree); peer figures, each against benchlib with its definition: {counts(figs)} of "
            f"{len(figs)} ({100 * figs.count('agree') / len(figs):.0f} % agree); the median "
            f"ratio inside +-10 %: {sum(inside)} of {len(inside)} peer figures")


def interval_tally(report: dict) -> str:
    """The comparison beside the wall criterion: benchlib's +-3 % figure
    against lmbench3 run until its own +-3 % interval ("" when not measured)."""
    got = [v for v in report["pairs"].values() if v.get("interval_wall_ratio") is not None]
    if not got:
        return ""
    return (f"; beside it, in at most 1/10 of lmbench3's wall to a +-3 % interval of its own "
            f"(runs as it ships until then, at most {INTERVAL_MAX_RUNS}): "
            f"{sum(v['interval_wall_ratio'] <= 0.1 for v in got)} of {len(got)} (reached by "
            f"lmbench3 in {sum(bool(v['other_interval_reached']) for v in got)})")


def markdown_table(report: dict) -> str:
    """The table for docs/peers.md: every pair, its medians, the ratio with
    its 95 % and 90 % intervals, the agreement column and the wall-time ratio."""
    lines = ["| pair | unit | benchlib | other | ratio [95 % CI] | 90 % CI | rounds | agreement | "
             "wall benchlib/other |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for label, v in report["pairs"].items():
        wall = f"{v['wall_ratio']:.3f}" if v.get("wall_ratio") is not None else ""
        if wall and v.get("benchlib_setup_s") is not None:
            # where benchlib's wall went: the build (its settle passes), the samples
            wall += (f" ({v['benchlib_wall_s'] * 1e3:.0f} ms: build "
                     f"{(v['benchlib_setup_s'] - (v.get('benchlib_settle_s') or 0)) * 1e3:.0f}"
                     + (f", settle {v['benchlib_settle_s'] * 1e3:.0f}"
                        if v.get("benchlib_settle_s") else "")
                     + (f"; {v['benchlib_samples']:.0f} samples" if v.get("benchlib_samples")
                        else "") + ")")
        shown = label.replace(" | ", "` vs `")
        lines.append(f"| `{shown}` | {v['unit']} | {v['benchlib_median']:.4g} | "
                     f"{v['other_median']:.4g} | {v['ratio_median']:.3f} [{v['ci_low']:.3f}, "
                     f"{v['ci_high']:.3f}] | [{v['ci90_low']:.3f}, {v['ci90_high']:.3f}] | "
                     f"{v['rounds']} | {v['agreement']} | {wall} |")
    return "\n".join(lines) + "\n\nTally: " + tally(report) + interval_tally(report) + "\n"


def write_report(pairs: list[Pair], header: dict, out: Path, quiet: bool = False,
                 same_tool: dict | None = None) -> dict:
    """compare_perf.json, .csv and .png in ``out`` from the rounds measured
    so far (every pair has the same number, but the bandwidth pairs' extra
    rounds); the table and the tally on stdout unless ``quiet``."""
    report = {**header, "rounds_done": min(len(p.values["ours"]) for p in pairs),
              "pairs": summarise_all(pairs, same_tool)}
    out.mkdir(parents=True, exist_ok=True)
    path = out / "compare_perf.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(report, indent=1))
    tmp.replace(path)
    rows = [{"pair": k, "unit": v["unit"], "benchlib_median": v["benchlib_median"],
             "other_median": v["other_median"], "ratio": v["ratio_median"], "ci_low": v["ci_low"],
             "ci_high": v["ci_high"], "ci90_low": v["ci90_low"], "ci90_high": v["ci90_high"],
             "rounds": v["rounds"], "agreement": v["agreement"],
             "explained": v["explained"], "benchlib_wall_s": v.get("benchlib_wall_s"),
             "other_wall_s": v.get("other_wall_s"),
             "other_default_wall_s": v.get("other_default_wall_s"),
             "other_default_value": v.get("other_default_value"), "wall_ratio": v.get("wall_ratio"),
             "wall_basis": v.get("wall_basis"),
             "benchlib_setup_s": v.get("benchlib_setup_s"),
             "benchlib_settle_s": v.get("benchlib_settle_s"),
             "benchlib_samples": v.get("benchlib_samples"),
             "other_interval_runs": v.get("other_interval_runs"),
             "other_interval_wall_s": v.get("other_interval_wall_s"),
             "other_interval_reached": v.get("other_interval_reached"),
             "interval_wall_ratio": v.get("interval_wall_ratio"),
             "peer_a_a_ratio": (v.get("peer_a_a") or {}).get("ratio_median"),
             "peer_a_a_agrees": (v.get("peer_a_a") or {}).get("equivalent")}
            for k, v in report["pairs"].items()]
    with open(out / "compare_perf.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot(report, out / "compare_perf.png")
    (out / "compare_perf.md").write_text(markdown_table(report))
    if quiet:
        return report
    print(f"\n{'pair':<92} {'unit':>5} {'benchlib':>10} {'other':>10}  ratio [95% CI]")
    for p in pairs:
        s = report["pairs"][p.label]
        print(f"{p.label:<92} {p.unit:>5} {s['benchlib_median']:>10.4g} {s['other_median']:>10.4g}"
              f"  {s['ratio_median']:.3f} [{s['ci_low']:.3f}, {s['ci_high']:.3f}] {s['agreement']}")
    timed = [v["wall_ratio"] for v in report["pairs"].values() if v.get("wall_ratio") is not None]
    print(tally(report)
          + (f"; benchlib's +-3 % figure in at most 1/10 of lmbench3's wall time"
             + (" (lmbench3 as it ships)" if header.get("lmbench_default_wall") else "")
             + f": {sum(w <= 0.1 for w in timed)} of {len(timed)}" if timed else "")
          + interval_tally(report))
    print(f"written {path}, {out / 'compare_perf.csv'} and {out / 'compare_perf.png'}")
    return report


def _has_wall(p: Pair) -> bool:
    """A pair whose wall is compared: both tools' runs were timed (not
    lat_mem_rd's, which times every size below the one read too)."""
    return any(w is not None for w in p.values["ours_wall_s"]) and \
        any(w is not None for w in p.values["theirs_wall_s"])


def measure_default_walls(pairs: list[Pair], tools: Tools) -> None:
    """One run of each lmbench3 command as it ships (calibrating its own
    ENOUGH), after the rounds: its wall time is what the wall criterion
    compares benchlib's with when the rounds ran with --lmbench-enough; its
    figure is kept beside the rounds' (ENOUGH does not change what is timed).
    Pairs that run the same command share the run."""
    done: dict[str, tuple[float, float]] = {}
    todo = [p for p in pairs if p.tool == "lmbench3" and _has_wall(p)]
    for i, p in enumerate(todo, 1):
        if p.theirs_cmd not in done:
            with tools.lmbench_default_calibration():
                v, wall, _ = _one(p.theirs)
            done[p.theirs_cmd] = (v, wall)
            print(f"lmbench3 as it ships {i}/{len(todo)}: {p.theirs_cmd}: {wall:.1f} s", flush=True)
        p.values["theirs_default"] = done[p.theirs_cmd]


#: lmbench3 run as it ships, again and again, until its own figure's median
#: has a 95 % interval this narrow (the interval benchlib's adaptive run
#: stops at), or this many runs
INTERVAL_REL_CI, INTERVAL_MAX_RUNS = 0.03, 30


def measure_interval_walls(pairs: list[Pair], tools: Tools, rel_ci: float = INTERVAL_REL_CI,
                           max_runs: int = INTERVAL_MAX_RUNS) -> None:
    """Each lmbench3 command run as it ships until its figures' median has a
    +-rel_ci 95 % interval (``benchlib.stats.summary.rel_ci_halfwidth``, the
    rule benchlib's adaptive run stops at; six runs at least) or max_runs:
    the wall lmbench3 takes to a figure known as well as benchlib's.  A
    comparison beside the issue's (one run as it ships), not instead of it.
    Pairs that run the same command share the runs."""
    from benchlib.stats.summary import halves_agree, rel_ci_halfwidth

    done: dict[str, dict] = {}
    todo = [p for p in pairs if p.tool == "lmbench3" and _has_wall(p)]
    for i, p in enumerate(todo, 1):
        if p.theirs_cmd not in done:
            values, wall = [], 0.0
            with tools.lmbench_default_calibration():
                while len(values) < max_runs:
                    v, w, _ = _one(p.theirs)
                    values.append(v)
                    wall += w or 0.0
                    if rel_ci_halfwidth(values) <= rel_ci and halves_agree(values, rel_ci):
                        break
            reached = rel_ci_halfwidth(values) <= rel_ci and halves_agree(values, rel_ci)
            done[p.theirs_cmd] = {"runs": len(values), "wall_s": wall, "reached": reached}
            print(f"lmbench3 to +-{100 * rel_ci:.0f} % {i}/{len(todo)}: {p.theirs_cmd}: "
                  f"{len(values)} runs, {wall:.1f} s{'' if reached else ' (not reached)'}",
                  flush=True)
        p.values["theirs_interval"] = done[p.theirs_cmd]


def same_tool_by_command(report_path: Path) -> dict[str, dict]:
    """A --same-tool (A/A) report's pair summaries by the peer command."""
    report = json.loads(report_path.read_text())
    if not report.get("same_tool"):
        raise SystemExit(f"compare_perf: {report_path} is not a --same-tool (A/A) report")
    return {v["other"]: v for v in report["pairs"].values()}


def reread(report_paths: Path | list[Path], out: Path, same_tool_path: Path | None = None,
           tools: Tools | None = None, default_wall: bool = False,
           interval_wall: bool = False) -> dict:
    """Recorded runs' reports summarised again with today's rules (the
    agreement rule, the pairs' explanations), from the per-round values they
    kept: nothing is measured.  Given several reports, each pair is read from
    the last report that has it (a later, targeted run replaces the pair's
    rounds of an earlier one; the rounds of two runs are never pooled).
    Pairs the harness no longer has are left out; each wall time is the one
    the report summarised, and lmbench3's as it ships the last one recorded.
    Given ``tools`` (lmbench3's folder), lmbench3's walls as it ships
    (``default_wall``) and to its own interval (``interval_wall``) are
    measured now for the recorded rounds: all that is measured."""
    paths = [report_paths] if isinstance(report_paths, Path) else list(report_paths)
    reports = [json.loads(path.read_text()) for path in paths]
    old = reports[0]
    tools = tools or Tools(old.get("cpu", 0), Path(tempfile.gettempdir()), Path("lmbench3"))
    built = {p.label: p for p in make_pairs(tools) + bandwidth_pairs(tools) + lmbench_pairs(tools)}
    recorded = {}  # label -> (the report it is read from, its values), in first-seen order
    # lmbench3 as it ships is run once per command, in a run with
    # --lmbench-default-wall: a later targeted run without it keeps that wall
    shipped, to_interval = {}, {}
    for path, report in zip(paths, reports):
        for label, v in report["pairs"].items():
            recorded[label] = (path, v)
            if v.get("other_default_wall_s") is not None:
                shipped[label] = (v["other_default_value"], v["other_default_wall_s"])
            if v.get("other_interval_wall_s") is not None:
                to_interval[label] = {"runs": v["other_interval_runs"],
                                      "wall_s": v["other_interval_wall_s"],
                                      "reached": v["other_interval_reached"]}
    pairs, source = [], {}
    for label, (path, v) in recorded.items():
        p = built.get(label)
        if p is None:
            continue
        source[label] = str(path)
        n = len(v["benchlib_values"])
        p.values.update(ours=list(v["benchlib_values"]), theirs=list(v["other_values"]),
                        first=list(v.get("first", [])),
                        ours_wall_s=[v.get("benchlib_wall_s")] * n,
                        theirs_wall_s=[v.get("other_wall_s")] * n,
                        ours_breakdown=[{k: v.get(f"benchlib_{k}")
                                         for k in ("setup_s", "settle_s", "samples")}] * n)
        if label in shipped:
            p.values["theirs_default"] = shipped[label]
        if label in to_interval:
            p.values["theirs_interval"] = to_interval[label]
        pairs.append(p)
    if not pairs:
        raise SystemExit(f"compare_perf: no pair of {', '.join(map(str, paths))} is one the "
                         "harness has")
    header = {k: v for k, v in old.items() if k not in ("pairs", "rounds_done")}
    header["reread_from"] = str(paths[0]) if len(paths) == 1 else [str(x) for x in paths]
    if len(paths) > 1:
        header["pair_read_from"] = source
    same_tool = None
    if same_tool_path is not None:
        same_tool = same_tool_by_command(same_tool_path)
        header["same_tool_report"] = str(same_tool_path)
    if default_wall:
        header["lmbench_default_wall"] = True
        measure_default_walls(pairs, tools)
    if interval_wall:
        header["lmbench_interval_wall"] = True
        measure_interval_walls(pairs, tools)
    return write_report(pairs, header, out, same_tool=same_tool)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--cpu", type=int, default=0, help="the CPU both tools are pinned to")
    ap.add_argument("--directory", type=Path, default=Path(tempfile.gettempdir()),
                    help="where the temporary folder for disk_io and fio goes (must allow O_DIRECT)")
    ap.add_argument("--only", nargs="*", default=None,
                    help="run only pairs whose label contains one of these words")
    ap.add_argument("--seed", type=int, default=None, help="seed of the random order")
    ap.add_argument("--windows", type=int, default=0,
                    help="then windows of five back-to-back `benchlib run syscall` (run-to-run spread)")
    ap.add_argument("--lmbench", type=Path, default=None,
                    help="folder of lmbench3's programs: measure its pairs too")
    ap.add_argument("--lmbench-enough", type=int, default=None, metavar="US",
                    help="lmbench3's ENOUGH: microseconds per timed sample, instead of its own "
                         "calibration (which takes most of its wall time on some guests); "
                         "recorded in the report")
    ap.add_argument("--lmbench-default-wall", action="store_true",
                    help="with --lmbench-enough: after the rounds, run each lmbench3 command once "
                         "as it ships (its own calibration) and compare benchlib's wall time "
                         "with that run's")
    ap.add_argument("--lmbench-interval-wall", action="store_true",
                    help="after the rounds, run each lmbench3 command as it ships until its own "
                         "figure's median has a +-3 %% 95 %% interval (at most 30 runs), and "
                         "compare benchlib's wall with that: beside the one-run comparison")
    ap.add_argument("--max-rounds", type=int, default=None,
                    help="undecided pairs get more rounds, up to this many in all: bandwidth "
                         "until the ratio is known to +-5 %%, any pair until its interval "
                         "falls inside +-10 %% (default: 3 x --rounds)")
    ap.add_argument("--no-bandwidth", action="store_true",
                    help="leave out likwid-bench, mbw and perf's memset")
    ap.add_argument("--out", type=Path, default=Path("results/bench"))
    ap.add_argument("--same-tool", action="store_true",
                    help="an A/A run: each peer command paired with itself instead of with "
                         "benchlib (the share that agrees is the most this host allows)")
    ap.add_argument("--reread", type=Path, nargs="+", default=None, metavar="REPORT",
                    help="measure nothing: summarise recorded compare_perf.json files again "
                         "with today's rules, into --out; with several, each pair is read from "
                         "the last that has it (with --lmbench and --lmbench-default-wall or "
                         "--lmbench-interval-wall: measure those walls for the recorded rounds)")
    ap.add_argument("--a-a", type=Path, default=None, metavar="REPORT",
                    help="with --reread: a --same-tool report of the same host; a pair not "
                         "shown to agree whose peer was not shown to agree with itself either "
                         "reads host-limited")
    args = ap.parse_args()
    if args.reread is not None:
        for path in args.reread:
            if not path.is_file():
                print(f"compare_perf: no such report: {path}", file=sys.stderr)
                return 2
        args.out.mkdir(parents=True, exist_ok=True)
        if args.a_a is not None and not args.a_a.is_file():
            print(f"compare_perf: no such report: {args.a_a}", file=sys.stderr)
            return 2
        walls = args.lmbench is not None and (args.lmbench_default_wall
                                              or args.lmbench_interval_wall)
        if not walls:
            reread(args.reread, args.out, args.a_a)
            return 0
        # lmbench3's walls for recorded rounds: its file pairs need a folder
        cpu = json.loads(args.reread[0].read_text()).get("cpu", 0)
        workdir = Path(tempfile.mkdtemp(prefix="compare_perf-", dir=args.directory))
        try:
            reread(args.reread, args.out, args.a_a,
                   tools=Tools(cpu, workdir, args.lmbench, args.lmbench_enough),
                   default_wall=args.lmbench_default_wall,
                   interval_wall=args.lmbench_interval_wall)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return 0
    if args.rounds < 2:
        print("compare_perf: --rounds must be at least 2", file=sys.stderr)
        return 2
    if not args.directory.is_dir():
        print(f"compare_perf: no such directory: {args.directory}", file=sys.stderr)
        return 2
    # a run started in the background (nohup ... &) ignores SIGINT, and one
    # stopped by `kill` gets SIGTERM: both stop it as Ctrl-C does, so the
    # report keeps every round measured and the temporary folder goes
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
    workdir = Path(tempfile.mkdtemp(prefix="compare_perf-", dir=args.directory))
    pairs: list[Pair] = []
    header: dict = {}
    try:
        tools = Tools(args.cpu, workdir, args.lmbench, args.lmbench_enough)
        pairs = make_pairs(tools)
        if not args.no_bandwidth:
            pairs += bandwidth_pairs(tools)
        if args.lmbench is not None:
            if not (args.lmbench / "lat_syscall").exists():
                print(f"compare_perf: no lat_syscall in {args.lmbench}", file=sys.stderr)
                return 2
            pairs += lmbench_pairs(tools)
        if args.only:
            pairs = [p for p in pairs if any(w in p.label for w in args.only)]
        if args.same_tool:
            pairs = same_tool_pairs(pairs)
        missing = sorted({p.tool for p in pairs if p.tool != "lmbench3" and not shutil.which(p.tool)}
                         | ({"taskset"} if not shutil.which("taskset") else set()))
        if missing:
            print(f"compare_perf: not found: {', '.join(missing)} (apt-get install linux-perf fio "
                  "likwid mbw; --no-bandwidth leaves likwid-bench and mbw out)",
                  file=sys.stderr)
            return 2
        if not pairs:
            print("compare_perf: --only matched no pair", file=sys.stderr)
            return 2
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
        print(f"{len(pairs)} pairs x {args.rounds} rounds, pinned to CPU {args.cpu}, order seed {seed}",
              flush=True)
        machine = json.loads(subprocess.run([*BENCHLIB, "info", "--json"], capture_output=True,
                                            text=True, check=True).stdout)
        header = {"rounds": args.rounds, "cpu": args.cpu, "seed": seed, "machine": machine,
                  "lmbench_enough_us": args.lmbench_enough, "same_tool": args.same_tool}
        # the report is rewritten after every round from the second on: a
        # long run that a noisy host makes longer, or a Ctrl-C, keeps what
        # was measured
        run_rounds(pairs, args.rounds, random.Random(seed), args.max_rounds or 3 * args.rounds,
                   after_round=lambda k: write_report(pairs, header, args.out, quiet=True))
        if args.lmbench_default_wall and args.lmbench is not None:
            header["lmbench_default_wall"] = True
            write_report(pairs, header, args.out, quiet=True)
            measure_default_walls(pairs, tools)
        if args.lmbench_interval_wall and args.lmbench is not None:
            header["lmbench_interval_wall"] = True
            write_report(pairs, header, args.out, quiet=True)
            measure_interval_walls(pairs, tools)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        if pairs and min(len(p.values["ours"]) for p in pairs) >= 2:
            write_report(pairs, header, args.out)
        return 130
    except subprocess.CalledProcessError as exc:
        print(f"compare_perf: {' '.join(exc.cmd)} failed: {(exc.stderr or '').strip()[-500:]}",
              file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    write_report(pairs, header, args.out)
    if args.windows > 0:
        report = json.loads((args.out / "compare_perf.json").read_text())
        report["run_to_run_syscall"] = run_to_run(args.windows)
        (args.out / "compare_perf.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
