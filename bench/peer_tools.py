"""The peers of bench/compare_perf.py: how each tool is run and read, and the
pairs (benchlib's command beside the peer's).  Output readers are pure
functions of recorded text (tests/test_compare_perf.py)."""
from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from benchlib.measuring.benchmarks.fs import WRITE_BYTES
from benchlib.measuring.metadata import cpu_flags
from benchlib.units import parse_size

BENCHLIB = [sys.executable, "-m", "benchlib.cli"]
MiB = 1 << 20
# benchlib's file_read/file_reread_bandwidth make their file in writes of
# this many bytes unless told otherwise (their write_bytes parameter)
FILE_WRITE_BYTES = WRITE_BYTES.default
FIO_FILE_BYTES = 64 * MiB
ALIGN = 4096  # io_workload's offset alignment and O_DIRECT size rounding


def make_file(path: Path, size: int, write_bytes: int) -> None:
    """The peer's file made afresh before every run, in writes of
    write_bytes, as benchlib makes its own just before timing it: the page
    cache keeps a file in folios as large as the writes that made it (ext4
    and xfs on Linux 6.x), and a file made once and reused may have been
    paged out in part between rounds (DAMON's pageout scheme) and read
    back by readahead in other folios."""
    path.unlink(missing_ok=True)
    block = b"x" * min(write_bytes, size)
    with open(path, "wb", buffering=0) as f:
        for done in range(0, size, len(block)):
            f.write(block[:size - done])


@dataclass
class Pair:
    label: str
    unit: str
    ours: Callable[[], float]
    theirs: Callable[[], float]
    tool: str  # perf, fio or lmbench3
    ours_cmd: str = ""
    theirs_cmd: str = ""
    explained: str = ""  # what each tool times differently
    # the ratios that explanation was measured to cover (lo, hi): a ratio
    # outside them is not explained by it; None: no measured range
    explained_range: tuple[float, float] | None = None
    # the label of the pair that measures benchlib with the peer's definition:
    # this pair's difference counts as explained only when that one agrees
    explained_by: str = ""
    min_rounds_rel_ci: float | None = None  # bandwidth: rounds until the ratio is known this well
    values: dict = field(default_factory=lambda: {"ours": [], "theirs": [], "first": [],
                                                  "ours_wall_s": [], "theirs_wall_s": [],
                                                  "ours_breakdown": []})


