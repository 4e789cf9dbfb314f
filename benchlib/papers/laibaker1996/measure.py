"""This machine's rows of Lai and Baker's Pentium comparison (slides, 1996):
one function per slide, each running the benchmarks the slide needs and
returning the results beside rows in the slides' columns and units, ready
for ``benchlib.papers.laibaker1996.paper.paper_table``; and the curves the slides
only drew (context switch against the number of processes, the small-file
benchmark against the file size, UDP and TCP bandwidth against the transfer
size).

The slides' machine was a uniprocessor, so the rows compared with them are
pinned to one CPU (single-process benchmarks) or keep both processes on one
CPU (``placement=same_cpu``); other placements are separate rows.  The
slides' data and rule are in ``benchlib.papers.laibaker1996.paper``; this module
only measures, and ``then_and_now`` / ``spread_on_this_machine`` put the
two side by side for the slides' conclusion.
"""
from __future__ import annotations

import math
import os
from dataclasses import replace

import numpy as np
import pandas as pd

from benchlib.stats import intervals as iv
from benchlib.measuring.harness import run, sweep
from benchlib.measuring.registry import filesystem_of
from benchlib.papers import TableRows, measure_rows, paper_table as _paper_table, pinned_cpu, table_rows as _rows
from benchlib.papers.laibaker1996 import paper
from benchlib.papers.laibaker1996.cells import CELLS, MBIT_PER_MB, TCP_TRANSFER_BYTES  # noqa: F401

UDP_DATAGRAM_BYTES = 8 << 10    # bytes per datagram for the UDP row (NFS's 8 KB blocks)


def ext4_has_journal(directory: str) -> bool | None:
    """Whether the ext4 file system holding ``directory`` has a journal
    (its jbd2 thread in /sys/fs/ext4/<device>/journal_task, else an entry
    in /proc/fs/jbd2); None on other file systems or when it cannot be told.
    Without a journal, ext4 writes metadata back asynchronously, as Linux's
    ext2 did in 1995, and avoids reusing inodes freed in the last minute."""
    fs = filesystem_of(directory)
    if fs["fs_type"] != "ext4":
        return None
    device = None
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                dev, mnt, fstype = line.split()[:3]
                if mnt.replace("\\040", " ") == fs["mount_point"] and fstype == "ext4":
                    device = dev
    except OSError:
        return None
    if not device or not device.startswith("/dev/"):
        return None
    name = os.path.basename(os.path.realpath(device))
    try:
        with open(f"/sys/fs/ext4/{name}/journal_task") as f:
            return f.read().strip() not in ("", "<none>")
    except OSError:
        pass
    try:
        return any(e.startswith(name + "-") for e in os.listdir("/proc/fs/jbd2"))
    except OSError:
        return None


def _two_cpus() -> bool:
    return len(os.sched_getaffinity(0)) >= 2


# ------------------------------------------------------------ the tables

def system_call(profile: str = "quick") -> TableRows:
    """getpid in a loop (through syscall(2): libc may cache the pid), pinned
    to one CPU as on the slides' uniprocessor, and unpinned."""
    t = measure_rows(CELLS["system_call"], profile)
    t.notes["cpu"] = pinned_cpu()
    return t


def tcp_bandwidth(profile: str = "quick") -> TableRows:
    """Loopback TCP bandwidth in the slides' megabits/second: both processes
    on one CPU (the slides' case) and, where there are two, one on each."""
    spec = CELLS["tcp_bandwidth"]
    if not _two_cpus():
        spec = replace(spec, rows={k: v for k, v in spec.rows.items() if k == "one CPU"})
    t = measure_rows(spec, profile)
    t.notes["transfer_bytes"] = TCP_TRANSFER_BYTES
    return t


