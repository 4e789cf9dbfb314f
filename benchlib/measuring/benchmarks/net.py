"""Registrations for csrc/net_latency.c, net_bandwidth.c, rpc.c and
net_calls.c: socket round trips, TCP connections, Sun RPC, and pipe, socket
and UDP bandwidth, between this process and a helper process on loopback;
and one send or recv on a local socket (net_calls.c)."""
from __future__ import annotations

import warnings

from benchlib.errors import BenchlibError
from benchlib.measuring.registry import Benchmark, Param, register
from benchlib.measuring.benchmarks.common import (CPU, PINNED_CPU, PLACEMENT, _check_cpu_param, _check_pipe,
                                                  _ffi, _lib, _net_transport, _pipe_cpus, _us, op_choice)


# ---------------------------------------------------------------- IPC and network
#
# The 1996 paper's socket latencies (TCP, UDP, Sun RPC over both), TCP
# connection cost, and pipe and TCP bandwidth, all between this process and
# a forked helper on loopback (net_latency.c, net_bandwidth.c, rpc.c).  Placement works as
# for pipe_latency.


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
    ffi = _ffi()
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
    ffi = _ffi()
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


UDP_MAX_DATAGRAM = 65507  # the largest UDP payload over IPv4


def _measure_udp_bandwidth(p, o, ns, tk, info):
    ffi = _ffi()
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



# ---------------------------------------------------------------- one socket call (net_calls.c)

SOCKCALL_OP, _SOCKCALL_OPS = op_choice("BL_SOCKCALL_", "send or recv, non-blocking")

register(Benchmark(
    name="socket_call_latency",
    description="One non-blocking send or recv of message_bytes on a connected AF_UNIX stream "
                "socket (LEBench's send and recv)",
    unit="us",
    counts="one call; the other end is drained (send) or filled (recv) in batches outside the "
           "timing; both ends are this process's, so no wake-up is timed",
    params=(SOCKCALL_OP,
            Param("message_bytes", "size", 1, "bytes per call (LEBench: 1 and 96,000)",
                  min=1, max=128 << 10),
            CPU),
    measure=lambda p, o, ns, tk, info: (_lib().bl_socket_call(
        _SOCKCALL_OPS[p["op"]], p["message_bytes"], o, ns, tk, info), {}),
    to_unit=_us,
    check=_check_cpu_param,
))