class Tools:
    """The commands, all under one `taskset -c CPU`."""

    def __init__(self, cpu: int, workdir: Path, lmbench: Path | None = None,
                 lmbench_enough_us: int | None = None):
        self.cpu, self.workdir, self.lmbench = cpu, workdir, lmbench
        self.pin = ["taskset", "-c", str(cpu)]
        # lmbench3 reads ENOUGH (microseconds per timed sample) from the
        # environment; unset, it calibrates it first, which on some guests
        # takes most of a program's wall time (36 s on the EPYC guest)
        self.lmbench_env = None
        if lmbench_enough_us is not None:
            self.lmbench_env = {**os.environ, "ENOUGH": str(int(lmbench_enough_us))}

    @contextlib.contextmanager
    def lmbench_default_calibration(self):
        """lmbench3 as it ships, calibrating its own ENOUGH, inside the block:
        the wall time a user of lmbench3 waits for a figure."""
        saved, self.lmbench_env = self.lmbench_env, None
        try:
            yield
        finally:
            self.lmbench_env = saved

    def lmbench_us(self, program: str, *args: str) -> float:
        """lmbench3's "<what>: <x> microseconds" line (it prints to stderr)."""
        return lmbench_microseconds(self.lmbench_out(program, *args))

    @staticmethod
    def timed(f: Callable[[], float]) -> tuple[float, float]:
        t0 = time.monotonic()
        v = f()
        return v, time.monotonic() - t0

    def benchlib_timed(self, name: str, *params: str,
                       scale: float = 1.0) -> tuple[float, float, dict]:
        """benchlib's figure with adaptive sampling to +-3 %, the time the
        measurement took (the worker's wall time, from its diagnostics: what
        the harness compares with the peer's whole run) and where that time
        went: the build of what is measured (setup_s, of it settle_s, where
        the benchmark says) and the samples taken."""
        args = [*BENCHLIB, "run", name, "--json", "--target-ci", str(TARGET_REL_CI)]
        for p in params:
            args += ["-p", p]
        r = json.loads(self.run(args).splitlines()[-1])
        d = r["diagnostics"]
        return r["value"] * scale, d["wall_s"], {
            "setup_s": d.get("setup_s"), "settle_s": d.get("settle_s"),
            "samples": r["n_samples"]}

    def lmbench_us_in(self, program: str, *args: str) -> float:
        """lat_syscall open runs in the work folder, where foo is (made here,
        not when the pairs are built: a --reread builds them and measures
        nothing)."""
        (self.workdir / "foo").touch()
        return lmbench_microseconds(self.lmbench_out(program, *args, cwd=self.workdir))

    def lmbench_file_mb_s(self, program: str, path: Path, *args: str,
                          write_bytes: int = FILE_WRITE_BYTES) -> float:
        if program.startswith(("bw_file", "bw_mmap")):
            make_file(path, 64 * MiB, write_bytes)
        return self.lmbench_mb_s(program, *args)

    def lmbench_mem_ns(self, size_mb: int, stride: int, *flags: str) -> float:
        """lat_mem_rd's load latency at ``size_mb`` MiB (its last row) and
        ``stride`` (``flags``: "-t" for its random order).  It times every
        size up to that one: once each (-N 1), as its -N 5 takes 47 s to 8
        MiB on the Zen 4 guest; the rounds give the spread."""
        return lmbench_mem_row(self.lmbench_out("lat_mem_rd", *flags, "-P", "1", str(size_mb),
                                                str(stride), repetitions=1), size_mb)

    def lmbench_out(self, program: str, *args: str, cwd: Path | None = None,
                    repetitions: int = 5) -> str:
        p = subprocess.run(self.pin + [str(self.lmbench / program), "-N", str(repetitions), *args],
                           capture_output=True, text=True, check=True, cwd=cwd,
                           env=self.lmbench_env)
        return p.stderr + p.stdout

    def lmbench_mb_s(self, program: str, *args: str) -> float:
        """bw_mem / bw_file_rd / bw_mmap_rd ("<size MB> <MB/s>") or bw_pipe /
        bw_unix ("...: <x> MB/sec"); lmbench3's MB is 10^6 bytes here."""
        return lmbench_bandwidth(self.lmbench_out(program, *args))

    def lmbench_ctx_us(self, kb: int, processes: int) -> float:
        return lmbench_ctx(self.lmbench_out("lat_ctx", "-s", str(kb), str(processes)), processes)

    def likwid_mb_s(self, test: str, size: str) -> float:
        return likwid_bandwidth(self.run(["likwid-bench", "-t", test, "-w", f"S0:{size}:1",
                                          "-s", "0.3"]))

    @functools.cached_property
    def _mbw_tests(self) -> dict[str, int]:
        try:
            p = subprocess.run(["mbw", "-h"], capture_output=True, text=True)
        except OSError:  # not installed: the numbers of today's mbw
            return mbw_tests("mbw memory benchmark v2.0")
        return mbw_tests(p.stdout + p.stderr)

    def mbw_test(self, kind: str) -> int:
        """mbw's -t number of its memcpy test or its word loop on this
        machine's mbw (mbw_tests)."""
        return self._mbw_tests[kind]

    def mbw_mb_s(self, mib: int, kind: str) -> float:
        return mbw_bandwidth(self.run(["mbw", "-q", "-n", "5", f"-t{self.mbw_test(kind)}",
                                       str(mib)]))

    def run(self, cmd: list[str], cwd: Path | None = None) -> str:
        return subprocess.run(self.pin + cmd, check=True, capture_output=True, text=True,
                              cwd=cwd).stdout

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


def lmbench_mem_row(out: str, size_mb: int) -> float:
    """The ns of lat_mem_rd's row for ``size_mb`` MiB (its sizes are in 2^20
    bytes), read by benchlib's own reader of its output."""
    from benchlib.errors import BenchlibError
    from benchlib.memory.curve_readers import read_lat_mem_rd

    try:
        df = read_lat_mem_rd(out)
    except BenchlibError as exc:
        raise RuntimeError(f"cannot read lat_mem_rd's output ({exc}):\n{out}") from None
    row = df[df["size_bytes"] == size_mb * MiB]
    if row.empty:
        raise RuntimeError(f"lat_mem_rd's output has no {size_mb} MB row:\n{out}")
    return float(row["latency_ns"].iloc[-1])


