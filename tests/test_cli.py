"""The `benchlib` command's contract, as scripts rely on it."""
import os
import json
import time

import pytest

from conftest import children_of, comm, descendants, interrupt_run, json_lines, kill_children, subreaper


def test_list_json(cli):
    r = cli("list", "--json")
    assert r.returncode == 0, r.stderr
    benches = {b["name"]: b for b in json.loads(r.stdout)}
    assert benches["syscall"]["unit"] == "us"
    assert benches["bcopy"]["unit"] == "MB/s"
    op = next(p for p in benches["syscall"]["params"] if p["name"] == "op")
    assert op["default"] == "getpid" and op["choices"] == ["getpid", "write", "getppid", "read", "stat", "fstat"]
    placement = next(p for p in benches["pipe_latency"]["params"] if p["name"] == "placement")
    assert set(placement["choices"]) == {"same_cpu", "different_cpus", "unpinned"}


def test_list_text(cli):
    r = cli("list")
    assert r.returncode == 0 and "mem_latency" in r.stdout and "stride_bytes" in r.stdout


def test_run_json_contract(cli):
    r = cli("run", "syscall", "-p", "op=getpid", "--profile", "smoke", "--json")
    assert r.returncode == 0, r.stderr
    (obj,) = json_lines(r.stdout)
    assert obj["benchmark"] == "syscall" and obj["params"] == {"op": "getpid", "cpu": -1}
    for key in ("value", "unit", "min", "median", "n_samples"):
        assert key in obj
    assert obj["min"] <= obj["median"] and obj["n_samples"] == len(obj["samples"])


def test_run_comma_lists_sweep(cli):
    r = cli("run", "mem_latency", "-p", "size_bytes=4k,8k", "-p", "stride_bytes=64",
            "--profile", "smoke", "--json")
    assert r.returncode == 0, r.stderr
    assert [o["params"]["size_bytes"] for o in json_lines(r.stdout)] == [4096, 8192]


def test_run_save_and_results(cli, tmp_path):
    r = cli("run", "syscall", "--profile", "smoke", "--save", str(tmp_path))
    assert r.returncode == 0, r.stderr
    r = cli("results", str(tmp_path), "--json")
    rows = json.loads(r.stdout)
    assert len(rows) == 1 and rows[0]["benchmark"] == "syscall"


def test_info_json(cli):
    r = cli("info", "--json")
    info = json.loads(r.stdout)
    assert info["cpus_online"] == os.sysconf("SC_NPROCESSORS_ONLN")
    # one entry per cache sysfs describes for CPU 0
    sysfs = "/sys/devices/system/cpu/cpu0/cache"
    described = [d for d in os.listdir(sysfs) if d.startswith("index")] if os.path.isdir(sysfs) else []
    assert len(info["caches"]) == len(described)


@pytest.mark.parametrize("args,needle", [
    (["run", "nosuch"], "valid benchmarks"),
    (["run", "syscall", "-p", "bogus=1"], "valid parameters"),
    (["run", "bcopy", "-p", "size_bytes=big"], "number of bytes"),
    (["run", "bcopy", "-p", "size_bytes=-64"], ">= 1"),
    (["run", "bcopy", "-p", "src_offset_bytes=4096"], "<= 4095"),
    (["run", "mem_latency", "-p", "size_bytes=4k", "-p", "stride_bytes=8k"], "larger than"),
    (["run", "syscall", "-p", "op"], "KEY=VALUE"),
    (["run", "syscall", "--profile", "warp"], "valid profiles"),
])
def test_bad_input_exit_2_without_traceback(cli, args, needle):
    r = cli(*args)
    assert r.returncode == 2
    assert needle in r.stderr
    assert "Traceback" not in r.stderr


def test_interrupting_a_pipe_benchmark_leaves_no_process():
    """Ctrl-C during pipe_latency: exit 130, a one-line message, and the echo
    child gone.  We become a subreaper so that an orphan would be ours."""
    with subreaper():
        rc, err = interrupt_run(
            "pipe_latency", ["placement=unpinned"], settle_s=0.3,
            started=lambda pid: any(comm(k) == "bl-pipe-echo" for k in descendants(pid)))
        assert rc == 130, err
        assert "interrupted" in err and "Traceback" not in err
        time.sleep(0.2)
        assert kill_children() == []