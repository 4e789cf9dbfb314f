"""select and the file-system benchmarks: clean-up, errors, robust relations."""
import os

import pytest

import benchlib
from benchlib.errors import BenchlibError
from benchlib.measuring.harness import PROFILES
from conftest import interrupt_run, refuses


def test_select_checks_its_answer_every_call():
    # The C loop checks select's return against the pipes it filled (0 when
    # empty, all of them when full) on every call and fails the run
    # otherwise, so a run that completes has seen the right answer each time.
    one = benchlib.run("select_latency", pipes=1, profile="smoke")
    ten = benchlib.run("select_latency", pipes=10, full="yes", profile="smoke")
    assert (one.params["pipes"], one.params["full"]) == (1, "no")
    assert (ten.params["pipes"], ten.params["full"]) == (10, "yes")
    assert 1 <= ten.n_samples <= PROFILES["smoke"].n_samples


@pytest.mark.parametrize("call", ["select", "poll", "epoll"])
@pytest.mark.parametrize("full", ["no", "yes"])
def test_waiting_on_a_thousand_pipes(call, full):
    """select, poll and epoll over 1,000 pipes (2,000 descriptors: more than
    the usual soft limit of 1,024, raised for the run and put back): every
    call's answer is checked in C, and the process that measured keeps its
    limit and holds none of the pipes afterwards."""
    from conftest import measuring_fds, measuring_pid
    import resource

    r = benchlib.run("select_latency", pipes=1000, full=full, call=call, profile="smoke")
    assert r.params["call"] == call and r.median > 0
    pid = measuring_pid()
    with open(f"/proc/{pid}/limits") as f:
        soft = next(int(line.split()[3]) for line in f if line.startswith("Max open files"))
    assert soft == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert len(measuring_fds()) < 100


def test_waiting_calls_are_refused_clearly():
    refuses("select_latency", {"pipes": 1001}, "pipes")
    refuses("select_latency", {"call": "kqueue"}, "select, poll")
    refuses("select_latency", {"descriptor": "file", "call": "epoll"}, "regular files")
    refuses("select_latency", {"descriptor": "file_dup", "call": "epoll"}, "regular files")


@pytest.mark.parametrize("call", ["select", "poll"])
@pytest.mark.parametrize("descriptor", ["file", "file_dup"])
def test_waiting_on_opens_of_a_regular_file(call, descriptor):
    """descriptor=file (separate opens) and file_dup (one open's dups, as
    lmbench3's lat_select 'file'): every descriptor is ready (checked in C
    each call, as for full pipes), nothing is left open and no file is left
    anywhere (a memfd)."""
    from conftest import measuring_fds

    r = benchlib.run("select_latency", pipes=100, descriptor=descriptor, call=call, profile="smoke")
    assert r.params["descriptor"] == descriptor and r.median > 0
    assert len(measuring_fds()) < 100


@pytest.mark.parametrize("name,params", [
    ("open_close_latency", {"path": "a/b/c/foo"}),
    ("fs_create_delete", {"file_bytes": "10k", "fsync": "yes"}),
    ("file_read_bandwidth", {"file_bytes": "1M"}),
    ("file_reread_bandwidth", {"file_bytes": "1M", "method": "read"}),
    ("file_reread_bandwidth", {"file_bytes": "1M", "method": "mmap"}),
    ("file_reread_bandwidth", {"file_bytes": "1M", "method": "mmap_once"}),
    ("file_reread_bandwidth", {"file_bytes": "1M", "method": "mmap", "write_bytes": "1M"}),
    ("file_read_bandwidth", {"file_bytes": "1M", "write_bytes": "4k"}),
    ("fs_latency", {"files": 20, "file_bytes": "1k"}),
    ("disk_io", {"file_bytes": "1M", "pattern": "random", "op": "write"}),
    ("disk_io", {"file_bytes": "1M", "direct": "no"}),
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
    refuses("fs_create_delete", params, message)


def test_a_file_is_not_a_directory(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(BenchlibError, match="not a directory"):
        benchlib.run("open_close_latency", directory=str(f), profile="smoke")


def test_the_files_writes_are_a_parameter_recorded_with_the_result():
    r = benchlib.run("file_reread_bandwidth", file_bytes="256k", write_bytes="64k",
                     profile="smoke")
    assert r.params["write_bytes"] == 64 << 10
    assert benchlib.run("file_read_bandwidth", file_bytes="256k",
                        profile="smoke").params["write_bytes"] == 16 << 10
    with pytest.raises(BenchlibError, match="write_bytes"):
        benchlib.run("file_reread_bandwidth", file_bytes="256k", write_bytes="1k", profile="smoke")


def test_block_larger_than_file():
    with pytest.raises(BenchlibError, match="larger than file_bytes"):
        benchlib.run("file_read_bandwidth", file_bytes="64k", block_bytes="1M", profile="smoke")


def test_interrupt_cleans_up_the_directory(tmp_path):
    rc, err = interrupt_run("fs_create_delete", [f"directory={tmp_path}", "file_bytes=100k"],
                            started=lambda pid: os.listdir(tmp_path), settle_s=0.3, wait_s=20)
    assert rc == 130 and "Traceback" not in err
    assert os.listdir(tmp_path) == []


def test_syscall_ops_for_completeness():
    for op in ("read", "stat", "fstat", "write"):
        r = benchlib.run("syscall", op=op, profile="smoke")
        # each op's return is checked in C every call; and no kernel entry
        # and exit takes under 10 ns (tens of cycles at least), a floor
        # noise cannot cross since it only adds time
        assert r.unit == "us" and r.params["op"] == op and r.min > 0.01


def test_reread_sums_every_word_of_the_file():
    for method in ("read", "mmap"):
        r = benchlib.run("file_reread_bandwidth", file_bytes="256k", block_bytes="64k",
                         method=method, profile="smoke")
        assert r.samples[0] == pytest.approx((256 << 10) / r.ns_per_iteration[0] * 1e3)


def test_fs_latency_reports_both_halves():
    r = benchlib.run("fs_latency", files=50, op="create", profile="smoke")
    other = r.extras["delete_us_per_file"]
    assert len(other) == r.n_samples == 5 and all(x > 0 for x in other)
    assert r.clock_ghz is None and r.iterations_per_sample == 50


def test_disk_io_refuses_memory_file_systems():
    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm")
    with pytest.raises(BenchlibError, match="not a disk"):
        benchlib.run("disk_io", directory="/dev/shm", profile="smoke")


@pytest.mark.parametrize("params,message", [
    ({"block_bytes": 1000}, "multiple of 512"),
    ({"block_bytes": "2M", "file_bytes": "1M"}, "larger than file_bytes"),
])
def test_disk_io_bad_sizes(params, message):
    refuses("disk_io", params, message)


def test_fs_latency_interrupt_leaves_nothing(tmp_path):
    rc, err = interrupt_run("fs_latency", [f"directory={tmp_path}", "files=200000"],
                            started=lambda pid: os.listdir(tmp_path), settle_s=0.5, wait_s=20)
    assert rc == 130 and "Traceback" not in err
    assert os.listdir(tmp_path) == []