def lmbench_bandwidth(out: str) -> float:
    """lmbench3's bandwidth: bw_mem-style "<size> <MB/s>" as its last line,
    or bw_pipe-style "...: <x> MB/sec"."""
    m = re.search(r":\s*([\d.]+)\s+MB/sec", out)
    if m:
        return float(m.group(1))
    lines = [ln.split() for ln in out.strip().splitlines() if ln.strip()]
    if lines and len(lines[-1]) == 2:
        try:
            return float(lines[-1][1])
        except ValueError:
            pass
    raise RuntimeError(f"cannot read a bandwidth from lmbench3's output:\n{out}")


def lmbench_ctx(out: str, processes: int) -> float:
    """lat_ctx's line "<processes> <us>" (after its '"size=0k ovr=..' header)."""
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == str(processes):
            return float(parts[1])
    raise RuntimeError(f"cannot read {processes} processes' switch from lat_ctx's output:\n{out}")


def likwid_bandwidth(out: str) -> float:
    """likwid-bench's "MByte/s: <x>" (MB = 10^6 bytes)."""
    m = re.search(r"MByte/s:\s*([\d.]+)", out)
    if not m:
        raise RuntimeError(f"cannot read MByte/s from likwid-bench's output:\n{out}")
    return float(m.group(1))


def mbw_bandwidth(out: str) -> float:
    """mbw's "AVG ... Copy: <x> MiB/s" line, in MB/s (10^6 bytes)."""
    m = re.search(r"^AVG.*Copy:\s*([\d.]+)\s*MiB/s", out, re.M)
    if not m:
        raise RuntimeError(f"cannot read the AVG line from mbw's output:\n{out}")
    return float(m.group(1)) * MiB / 1e6


def mbw_tests(help_text: str) -> dict[str, int]:
    """Which -t runs mbw's memcpy and which its b[i] = a[i] word loop.
    Before 1.4 (2014; Debian ships 1.2.2) mbw's worker ran the word loop
    for test 0 and memcpy for test 1 while it printed and documented them
    the other way round (upstream commit 6346daa, "Fix labeling of the
    displayed results"; on the EPYC guest gdb stops in the loop for -t0 and
    at memcpy for -t1).  1.4 fixed the worker and began printing its
    version in the help, which is how the two are told apart."""
    if "memory benchmark v" in help_text:
        return {"memcpy": 0, "loop": 1}
    return {"memcpy": 1, "loop": 0}


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
             "benchlib run syscall -p op=getpid", "perf bench syscall basic -l 3000000",
             # perf's "basic" calls getppid: getpid is another system call
             # (no RCU walk to the parent), which on some kernels and CPUs
             # costs less; the getppid pair is the like-for-like one
             explained_by="syscall op=getppid | perf bench syscall basic"),
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
    # perf (6.1) mallocs the destination, then the source: a 64 KiB pair
    # sits on the heap 240 and 256 bytes into a page (the destination 16
    # bytes off a cache line, the source 16 bytes past it modulo a page:
    # read with a memcpy interposed by LD_PRELOAD); 64 MiB buffers are
    # mapped, each 16 bytes in
    for size, loops, (src, dst) in ((64 << 10, 100_000, (256, 240)), (64 * MiB, 40, (16, 16))):
        peer = f"perf bench mem memcpy -s {size}B"
        placed = (f"size_bytes={size}", f"src_offset_bytes={src}", f"dst_offset_bytes={dst}")
        for params in (placed[:1], placed):  # benchlib's own placement, then perf's
            pairs.append(Pair(f"bcopy {' '.join(params)} | {peer}", "MB/s",
                              lambda p=params: t.benchlib("bcopy", *p, f"cpu={c}")["value"],
                              lambda s=size, n=loops: t.perf_memcpy_mb_s(s, n), "perf",
                              "benchlib run bcopy " + " ".join(f"-p {p}" for p in params),
                              f"perf bench mem memcpy -f default -s {size}B -l {loops}",
                              explained_by="" if params == placed else f"bcopy {' '.join(placed)} | {peer}"))
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


