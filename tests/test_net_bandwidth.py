"""udp_bandwidth, and TCP bandwidth at small transfers: structure, loss
accounting, clean-up, no hang.  No timing thresholds."""
import os
import signal
import threading
import time

import pytest

import benchlib
from benchlib.errors import MeasurementError
from conftest import (comm, descendants, interrupt_run, kill_children, measuring_fds, measuring_pid,
                      refuses, subreaper)

HELPER = "bl-net-echo"


def _helpers_of(pid):
    """The helpers anywhere below ``pid`` (a CLI's are its worker's children)."""
    return [k for k in descendants(pid) if comm(k) == HELPER]


def _fds():
    return measuring_fds()


def test_udp_bandwidth_counts_what_arrives():
    before = _fds()
    r = benchlib.run("udp_bandwidth", datagram_bytes="8k", profile="smoke")
    assert r.unit == "MB/s" and r.higher_is_better and all(s > 0 for s in r.samples)
    fractions, sent = r.extras["delivered_fraction"], r.extras["sent_mb_s"]
    assert len(fractions) == len(sent) == r.n_samples
    assert all(0 < f <= 1 for f in fractions)
    for got, f, s in zip(r.samples, fractions, sent):
        assert got == pytest.approx(s * f)     # received = sent x delivered
        assert got <= s * (1 + 1e-9)
    # ns_per_iteration is per datagram received: MB/s = bytes / ns x 1e3
    assert r.samples[0] == pytest.approx(8192 / r.ns_per_iteration[0] * 1e3)
    assert r.extras["receive_buffer_bytes"] > 0
    assert _fds() == before and _helpers_of(measuring_pid()) == []


def test_udp_nothing_lost_is_counted_exactly():
    # a receive buffer larger than a whole sample drops nothing: every byte is counted
    r = benchlib.run("udp_bandwidth", datagram_bytes="8k", buffer_bytes="4M", profile="smoke")
    per_sample = r.iterations_per_sample * 8192
    if r.extras["receive_buffer_bytes"] < 4 * per_sample:
        pytest.skip(f"net.core.rmem_max allows only {r.extras['receive_buffer_bytes']} bytes")
    assert r.extras["delivered_fraction"] == [1.0] * r.n_samples
    assert r.extras["loss_fraction_median"] == 0.0


def _run_in_thread(**params):
    out = {}

    def go():
        try:
            out["result"] = benchlib.run("udp_bandwidth", **params)
        except Exception as e:  # noqa: BLE001 - the test inspects it
            out["error"] = e

    t = threading.Thread(target=go)
    t.start()
    deadline = time.monotonic() + 10
    while not _helpers_of(measuring_pid()) and time.monotonic() < deadline:
        time.sleep(0.005)
    helpers = _helpers_of(measuring_pid())
    assert helpers, "the run never started its helper"
    return t, out, helpers[0]


def test_udp_loss_is_counted_and_does_not_hang():
    # The receiver, made SCHED_IDLE on the sender's CPU, runs only while the
    # sender waits: each sample's burst (at least 16 datagrams) overflows its
    # one-datagram buffer, and the end marker finds the buffer full and must
    # be resent.  Deterministic loss.
    t, out, helper = _run_in_thread(datagram_bytes=60000, buffer_bytes="4k",
                                    placement="same_cpu", profile="quick", n_samples=400)
    try:
        os.sched_setscheduler(helper, os.SCHED_IDLE, os.sched_param(0))
    except ProcessLookupError:
        pytest.fail("the run ended before its helper could be slowed down")
    t.join(timeout=60)
    assert not t.is_alive(), "the run hung"
    r = out.get("result")
    assert r is not None, out
    assert r.iterations_per_sample >= 16
    assert min(r.extras["delivered_fraction"]) < 1
    # a sample whose every datagram was dropped is kept, at 0 (the next test)
    assert all(0 <= f <= 1 for f in r.extras["delivered_fraction"])
    assert r.extras["starved_samples"] == sum(f == 0 for f in r.extras["delivered_fraction"])
    assert _helpers_of(measuring_pid()) == []


def test_a_starved_sample_is_reported_not_fatal(monkeypatch):
    """On a busy host the receiver may not run for a whole sample: the C side
    then reports a delivered fraction of 0 and an infinite time per datagram
    received.  The run goes on: that sample is 0 MB/s, with a warning; only a
    run in which every sample was lost is an error (in C)."""
    import math

    from benchlib.measuring.benchmarks import net as udp_registration  # udp_bandwidth's module

    class FakeLib:
        BL_OK = 0

        def bl_udp_bandwidth(self, size, buf, o, snd, rcv, delivered, ns, tk, info):
            snd[0] = rcv[0] = 212992
            for i, (f, t) in enumerate([(1.0, 1000.0), (0.0, math.inf), (0.5, 2000.0)]):
                delivered[i], ns[i], tk[i] = f, t, math.nan
            info.n_samples, info.iterations, info.has_ticks = 3, 16, 0
            return 0

    monkeypatch.setenv("BENCHLIB_MEASURE_IN", "process")  # the fake library is in this process
    monkeypatch.setattr(udp_registration, "_lib", lambda: FakeLib())
    monkeypatch.setattr(benchlib.measuring.harness, "machine_info", lambda: {})
    with pytest.warns(RuntimeWarning, match="1 of 3 samples delivered no datagram"):
        r = benchlib.run("udp_bandwidth", datagram_bytes="8k", profile="smoke", n_samples=3)
    assert r.extras["starved_samples"] == 1
    assert r.extras["delivered_fraction"] == [1.0, 0.0, 0.5]
    assert r.samples == pytest.approx([8192 / 1000.0 * 1e3, 0.0, 8192 / 2000.0 * 1e3])
    assert r.median == pytest.approx(8192 / 2000.0 * 1e3)
    assert math.isnan(r.extras["sent_mb_s"][1])


def test_udp_helper_death_is_an_error_not_a_hang():
    t, out, helper = _run_in_thread(profile="quick", n_samples=1000)
    time.sleep(0.2)
    os.kill(helper, signal.SIGKILL)
    t.join(timeout=30)
    assert not t.is_alive(), "the run hung after its helper died"
    assert isinstance(out.get("error"), MeasurementError), out
    assert "helper" in str(out["error"])
    assert _helpers_of(measuring_pid()) == []


@pytest.mark.parametrize("params,message", [
    ({"datagram_bytes": 65508}, "datagram_bytes must be <= 65507"),
    ({"datagram_bytes": 8}, "datagram_bytes must be >= 64"),
    ({"buffer_bytes": "100"}, "at least 4k"),
    ({"placement": "unpinned", "cpu": 0}, "cannot be set"),
])
def test_udp_bad_parameters(params, message):
    refuses("udp_bandwidth", params, message)


def test_udp_interrupt_leaves_no_helper():
    with subreaper():
        rc, err = interrupt_run("udp_bandwidth", [], started=_helpers_of)
        assert rc == 130, err
        assert "Traceback" not in err
        time.sleep(0.2)
        assert kill_children() == []


def test_tcp_small_transfers_are_not_held_for_a_delayed_ack():
    # Nagle's rule and the reader's delayed ACK once made every sample of a
    # 4k transfer wait 40 ms, so calibration stopped at one transfer per sample
    r = benchlib.run("ipc_bandwidth", transport="tcp", transfer_bytes="4k", profile="smoke")
    assert r.iterations_per_sample > 1