def udp_bandwidth(profile: str = "quick", datagram_bytes: int = UDP_DATAGRAM_BYTES) -> TableRows:
    """Loopback UDP bandwidth received, in megabits/second, with the loss.
    The slides drew this one (no numbers survive), so the rows stand alone."""
    placements = ["same_cpu"] + (["different_cpus"] if _two_cpus() else [])
    res = {p: run("udp_bandwidth", datagram_bytes=datagram_bytes, placement=p, profile=profile)
           for p in placements}
    names = {"same_cpu": "this machine, one CPU", "different_cpus": "this machine, two CPUs"}
    rows = [{"os": names[p], "bandwidth_mbit_s": r.measured * MBIT_PER_MB,
             "sent_mbit_s": iv.of_samples(r.extras["sent_mb_s"], r.measured.unstable) * MBIT_PER_MB,
             "loss_pct": 100 * r.extras["loss_fraction_median"]} for p, r in res.items()]
    return _rows("udp_bandwidth", rows, res, datagram_bytes=datagram_bytes)


def andrew_local(profile: str = "quick", directory: str | None = None) -> TableRows:
    """The Modified Andrew Benchmark on this machine's local file system
    (median run); the per-phase times in ``notes['phases']``."""
    t = measure_rows(CELLS["andrew_local"], profile, directory)
    r = t.results["time_s"]
    t.notes.update(phases=pd.DataFrame(r.extras["phase_s"]), fs_type=r.extras.get("fs_type"))
    return t


def paper_table(t: TableRows) -> pd.DataFrame:
    """A slide's table with this machine's rows (a ``TableRows`` of
    ``cells.CELLS``), best first (``papers.paper_table``), and three
    columns of the slides' normalisation:

    * ``normalized_to_best``: as printed (empty for this machine's rows);
    * ``vs_best_1995``: the slides' rule with the best 1995 system as the
      best, for every row: this machine's figure on the slides' own scale
      (above 1.0: faster than the best of 1995);
    * ``normalized_to_best_now``: the rule over every row shown, this
      machine included, so the best of them is 1.00.

    ``source`` says which rows are the slides' ("paper") and which were
    measured here ("this machine")."""
    spec = paper.TABLES[t.table]
    df = _paper_table(t, spec=CELLS[t.table])
    slides = paper.load(t.table)
    v, hib = df[spec.value], spec.higher_is_better
    best_1995 = slides[spec.value].max() if hib else slides[spec.value].min()
    cells = [iv.get(df, spec.value, i) for i in df.index]
    iv.put(df, "vs_best_1995", [paper.relative_to(x, best_1995, hib) for x in cells])
    now = paper.normalized_to_best(v, hib)
    if v.notna().any():
        # with this machine's figures as Measured, their intervals follow (the
        # best row itself is 1.00 by definition)
        best = cells[int(v.idxmax() if hib else v.idxmin())]
        now = [1.0 if c is best else paper.relative_to(c, best, hib) if v[i] == v[i] else now[i]
               for i, c in zip(df.index, cells)]
    iv.put(df, "normalized_to_best_now", list(now))
    cols = [c for c in df.columns if c != "source"] + ["source"]
    return df[cols]


# ------------------------------------------------------------ the curves the slides drew

def ctx_processes(profile: str) -> list[int]:
    """Ring sizes for the context-switch curve: up to the benchmark's 64."""
    return {"smoke": [2, 8], "quick": [2, 4, 8, 16, 32, 64]}.get(
        profile, [2, 4, 6, 8, 12, 16, 24, 32, 48, 64])


def context_switch_curve(profile: str = "quick", placements=("same_cpu",),
                         progress: bool = True, recorder=None) -> pd.DataFrame:
    """µs per hop of a token round a ring of N processes (0 KB each), N
    from 2 to 64.  ``switch_us`` is the benchmark's figure (the pipe write,
    read and token handling done by one process alone subtracted);
    ``per_hop_us`` adds that overhead back: what the slides' benchmark
    measured, "pipe latency, scheduling, context switching"."""
    frames = []
    for placement in placements:
        df = sweep("context_switch", {"processes": ctx_processes(profile)}, process_kb=0,
                   placement=placement, profile=profile, progress=progress, shuffle=True, recorder=recorder)
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    df["switch_us"] = df["median"]
    df["per_hop_us"] = df["median"] + df["overhead_us"]
    return df


