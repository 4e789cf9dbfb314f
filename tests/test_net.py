"""IPC and network benchmarks (net_latency.c, net_bandwidth.c, rpc.c): structure, errors, clean-up.  No
timing thresholds: the machine is shared."""
import os
import time

import pytest

import benchlib
from benchlib.measuring.benchmarks import RPC_MISSING, have_rpc
from benchlib.errors import BenchlibError
from conftest import (comm, descendants, interrupt_run, kill_children, measuring_fds, measuring_pid,
                      subreaper)

HELPER = "bl-net-echo"


def _helpers_of(pid):
    """The helpers anywhere below ``pid`` (a CLI's are its worker's children)."""
    return [k for k in descendants(pid) if comm(k) == HELPER]


def _fds():
    return measuring_fds()


needs_rpc = pytest.mark.skipif(not have_rpc(), reason=RPC_MISSING)


@pytest.mark.parametrize("transport", ["unix", "tcp", "udp", "pipe"])
def test_ipc_latency_each_transport(transport):
    before = _fds()
    r = benchlib.run("ipc_latency", transport=transport, profile="smoke")
    assert r.unit == "us" and r.samples and all(s > 0 for s in r.samples)
    assert r.params["transport"] == transport and r.extras["transport"] == transport
    assert _fds() == before and _helpers_of(measuring_pid()) == []


def test_ipc_latency_placements(two_cpus):
    r = benchlib.run("ipc_latency", transport="unix", placement="different_cpus",
                     profile="smoke")
    # the helper really ran on the other CPU, and the measuring side stayed put
    assert r.placement["helper_cpu"] in two_cpus and r.placement["cpu_last"] in two_cpus
    assert r.placement["helper_cpu"] != r.placement["cpu_last"]
    assert r.placement["cpu_migrations"] == 0


def test_tcp_connect_leaves_no_time_wait():
    before = _fds()
    r = benchlib.run("tcp_connect_latency", profile="smoke")
    assert r.unit == "us" and all(s > 0 for s in r.samples)
    assert r.extras["listener_port"] > 0
    assert r.extras["time_wait_left"] == 0
    assert _fds() == before and _helpers_of(measuring_pid()) == []


@needs_rpc
@pytest.mark.parametrize("transport", ["tcp", "udp"])
def test_rpc_latency(transport):
    before = _fds()
    r = benchlib.run("rpc_latency", transport=transport, profile="smoke")
    assert r.unit == "us" and all(s > 0 for s in r.samples)
    assert r.extras["rpc_library"] == "libtirpc"
    assert _fds() == before and _helpers_of(measuring_pid()) == []


def test_rpc_without_library_is_a_clear_error(monkeypatch):
    import benchlib.measuring.benchmarks.net as bm
    monkeypatch.setattr(bm, "have_rpc", lambda: False)
    with pytest.raises(BenchlibError, match="built without libtirpc"):
        benchlib.run("rpc_latency", profile="smoke")


@pytest.mark.parametrize("transport", ["pipe", "unix", "tcp"])
def test_ipc_bandwidth_reports_buffers(transport):
    before = _fds()
    r = benchlib.run("ipc_bandwidth", transport=transport, transfer_bytes="64k",
                     profile="smoke")
    assert r.unit == "MB/s" and all(s > 0 for s in r.samples)
    assert r.extras["send_buffer_bytes"] > 0 and r.extras["receive_buffer_bytes"] > 0
    # MB/s is transfer_bytes per iteration, MB = 10^6 bytes
    assert r.samples[0] == pytest.approx(65536 / r.ns_per_iteration[0] * 1e3)
    assert _fds() == before and _helpers_of(measuring_pid()) == []


@pytest.mark.parametrize("transport", ["unix", "tcp", "pipe"])
def test_ipc_bandwidth_buffer_request_is_applied(transport):
    small = benchlib.run("ipc_bandwidth", transport=transport, buffer_bytes="16k",
                         transfer_bytes="16k", profile="smoke")
    big = benchlib.run("ipc_bandwidth", transport=transport, buffer_bytes="256k",
                       transfer_bytes="16k", profile="smoke")
    # Linux doubles socket requests and rounds pipes to pages: compare, not equate
    assert small.extras["send_buffer_bytes"] < big.extras["send_buffer_bytes"]
    assert big.extras["send_buffer_bytes"] >= 256 << 10


