"""The measuring process's own state: what the kernel sees of it (threads,
descriptors, mappings, signal handlers) and the machine's counters around a
run (``Snapshot``).  Read from /proc; nothing here is timed and nothing here
imports numpy, so the single-threaded worker (``benchlib.measuring.worker``) can use it
without loading a thread pool.

Why it matters: a descriptor used by a process with more than one thread
takes the kernel's slower reference-counted path (``fdget`` skips the count
only while the file table is not shared), so a 1-byte ``write`` costs about
30 % more from a Python process that carries numpy's OpenBLAS pool.  Every
result records the state of the process that ran its loop."""
from __future__ import annotations

import os
import resource
import signal
import time

MIN_TICKS = 10  # per CPU: runs shorter than this many clock ticks get no busy/steal figure
_WHO = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)

RUN_FACTS = ("wall_s", "runqueue_wait_s", "runqueue_wait_fraction", "steal_fraction", "steal_s",
             "involuntary_switches", "voluntary_switches", "loadavg", "other_cpus_busy_max",
             "other_cpus_busy")


def _status() -> dict[str, str]:
    out = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                out[k] = v.strip()
    except OSError:
        pass
    return out


def _signal_names(mask_hex: str | None) -> list[str]:
    """The signals a /proc status mask (SigCgt, SigIgn) names."""
    if not mask_hex:
        return []
    mask, names = int(mask_hex, 16), []
    for n in range(1, 65):
        if mask >> (n - 1) & 1:
            try:
                names.append(signal.Signals(n).name)
            except ValueError:
                names.append(f"SIG{n}")
    return names


def thread_count() -> int:
    """Threads of this process (/proc/self/task)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return int(_status().get("Threads", "0") or 0)


def process_state() -> dict:
    """What the kernel sees of this process that can move a figure: its
    threads (a shared file table takes the slow fd path; a shared mm widens
    TLB shootdowns), open descriptors (select/poll scan them), mappings (fork
    copies them), resident memory and the signals it catches or ignores."""
    st = _status()
    try:
        fds = len(os.listdir("/proc/self/fd")) - 1  # less the one listdir opened
    except OSError:
        fds = None
    try:
        with open("/proc/self/maps") as f:
            maps = sum(1 for _ in f)
    except OSError:
        maps = None
    kib = (lambda k: int(st[k].split()[0]) if k in st else None)
    return {"pid": os.getpid(), "threads": thread_count(), "open_fds": fds, "mappings": maps,
            "vm_rss_kib": kib("VmRSS"), "vm_size_kib": kib("VmSize"),
            "signals_caught": _signal_names(st.get("SigCgt")),
            "signals_ignored": _signal_names(st.get("SigIgn")),
            "thp_disabled": st.get("THP_enabled") == "0" if "THP_enabled" in st else None,
            "speculation_store_bypass": st.get("Speculation_Store_Bypass"),
            "indirect_branch_speculation": st.get("SpeculationIndirectBranch")}


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
    """The machine's counters at one moment, taken by the thread that runs
    the loop; ``since(earlier, ...)`` gives the facts of the interval."""

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