LMBENCH_US = [
    # (benchlib benchmark, its parameters, lmbench3 program, its arguments, to us,
    #  the pair with lmbench3's definition that explains a difference, if any)
    ("syscall", ("op=getppid",), "lat_syscall", ("null",), 1.0, None),
    ("syscall", ("op=write",), "lat_syscall", ("write",), 1.0, None),
    ("syscall", ("op=read",), "lat_syscall", ("read",), 1.0, None),
    ("syscall", ("op=stat",), "lat_syscall", ("stat", "/dev/null"), 1.0, None),
    ("syscall", ("op=fstat",), "lat_syscall", ("fstat", "/dev/null"), 1.0, None),
    ("open_close_latency", ("path=foo", "DIR"), "lat_syscall", ("open", "foo"), 1.0, None),
    ("signal_latency", ("op=install",), "lat_sig", ("install",), 1.0,
     ("op=install", "old_action=save")),
    ("signal_latency", ("op=install", "old_action=save"), "lat_sig", ("install",), 1.0, None),
    ("signal_latency", ("op=deliver",), "lat_sig", ("catch",), 1.0,
     ("op=deliver", "sender=kill", "minus_send=yes")),
    ("signal_latency", ("op=deliver", "sender=kill", "minus_send=yes"), "lat_sig", ("catch",), 1.0,
     None),
    ("process_creation", ("op=fork_exit", "parent=small"), "lat_proc", ("fork",), 1e3,
     ("op=fork_exit", "parent=small", "child_exit=exit")),
    ("process_creation", ("op=fork_exit", "parent=small", "child_exit=exit"), "lat_proc", ("fork",),
     1e3, None),
    # lat_proc exec execs its program with an empty environment (envp NULL)
    ("process_creation", ("op=fork_exec_exit", "parent=small"), "lat_proc", ("exec",), 1e3,
     ("op=fork_exec_exit", "parent=small", "environment=empty")),
    ("process_creation", ("op=fork_exec_exit", "parent=small", "environment=empty"), "lat_proc",
     ("exec",), 1e3, None),
    ("process_creation", ("op=fork_sh_exit", "parent=small"), "lat_proc", ("shell",), 1e3, None),
    ("pipe_latency", ("placement=same_cpu",), "lat_pipe", (), 1.0, None),
    ("ipc_latency", ("transport=unix", "placement=same_cpu"), "lat_unix", (), 1.0, None),
    # lat_select -n 100 file opens a file once and dups it; under strace
    # (EPYC guest, 2026-11-27) every timed call is select(100, NULL, a write
    # set of 91 of those dups (6, 8, 11-99: its own pipes hold the others
    # below 100), NULL, zero timeout) and returns 91.  benchlib waits on
    # every descriptor it makes; descriptor=file opens the file for each,
    # file_dup dups one open.  A regular file is ready for reading and
    # writing alike (it has no poll method), so which set is asked does not
    # change the call's work.
    ("select_latency", ("pipes=100", "full=yes"), "lat_select", ("-n", "100", "file"), 1.0,
     ("pipes=91", "descriptor=file_dup")),
    ("select_latency", ("pipes=100", "descriptor=file"), "lat_select", ("-n", "100", "file"), 1.0,
     ("pipes=91", "descriptor=file_dup")),
    ("select_latency", ("pipes=91", "descriptor=file_dup"), "lat_select", ("-n", "100", "file"),
     1.0, None),
]
# lat_ctx: (processes, KB each, benchlib's parent).  lat_ctx forks
# its ring from itself, a small C program; context_switch parent=small (the
# default) forks it from proc_runner, parent=interpreter from the Python
# measuring process (docs/peers.md: where the ring is forked moves the
# 8 x 16 KB hop)
LMBENCH_CTX = [(2, 0, "small"), (8, 16, "small"), (8, 16, "interpreter")]
#: What a ring with a footprint times differently, measured: at 0 KB the
#: 8-process rings agree (benchlib / lat_ctx 0.93-0.97), and 16 KB a process
#: adds 0.22-0.28 us a hop to lat_ctx's figure and 0.0-0.15 to benchlib's,
#: their hot sums (the overheads each subtracts) alike (1.02-1.04 and
#: 0.96-1.01 us): the refill of each process's 16 KB from L2 after a switch
#: is overlapped by benchlib's four-chain sum and not by lat_ctx's loop.
#: Ratios at 16 KB 0.856-0.930 over 12 alternated rounds (bash
#: bench/ring_footprint/run.sh, Zen 4 guest, 2026-11-28, docs/peers.md).
RING_FOOTPRINT = ("the summing loop after a switch: at 0 KB the 8-process rings agree "
                  "(0.93-0.97); 16 KB a process adds 0.22-0.28 us a hop to lat_ctx's figure "
                  "and 0.0-0.15 to benchlib's, their hot sums alike, so lat_ctx's loop pays the "
                  "refill from L2 that benchlib's four chains overlap (bash "
                  "bench/ring_footprint/run.sh, Zen 4 guest 2026-11-28)")