@pytest.mark.parametrize("name,params,message", [
    ("ipc_latency", {"transport": "carrier_pigeon"}, "must be one of unix, tcp, udp, pipe"),
    ("rpc_latency", {"transport": "unix"}, "must be one of tcp, udp"),
    ("ipc_bandwidth", {"transport": "udp"}, "must be one of pipe, unix, tcp"),
    ("ipc_bandwidth", {"transfer_bytes": "1k"}, ">= 4096"),
    ("ipc_bandwidth", {"transfer_bytes": "32M"}, "transfer_bytes must be <="),
    ("ipc_bandwidth", {"buffer_bytes": "1G"}, "buffer_bytes must be <="),
    ("ipc_bandwidth", {"buffer_bytes": "100"}, "at least 4k"),
    ("ipc_bandwidth", {"buffer_bytes": "-1"}, ">= 0"),
    ("ipc_latency", {"placement": "unpinned", "cpu": 0}, "cannot be set"),
    ("tcp_connect_latency", {"cpu": 4000}, "not available"),
])
def test_bad_parameters(name, params, message):
    with pytest.raises(BenchlibError, match=message):
        benchlib.run(name, params, profile="smoke")


def test_pipe_buffer_beyond_the_limit_is_a_clear_error():
    """Root may exceed pipe-max-size (CAP_SYS_RESOURCE), and CI runs as root,
    so as root the run is made in a child without that capability
    (util-linux's setpriv drops it from the bounding set)."""
    import shutil
    import subprocess
    import sys

    limit = int(open("/proc/sys/fs/pipe-max-size").read())
    code = ("import benchlib\n"
            "try:\n"
            f"    benchlib.run('ipc_bandwidth', transport='pipe', buffer_bytes={4 * limit},"
            " profile='smoke')\n"
            "except benchlib.BenchlibError as e:\n"
            "    print('ERROR', e)\n")
    cmd = [sys.executable, "-c", code]
    if os.geteuid() == 0:
        assert shutil.which("setpriv"), "setpriv (util-linux) is needed to drop CAP_SYS_RESOURCE"
        cmd = ["setpriv", "--bounding-set=-sys_resource", *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("ERROR") and "pipe-max-size" in p.stdout


@pytest.mark.parametrize("name,params", [
    ("ipc_latency", ["transport=tcp"]),
    ("tcp_connect_latency", []),
    ("rpc_latency", ["transport=tcp"]),
    ("ipc_bandwidth", ["transport=tcp"]),
])
def test_interrupt_leaves_no_helper(name, params):
    """Ctrl-C a second into a run: exit 130 and no helper left.  We become a
    subreaper so that an orphaned helper would be ours to see.  (The quick
    profile is over in well under a second, so the run asks for more samples
    than the full profile's 20 s cap allows; SIGINT ends it.)"""
    if name == "rpc_latency" and not have_rpc():
        pytest.skip(RPC_MISSING)
    with subreaper():
        rc, err = interrupt_run(name, params, started=_helpers_of)
        assert rc == 130, err
        assert "Traceback" not in err
        time.sleep(0.2)
        assert kill_children() == []

@pytest.mark.parametrize("op", ["send", "recv"])
@pytest.mark.parametrize("size", [1, 96000])
def test_socket_call_latency(op, size):
    before = _fds()
    r = benchlib.run("socket_call_latency", op=op, message_bytes=size, profile="smoke")
    assert r.unit == "us" and r.samples and all(s > 0 for s in r.samples)
    assert r.params == {"op": op, "message_bytes": size, "cpu": -1}
    assert _fds() == before                       # both ends closed
    assert _helpers_of(measuring_pid()) == []     # no helper process


def test_socket_call_latency_refuses_bad_sizes():
    from conftest import refuses

    refuses("socket_call_latency", {"message_bytes": 0}, "message_bytes must be >= 1")
    refuses("socket_call_latency", {"message_bytes": "1M"}, "message_bytes must be <=")