def small_file_sizes(profile: str) -> tuple[list[int], int]:
    """(file sizes, files per batch) for the small-file curve."""
    if profile == "smoke":
        return [0, 4 << 10], 20
    if profile == "quick":
        return [0, 1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10], 100
    return [0, 512, 1 << 10, 2 << 10, 4 << 10, 8 << 10, 12 << 10, 16 << 10, 24 << 10, 32 << 10,
            48 << 10, 64 << 10, 128 << 10], 300


def small_file_curve(profile: str = "quick", directory: str | None = None,
                     progress: bool = True, recorder=None) -> pd.DataFrame:
    """The small-file benchmark over file sizes: one row per size and phase
    (create, write, read, delete, total) with the median µs per file over
    the batches.  Sizes are measured in random order, so files deleted by
    one size's batches do not always precede the same next size (see the
    benchmark's note on ext4)."""
    sizes, files = small_file_sizes(profile)
    kw = {"directory": directory} if directory else {}
    df = sweep("small_file", {"size_bytes": sizes}, files=files, cpu=pinned_cpu(),
               profile=profile, progress=progress, shuffle=True, **kw, recorder=recorder)
    rows = []
    for _, r in df.iterrows():
        for phase, v in r["phase_median_us"].items():
            rows.append({"size_bytes": r["size_bytes"], "phase": phase, "us_per_file": v,
                         "files": files, "fs_type": r.get("fs_type")})
        rows.append({"size_bytes": r["size_bytes"], "phase": "total", "us_per_file": r["median"],
                     "files": files, "fs_type": r.get("fs_type")})
    out = pd.DataFrame(rows)
    out.attrs["batches"] = {int(s): v for s, v in zip(df["size_bytes"], df["phase_us_per_file"])}
    return out


def net_sizes(profile: str) -> list[int]:
    """Bytes per write (TCP) and per datagram (UDP) for the bandwidth curves;
    60 KiB is the largest that fits one UDP datagram in round numbers."""
    if profile == "smoke":
        return [8 << 10]
    return [4 << 10, 8 << 10, 16 << 10, 32 << 10, 60 << 10]


def bandwidth_curves(profile: str = "quick", progress: bool = True, recorder=None) -> pd.DataFrame:
    """TCP and UDP over loopback, both processes on one CPU, against the
    bytes per write or datagram: Mbit/s received, and for UDP the rate sent
    and the share lost."""
    sizes = net_sizes(profile)
    tcp = sweep("ipc_bandwidth", {"transfer_bytes": sizes}, transport="tcp",
                placement="same_cpu", profile=profile, progress=progress, shuffle=True, recorder=recorder)
    udp = sweep("udp_bandwidth", {"datagram_bytes": sizes}, placement="same_cpu",
                profile=profile, progress=progress, shuffle=True, recorder=recorder)
    rows = [{"protocol": "TCP", "bytes": int(r.transfer_bytes),
             "mbit_s": r["median"] * MBIT_PER_MB, "sent_mbit_s": r["median"] * MBIT_PER_MB,
             "loss_pct": 0.0} for _, r in tcp.iterrows()]
    rows += [{"protocol": "UDP", "bytes": int(r.datagram_bytes),
              "mbit_s": r["median"] * MBIT_PER_MB,
              "sent_mbit_s": float(np.median(r["sent_mb_s"])) * MBIT_PER_MB,
              "loss_pct": 100 * r["loss_fraction_median"]} for _, r in udp.iterrows()]
    return pd.DataFrame(rows)


# ------------------------------------------------------------ the slides' conclusion