RING_FOOTPRINT_RANGE = (0.85, 0.93)
#: mem_latency's stride chase against lat_mem_rd's (MiB, stride) beyond the
#: L2s we know, where prefetchers decide the figure.  Each load instruction
#: of a chase loop takes every n-th load of the chain, n the loop's loads
#: (benchlib 16, lat_mem_rd 100), and a per-instruction stride prefetcher
#: follows that instruction's stride (n x the chain's): on the Zen 4 guest
#: (2026-11-28 06:20 UTC, a C chase of each loop, 15 passes, the best) a
#: stride-128 chase of 8 MiB read 1.9 / 2.1 / 5.0 ns with 1 / 16 / 100 loads
#: a loop (lat_mem_rd 5.1), a stride-1024 one 2.0 / 4.4 / 8.0 (8.7).  The
#: pair with loop_loads=100 (lat_mem_rd's loop) explains the difference.
LMBENCH_MEM = [(8, 128, ()), (8, 1024, ())]
#: ... and its random order (-t) against mem_latency's random chase: each
#: load of lat_mem_rd -t goes to another page (its pages in random order,
#: a different line of each at every visit), so past the TLB's reach every
#: load takes a TLB miss; benchlib's random chase shuffles its slots inside
#: 2 MiB windows, which the L2 TLB holds.  window_bytes=0 (the whole
#: buffer) is lat_mem_rd -t's order (Zen 4 guest, 64 MiB, 06:45 UTC:
#: 91.6 ns with 2 MiB windows, 156.9 with the whole buffer, lat_mem_rd -t
#: 168).
LMBENCH_MEM += [(64, 64, ("-t",))]
LMBENCH_MB_S = [
    # bw_mem rd and wr touch one 4-byte word in every 16 bytes (every line,
    # four loads or stores a line) and count every byte of the buffer:
    # stride_bytes=16 counting=buffer
    ("mem_bandwidth", ("op=read", "size_bytes=64M"), "bw_mem", ("64m", "rd"),
     ("op=read", "size_bytes=64M", "stride_bytes=16", "counting=buffer")),
    ("mem_bandwidth", ("op=read", "size_bytes=64M", "stride_bytes=16", "counting=buffer"), "bw_mem",
     ("64m", "rd")),
    ("mem_bandwidth", ("op=write", "size_bytes=64M"), "bw_mem", ("64m", "wr"),
     ("op=write", "size_bytes=64M", "stride_bytes=16", "counting=buffer")),
    ("mem_bandwidth", ("op=write", "size_bytes=64M", "stride_bytes=16", "counting=buffer"), "bw_mem",
     ("64m", "wr")),
    ("mem_bandwidth", ("op=copy_unrolled", "size_bytes=64M"), "bw_mem", ("64m", "cp")),
    ("bcopy", ("size_bytes=64M",), "bw_mem", ("64m", "bcopy")),
    ("ipc_bandwidth", ("transport=pipe", "placement=same_cpu"), "bw_pipe", ()),
    ("ipc_bandwidth", ("transport=unix", "placement=same_cpu"), "bw_unix", ()),
    ("file_reread_bandwidth", ("method=read", "file_bytes=64M", "DIR"), "bw_file_rd",
     ("64m", "io_only", "FILE")),
    # bw_mmap_rd open2close opens, maps, sums, unmaps and closes the file in
    # every pass, as method=mmap maps and unmaps it (the open and close are
    # microseconds beside a 64 MiB pass); mmap_only maps it once before
    # the timing, as method=mmap_once
    ("file_reread_bandwidth", ("method=mmap", "file_bytes=64M", "DIR"), "bw_mmap_rd",
     ("64m", "open2close", "FILE")),
    ("file_reread_bandwidth", ("method=mmap_once", "file_bytes=64M", "DIR"), "bw_mmap_rd",
     ("64m", "mmap_only", "FILE")),
    # both files made by one 64 MiB write (large folios: a 2 MiB folio a
    # fault), the peer's as benchlib's: the harness makes the peer's file as
    # the pair's write_bytes says
    ("file_reread_bandwidth", ("method=read", "file_bytes=64M", "write_bytes=64M", "DIR"),
     "bw_file_rd", ("64m", "io_only", "FILE")),
    ("file_reread_bandwidth", ("method=mmap", "file_bytes=64M", "write_bytes=64M", "DIR"),
     "bw_mmap_rd", ("64m", "open2close", "FILE")),
]
# What each file pair times differently, measured (docs/peers.md), and the
# ratios the measurement covers:
SUM_LOOP = ("the summing loop: benchlib's four 64-bit chains (-O2) read a 64 MiB mapping of the "
            "page cache 3-16 % faster than a loop shaped as lmbench3's bread, a 128-term sum a "
            "block (-O), as the host's memory runs fast or slow (bash bench/sum_loops/run.sh, "
            "EPYC guest 2026-11-27)")
