import contextlib
import ctypes
import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PR_SET_CHILD_SUBREAPER = 36

# ---- ../shared: the papers' texts and reference data, beside the checkout ----

REPO = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
SHARED = Path(os.environ.get("BENCHLIB_SHARED") or REPO.parent / "shared")


def shared_required() -> bool:
    """CI always has ../shared beside its clone, so there a missing file is a
    failure; in a plain clone without it the tests that need it skip, with a
    reason pytest prints (-rs)."""
    return bool(os.environ.get("CI")) or os.environ.get("BENCHLIB_REQUIRE_SHARED") == "1"


def needs_shared(*parts):
    """Decorator: the test needs ../shared/<parts...>."""
    path = SHARED.joinpath(*parts)

    def wrap(test):
        @functools.wraps(test)
        def run(*args, **kwargs):
            if not path.exists():
                message = f"{path} not found (../shared beside the checkout)"
                if shared_required():
                    pytest.fail(message + "; CI and BENCHLIB_REQUIRE_SHARED=1 require it")
                pytest.skip(message)
            return test(*args, **kwargs)
        return run
    return wrap


def refuses(name, params, message):
    """benchlib.run(name, params) is refused with a BenchlibError matching
    ``message``, before anything is measured."""
    from benchlib.errors import BenchlibError
    from benchlib.measuring.harness import run

    with pytest.raises(BenchlibError, match=message):
        run(name, params, profile="smoke")


def run_cli(*args, timeout=120, **kw):
    """The CLI as a user runs it, in a child interpreter."""
    return subprocess.run([sys.executable, "-m", "benchlib.cli", *args], capture_output=True,
                          text=True, timeout=timeout, **kw)


@pytest.fixture
def cli():
    return run_cli


def json_lines(text):
    return [json.loads(l) for l in text.splitlines() if l.strip()]


@pytest.fixture
def two_cpus():
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two CPUs")
    return cpus


# ---- interrupting a run: helpers shared by the Ctrl-C tests ----

def measuring_pid():
    """The process that runs this test process's timed loops (benchlib's
    measuring worker, started if need be)."""
    from benchlib.measuring import worker as _worker

    return _worker.measuring_pid()


def measuring_children():
    """Children (exited or not) of the process that runs the timed loops.
    A benchmark's helpers must all be reaped when its run returns, so this
    is [] after every run."""
    return children_of(measuring_pid())


def measuring_fds():
    """The open descriptors of the process that runs the timed loops."""
    return sorted(os.listdir(f"/proc/{measuring_pid()}/fd"))


def children_of(pid):
    """PIDs whose parent is ``pid`` (from /proc)."""
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(d))
    return kids


def comm(pid):
    try:
        return open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        return ""


def _parents():
    """{pid: parent pid} of every process, from /proc."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                out[int(d)] = int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return out


def descendants(pid):
    """Every process below ``pid`` in the process tree."""
    parents = _parents()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier and p not in found}
        found |= frontier
    return found


def processes_named(prefix, under=None):
    """PIDs of the processes below this test process (``under``, default:
    ourselves) whose name starts with ``prefix``.  Only our own subtree
    counts: a test suite or notebook running beside this one has helpers of
    the same names.  Orphans of a run come back into the subtree when the
    test is a subreaper (``subreaper()``)."""
    return [p for p in descendants(under or os.getpid()) if comm(p).startswith(prefix)]


@contextlib.contextmanager
def subreaper():
    """Become a child subreaper, so that an orphan of the run is ours to see."""
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    try:
        yield
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def _sigint_as_a_terminal_has_it():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli_popen(args, **kw):
    """The CLI in a child that takes Ctrl-C as it would from a terminal.  A
    process started in the background by a non-interactive shell (nohup,
    `cmd &` in a script, as CI runners may do) inherits SIGINT ignored, and
    Python then installs no KeyboardInterrupt handler: the child's default
    is restored here, so the test measures the program, not how it was
    launched."""
    return subprocess.Popen([sys.executable, "-m", "benchlib.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=_sigint_as_a_terminal_has_it, **kw)


def interrupt_run(name, params, started, settle_s=1.0, wait_s=30):
    """`benchlib run NAME -p ...` with more samples than any profile takes;
    once ``started(pid)`` is true, wait ``settle_s`` and send SIGINT.
    Returns (exit code, stderr)."""
    args = [x for kv in params for x in ("-p", kv)]
    p = cli_popen(["run", name, *args, "--profile", "full", "--samples", "100000"])
    deadline = time.monotonic() + wait_s
    while not started(p.pid):
        if time.monotonic() > deadline or p.poll() is not None:
            p.kill()
            pytest.fail(f"{name} never started its helpers: {p.communicate()[1]}")
        time.sleep(0.02)
    t_started = time.monotonic()
    time.sleep(settle_s)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    if p.returncode != 130:  # say what happened instead (the assertion shows err)
        err += (f"\n[interrupt_run: exit {p.returncode} {time.monotonic() - t_started:.1f} s after "
                f"{name} started; stdout: {out.strip()[:300]!r}]")
    return p.returncode, err


def kill_children():
    """Kill and reap this process's children (orphans handed to a
    subreaper); returns their PIDs, so a test can fail on them.  This
    process's own measuring worker (benchlib.measuring.worker) is no leftover."""
    from benchlib.measuring import worker as _worker

    own = _worker._current.proc.pid if _worker._current is not None else None
    leftover = [k for k in children_of(os.getpid()) if k != own]
    for k in leftover:
        try:
            os.kill(k, signal.SIGKILL)
            os.waitpid(k, 0)
        except OSError:
            pass
    return leftover
