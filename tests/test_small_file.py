"""small_file (Lai & Baker's small-file benchmark): every phase reported,
nothing left behind, bad input refused.  No timing thresholds."""
import os

import pytest

import benchlib
from benchlib.measuring.benchmarks import SMALL_FILE_PHASES
from conftest import interrupt_run, refuses


def test_phases_add_up_and_nothing_is_left(tmp_path):
    r = benchlib.run("small_file", size_bytes="4k", files=20, directory=str(tmp_path),
                     profile="smoke")
    assert os.listdir(tmp_path) == []
    assert r.unit == "us" and r.n_samples == 5 and r.iterations_per_sample == 20
    assert r.clock_ghz is None and r.extras["fs_type"]
    phases = r.extras["phase_us_per_file"]
    assert list(phases) == list(SMALL_FILE_PHASES)
    for name in SMALL_FILE_PHASES:
        assert len(phases[name]) == r.n_samples and all(v > 0 for v in phases[name])


def test_one_phase_as_the_value(tmp_path):
    r = benchlib.run("small_file", phase="delete", files=10, directory=str(tmp_path),
                     profile="smoke")
    assert r.samples == pytest.approx(r.extras["phase_us_per_file"]["delete"])
    assert os.listdir(tmp_path) == []


def test_the_bytes_are_really_moved(tmp_path):
    # Reading back a megabyte per file costs about 100 times an empty file's
    # open, read and close (96x here).  Both pinned to one CPU, minima
    # compared with a 5x margin: noise only adds time, so the empty batch
    # would have to be slowed 20-fold in every one of its samples to flip it.
    cpu = min(os.sched_getaffinity(0))
    empty = benchlib.run("small_file", phase="read", size_bytes=0, files=4,
                         directory=str(tmp_path), profile="smoke", cpu=cpu)
    full = benchlib.run("small_file", phase="read", size_bytes="1M", files=4,
                        directory=str(tmp_path), profile="smoke", cpu=cpu)
    assert full.min > 5 * empty.min


@pytest.mark.parametrize("params,message", [
    ({"size_bytes": "2M"}, "size_bytes must be <="),
    ({"files": 0}, "files must be >= 1"),
    ({"phase": "rename"}, "must be one of total, create, write, read, delete"),
    ({"directory": "/nonexistent/dir"}, "does not exist"),
    ({"directory": "/proc", "size_bytes": 0}, "cannot create a working directory"),
])
def test_bad_parameters(params, message):
    refuses("small_file", params, message)


def test_interrupt_leaves_nothing(tmp_path):
    rc, err = interrupt_run("small_file", [f"directory={tmp_path}", "files=20000"],
                            started=lambda pid: os.listdir(tmp_path), settle_s=0.5, wait_s=20)
    assert rc == 130 and "Traceback" not in err
    assert os.listdir(tmp_path) == []