SUM_LOOP_RANGE = (1.02, 1.17)
COPY_LOOP = ("the copying loop: benchlib's eight 8-byte words an iteration copy 64 MiB 6-43 % faster "
             "than mbw's one word an iteration (the same loads and stores, four times the loop "
             "instructions a line), alternated in one process as the host's memory runs fast or "
             "slow (bash bench/copy_loops/run.sh, EPYC guest 2026-11-27)")
COPY_LOOP_RANGE = (1.06, 1.43)
TARGET_REL_CI = 0.03  # benchlib's side of an lmbench3 pair: adaptive sampling to +-3 %
BANDWIDTH_REL_CI = 0.05  # bandwidth pairs: rounds until the ratio is known to +-5 %


def _label(name: str, params: tuple, program: str, args: tuple) -> str:
    shown = " ".join(p for p in params if p != "DIR")
    return f"{name} {shown} | lmbench3 {program} {' '.join(a for a in args if a != 'FILE')}".rstrip()


def lmbench_pairs(t: Tools) -> list[Pair]:
    """benchlib against lmbench3, figure by figure, same CPU (both processes
    of a round trip on it: taskset pins lmbench3's child too).  benchlib's
    side asks for a +-3 % interval (--target-ci 0.03), so the harness can
    tell how long each tool took to reach its figure."""
    c, d = str(t.cpu), f"directory={t.workdir}"
    lm_file = t.workdir / "lmbench-file.dat"

    def params_of(ps):
        return tuple(d if p == "DIR" else p for p in ps)

    def args_of(a):
        return tuple(str(lm_file) if x == "FILE" else x for x in a)

    def ours(name, ps, scale=1.0):
        return lambda: t.benchlib_timed(name, *params_of(ps), f"cpu={c}", scale=scale)

    pairs = []
    for name, params, program, args, to_us, variant in LMBENCH_US:
        pairs.append(Pair(
            _label(name, params, program, args), "us", ours(name, params, to_us),
            lambda g=program, a=args: t.timed(lambda: t.lmbench_us_in(g, *args_of(a))), "lmbench3",
            f"benchlib run {name} " + " ".join(f"-p {p}" for p in params if p != "DIR"),
            f"{program} -N 5 {' '.join(args)}".rstrip(),
            explained_by=_label(name, variant, program, args) if variant else ""))
    for n, kb, parent in LMBENCH_CTX:
        base = (f"processes={n}", f"process_kb={kb}", "placement=same_cpu")
        params = base + (f"parent={parent}",)
        peer = ("-s", str(kb), str(n))
        pairs.append(Pair(
            _label("context_switch", params, "lat_ctx", peer), "us",
            ours("context_switch", params),
            lambda n=n, kb=kb: t.timed(lambda: t.lmbench_ctx_us(kb, n)), "lmbench3",
            "benchlib run context_switch " + " ".join(f"-p {p}" for p in params),
            f"lat_ctx -N 5 -s {kb} {n}",
            explained=RING_FOOTPRINT if kb else "",
            explained_range=RING_FOOTPRINT_RANGE if kb else None,
            explained_by=(_label("context_switch", base + ("parent=small",), "lat_ctx", peer)
                          if parent != "small" else "")))
    for size_mb, stride, flags in LMBENCH_MEM:
        pattern = "random" if "-t" in flags else "stride"
        base = (f"size_bytes={size_mb}M", f"stride_bytes={stride}", f"pattern={pattern}")
        theirs = base + (("window_bytes=0",) if pattern == "random" else ("loop_loads=100",))
        peer = (*flags, "-P", "1", str(size_mb), str(stride))
        for params in (base, theirs):
            # no wall time: lat_mem_rd times every size below this one too
            pairs.append(Pair(
                _label("mem_latency", params, "lat_mem_rd", peer), "ns",
                lambda p=params: t.benchlib("mem_latency", *p, f"cpu={c}")["value"],
                lambda z=size_mb, s=stride, f=flags: t.lmbench_mem_ns(z, s, *f), "lmbench3",
                "benchlib run mem_latency " + " ".join(f"-p {p}" for p in params),
                f"lat_mem_rd -N 1 {' '.join(peer)} (its {size_mb} MB row)",
                explained_by=(_label("mem_latency", theirs, "lat_mem_rd", peer)
                              if params == base else "")))
    for name, params, program, args, *variant in LMBENCH_MB_S:
        written = next((parse_size(p.split("=", 1)[1]) for p in params
                        if p.startswith("write_bytes=")), FILE_WRITE_BYTES)
        pairs.append(Pair(
            _label(name, params, program, args), "MB/s", ours(name, params),
            lambda g=program, a=args, w=written: t.timed(
                lambda: t.lmbench_file_mb_s(g, lm_file, *args_of(a), write_bytes=w)),
            "lmbench3",
            f"benchlib run {name} " + " ".join(f"-p {p}" for p in params if p != "DIR"),
            f"{program} -N 5 {' '.join(args)}".rstrip()
            + (f" (its file made afresh in {written}-byte writes)" if "FILE" in args else ""),
            min_rounds_rel_ci=BANDWIDTH_REL_CI,
            explained=SUM_LOOP if program in ("bw_file_rd", "bw_mmap_rd") else "",
            explained_range=SUM_LOOP_RANGE if program in ("bw_file_rd", "bw_mmap_rd") else None,
            explained_by=_label(name, variant[0], program, args) if variant else ""))
    return pairs


