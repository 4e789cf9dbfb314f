"""select and the file-system benchmarks: clean-up, errors, robust relations."""
import os
import signal
import subprocess
import sys
import time

import pytest

import benchlib
from benchlib.errors import BenchlibError


def test_select_more_pipes_cost_more():
    one = benchlib.run("select_latency", pipes=1, profile="smoke")
    ten = benchlib.run("select_latency", pipes=10, full="yes", profile="smoke")
    assert ten.median > one.median


@pytest.mark.parametrize("name,params", [
    ("open_close_latency", {"path": "a/b/c/foo"}),
    ("fs_create_delete", {"file_bytes": "10k", "fsync": "yes"}),
    ("file_read_bandwidth", {"file_bytes": "1M"}),
])
def test_file_benchmarks_leave_nothing_behind(tmp_path, name, params):
    r = benchlib.run(name, {**params, "directory": str(tmp_path)}, profile="smoke")
    assert r.median > 0 and r.extras["fs_type"]
    assert os.listdir(tmp_path) == []


def test_file_read_counts_the_file():
    r = benchlib.run("file_read_bandwidth", file_bytes="1M", profile="smoke")
    assert r.samples[0] == pytest.approx((1 << 20) / r.ns_per_iteration[0] * 1e3)


@pytest.mark.parametrize("params,message", [
    ({"directory": "/nonexistent/dir"}, "does not exist"),
    ({"directory": "/proc"}, "cannot create a working directory"),
    ({"file_bytes": "-1"}, ">= 0"),
])
def test_bad_directories_and_sizes(params, message):
    with pytest.raises(BenchlibError, match=message):
        benchlib.run("fs_create_delete", params, profile="smoke")


def test_a_file_is_not_a_directory(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(BenchlibError, match="not a directory"):
        benchlib.run("open_close_latency", directory=str(f), profile="smoke")


def test_block_larger_than_file():
    with pytest.raises(BenchlibError, match="larger than file_bytes"):
        benchlib.run("file_read_bandwidth", file_bytes="64k", block_bytes="1M", profile="smoke")


def test_interrupt_cleans_up_the_directory(tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "benchlib.cli", "run", "fs_create_delete",
                          "-p", f"directory={tmp_path}", "-p", "file_bytes=100k",
                          "--profile", "full", "--samples", "100000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not os.listdir(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert os.listdir(tmp_path), "the benchmark never started"
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=15)
    assert p.returncode == 130 and "Traceback" not in err
    assert os.listdir(tmp_path) == []
