"""The benchmarks, each registered once with its parameters and unit.

Each ``measure`` translates parameters into a call of the C library; the
timing core in C does the rest."""
from __future__ import annotations

import functools
import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import warnings

from .errors import BenchlibError, MeasurementError
import tempfile

from .registry import Benchmark, Param, check_free_space, filesystem_of, register

CPU = Param("cpu", "int", -1, "CPU to pin the measuring process to; -1 leaves it unpinned",
            min=-1, max=4095)


def _lib():
    from ._native import lib
    return lib


def _allowed_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def _check_cpu(cpu: int) -> None:
    if cpu >= 0 and cpu not in _allowed_cpus():
        raise BenchlibError(
            f"cpu={cpu} is not available to this process; allowed CPUs: "
            f"{', '.join(map(str, _allowed_cpus()))}")


def _us(ns: float, params: dict) -> float:
    return ns / 1e3


# ---------------------------------------------------------------- cpu_clock

ADDS_PER_ITERATION = 100  # cpu.c

register(Benchmark(
    name="cpu_clock",
    description="Core clock the CPU actually runs at: a chain of dependent integer adds (one per cycle)",
    unit="GHz",
    higher_is_better=True,
    counts="one dependent add per core cycle, as on current x86 and Arm cores",
    params=(CPU,),
    measure=lambda p, o, ns, tk, info: _lib().bl_cpu_clock(o, ns, tk, info),
    to_unit=lambda ns, p: ADDS_PER_ITERATION / ns,
    check=lambda p: _check_cpu(p["cpu"]),
))


# ---------------------------------------------------------------- integer_speed

@functools.lru_cache(maxsize=1)
def instructions_per_repetition() -> int:
    """Instructions one repetition of integer_speed's program executes, counted
    by single-stepping it under ptrace (about a second; cached)."""
    from ._native import ffi
    per, fixed = ffi.new("int64_t *"), ffi.new("int64_t *")
    rc = _lib().bl_count_instructions(per, fixed)
    if rc == -1:
        raise KeyboardInterrupt
    if rc != 0:
        raise BenchlibError(ffi.string(_lib().bl_last_error()).decode())
    return int(per[0])


def _measure_integer(p, o, ns, tk, info):
    n = instructions_per_repetition()
    return _lib().bl_integer_speed(o, ns, tk, info), {"instructions_per_repetition": n}


register(Benchmark(
    name="integer_speed",
    description="Native integer speed: a small integer program (tokenise and hash a line, sort, "
                "walk a linked list, small calls) whose instructions are counted by single-stepping",
    unit="MIPS",
    higher_is_better=True,
    counts="native instructions per microsecond (millions per second), instructions counted "
           "exactly under ptrace; not VAX MIPS: see benchlib.papers.ousterhout1990.vax_mips",
    params=(CPU,),
    measure=_measure_integer,
    to_unit=lambda ns, p: instructions_per_repetition() / ns * 1e3,
    check=lambda p: _check_cpu(p["cpu"]),
))


# ---------------------------------------------------------------- syscall

_SYSCALL_OPS = {"getpid": 0, "write": 1, "getppid": 2, "read": 3, "stat": 4, "fstat": 5}

