"""The Modified Andrew Benchmark driver: phases, clean-up, errors, interrupt."""
import os
import signal
import time

import pytest

import benchlib
from benchlib.measuring.benchmarks import MAB_PHASES
from benchlib.errors import BenchlibError
from conftest import cli_popen


@pytest.mark.slow
def test_one_run_reports_every_phase_and_cleans_up(tmp_path):
    r = benchlib.run("andrew_benchmark", directory=str(tmp_path), copy="inprocess", profile="smoke")
    assert r.n_samples == 1 and r.unit == "s"
    phases = {k: v[0] for k, v in r.extras["phase_s"].items()}
    assert set(phases) == set(MAB_PHASES) and all(v > 0 for v in phases.values())
    assert sum(phases.values()) == pytest.approx(r.samples[0], rel=1e-6)
    # running cc 23 times (seconds) against reading 325 KiB from the page cache
    # (about a millisecond): a thousandfold gap no stall of the host can close
    assert phases["compile"] > 10 * phases["read"]
    assert os.listdir(tmp_path) == []


def test_unwritable_directory():
    with pytest.raises(BenchlibError, match="cannot create a working directory"):
        benchlib.run("andrew_benchmark", directory="/proc", profile="smoke")


@pytest.mark.slow
def test_interrupt_during_the_run_leaves_nothing(tmp_path):
    p = cli_popen(["run", "andrew_benchmark", "-p", f"directory={tmp_path}", "--samples", "20"])
    deadline = time.monotonic() + 20
    while not os.listdir(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(1.0)  # well into copying or compiling
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130 and "Traceback" not in err
    assert os.listdir(tmp_path) == []
