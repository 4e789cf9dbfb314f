"""benchlib.measuring.switches: each switch read, set and put back on a fake
kernel's files (no root, nothing of the machine touched), the guard that
restores them on an error, Ctrl-C and SIGTERM, and the per-process switches
applied only in a worker made for them."""
import os
import signal

import pytest

import benchlib
from benchlib.errors import BenchlibError
from benchlib.measuring import switches as sw
from benchlib.measuring import worker
from fake_kernel import make, thp_mode


@pytest.fixture
def root(tmp_path):
    return make(tmp_path)


def test_thp_mode_is_read_set_and_restored(root):
    s = sw.thp_enabled(root)
    assert s.as_found() == "madvise" and s.states() == ["always", "never"]
    assert s.unavailable() is None
    s.set("always")
    assert thp_mode(root) == "always" and s.as_found() == "madvise"   # as found, remembered
    s.set("never")
    s.restore()
    assert thp_mode(root) == "madvise"
    with pytest.raises(BenchlibError, match="no mode 'sometimes'"):
        s.set("sometimes")


def test_an_absent_or_read_only_switch_says_why(tmp_path):
    s = sw.thp_enabled(tmp_path)
    assert "absent" in s.unavailable() and s.describe()["states"] == []
    make(tmp_path)
    f = tmp_path / "sys/kernel/mm/transparent_hugepage/enabled"
    f.chmod(0o444)
    if os.geteuid() != 0:
        assert "not writable" in sw.thp_enabled(tmp_path).unavailable()


def test_fault_around_through_debugfs(root, tmp_path_factory):
    s = sw.FaultAround(root)
    assert s.as_found() == "65536" and s.states() == ["4096"] and s.unavailable() is None
    with sw.Restoring() as g:
        g.set(s, "4096")
        assert (root / "sys/kernel/debug/fault_around_bytes").read_text() == "4096"
    assert (root / "sys/kernel/debug/fault_around_bytes").read_text() == "65536"
    bare = make(tmp_path_factory.mktemp("nodebugfs"), debugfs=False)
    assert "debugfs is not mounted" in sw.FaultAround(bare).unavailable()


@pytest.mark.parametrize("how", ["error", "ctrl-c", "sigterm", "sighup"])
def test_the_guard_restores_on_every_way_out(root, how):
    s, f = sw.thp_enabled(root), sw.FaultAround(root)
    old = signal.getsignal(signal.SIGTERM)
    exc = {"error": RuntimeError, "ctrl-c": KeyboardInterrupt,
           "sigterm": sw.SwitchesInterrupted, "sighup": sw.SwitchesInterrupted}[how]
    with pytest.raises(exc):
        with sw.Restoring() as g:
            g.set(s, "never")
            g.set(f, "4096")
            assert thp_mode(root) == "never"
            if how == "error":
                raise RuntimeError("injected")
            if how == "ctrl-c":
                raise KeyboardInterrupt
            os.kill(os.getpid(), signal.SIGTERM if how == "sigterm" else signal.SIGHUP)
            pytest.fail("the signal did not interrupt")
    assert thp_mode(root) == "madvise"
    assert (root / "sys/kernel/debug/fault_around_bytes").read_text() == "65536"
    assert signal.getsignal(signal.SIGTERM) == old        # the caller's handler is back


def test_the_guard_restores_the_others_when_one_fails(root):
    class Broken(sw.Switch):
        name = "broken"

        def set(self, state):
            pass

        def restore(self):
            raise OSError("cannot write")

    s = sw.thp_enabled(root)
    with pytest.raises(BenchlibError, match="could not restore broken"):
        with sw.Restoring() as g:
            g.set(s, "always")
            g.set(Broken(root), "x")
    assert thp_mode(root) == "madvise"