register(Benchmark(
    name="syscall",
    description="Kernel entry and exit: getpid or getppid via syscall(2), a 1-byte write to "
                "/dev/null (the null call: /dev/null ignores the data, so a byte costs what a word "
                "does), a 1-byte read from /dev/zero, stat(\"/dev/null\") or fstat",
    unit="us",
    params=(Param("op", "choice", "getpid", "the call made in the loop",
                  choices=tuple(_SYSCALL_OPS)), CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_syscall_latency(
        _SYSCALL_OPS[p["op"]], o, ns, tk, info),
    to_unit=_us,
    check=lambda p: _check_cpu(p["cpu"]),
))


# ---------------------------------------------------------------- pipe_latency

def _pipe_cpus(p: dict) -> tuple[int, int]:
    """(measuring process CPU, echo child CPU) for a placement."""
    allowed = _allowed_cpus()
    if p["placement"] == "unpinned":
        return -1, -1
    first = p["cpu"] if p["cpu"] >= 0 else allowed[0]
    if p["placement"] == "same_cpu":
        return first, first
    others = [c for c in allowed if c != first]
    if not others:
        raise BenchlibError(
            "placement=different_cpus needs two CPUs, but this process may use only "
            f"CPU {first}")
    return first, others[0]


def _check_pipe(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["placement"] == "unpinned" and p["cpu"] >= 0:
        raise BenchlibError("cpu cannot be set with placement=unpinned; "
                            "use placement=same_cpu or different_cpus to pin")
    _pipe_cpus(p)


def _measure_pipe(p, o, ns, tk, info):
    o.cpu, o.helper_cpu = _pipe_cpus(p)
    return _lib().bl_pipe_latency(o, ns, tk, info)


register(Benchmark(
    name="pipe_latency",
    description="One-byte round trip between two processes over a pair of pipes",
    unit="us",
    params=(Param("placement", "choice", "same_cpu",
                  "same_cpu: both pinned to one CPU (two context switches per round trip); "
                  "different_cpus: one CPU each (cross-CPU wake-ups); unpinned: scheduler's choice",
                  choices=("same_cpu", "different_cpus", "unpinned")),
            Param("cpu", "int", -1,
                  "CPU of the measuring process when pinned; -1 takes the first allowed CPU",
                  min=-1, max=4095)),
    measure=_measure_pipe,
    to_unit=_us,
    check=_check_pipe,
))


def _pinned_cpu(p: dict) -> int:
    return p["cpu"] if p["cpu"] >= 0 else _allowed_cpus()[0]


register(Benchmark(
    name="pipe_write_read",
    description="One process writes a byte into a pipe and reads it back: the system-call part "
                "of a pipe round trip, without a context switch",
    unit="us",
    counts="one write plus one read",
    params=(CPU,),
    measure=lambda p, o, ns, tk, info: _lib().bl_pipe_self(o, ns, tk, info),
    to_unit=_us,
    check=lambda p: _check_cpu(p["cpu"]),
))


def _measure_yield(p, o, ns, tk, info):
    from ._native import ffi
    o.cpu = _pinned_cpu(p)
    ratio = ffi.new("double *")
    rc = _lib().bl_yield_switch(o, ratio, ns, tk, info)
    return rc, {"child_yields_per_parent_yield": float(ratio[0])}


register(Benchmark(
    name="yield_switch",
    description="Two processes pinned to one CPU call sched_yield in turn: two system calls and "
                "two context switches per iteration, with no wake-up and no data",
    unit="us",
    counts="one sched_yield in each process; extras say whether they really alternated "
           "(child_yields_per_parent_yield near 1)",
    params=(Param("cpu", "int", -1, "CPU both processes are pinned to; -1 takes the first "
                  "allowed CPU", min=-1, max=4095),),
    measure=_measure_yield,
    to_unit=_us,
    check=lambda p: _check_cpu(p["cpu"]),
))


# ---------------------------------------------------------------- bcopy

MAX_BUFFER = 1 << 40

register(Benchmark(
    name="bcopy",
    description="memcpy bandwidth copying size_bytes from one buffer to another",
    unit="MB/s",
    higher_is_better=True,
    counts="size_bytes counted once per copy (not read + write); MB = 10^6 bytes",
    params=(Param("size_bytes", "size", 1 << 20, "bytes copied per memcpy",
                  min=1, max=MAX_BUFFER), CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_bcopy(p["size_bytes"], o, ns, tk, info),
    to_unit=lambda ns, p: p["size_bytes"] / ns * 1e3,  # bytes/ns = GB/s; x1e3 = MB/s
    check=lambda p: _check_cpu(p["cpu"]),
    memory_bytes=lambda p: 2 * p["size_bytes"],
))


# ---------------------------------------------------------------- mem_latency

def _check_mem_latency(p: dict) -> None:
    _check_cpu(p["cpu"])
    size, stride = p["size_bytes"], p["stride_bytes"]
    if stride % 8:
        raise BenchlibError(f"stride_bytes must be a multiple of 8 (a pointer); got {stride}")
    if stride > size:
        raise BenchlibError(f"stride_bytes ({stride}) is larger than size_bytes ({size})")
    if size // stride < 2:
        raise BenchlibError(
            f"size_bytes ({size}) must hold at least two slots of stride_bytes ({stride})")


_PATTERNS = {"stride": 0, "random": 1}
_HUGE = {"off": 0, "on": 1}

register(Benchmark(
    name="mem_latency",
    description="Dependent-load latency: a pointer chase over size_bytes, one pointer every stride_bytes",
    unit="ns",
    params=(Param("size_bytes", "size", 1 << 20, "bytes covered by the chain", min=16, max=MAX_BUFFER),
            Param("stride_bytes", "size", 64, "distance between slots (the slot size for random)",
                  min=8, max=MAX_BUFFER),
            Param("pattern", "choice", "stride",
                  "stride: slot i -> i+1, as the lmbench paper (prefetchers help); random: 2 MiB "
                  "windows in random order, each window's slots in random order (defeats prefetchers)",
                  choices=tuple(_PATTERNS)),
            Param("huge_pages", "choice", "off",
                  "on: madvise(MADV_HUGEPAGE), off: madvise(MADV_NOHUGEPAGE); the bytes really "
                  "backed by huge pages are reported", choices=tuple(_HUGE)),
            CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_mem_latency(
        p["size_bytes"], p["stride_bytes"], _PATTERNS[p["pattern"]], _HUGE[p["huge_pages"]],
        o, ns, tk, info),
    to_unit=lambda ns, p: ns,
    check=_check_mem_latency,
    memory_bytes=lambda p: p["size_bytes"],
    extras=lambda info, p: {"huge_page_bytes": int(info.huge_bytes)},
))


register(Benchmark(
    name="mem_revisit_latency",
    description="The random chase of mem_latency with spin_adds dependent adds after each load: "
                "every line is revisited later (a shared cache's other users get longer to evict it)",
    unit="ns",
    counts="ns per load, the adds' own time included (subtract a chase that stays in L1)",
    params=(Param("size_bytes", "size", 1 << 20, "bytes covered by the chain", min=16,
                  max=MAX_BUFFER),
            Param("spin_adds", "int", 200, "dependent adds after each load", min=0, max=100000),
            Param("huge_pages", "choice", "on", "as mem_latency's", choices=tuple(_HUGE)),
            CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_mem_latency_spin(
        p["size_bytes"], 64, _PATTERNS["random"], _HUGE[p["huge_pages"]], p["spin_adds"],
        o, ns, tk, info),
    to_unit=lambda ns, p: ns,
    check=lambda p: (_check_cpu(p["cpu"]), _check_mem_latency({**p, "stride_bytes": 64})),
    memory_bytes=lambda p: p["size_bytes"],
    extras=lambda info, p: {"huge_page_bytes": int(info.huge_bytes)},
))


def _check_line_pair(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["distance_bytes"] % 8:
        raise BenchlibError(f"distance_bytes must be a multiple of 8; got {p['distance_bytes']}")


register(Benchmark(
    name="line_pair_latency",
    description="A load to a random line, then a dependent load distance_bytes before it: "
                "cheap while the distance stays inside the cache line",
    unit="ns",
    counts="ns per pair of loads",
    params=(Param("distance_bytes", "size", 32, "distance of the second load before the first",
                  min=8, max=2048),
            Param("size_bytes", "size", 8 << 20, "bytes of pages visited in random order",
                  min=16384, max=MAX_BUFFER),
            CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_line_pair_latency(
        p["size_bytes"], p["distance_bytes"], o, ns, tk, info),
    to_unit=lambda ns, p: ns,
    check=_check_line_pair,
    memory_bytes=lambda p: p["size_bytes"],
))


register(Benchmark(
    name="tlb_latency",
    description="A chase over one line in each of `pages` pages (spread) or the same number of "
                "lines packed together (dense): the difference is the TLB's",
    unit="ns",
    params=(Param("pages", "int", 64, "pages (and lines) in the chase", min=2, max=1 << 22),
            Param("layout", "choice", "spread", "spread: one line per page; dense: lines packed",
                  choices=("spread", "dense")),
            CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_tlb_latency(
        p["pages"], p["layout"] == "dense", o, ns, tk, info),
    to_unit=lambda ns, p: ns,
    check=lambda p: _check_cpu(p["cpu"]),
    memory_bytes=lambda p: p["pages"] * (64 if p["layout"] == "dense" else os.sysconf("SC_PAGESIZE")),
))


# ---------------------------------------------------------------- page faults

register(Benchmark(
    name="page_fault_latency",
    description="The first write to a page of fresh anonymous memory: a page fault that "
                "allocates, zeroes and maps a small page (the 1989 Mach thread's 'touch')",
    unit="us",
    counts="one 4 KiB page: its fault and its share of the munmap that frees it; the mmap and "
           "munmap of the same region untouched are subtracted (extras.overhead_us per page); "
           "MADV_NOHUGEPAGE, so every page faults on its own",
    params=(CPU,),
    measure=lambda p, o, ns, tk, info: _lib().bl_page_fault(o, ns, tk, info),
    to_unit=_us,
    check=lambda p: _check_cpu(p["cpu"]),
    memory_bytes=lambda p: 256 << 20,  # the most one sample maps (memory.c FAULT_MAX_PAGES)
    extras=lambda info, p: {"page_bytes": os.sysconf("SC_PAGESIZE"),
                            "overhead_us": info.overhead_ns / 1e3},
))


# ---------------------------------------------------------------- mem_bandwidth

_BW_OPS = {"read": 0, "write": 1, "rmw": 2, "copy_unrolled": 3, "memset": 4, "copy_libc": 5}
# STREAM counts a copy as read + write and so a read-modify-write; the
# lmbench paper (and Ousterhout) counted each byte moved once.
_STREAM_FACTOR = {"read": 1, "write": 1, "rmw": 2, "copy_unrolled": 2, "memset": 1, "copy_libc": 2}


def _check_bandwidth(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["stride_bytes"] % 8:
        raise BenchlibError(f"stride_bytes must be a multiple of 8; got {p['stride_bytes']}")
    if p["stride_bytes"] > p["size_bytes"]:
        raise BenchlibError(
            f"stride_bytes ({p['stride_bytes']}) is larger than size_bytes ({p['size_bytes']})")
    if p["stride_bytes"] != 8 and p["op"] in ("copy_unrolled", "memset", "copy_libc"):
        raise BenchlibError(f"op={p['op']} is dense: stride_bytes must be 8")


def _bandwidth_mb_s(ns: float, p: dict) -> float:
    words = -(-p["size_bytes"] // p["stride_bytes"]) if p["stride_bytes"] > 8 else p["size_bytes"] / 8
    factor = _STREAM_FACTOR[p["op"]] if p["counting"] == "stream" else 1
    return words * 8 * factor / ns * 1e3


register(Benchmark(
    name="mem_bandwidth",
    description="Memory bandwidth: read (sum), write, read-modify-write, copy (unrolled loop or "
                "memcpy), memset over size_bytes, one 8-byte word every stride_bytes",
    unit="MB/s",
    higher_is_better=True,
    counts="MB = 10^6 bytes; counting=once: each byte moved counted once (the lmbench paper); "
           "counting=stream: copies and read-modify-write count read and write (STREAM); "
           "strided reads count the 8-byte words touched",
    params=(Param("op", "choice", "read", "the operation", choices=tuple(_BW_OPS)),
            Param("size_bytes", "size", 8 << 20, "bytes of the buffer", min=64, max=MAX_BUFFER),
            Param("stride_bytes", "size", 8, "distance between the words touched (read, write, rmw)",
                  min=8, max=MAX_BUFFER),
            Param("counting", "choice", "once", "how bytes are counted", choices=("once", "stream")),
            CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_mem_bandwidth(
        _BW_OPS[p["op"]], p["size_bytes"], p["stride_bytes"], o, ns, tk, info),
    to_unit=_bandwidth_mb_s,
    check=_check_bandwidth,
    memory_bytes=lambda p: p["size_bytes"] * (2 if p["op"].startswith("copy") else 1),
))


# ---------------------------------------------------------------- select

register(Benchmark(
    name="select_latency",
    description="select() with a zero timeout over pipes that are empty or each hold a byte",
    unit="us",
    params=(Param("pipes", "int", 10, "pipes in the set", min=1, max=64),
            Param("full", "choice", "no", "whether every pipe holds data", choices=("no", "yes")),
            CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_select_latency(
        p["pipes"], p["full"] == "yes", o, ns, tk, info),
    to_unit=_us,
    check=lambda p: _check_cpu(p["cpu"]),
))


# ---------------------------------------------------------------- IPC and network
#
# The 1996 paper's socket latencies (TCP, UDP, Sun RPC over both), TCP
# connection cost, and pipe and TCP bandwidth, all between this process and
# a forked helper on loopback (net.c).  Placement works as for pipe_latency.

PLACEMENT = Param("placement", "choice", "same_cpu",
                  "same_cpu: both processes pinned to one CPU; different_cpus: one CPU each; "
                  "unpinned: scheduler's choice",
                  choices=("same_cpu", "different_cpus", "unpinned"))
PINNED_CPU = Param("cpu", "int", -1,
                   "CPU of the measuring process when pinned; -1 takes the first allowed CPU",
                   min=-1, max=4095)


def _net_transport(name: str) -> int:
    return {"pipe": _lib().BL_NET_PIPE, "unix": _lib().BL_NET_UNIX,
            "tcp": _lib().BL_NET_TCP, "udp": _lib().BL_NET_UDP}[name]


def _measure_ipc_latency(p, o, ns, tk, info):
    o.cpu, o.helper_cpu = _pipe_cpus(p)
    if p["transport"] == "pipe":  # the same round trip pipe_latency measures
        return _lib().bl_pipe_latency(o, ns, tk, info), {"transport": "pipe"}
    return (_lib().bl_ipc_latency(_net_transport(p["transport"]), o, ns, tk, info),
            {"transport": p["transport"]})


register(Benchmark(
    name="ipc_latency",
    description="Round trip of a 4-byte word between two processes over a unix-domain stream "
                "socketpair, loopback TCP (TCP_NODELAY) or loopback UDP (or two pipes)",
    unit="us",
    counts="one send and one receive in each process per round trip",
    params=(Param("transport", "choice", "tcp",
                  "unix: AF_UNIX SOCK_STREAM socketpair; tcp: 127.0.0.1 with TCP_NODELAY; "
                  "udp: two connected 127.0.0.1 sockets; pipe: as pipe_latency",
                  choices=("unix", "tcp", "udp", "pipe")),
            PLACEMENT, PINNED_CPU),
    measure=_measure_ipc_latency,
    to_unit=_us,
    check=_check_pipe,
))


def _time_wait_on_port(port: int) -> int:
    """Connections in TIME_WAIT (state 06) with `port` at either end."""
    n = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    ports = {int(fields[1].rsplit(":", 1)[1], 16),
                             int(fields[2].rsplit(":", 1)[1], 16)}
                    if fields[3] == "06" and port in ports:
                        n += 1
        except OSError:
            pass
    return n


def _measure_connect(p, o, ns, tk, info):
    from ._native import ffi
    o.cpu, o.helper_cpu = _pipe_cpus(p)
    port = ffi.new("int *", 0)
    rc = _lib().bl_tcp_connect_latency(o, port, ns, tk, info)
    return rc, {"listener_port": int(port[0]),
                "time_wait_left": _time_wait_on_port(int(port[0])) if port[0] else None}


register(Benchmark(
    name="tcp_connect_latency",
    description="TCP connection to a loopback listener: connect, the server accepts and "
                "closes, the client sees the close and closes",
    unit="us",
    counts="one connection; the server closes with SO_LINGER 0 (a reset), so no end is left "
           "in TIME_WAIT (extras.time_wait_left counts what remains on the port)",
    params=(PLACEMENT, PINNED_CPU),
    measure=_measure_connect,
    to_unit=_us,
    check=_check_pipe,
))


RPC_MISSING = "built without libtirpc (install libtirpc-dev and reinstall)"


def have_rpc() -> bool:
    """Whether the C library was built with libtirpc (rpc_latency works)."""
    return bool(_lib().bl_have_rpc())


def _check_rpc(p: dict) -> None:
    if not have_rpc():
        raise BenchlibError(RPC_MISSING)
    _check_pipe(p)


def _measure_rpc(p, o, ns, tk, info):
    o.cpu, o.helper_cpu = _pipe_cpus(p)
    return (_lib().bl_rpc_latency(_net_transport(p["transport"]), o, ns, tk, info),
            {"rpc_library": "libtirpc", "transport": p["transport"]})


register(Benchmark(
    name="rpc_latency",
    description="Sun RPC round trip (libtirpc): a procedure that returns its integer argument, "
                "served by a second process over loopback TCP or UDP, without rpcbind",
    unit="us",
    counts="one clnt_call: XDR encoding, a request and a reply",
    params=(Param("transport", "choice", "tcp", "the RPC transport", choices=("tcp", "udp")),
            PLACEMENT, PINNED_CPU),
    measure=_measure_rpc,
    to_unit=_us,
    check=_check_rpc,
))


MIN_TRANSFER, MAX_TRANSFER = 4 << 10, 16 << 20
MAX_NET_BUFFER = 256 << 20


def _check_ipc_bandwidth(p: dict) -> None:
    _check_pipe(p)
    b = p["buffer_bytes"]
    if 0 < b < 4096:
        raise BenchlibError(f"buffer_bytes must be 0 (system default) or at least 4k; got {b}")


def _measure_ipc_bandwidth(p, o, ns, tk, info):
    from ._native import ffi
    o.cpu, o.helper_cpu = _pipe_cpus(p)
    snd, rcv = ffi.new("int *", -1), ffi.new("int *", -1)
    rc = _lib().bl_ipc_bandwidth(_net_transport(p["transport"]), p["transfer_bytes"],
                                 p["buffer_bytes"], o, snd, rcv, ns, tk, info)
    return rc, {"transport": p["transport"],
                "send_buffer_bytes": int(snd[0]), "receive_buffer_bytes": int(rcv[0])}


register(Benchmark(
    name="ipc_bandwidth",
    description="Bytes written by one process and read (and discarded) by another over a pipe, "
                "a unix-domain stream socket or loopback TCP",
    unit="MB/s",
    higher_is_better=True,
    counts="MB = 10^6 bytes; every sample ends when the reader has acknowledged all its bytes; "
           "buffer sizes really obtained (getsockopt / F_GETPIPE_SZ; Linux doubles socket "
           "buffer requests) in extras",
    params=(Param("transport", "choice", "pipe", "pipe, unix (AF_UNIX SOCK_STREAM) or tcp "
                  "(127.0.0.1)", choices=("pipe", "unix", "tcp")),
            Param("transfer_bytes", "size", 64 << 10, "bytes per write() and read() (the "
                  "paper: 64k); 4k to 16M", min=MIN_TRANSFER, max=MAX_TRANSFER),
            Param("buffer_bytes", "size", 0, "SO_SNDBUF and SO_RCVBUF for sockets, "
                  "F_SETPIPE_SZ for a pipe; 0 keeps the system default, else 4k to 256M",
                  min=0, max=MAX_NET_BUFFER),
            PLACEMENT, PINNED_CPU),
    measure=_measure_ipc_bandwidth,
    to_unit=lambda ns, p: p["transfer_bytes"] / ns * 1e3,
    check=_check_ipc_bandwidth,
    memory_bytes=lambda p: 2 * p["transfer_bytes"],
))


# ---------------------------------------------------------------- procedure calls
#
# The comp.os.mach thread of December 1989 ("Mach performance?"): a local
# procedure call against the same operation on a server process on the same
# machine, each also run a fixed number of times with elapsed, user and
# system time (call.c).

_CALL_OPS = {"loop": 0, "syscall": 1, "null": 2, "add": 3, "string_in": 4, "string_out": 5,
             "string_inout": 6}
_LOCAL_ONLY_OPS = ("loop", "syscall")
_CALL_TRANSPORTS = {"pipe": "pipe", "socketpair": "unix"}


def _check_call(p: dict) -> None:
    _check_pipe(p)
    if p["mode"] == "process" and p["op"] in _LOCAL_ONLY_OPS:
        raise BenchlibError(f"op={p['op']} is local only (no server is involved); "
                            "use mode=local")
    if p["mode"] == "local":
        if p["transport"] != "pipe":
            raise BenchlibError("transport applies to mode=process only; leave it at its "
                                "default (pipe) with mode=local")
        if p["placement"] == "different_cpus":
            raise BenchlibError("placement=different_cpus needs a server process; "
                                "use mode=process, or same_cpu or unpinned")


def _usage_extras(u) -> dict:
    """The fixed run's totals in ms (as the thread's table) and switch counts."""
    if u.calls <= 0:
        return {}
    remote = u.server_user_ns >= 0  # -1 when there is no server (mode=local)
    return {"calls": int(u.calls), "elapsed_ms": u.elapsed_ns / 1e6,
            "client_user_ms": u.client_user_ns / 1e6,
            "client_system_ms": u.client_system_ns / 1e6,
            "server_user_ms": u.server_user_ns / 1e6 if remote else None,
            "server_system_ms": u.server_system_ns / 1e6 if remote else None,
            "client_voluntary_switches": int(u.client_voluntary_switches),
            "client_involuntary_switches": int(u.client_involuntary_switches),
            "server_voluntary_switches": int(u.server_voluntary_switches) if remote else None,
            "server_involuntary_switches": int(u.server_involuntary_switches) if remote else None}


def _measure_call(p, o, ns, tk, info):
    from ._native import ffi
    o.cpu, o.helper_cpu = _pipe_cpus(p)
    local = p["mode"] == "local"
    if local:
        o.helper_cpu = -1
    usage = ffi.new("bl_call_usage *")
    rc = _lib().bl_procedure_call(_CALL_OPS[p["op"]], 0 if local else 1,
                                  _net_transport(_CALL_TRANSPORTS[p["transport"]]),
                                  p["fixed_calls"], usage, o, ns, tk, info)
    return rc, {"fixed_run": _usage_extras(usage)}


register(Benchmark(
    name="procedure_call",
    description="A procedure call in this process (mode=local) against the same call served by "
                "another process over a pipe or socketpair (mode=process): null, add two "
                "numbers, a 200-byte string in, out, in and out (the 1989 Mach IPC tests)",
    unit="us",
    counts="one call; mode=process: the arguments copied into a request, one write and one "
           "read each side, the server calls the same procedure and copies the results into "
           "the reply. A fixed run of fixed_calls calls is also timed once with the user and "
           "system time of both processes (extras.fixed_run, totals in ms as the thread's table)",
    params=(Param("op", "choice", "null",
                  "null; add (two 32-bit numbers); string_in, string_out, string_inout (200 "
                  "bytes by value); loop (the loop alone) and syscall (getpid via syscall(2)): "
                  "local only", choices=tuple(_CALL_OPS)),
            Param("mode", "choice", "process", "local: a direct call in this process; "
                  "process: a round trip to a server process", choices=("local", "process")),
            Param("transport", "choice", "pipe", "mode=process: two pipes, or an AF_UNIX "
                  "SOCK_STREAM socketpair", choices=tuple(_CALL_TRANSPORTS)),
            Param("placement", "choice", "same_cpu",
                  "same_cpu: pinned, the server on the same CPU (the thread's uniprocessor); "
                  "different_cpus: the server on another CPU; unpinned: scheduler's choice",
                  choices=("same_cpu", "different_cpus", "unpinned")),
            Param("fixed_calls", "int", 10000, "calls in the fixed run timed with getrusage "
                  "(the thread's 10000); 0 skips it", min=0, max=10_000_000),
            PINNED_CPU),
    measure=_measure_call,
    to_unit=_us,
    check=_check_call,
))


UDP_MAX_DATAGRAM = 65507  # the largest UDP payload over IPv4


def _measure_udp_bandwidth(p, o, ns, tk, info):
    from ._native import ffi
    o.cpu, o.helper_cpu = _pipe_cpus(p)
    snd, rcv = ffi.new("int *", -1), ffi.new("int *", -1)
    delivered = ffi.new("double[]", o.n_samples)
    rc = _lib().bl_udp_bandwidth(p["datagram_bytes"], p["buffer_bytes"], o, snd, rcv,
                                 delivered, ns, tk, info)
    k = info.n_samples
    fractions = [float(delivered[i]) for i in range(k)]
    d = p["datagram_bytes"]
    # ns[i] is per datagram received; the sender's own rate is that times the fraction
    sent = [d / (ns[i] * f) * 1e3 if f > 0 else float("nan") for i, f in enumerate(fractions)]
    loss = sorted(1.0 - f for f in fractions)
    starved = sum(1 for f in fractions if f <= 0)
    if starved and rc == _lib().BL_OK:
        warnings.warn(f"udp_bandwidth: {starved} of {k} samples delivered no datagram (the "
                      "receiver did not run while they were sent: a busy host); they count as "
                      "0 MB/s", RuntimeWarning, stacklevel=2)
    return rc, {"send_buffer_bytes": int(snd[0]), "receive_buffer_bytes": int(rcv[0]),
                "delivered_fraction": fractions, "sent_mb_s": sent, "starved_samples": starved,
                "loss_fraction_median": loss[len(loss) // 2] if loss else None}


register(Benchmark(
    name="udp_bandwidth",
    description="Datagrams of datagram_bytes sent by one process over loopback UDP to another "
                "that counts what arrives; each sample ends with an acknowledged end marker, so "
                "datagrams lost to a full receive buffer are counted, never waited for",
    unit="MB/s",
    higher_is_better=True,
    counts="MB = 10^6 bytes of datagrams received (payload; UDP/IP headers not counted) per "
           "second, from the first datagram sent to the receiver's count; extras: delivered_fraction and sent_mb_s per sample, "
           "loss_fraction_median, buffer sizes really obtained",
    params=(Param("datagram_bytes", "size", 8 << 10, "bytes per datagram (payload), 64 to "
                  f"{UDP_MAX_DATAGRAM}", min=64, max=UDP_MAX_DATAGRAM),
            Param("buffer_bytes", "size", 0, "SO_SNDBUF and SO_RCVBUF; 0 keeps the system "
                  "default, else 4k to 256M", min=0, max=MAX_NET_BUFFER),
            PLACEMENT, PINNED_CPU),
    measure=_measure_udp_bandwidth,
    to_unit=lambda ns, p: p["datagram_bytes"] / ns * 1e3,
    check=_check_ipc_bandwidth,  # the same two checks: placement and buffer size
))


# ---------------------------------------------------------------- signals

_SIGNAL_OPS = {"install": 0, "deliver": 1}

register(Benchmark(
    name="signal_latency",
    description="Signal handling: install a SIGUSR1 handler with sigaction, or send SIGUSR1 to "
                "this process and run its handler (no context switch)",
    unit="us",
    counts="op=install: one sigaction call; op=deliver: one signal sent (tgkill to this thread) "
           "and its handler run, checked by the handler's counter",
    params=(Param("op", "choice", "install", "install: sigaction; deliver: send and handle",
                  choices=tuple(_SIGNAL_OPS)), CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_signal_latency(
        _SIGNAL_OPS[p["op"]], o, ns, tk, info),
    to_unit=_us,
    check=lambda p: _check_cpu(p["cpu"]),
))


# ---------------------------------------------------------------- process creation

TINY_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csrc", "tiny_exit.c")


def _cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "benchlib")


CSRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csrc")


def _cached_build(stem: str, sources: list[str], flags: list[str]) -> str:
    """Compile C sources from csrc/ with $CC or cc into a per-user cache
    directory, once: the executable is named by a hash of the sources, the
    flags and the compiler command, so a change to any of them builds anew."""
    cc = shlex.split(os.environ.get("CC", "")) or ["cc"]
    if shutil.which(cc[0]) is None:
        raise BenchlibError(
            f"process_creation needs a C compiler to build {stem}, but {cc[0]!r} was not "
            f"found (install gcc or set CC)")
    paths = [os.path.join(CSRC, name) for name in sources]
    h = hashlib.sha256(" ".join(cc + flags).encode())
    for path in paths + [os.path.join(CSRC, "benchlib.h")]:
        with open(path, "rb") as f:
            h.update(b"\0" + f.read())
    directory = _cache_dir()
    target = os.path.join(directory, f"{stem}-{h.hexdigest()[:16]}")
    if os.access(target, os.X_OK):
        return target
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{stem}-", dir=directory)
        os.close(fd)
    except OSError as e:
        raise BenchlibError(f"cannot write {stem} into {directory}: {e}") from None
    try:
        r = subprocess.run([*cc, *flags, "-I", CSRC, "-o", tmp, *paths, "-lm"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise BenchlibError(f"{' '.join(cc)} could not compile {', '.join(sources)}:\n"
                                f"{r.stderr}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)  # atomic: a concurrent run sees all or nothing
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def tiny_program() -> str:
    """Absolute path of the tiny program process_creation execs (it exits at
    once with status 0), compiled on first use from csrc/tiny_exit.c."""
    return _cached_build("bl-tiny-exit", ["tiny_exit.c"], ["-O2"])


def proc_runner() -> str:
    """Absolute path of the small C process that runs process_creation with
    parent=small: csrc/proc_runner.c with the library's own proc.c, timing.c
    and cpu.c, compiled with the library's flags."""
    from ._native import ffi
    flags = ffi.string(_lib().bl_cflags()).decode().split()
    return _cached_build("bl-proc-runner", ["proc_runner.c", "proc.c", "timing.c", "cpu.c"],
                         flags)


_PROCESS_OPS = {"fork_exit": 0, "fork_exec_exit": 1, "fork_sh_exit": 2}


def _parent_size() -> dict:
    """The forking process's size: fork copies its page tables and exit tears
    the copy down, so a large parent (this interpreter, with numpy and
    pandas) makes every fork dearer than the paper's small C program's."""
    out = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    out["parent_rss_kb"] = int(line.split()[1])
        with open("/proc/self/maps") as f:
            out["parent_mappings"] = sum(1 for _ in f)
    except OSError:
        pass
    return out


def _run_small_parent(op: int, program: str, o, ns, tk, info) -> int:
    """process_creation in proc_runner, a small C process (see proc_runner.c);
    its figures are copied into the arrays the harness passed."""
    from ._native import ffi
    args = [proc_runner(), str(op), program or "-", str(o.n_samples), str(o.n_warmup),
            repr(o.target_sample_ns), repr(o.max_total_ns), str(o.cpu)]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate()
    except KeyboardInterrupt:
        # The runner stops between processes, reaps its child and exits.
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        raise
    if p.returncode == -signal.SIGINT:
        raise KeyboardInterrupt
    lines = out.splitlines()
    if p.returncode != 0 or len(lines) < 2:
        raise BenchlibError(f"proc_runner failed (status {p.returncode}): {err.strip()}")
    head = lines[0].split()
    rc = int(head[0])
    if rc != 0:
        raise (BenchlibError if rc == _lib().BL_EINVAL else MeasurementError)(
            f"process_creation: {lines[1]}")
    info.iterations, info.n_samples = int(head[1]), int(head[2])
    info.overhead_ns, info.clock_resolution_ns = float(head[3]), float(head[4])
    info.has_ticks, info.calibration_ns = int(head[5]), float(head[6])
    info.cpu_first, info.cpu_last, info.cpu_migrations = map(int, head[7:10])
    info.helper_cpu = -1
    for i, line in enumerate(lines[2:2 + info.n_samples]):
        a, b, c = map(float, line.split())
        ns[i], tk[i] = a, b
        if o.clock_ghz != ffi.NULL:
            o.clock_ghz[i] = c
    return rc


def _measure_process(p, o, ns, tk, info):
    program = tiny_program() if p["op"] != "fork_exit" else ""
    op = _PROCESS_OPS[p["op"]]
    if p["parent"] == "small":
        extras = {"parent": "proc_runner (a small C process)"}
        rc = _run_small_parent(op, program, o, ns, tk, info)
    else:
        extras = _parent_size()
        rc = _lib().bl_process_creation(op, os.fsencode(program), o, ns, tk, info)
    if program:
        extras["program"] = program
    return rc, extras


register(Benchmark(
    name="process_creation",
    description="Create a process and wait for it: fork and exit, fork and exec a tiny program, "
                "or fork and exec /bin/sh -c to find and run it",
    unit="ms",
    counts="one whole process, from fork to the parent's waitpid; the tiny program exits at once; "
           "fork_sh_exit gives the shell the program's bare name, its directory last in PATH; "
           "parent=small forks from a small C process as the paper did, parent=interpreter "
           "from this Python process, whose size (extras parent_rss_kb, parent_mappings) "
           "fork and exit pay for",
    params=(Param("op", "choice", "fork_exit",
                  "fork_exit: the child _exits; fork_exec_exit: it execs the tiny program; "
                  "fork_sh_exit: it execs /bin/sh -c <tiny program>",
                  choices=tuple(_PROCESS_OPS)),
            Param("parent", "choice", "small",
                  "small: the forking process is a small C program (the paper's case); "
                  "interpreter: this Python process, with all its memory",
                  choices=("small", "interpreter")), CPU),
    measure=_measure_process,
    to_unit=lambda ns, p: ns / 1e6,
    check=lambda p: _check_cpu(p["cpu"]),
))


# ---------------------------------------------------------------- context switch

def _check_ring(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["placement"] == "unpinned" and p["cpu"] >= 0:
        raise BenchlibError("cpu cannot be set with placement=unpinned; "
                            "use placement=same_cpu to pin")


def _measure_ring(p, o, ns, tk, info):
    n = p["processes"]
    cpu = -1 if p["placement"] == "unpinned" else _pinned_cpu(p)
    o.cpu, o.helper_cpu = cpu, cpu
    o.subtract_overhead = 1
    rc = _lib().bl_context_switch(n, p["process_kb"] * 1024, o, ns, tk, info)
    return rc, {"overhead_us": info.overhead_ns / n / 1e3, "hops_per_iteration": n}


register(Benchmark(
    name="context_switch",
    description="A ring of processes connected by pipes passes a one-word token; each sums a "
                "private array of process_kb between receiving and passing it on",
    unit="us",
    counts="one hop (one context switch when the ring shares a CPU), after subtracting the "
           "same pipe write, read and array sum done by one process alone "
           "(extras.overhead_us, per hop, hot caches)",
    params=(Param("processes", "int", 2, "processes in the ring, this one included",
                  min=2, max=64),
            Param("process_kb", "int", 0, "kbytes (2^10) of private array each process sums "
                  "per hop: its cache footprint", min=0, max=16384),
            Param("placement", "choice", "same_cpu",
                  "same_cpu: every process pinned to one CPU (the paper's uniprocessor); "
                  "unpinned: scheduler's choice", choices=("same_cpu", "unpinned")),
            Param("cpu", "int", -1, "CPU of the ring with placement=same_cpu; -1 takes the "
                  "first allowed CPU", min=-1, max=4095)),
    measure=_measure_ring,
    to_unit=lambda ns, p: ns / p["processes"] / 1e3,
    check=_check_ring,
    memory_bytes=lambda p: p["processes"] * p["process_kb"] * 1024,
))


# ---------------------------------------------------------------- file system

DIRECTORY = Param("directory", "path", tempfile.gettempdir(),
                  "an existing writable directory; a private subdirectory is made and removed")


def _fs_extras(info, p: dict) -> dict:
    return filesystem_of(p["directory"])


def _encode(path: str) -> bytes:
    return os.fsencode(path)


register(Benchmark(
    name="open_close_latency",
    description='open() then close() of an existing file named "foo" or "a/b/c/foo"',
    unit="us",
    params=(Param("path", "choice", "foo", "the name opened", choices=("foo", "a/b/c/foo")),
            DIRECTORY, CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_open_close(
        _encode(p["directory"]), 1 if p["path"] == "foo" else 4, o, ns, tk, info),
    to_unit=_us,
    check=lambda p: _check_cpu(p["cpu"]),
    extras=_fs_extras,
))

register(Benchmark(
    name="fs_create_delete",
    description="create a file, write file_bytes, close, reopen, read it, close, delete "
                "(Ousterhout's temporary-file benchmark), optionally forcing data to disk",
    unit="ms",
    params=(Param("file_bytes", "size", 0, "bytes written and read back", min=0, max=1 << 30),
            Param("fsync", "choice", "no", "yes: fsync the file and the directory, so the "
                  "call waits for the disk", choices=("no", "yes")),
            DIRECTORY, CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_create_delete(
        _encode(p["directory"]), p["file_bytes"], p["fsync"] == "yes", o, ns, tk, info),
    to_unit=lambda ns, p: ns / 1e6,
    check=lambda p: _check_cpu(p["cpu"]),
    memory_bytes=lambda p: p["file_bytes"],
    extras=_fs_extras,
))


def _check_free_space(p: dict) -> None:
    check_free_space(p["file_bytes"], p["directory"], "file_bytes")


def _check_file_read(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["block_bytes"] > p["file_bytes"]:
        raise BenchlibError(f"block_bytes ({p['block_bytes']}) is larger than file_bytes "
                            f"({p['file_bytes']})")
    _check_free_space(p)


register(Benchmark(
    name="file_read_bandwidth",
    description="read() a file that is in the page cache, in block_bytes reads into one buffer",
    unit="MB/s",
    higher_is_better=True,
    counts="file bytes read per second, MB = 10^6 bytes",
    params=(Param("file_bytes", "size", 64 << 20, "size of the file (fits the page cache, not "
                  "the CPU caches)", min=4096, max=1 << 40),
            Param("block_bytes", "size", 16 << 10, "bytes per read() (the paper: 16 kbytes)",
                  min=1, max=1 << 30),
            DIRECTORY, CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_file_read(
        _encode(p["directory"]), p["file_bytes"], p["block_bytes"], o, ns, tk, info),
    to_unit=lambda ns, p: p["file_bytes"] / ns * 1e3,
    check=_check_file_read,
    memory_bytes=lambda p: p["file_bytes"],
    extras=_fs_extras,
))


def _check_reread(p: dict) -> None:
    _check_file_read(p)
    if p["block_bytes"] % 8 or p["file_bytes"] % 8:
        raise BenchlibError("file_bytes and block_bytes must be multiples of 8 (words are summed)")


register(Benchmark(
    name="file_reread_bandwidth",
    description="Reread a file in the page cache and sum its words: by read() in block_bytes "
                "calls into one buffer, or through a fresh mmap() per pass",
    unit="MB/s",
    higher_is_better=True,
    counts="file bytes read and summed per second, MB = 10^6 bytes",
    params=(Param("method", "choice", "read", "read: read() into one buffer, then sum it; "
                  "mmap: map the file, sum it, unmap", choices=("read", "mmap")),
            Param("file_bytes", "size", 64 << 20, "size of the file", min=4096, max=1 << 40),
            Param("block_bytes", "size", 64 << 10, "bytes per read() (method=read)",
                  min=8, max=1 << 30),
            DIRECTORY, CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_file_reread(
        _encode(p["directory"]), p["file_bytes"], p["block_bytes"], p["method"] == "mmap",
        o, ns, tk, info),
    to_unit=lambda ns, p: p["file_bytes"] / ns * 1e3,
    check=_check_reread,
    memory_bytes=lambda p: p["file_bytes"],
    extras=_fs_extras,
))


def _measure_fs_latency(p, o, ns, tk, info):
    from ._native import ffi

    batches = o.n_samples
    create, delete = ffi.new("double[]", batches), ffi.new("double[]", batches)
    o.clock_ghz = ffi.NULL  # batches are timed in C without the per-sample clock probe
    rc = _lib().bl_fs_latency(_encode(p["directory"]), p["file_bytes"], p["files"], batches,
                              create, delete, info)
    mine, other = (create, delete) if p["op"] == "create" else (delete, create)
    for i in range(info.n_samples):
        ns[i] = mine[i]
    other_name = "delete" if p["op"] == "create" else "create"
    return rc, {f"{other_name}_us_per_file": [other[i] / 1e3 for i in range(info.n_samples)]}


register(Benchmark(
    name="fs_latency",
    description="Create `files` files of file_bytes in one directory, then delete them all; "
                "the time per file of the creates or of the deletes",
    unit="us",
    counts="us per file created (op=create) or deleted (op=delete); each sample is one batch "
           "of `files`; the other operation's figures are in extras; files/s = 1e6 / us",
    params=(Param("op", "choice", "create", "which half to report", choices=("create", "delete")),
            Param("file_bytes", "size", 0, "bytes written to each file", min=0, max=1 << 20),
            Param("files", "int", 1000, "files per batch (the paper: 1000)", min=1,
                  max=1_000_000),
            DIRECTORY),
    measure=_measure_fs_latency,
    to_unit=lambda ns, p: ns / 1e3,
    extras=_fs_extras,
    memory_bytes=lambda p: p["file_bytes"] * p["files"],
))


SMALL_FILE_PHASES = ("create", "write", "read", "delete")


def _check_small_file(p: dict) -> None:
    _check_cpu(p["cpu"])
    check_free_space(p["size_bytes"] * p["files"], p["directory"], "files x size_bytes")


def _measure_small_file(p, o, ns, tk, info):
    from ._native import ffi

    n = o.n_samples
    phases = ffi.new("double[]", n * len(SMALL_FILE_PHASES))
    o.clock_ghz = ffi.NULL  # batches are timed in C without the per-sample clock probe
    rc = _lib().bl_small_file(_encode(p["directory"]), p["size_bytes"], p["files"], o, phases,
                              info)
    k, m = info.n_samples, len(SMALL_FILE_PHASES)
    per_phase = {name: [phases[b * m + j] / 1e3 for b in range(k)]
                 for j, name in enumerate(SMALL_FILE_PHASES)}
    for b in range(k):
        ns[b] = (sum(phases[b * m + j] for j in range(m)) if p["phase"] == "total"
                 else phases[b * m + SMALL_FILE_PHASES.index(p["phase"])])
    return rc, {"phase_us_per_file": per_phase,
                "phase_median_us": {name: (sorted(v)[len(v) // 2] if v else None)
                                    for name, v in per_phase.items()}}


register(Benchmark(
    name="small_file",
    description="The small-file benchmark: create `files` new files, write size_bytes to each, "
                "read each back, delete them all, each step timed over the whole batch",
    unit="us",
    counts="us per file of the phase chosen (total: all four); each sample is one batch of "
           "`files` new names (open O_CREAT|O_EXCL + close; open + write + close; open + read "
           "+ close; unlink); every phase's figures in extras (phase_us_per_file, "
           "phase_median_us); one batch is discarded first",
    params=(Param("phase", "choice", "total", "which figure is the value: total (all four "
                  "steps) or one of create, write, read, delete",
                  choices=("total",) + SMALL_FILE_PHASES),
            Param("size_bytes", "size", 1 << 10, "bytes written to and read from each file",
                  min=0, max=1 << 20),
            Param("files", "int", 100, "new files per batch (the slides do not say how many)",
                  min=1, max=100_000),
            DIRECTORY, CPU),
    measure=_measure_small_file,
    to_unit=lambda ns, p: ns / 1e3,
    check=_check_small_file,
    memory_bytes=lambda p: p["size_bytes"],
    extras=_fs_extras,
))


def _check_disk(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["block_bytes"] % 512:
        raise BenchlibError(f"block_bytes must be a multiple of 512; got {p['block_bytes']}")
    if p["block_bytes"] > p["file_bytes"]:
        raise BenchlibError(f"block_bytes ({p['block_bytes']}) is larger than file_bytes "
                            f"({p['file_bytes']})")
    _check_free_space(p)
    fs = filesystem_of(p["directory"]).get("fs_type")
    if p["direct"] == "yes" and fs in ("tmpfs", "ramfs", "devtmpfs"):
        # tmpfs accepts O_DIRECT since Linux 6.6, but there is no disk under it
        raise BenchlibError(f"{p['directory']} is on {fs}: memory, not a disk, so O_DIRECT "
                            "measures nothing; choose a directory on a disk-backed file system")


register(Benchmark(
    name="disk_io",
    description="block_bytes reads or writes at sequential or random offsets of a file, with "
                "O_DIRECT (past the page cache, to the device) unless direct=no",
    unit="us",
    counts="us per transfer; MB/s = block_bytes / us; sequential 512 B-4 KiB direct reads give "
           "the stack's overhead per operation (the device's cache answers them)",
    params=(Param("op", "choice", "read", "read or write", choices=("read", "write")),
            Param("pattern", "choice", "sequential", "sequential: the next block, wrapping; "
                  "random: uniformly random block-aligned offsets",
                  choices=("sequential", "random")),
            Param("block_bytes", "size", 4096, "bytes per transfer (a multiple of 512)",
                  min=512, max=64 << 20),
            Param("file_bytes", "size", 64 << 20, "size of the test file", min=4096, max=1 << 40),
            Param("direct", "choice", "yes", "yes: O_DIRECT (a clear error where the file "
                  "system refuses it, e.g. tmpfs); no: through the page cache",
                  choices=("yes", "no")),
            DIRECTORY, CPU),
    measure=lambda p, o, ns, tk, info: _lib().bl_disk_io(
        _encode(p["directory"]), p["file_bytes"], p["block_bytes"], p["op"] == "write",
        p["pattern"] == "random", p["direct"] == "yes", o, ns, tk, info),
    to_unit=lambda ns, p: ns / 1e3,
    check=_check_disk,
    extras=_fs_extras,
))


# ---------------------------------------------------------------- Andrew

MAB_TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mab", "tree")
MAB_PHASES = ("mkdir", "copy", "stat", "read", "compile")


def _measure_andrew(p, o, ns, tk, info):
    from ._native import ffi

    runs = o.n_samples
    phases = ffi.new("double[]", runs * len(MAB_PHASES))
    o.clock_ghz = ffi.NULL  # one run is seconds long; there is no per-sample probe
    rc = _lib().bl_andrew(_encode(MAB_TREE), _encode(p["directory"]), p["copy"] == "cp",
                          runs, ns, phases, info)
    done = info.n_samples
    per_phase = {name: [phases[r * len(MAB_PHASES) + k] / 1e9 for r in range(done)]
                 for k, name in enumerate(MAB_PHASES)}
    return rc, {"phase_s": per_phase,
                "phase_median_s": {k: (sorted(v)[len(v) // 2] if v else None)
                                   for k, v in per_phase.items()}}


register(Benchmark(
    name="andrew_benchmark",
    description="The Modified Andrew Benchmark: make directories, copy, stat, read and compile "
                "a 325 KiB C program (benchlib/mab/tree) with cc at fixed flags",
    unit="s",
    counts="seconds per whole run; per-phase times in extras (phase_s, phase_median_s)",
    params=(Param("copy", "choice", "cp", "cp: one /bin/cp per file, as the original; "
                  "inprocess: copied by benchlib itself", choices=("cp", "inprocess")),
            DIRECTORY, CPU),
    measure=_measure_andrew,
    to_unit=lambda ns, p: ns / 1e9,
    check=lambda p: _check_cpu(p["cpu"]),
    extras=_fs_extras,
    n_samples_for=lambda p, prof: {"smoke": 1, "quick": 3, "full": 5}.get(prof.name, 3),
))


# ---------------------------------------------------------------- io_workload

def _check_io_workload(p: dict) -> None:
    from .selfscaling import Workload, check_workload
    check_workload(Workload(p["unique_bytes"], p["size_mean_bytes"], p["read_frac"],
                            p["seq_frac"], p["process_num"]), p["unique_bytes"])


def _measure_io_workload(p, o, ns, tk, info):
    """Each sample is one run of the workload (its own random stream), from
    a dropped cache; ns[i] is the run's elapsed time per MB moved."""
    from .selfscaling import IOSpace, Workload

    o.clock_ghz = _ffi().NULL  # a run is a whole multi-process workload: no per-sample probe
    w = Workload(p["unique_bytes"], p["size_mean_bytes"], p["read_frac"], p["seq_frac"],
                 p["process_num"])
    budget = max(p["unique_bytes"], 4 << 20)
    rows = []
    with IOSpace(p["directory"], disk_budget_bytes=budget, max_unique_bytes=p["unique_bytes"],
                 cache=p["cache"], cache_bytes=p["cache_bytes"], duration_s=p["duration_s"]) as sp:
        for i in range(o.n_samples):
            r = sp.measure(w, seed=i + 1, total_bytes=p["total_bytes"])
            ns[i] = r["elapsed_s"] * 1e9 / (r["bytes"] / 1e6)
            info.n_samples = i + 1
            rows.append(r)
        method = sp.method_note
    info.iterations, info.helper_cpu, info.cpu_first, info.cpu_last = 1, -1, -1, -1
    keys = ("response_ms", "cpu_s", "user_s", "system_s", "requests", "size_realised_bytes",
            "read_realised", "seq_realised")
    return 0, {"cache_method": method, **{k: [r[k] for r in rows] for k in keys}}


def _ffi():
    from ._native import ffi
    return ffi


register(Benchmark(
    name="io_workload",
    description="Chen & Patterson's synthetic I/O workload: process_num processes issue reads "
                "and writes of normally distributed sizes over unique_bytes of one file",
    unit="MB/s",
    higher_is_better=True,
    counts="bytes moved by all processes / elapsed time, MB = 10^6 bytes; each sample is one "
           "run from a dropped cache; mean response time and CPU time in extras",
    params=(Param("unique_bytes", "size", 64 << 20, "distinct bytes addressed (the data file's "
                  "size, written before the runs)", min=4096, max=1 << 40),
            Param("size_mean_bytes", "float", 32768, "mean request size; sizes ~ Normal(mean, "
                  "mean), non-positive draws redrawn", min=1, max=8 << 20),
            Param("read_frac", "float", 0.5, "fraction of requests that read", min=0, max=1),
            Param("seq_frac", "float", 0.5, "fraction of requests continuing sequentially from "
                  "the same process's previous one", min=0, max=1),
            Param("process_num", "int", 1, "processes issuing requests at once", min=1, max=64),
            Param("duration_s", "float", 0.25, "seconds each run lasts", min=0.01, max=600),
            Param("total_bytes", "size", 0, "> 0: each run moves this many bytes (shared by the "
                  "processes) instead of lasting duration_s", min=0, max=1 << 40),
            Param("cache", "choice", "auto", "auto, cgroup (a memory cgroup of cache_bytes holds "
                  "the page cache), direct (O_DIRECT) or buffered (the whole page cache)",
                  choices=("auto", "cgroup", "direct", "buffered")),
            Param("cache_bytes", "size", 128 << 20, "page-cache limit with cache=cgroup",
                  min=16 << 20, max=1 << 40),
            DIRECTORY),
    measure=_measure_io_workload,
    to_unit=lambda ns, p: 1e9 / ns,
    check=_check_io_workload,
    extras=_fs_extras,
    n_samples_for=lambda p, prof: {"smoke": 2, "quick": 5, "full": 11}.get(prof.name, 5),
))