def then_and_now(rows: dict[str, TableRows]) -> pd.DataFrame:
    """For each slide table: the best and the worst system of 1995, how far
    apart they were, this machine's figure (its first row: pinned / one CPU
    / local) and how many times faster it is than each.  The NFS table has
    no figure for this machine."""
    spread = paper.spread_1995().set_index("table")
    out = []
    for table, spec in paper.TABLES.items():
        if spec.value is None:
            continue
        s = spread.loc[table]
        t = None if table == "andrew_nfs" else rows.get(table)
        ours = t.cell(spec.value) if t is not None else math.nan
        label = t.rows["os"].iloc[0] if t is not None else "not measured here"
        hib = spec.higher_is_better
        out.append({"table": table, "unit": spec.unit,
                    "best 1995": f"{s.best_value:g} ({s.best})",
                    "worst 1995": f"{s.worst_value:g} ({s.worst})",
                    "spread 1995": s.spread, "this machine": ours, "row": label,
                    "x best 1995": paper.relative_to(ours, s.best_value, hib),
                    "x worst 1995": paper.relative_to(ours, s.worst_value, hib)})
    df = pd.DataFrame(out)
    for col in ("this machine", "x best 1995", "x worst 1995"):
        iv.put(df, col, list(df[col]))   # this machine's figures with their 95% intervals
    return df


def _ratio(a, b):
    """The larger over the smaller (numbers, or Measured: then with an
    interval from the endpoints)."""
    lo, hi = sorted((a, b), key=iv.value)
    return hi / lo if iv.value(lo) > 0 else math.nan


def spread_on_this_machine(rows: dict[str, TableRows], ctx: pd.DataFrame | None = None,
                           small: pd.DataFrame | None = None) -> pd.DataFrame:
    """How much this machine's own figures move with things other than the
    operating system: the samples of one run, where the processes run, the
    number of processes, the run of the Andrew benchmark.  Each row: what
    varies, the lower and the higher figure, and their ratio (>= 1); where
    the two are medians of results, with 95% intervals (the ratio's from
    the endpoints)."""
    out = []

    def add(what, lo, hi, unit):
        lo, hi = sorted((lo, hi), key=iv.value)
        out.append({"what varies": what, "low": lo, "high": hi, "unit": unit,
                    "ratio": _ratio(lo, hi)})

    sc = rows.get("system_call")
    if sc is not None:
        r = sc.results["pinned"]
        add("getpid: the samples of one pinned run (fastest, slowest)", r.min, r.max, "µs")
        add("getpid: pinned or unpinned", r.measured, sc.results["unpinned"].measured, "µs")
    tcp = rows.get("tcp_bandwidth")
    if tcp is not None and len(tcp.results) > 1:
        a, b = (r.measured * MBIT_PER_MB for r in tcp.results.values())
        add("TCP bandwidth: one CPU or two", a, b, "Mbit/s")
    udp = rows.get("udp_bandwidth")
    if udp is not None and len(udp.results) > 1:
        a, b = (r.measured * MBIT_PER_MB for r in udp.results.values())
        add("UDP bandwidth: one CPU or two", a, b, "Mbit/s")
    if ctx is not None and not ctx.empty:
        one = ctx[ctx.placement == ctx.placement.iloc[0]]
        add(f"context switch with its pipe: {one.processes.min()} to {one.processes.max()} "
            "processes", one.per_hop_us.min(), one.per_hop_us.max(), "µs")
    if small is not None and not small.empty:
        create = small[small.phase == "create"].us_per_file
        add("small file: creating a new file, over the sizes measured", create.min(),
            create.max(), "µs")
    ab = rows.get("andrew_local")
    if ab is not None and ab.results["time_s"].n_samples > 1:
        r = ab.results["time_s"]
        add("Andrew benchmark: its runs (fastest, slowest)", r.min, r.max, "s")
    df = pd.DataFrame(out, columns=["what varies", "low", "high", "unit", "ratio"])
    for col in ("low", "high", "ratio"):
        iv.put(df, col, list(df[col]))   # two medians: their intervals and the ratio's
    return df


def differences_within_noise(spread_1995, own_spread) -> bool:
    """The slides' argument, tested: do this machine's own figures move (with placement,
    process count, samples, file-system history) at least as much as the typical (median)
    1995 difference between the operating systems?  Both arguments are ratios >= 1."""
    s95 = np.asarray(spread_1995, dtype=float)
    own = np.asarray(own_spread, dtype=float)
    s95, own = s95[~np.isnan(s95)], own[~np.isnan(own)]
    if s95.size == 0 or own.size == 0:
        raise ValueError("need at least one 1995 spread and one spread on this machine")
    return bool(own.max() >= np.median(s95))
