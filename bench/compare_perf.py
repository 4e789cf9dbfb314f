#!/usr/bin/env python3
"""benchlib beside lmbench3, `perf bench` and fio: paired, interleaved rounds.

    python bench/compare_perf.py [--rounds 7] [--cpu 0] [--directory DIR] [--only WORD ...]
                                 [--lmbench BIN] [--out results/bench]

--lmbench BIN: the folder of lmbench3's programs (../shared/peers/build-lmbench3.sh
prints it); its pairs are then measured too (lat_syscall, lat_sig, lat_proc,
lat_pipe, lat_unix), each program run with -N 5 under the same taskset.

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
  bcopy size_bytes=64 KiB and 64 MiB  perf bench mem memcpy -f default, same size
  disk_io read, 4 KiB, O_DIRECT, sequential and random
                                       fio --direct=1 --ioengine=psync --rw=read|randread --bs=4k
  io_workload, three workloads, O_DIRECT
                                       fio --rw=randrw --rwmixread --percentage_random --bssplit
                                       (the workload's own request-size distribution)
`perf bench sched messaging` (groups of senders and receivers, many to
many) has no counterpart here: no benchlib benchmark fans out like it.
The files of disk_io and fio live in a temporary folder under --directory
(default: the temp dir, which must allow O_DIRECT), removed at the end.
Timing thresholds live here, not in the unit tests."""
from __future__ import annotations

import argparse
import csv
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from benchlib.stats.paired import paired_ratio

BENCHLIB = [sys.executable, "-m", "benchlib.cli"]
MiB = 1 << 20
FIO_FILE_BYTES = 64 * MiB
ALIGN = 4096  # io_workload's offset alignment and O_DIRECT size rounding


@dataclass
class Pair:
    label: str
    unit: str
    ours: Callable[[], float]
    theirs: Callable[[], float]
    tool: str  # perf, fio or lmbench3
    ours_cmd: str = ""
    theirs_cmd: str = ""
    explained: str = ""  # what each tool times differently, where a measurement showed it
    values: dict = field(default_factory=lambda: {"ours": [], "theirs": [], "first": []})


class Tools:
    """The commands, all under one `taskset -c CPU`."""

    def __init__(self, cpu: int, workdir: Path, lmbench: Path | None = None):
        self.cpu, self.workdir, self.lmbench = cpu, workdir, lmbench
        self.pin = ["taskset", "-c", str(cpu)]

    def lmbench_us(self, program: str, *args: str) -> float:
        """lmbench3's "<what>: <x> microseconds" line (it prints to stderr)."""
        p = subprocess.run(self.pin + [str(self.lmbench / program), "-N", "5", *args],
                           capture_output=True, text=True, check=True)
        return lmbench_microseconds(p.stderr + p.stdout)

    def run(self, cmd: list[str]) -> str:
        return subprocess.run(self.pin + cmd, check=True, capture_output=True, text=True).stdout

    def benchlib(self, name: str, *params: str) -> dict:
        args = [*BENCHLIB, "run", name, "--json"]
        for p in params:
            args += ["-p", p]
        return json.loads(self.run(args).splitlines()[-1])

    def perf(self, *args: str) -> str:
        return self.run(["perf", "bench", *args])

    def perf_usecs_per_op(self, *args: str) -> float:
        return perf_usecs_per_op(self.perf(*args))

    def perf_memcpy_mb_s(self, size: int, loops: int) -> float:
        return perf_bandwidth_mb_s(self.perf("mem", "memcpy", "-f", "default", "-s", f"{size}B",
                                             "-l", str(loops)))

    def fio(self, name: str, *opts: str) -> dict:
        out = self.run(["fio", f"--name={name}", f"--filename={self.workdir / 'fio.dat'}",
                        f"--size={FIO_FILE_BYTES}", "--direct=1", "--ioengine=psync",
                        "--thread=0", "--group_reporting", "--randrepeat=0", "--norandommap",
                        "--time_based", "--runtime=1", "--output-format=json", *opts])
        return json.loads(out[out.index("{"):])["jobs"][0]

    def fio_us_per_op(self, rw: str, bs: int) -> float:
        job = self.fio("disk", f"--rw={rw}", f"--bs={bs}")
        side = job["read"] if "read" in rw else job["write"]
        return 1e6 / side["iops"]

    def fio_mb_s(self, *opts: str) -> float:
        job = self.fio("workload", *opts)
        return (job["read"]["bw_bytes"] + job["write"]["bw_bytes"]) / 1e6


def perf_usecs_per_op(out: str) -> float:
    """The "usecs/op" figure of `perf bench syscall|sched ...`."""
    m = re.search(r"([\d.]+)\s+usecs/op", out)
    if not m:
        raise RuntimeError(f"cannot read usecs/op from perf bench's output:\n{out}")
    return float(m.group(1))