def bandwidth_pairs(t: Tools) -> list[Pair]:
    """likwid-bench's load/store/copy kernels, mbw's memcpy and perf's memset
    against benchlib's memory bandwidth at the same size, one thread."""
    c = str(t.cpu)
    pairs = []
    # likwid-bench's size is the whole data set, its vectors together: the
    # copy's two vectors of 64 MiB each are -w S0:128MB
    # likwid-bench's scalar store kernel (one 8-byte store an element, 1.75
    # instructions an element as it reports them) wrote 64 MiB at 26.8-27.4
    # GB/s on the Zen 4 guest, where its AVX kernel wrote 30.0-33.0 and
    # benchlib's write (8-byte stores too, four a loop turn) 31.0-33.0
    # (2026-11-28 03:45 UTC, three rounds): about 1.06 core cycles a store
    # against benchlib's 0.90 at 3.65 GHz.  The memory takes stores faster
    # than that kernel gives them, so its pace is its loop's (why its loop
    # is slower than benchlib's is not found); the store pair counts as
    # explained when the AVX kernel's pair agrees and benchlib reads
    # faster (up to 30 %).  Where the CPU has no AVX there is no such pair.
    avx = "avx" in cpu_flags()
    kernels = (("load", "read", "once", "64MB", ""),
               ("store", "write", "once", "64MB", "store_avx" if avx else ""),
               ("store_avx", "write", "once", "64MB", "") if avx else None,
               ("copy", "copy_unrolled", "stream", "128MB", ""))
    kernels = tuple(k for k in kernels if k)
    label = "mem_bandwidth {} | likwid-bench -t {} S0:{}:1"
    for test, op, counting, size, by in kernels:
        params = (f"op={op}", "size_bytes=64M", f"counting={counting}")
        pairs.append(Pair(label.format(" ".join(params), test, size),
                          "MB/s", lambda p=params: t.benchlib("mem_bandwidth", *p, f"cpu={c}")["value"],
                          lambda s=test, z=size: t.likwid_mb_s(s, z), "likwid-bench",
                          "benchlib run mem_bandwidth " + " ".join(f"-p {p}" for p in params),
                          f"likwid-bench -t {test} -w S0:{size}:1 -s 0.3",
                          min_rounds_rel_ci=BANDWIDTH_REL_CI,
                          explained_by=label.format(" ".join(params), by, size) if by else "",
                          explained_range=(1.0, 1.3) if by else None))
    # mbw counts the array once (MiB copied over the time); its arrays are
    # calloc'd, so mapped, 16 bytes into a page each (as perf's 64 MiB ones)
    placed = ("size_bytes=64M", "src_offset_bytes=16", "dst_offset_bytes=16")
    for params in (placed[:1], placed):  # benchlib's own placement, then mbw's
        pairs.append(Pair(f"bcopy {' '.join(params)} | mbw memcpy test", "MB/s",
                          lambda p=params: t.benchlib("bcopy", *p, f"cpu={c}")["value"],
                          lambda: t.mbw_mb_s(64, "memcpy"), "mbw",
                          "benchlib run bcopy " + " ".join(f"-p {p}" for p in params),
                          f"mbw -q -n 5 -t{t.mbw_test('memcpy')} 64",
                          min_rounds_rel_ci=BANDWIDTH_REL_CI,
                          explained_by="" if params == placed
                          else f"bcopy {' '.join(placed)} | mbw memcpy test"))
    pairs.append(Pair("mem_bandwidth op=copy_unrolled size_bytes=64M | mbw word loop (b[i] = a[i])",
                      "MB/s",
                      lambda: t.benchlib("mem_bandwidth", "op=copy_unrolled", "size_bytes=64M",
                                         f"cpu={c}")["value"],
                      lambda: t.mbw_mb_s(64, "loop"), "mbw",
                      "benchlib run mem_bandwidth -p op=copy_unrolled -p size_bytes=64M",
                      f"mbw -q -n 5 -t{t.mbw_test('loop')} 64", explained=COPY_LOOP,
                      explained_range=COPY_LOOP_RANGE, min_rounds_rel_ci=BANDWIDTH_REL_CI))
    pairs.append(Pair("mem_bandwidth op=memset size_bytes=64M | perf bench mem memset -s 64MiB", "MB/s",
                      lambda: t.benchlib("mem_bandwidth", "op=memset", "size_bytes=64M",
                                         f"cpu={c}")["value"],
                      lambda: perf_bandwidth_mb_s(t.perf("mem", "memset", "-f", "default", "-s",
                                                         f"{64 * MiB}B", "-l", "40")), "perf",
                      "benchlib run mem_bandwidth -p op=memset -p size_bytes=64M",
                      f"perf bench mem memset -f default -s {64 * MiB}B -l 40",
                      min_rounds_rel_ci=BANDWIDTH_REL_CI))
    return pairs


def same_tool_pairs(pairs: list[Pair]) -> list[Pair]:
    """Each peer command paired with itself (an A/A run), once per distinct
    command: both sides run the peer, so every difference is the host's.
    The share of these pairs that agree is the most any tool can reach on
    this host with these rounds; a benchlib pair that fails to agree where
    its peer's A/A pair also fails is not shown to differ."""
    out, seen = [], set()
    for p in pairs:
        if p.theirs_cmd in seen:
            continue
        seen.add(p.theirs_cmd)
        out.append(Pair(f"{p.theirs_cmd} | itself (A/A)", p.unit, p.theirs, p.theirs, p.tool,
                        ours_cmd=p.theirs_cmd, theirs_cmd=p.theirs_cmd,
                        min_rounds_rel_ci=p.min_rounds_rel_ci))
    return out


def _ring_round_trip_us(t: Tools) -> float:
    r = t.benchlib("context_switch", "processes=2", "process_kb=0", "placement=same_cpu",
                   f"cpu={t.cpu}")
    return 2 * (r["value"] + r["extras"]["overhead_us"])