def test_memory_cgroup_child_made_and_removed(root):
    s = sw.MemoryCgroup(root)
    assert s.as_found() == "/box" and "one more level" in s.description
    setup = s.setup("child")
    child = root / "sys/fs/cgroup/memory/box" / f"benchlib-{os.getpid()}"
    assert child.is_dir() and setup == {"cgroup_procs": str(child / "cgroup.procs")}
    s.restore()
    assert not child.exists()
    top = sw.MemoryCgroup(make(root.parent / "top", memcg_path="/"))
    assert "on against off" in top.description


def test_process_switches_give_worker_setups(root):
    assert sw.Seccomp(root).states() == ["0 rules", "1 rule", "10 rules"]
    assert sw.Seccomp(root).setup("10 rules") == {"seccomp_rules": 10}
    assert sw.ThpPrctl(root).setup("disabled") == {"thp_disable": True}
    assert sw.ThpPrctl(root).as_found() == "allowed"
    with pytest.raises(BenchlibError, match="not a system-wide switch"):
        sw.Seccomp(root).set("1 rule")
    names = [s.name for s in sw.runtime_switches(root)]
    assert names == ["thp_enabled", "fault_around_bytes", "memory_cgroup", "seccomp", "thp_prctl",
                     "spec_store_bypass", "spec_indirect_branch"]


# ---------------------------------------------------------------- the workers made for a setup

def _status(pid):
    with open(f"/proc/{pid}/status") as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)


def test_a_seccomp_filter_lives_in_its_own_worker_only():
    try:
        r = benchlib.run("syscall", op="getpid", profile="smoke", setup={"seccomp_rules": 10})
        assert r.process["setup"] == {"seccomp_rules": 10}
        (pid,) = worker.setup_worker_pids().values()
        assert _status(pid)["Seccomp"] == "2" and _status(pid)["NoNewPrivs"] == "1"
        plain = benchlib.run("syscall", op="getpid", profile="smoke")
        assert plain.process["setup"] == {} and plain.process["pid"] != pid
        assert _status(plain.process["pid"])["Seccomp"] == "0"
        assert _status(os.getpid())["Seccomp"] == "0"          # this process untouched
    finally:
        worker.end_setup_workers()
    assert worker.setup_worker_pids() == {}


def test_prctl_thp_disable_in_a_worker():
    try:
        r = benchlib.run("syscall", op="getpid", profile="smoke", setup={"thp_disable": True})
        assert r.process["thp_disabled"] is True
    finally:
        worker.end_setup_workers()


def test_bad_setups_are_refused():
    with pytest.raises(BenchlibError, match="unknown per-process switch"):
        benchlib.run("syscall", profile="smoke", setup={"rootkit": 1})
    try:
        with pytest.raises(BenchlibError, match="cannot apply .*0 to 64 rules"):
            benchlib.run("syscall", profile="smoke", setup={"seccomp_rules": 65})
    finally:
        worker.end_setup_workers()


def test_a_setup_needs_the_worker(monkeypatch):
    monkeypatch.setenv(worker.MODE_ENV, "process")
    with pytest.raises(BenchlibError, match="need the measuring worker"):
        benchlib.run("syscall", profile="smoke", setup={"seccomp_rules": 0})


def test_the_seccomp_filter_denies_its_calls():
    # In a child interpreter: umount2 of a path that does not exist fails
    # with ENOENT unless the filter (every rule, umount2 among them) denies
    # it with EPERM first; a call that could change the machine is never made.
    import subprocess
    import sys

    code = ("import ctypes, os\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "def umount():\n"
            "    libc.umount2(b'/nonexistent-benchlib-test', 0)\n"
            "    return ctypes.get_errno()\n"
            "before = umount()\n"
            "from benchlib._native import lib\n"
            "assert lib.bl_install_seccomp_filter(64) == 0\n"
            "print(before == os.sys.modules['errno'].ENOENT, umount() == 1, os.getpid() > 0)\n")
    out = subprocess.run([sys.executable, "-c", "import errno\n" + code], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "True"]
    from benchlib._native import lib
    assert lib.bl_install_seccomp_filter(65) == lib.BL_EINVAL   # refused before anything is done