def lmbench_microseconds(out: str) -> float:
    """The figure of an lmbench3 latency program's "...: 0.1047 microseconds"
    line (lat_pipe and lat_unix say "latency: 2.1 microseconds")."""
    m = re.search(r":\s*([\d.]+)\s+microseconds", out)
    if not m:
        raise RuntimeError(f"cannot read microseconds from lmbench3's output:\n{out}")
    return float(m.group(1))


def perf_bandwidth_mb_s(out: str) -> float:
    """`perf bench mem ...` prints bytes, KB, MB or GB per second in powers of
    1024; benchlib's MB is 10^6 bytes."""
    m = re.search(r"([\d.]+)\s+(bytes|KB|MB|GB)/sec", out)
    if not m:
        raise RuntimeError(f"cannot read the bandwidth from perf bench's output:\n{out}")
    scale = {"bytes": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}[m.group(2)]
    return float(m.group(1)) * scale / 1e6


def io_workload_bssplit(size_mean_bytes: float, unique_bytes: int, draws: int = 200_000,
                        seed: int = 0) -> str:
    """fio's --bssplit for io_workload's request sizes with O_DIRECT: a
    normal of sd = mean, redrawn outside [1, min(unique, 8 x mean)], rounded
    up to 4 KiB (benchlib/csrc/iowork.c).  Buckets under 1% are folded into
    their neighbour; percentages sum to 100."""
    top = min(unique_bytes, int(8 * size_mean_bytes))
    top = max(top // ALIGN * ALIGN, ALIGN)
    rng = np.random.default_rng(seed)
    d = size_mean_bytes * (1 + rng.standard_normal(draws * 2))
    d = d[(d >= 1) & (d <= top)][:draws]
    sizes = np.ceil(np.floor(d) / ALIGN).astype(int) * ALIGN
    values, counts = np.unique(sizes, return_counts=True)
    pct = counts / counts.sum() * 100
    keep, acc = [], 0.0
    for v, p in zip(values, pct):
        acc += p
        if acc >= 1:
            keep.append([int(v), acc])
            acc = 0.0
    if acc and keep:
        keep[-1][1] += acc
    whole = [int(round(p)) for _, p in keep]
    whole[int(np.argmax(whole))] += 100 - sum(whole)
    return ":".join(f"{v}/{p}" for (v, _), p in zip(keep, whole) if p > 0)


def make_pairs(t: Tools) -> list[Pair]:
    c = str(t.cpu)
    d = f"directory={t.workdir}"
    pairs = [
        Pair("syscall op=getppid | perf bench syscall basic", "us",
             lambda: t.benchlib("syscall", "op=getppid", f"cpu={c}")["value"],
             lambda: t.perf_usecs_per_op("syscall", "basic", "-l", "3000000"), "perf",
             "benchlib run syscall -p op=getppid", "perf bench syscall basic -l 3000000"),
        Pair("syscall op=getpid | perf bench syscall basic", "us",
             lambda: t.benchlib("syscall", "op=getpid", f"cpu={c}")["value"],
             lambda: t.perf_usecs_per_op("syscall", "basic", "-l", "3000000"), "perf",
             "benchlib run syscall -p op=getpid", "perf bench syscall basic -l 3000000"),
        Pair("pipe_latency same_cpu | perf bench sched pipe (processes)", "us",
             lambda: t.benchlib("pipe_latency", "placement=same_cpu", f"cpu={c}")["value"],
             lambda: t.perf_usecs_per_op("sched", "pipe", "-l", "200000"), "perf",
             "benchlib run pipe_latency -p placement=same_cpu",
             "perf bench sched pipe -l 200000"),
        Pair("pipe_latency same_cpu | perf bench sched pipe -T (threads)", "us",
             lambda: t.benchlib("pipe_latency", "placement=same_cpu", f"cpu={c}")["value"],
             lambda: t.perf_usecs_per_op("sched", "pipe", "-T", "-l", "200000"), "perf",
             "benchlib run pipe_latency -p placement=same_cpu",
             "perf bench sched pipe -T -l 200000"),
        # the ring's hop is one switch with the pipe calls and summing taken
        # out; a round trip of two processes is two hops with them put back
        Pair("context_switch 2 x 0 KB as a round trip | perf bench sched pipe", "us",
             lambda: _ring_round_trip_us(t),
             lambda: t.perf_usecs_per_op("sched", "pipe", "-l", "200000"), "perf",
             "benchlib run context_switch -p processes=2 -p process_kb=0 (2 x (value + overhead_us))",
             "perf bench sched pipe -l 200000"),
    ]
    for size, loops in ((64 << 10, 100_000), (64 * MiB, 40)):
        pairs.append(Pair(f"bcopy size_bytes={size} | perf bench mem memcpy -s {size}B", "MB/s",
                          lambda s=size: t.benchlib("bcopy", f"size_bytes={s}", f"cpu={c}")["value"],
                          lambda s=size, n=loops: t.perf_memcpy_mb_s(s, n), "perf",
                          f"benchlib run bcopy -p size_bytes={size}",
                          f"perf bench mem memcpy -f default -s {size}B -l {loops}"))
    for pattern, rw in (("sequential", "read"), ("random", "randread")):
        pairs.append(Pair(f"disk_io read {pattern} 4 KiB O_DIRECT | fio --rw={rw} --bs=4k --direct=1",
                          "us",
                          lambda p=pattern: t.benchlib("disk_io", "op=read", f"pattern={p}",
                                                       "block_bytes=4096", f"file_bytes={FIO_FILE_BYTES}",
                                                       "direct=yes", d, f"cpu={c}")["value"],
                          lambda r=rw: t.fio_us_per_op(r, 4096), "fio",
                          f"benchlib run disk_io -p op=read -p pattern={pattern} -p block_bytes=4096 "
                          f"-p file_bytes={FIO_FILE_BYTES} -p direct=yes",
                          f"fio --rw={rw} --bs=4k --direct=1 --ioengine=psync --size=64M "
                          f"--runtime=1 --time_based"))
    # io_workload with O_DIRECT (cache=direct), one process, 64 MiB of unique data
    for mean, read_frac, seq_frac in ((32768, 1.0, 1.0), (8192, 1.0, 0.0), (32768, 0.5, 0.5)):
        split = io_workload_bssplit(mean, FIO_FILE_BYTES)
        fio_opts = ("--rw=randrw", f"--rwmixread={round(100 * read_frac)}",
                    f"--percentage_random={round(100 * (1 - seq_frac))}", f"--bssplit={split}",
                    "--blockalign=4k", "--numjobs=1")
        params = (f"size_mean_bytes={mean}", f"read_frac={read_frac}", f"seq_frac={seq_frac}",
                  f"unique_bytes={FIO_FILE_BYTES}", "process_num=1", "cache=direct", d)
        pairs.append(Pair(f"io_workload mean {mean} B read {read_frac} seq {seq_frac} direct | "
                          f"fio randrw rwmixread={round(100 * read_frac)} "
                          f"percentage_random={round(100 * (1 - seq_frac))}", "MB/s",
                          lambda p=params: t.benchlib("io_workload", *p)["value"],
                          lambda o=fio_opts: t.fio_mb_s(*o), "fio",
                          "benchlib run io_workload " + " ".join(f"-p {p}" for p in params[:-1]),
                          "fio --direct=1 --ioengine=psync --size=64M --runtime=1 --time_based "
                          + " ".join(fio_opts)))
    return pairs


def lmbench_pairs(t: Tools) -> list[Pair]:
    """benchlib against lmbench3, figure by figure, same CPU (both processes
    of a round trip on it: taskset pins lmbench3's child too)."""
    c = str(t.cpu)
    rows = [
        ("syscall", ("op=getppid",), "lat_syscall", ("null",), 1.0),
        ("syscall", ("op=write",), "lat_syscall", ("write",), 1.0),
        ("syscall", ("op=read",), "lat_syscall", ("read",), 1.0),
        ("syscall", ("op=stat",), "lat_syscall", ("stat", "/dev/null"), 1.0),
        ("syscall", ("op=fstat",), "lat_syscall", ("fstat", "/dev/null"), 1.0),
        ("signal_latency", ("op=install",), "lat_sig", ("install",), 1.0),
        ("signal_latency", ("op=deliver",), "lat_sig", ("catch",), 1.0),
        ("process_creation", ("op=fork_exit", "parent=small"), "lat_proc", ("fork",), 1e3),
        ("pipe_latency", ("placement=same_cpu",), "lat_pipe", (), 1.0),
        ("ipc_latency", ("transport=unix", "placement=same_cpu"), "lat_unix", (), 1.0),
    ]
    pairs = []
    for name, params, program, args, to_us in rows:
        pairs.append(Pair(
            f"{name} {' '.join(params)} | lmbench3 {program} {' '.join(args)}".rstrip(), "us",
            lambda n=name, p=params, k=to_us: t.benchlib(n, *p, f"cpu={c}")["value"] * k,
            lambda g=program, a=args: t.lmbench_us(g, *a), "lmbench3",
            f"benchlib run {name} " + " ".join(f"-p {p}" for p in params),
            f"{program} -N 5 {' '.join(args)}".rstrip()))
    return pairs


def _ring_round_trip_us(t: Tools) -> float:
    r = t.benchlib("context_switch", "processes=2", "process_kb=0", "placement=same_cpu",
                   f"cpu={t.cpu}")
    return 2 * (r["value"] + r["extras"]["overhead_us"])


def run_rounds(pairs: list[Pair], rounds: int, rng: random.Random) -> None:
    for k in range(rounds):
        t0 = time.monotonic()
        order = pairs[:]
        rng.shuffle(order)
        for p in order:
            ours_first = rng.random() < 0.5
            if ours_first:
                ours = p.ours()
                theirs = p.theirs()
            else:
                theirs = p.theirs()
                ours = p.ours()
            p.values["ours"].append(ours)
            p.values["theirs"].append(theirs)
            p.values["first"].append("benchlib" if ours_first else p.tool)
        print(f"round {k + 1}/{rounds} done ({time.monotonic() - t0:.0f} s)", flush=True)


AGREE_BAND = (0.90, 1.10)


def agreement(s: dict, explained: str) -> str:
    """agree: the ratio's 95% interval inside +-10 %; otherwise
    differ-explained where a measurement showed why, else differ-unexplained."""
    if s["ci_inside_band"]:
        return "agree"
    return "differ-explained" if explained else "differ-unexplained"


def summarise(p: Pair) -> dict:
    s = paired_ratio(p.values["ours"], p.values["theirs"], band=AGREE_BAND)
    s["agreement"] = agreement(s, p.explained)
    s["explained"] = p.explained
    return {"unit": p.unit, "benchlib": p.ours_cmd, "other": p.theirs_cmd,
            "benchlib_values": p.values["ours"], "other_values": p.values["theirs"],
            "first": p.values["first"],
            "benchlib_median": float(np.median(p.values["ours"])),
            "other_median": float(np.median(p.values["theirs"])), **s}


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
    ap.add_argument("--out", type=Path, default=Path("results/bench"))
    args = ap.parse_args()
    if args.rounds < 2:
        print("compare_perf: --rounds must be at least 2", file=sys.stderr)
        return 2
    if not args.directory.is_dir():
        print(f"compare_perf: no such directory: {args.directory}", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="compare_perf-", dir=args.directory))
    try:
        tools = Tools(args.cpu, workdir, args.lmbench)
        pairs = make_pairs(tools)
        if args.lmbench is not None:
            if not (args.lmbench / "lat_syscall").exists():
                print(f"compare_perf: no lat_syscall in {args.lmbench}", file=sys.stderr)
                return 2
            pairs += lmbench_pairs(tools)
        if args.only:
            pairs = [p for p in pairs if any(w in p.label for w in args.only)]
        missing = sorted({p.tool for p in pairs if p.tool != "lmbench3" and not shutil.which(p.tool)}
                         | ({"taskset"} if not shutil.which("taskset") else set()))
        if missing:
            print(f"compare_perf: not found: {', '.join(missing)} (apt-get install linux-perf fio)",
                  file=sys.stderr)
            return 2
        if not pairs:
            print("compare_perf: --only matched no pair", file=sys.stderr)
            return 2
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
        print(f"{len(pairs)} pairs x {args.rounds} rounds, pinned to CPU {args.cpu}, order seed {seed}",
              flush=True)
        run_rounds(pairs, args.rounds, random.Random(seed))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except subprocess.CalledProcessError as exc:
        print(f"compare_perf: {' '.join(exc.cmd)} failed: {(exc.stderr or '').strip()[-500:]}",
              file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    report = {"rounds": args.rounds, "cpu": args.cpu, "seed": seed, "pairs": {}}
    print(f"\n{'pair':<92} {'unit':>5} {'benchlib':>10} {'other':>10}  ratio [95% CI]")
    for p in pairs:
        s = summarise(p)
        report["pairs"][p.label] = s
        print(f"{p.label:<92} {p.unit:>5} {s['benchlib_median']:>10.4g} {s['other_median']:>10.4g}"
              f"  {s['ratio_median']:.3f} [{s['ci_low']:.3f}, {s['ci_high']:.3f}] {s['agreement']}")
    if args.windows > 0:
        report["run_to_run_syscall"] = run_to_run(args.windows)
    args.out.mkdir(parents=True, exist_ok=True)
    report["machine"] = json.loads(subprocess.run([*BENCHLIB, "info", "--json"], capture_output=True,
                                                  text=True, check=True).stdout)
    path = args.out / "compare_perf.json"
    path.write_text(json.dumps(report, indent=1))
    rows = [{"pair": k, "unit": v["unit"], "benchlib_median": v["benchlib_median"],
             "other_median": v["other_median"], "ratio": v["ratio_median"], "ci_low": v["ci_low"],
             "ci_high": v["ci_high"], "agreement": v["agreement"], "explained": v["explained"]}
            for k, v in report["pairs"].items()]
    with open(args.out / "compare_perf.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"written {path} and {args.out / 'compare_perf.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
