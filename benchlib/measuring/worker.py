"""The measuring process: every timed loop runs in a worker process that
has one thread, whatever the calling program carries.

Why: the calling process is a Python interpreter that usually holds other
threads (numpy's OpenBLAS pool starts one per core; a user's program may
run its own).  The kernel takes a slower path for a descriptor of a
process whose file table is shared between threads, and a shared address
space widens TLB shootdowns, so a 1-byte ``write`` measured there costs
about 30 % more than in a single-threaded program such as lmbench3's.

How: ``call`` sends (benchmark, parameters, profile, counts) over a pipe to
``python -m benchlib.measuring.worker``, started once per calling process with every
BLAS/OpenMP pool limited to one thread and importing only the registry, the
benchmark families and the C library (no numpy, no pandas).  The worker
calls the C core exactly as the caller would have, takes the noise
snapshots around the call in its own (only) thread, and sends back the
samples, the C core's ``bl_info``, the benchmark's extras and the process
state (``benchlib.measuring.process.process_state``) before and after the loop.

Per-process switches (``setup``): ``call(..., setup={"seccomp_rules": 10})``
runs in a worker of its own, started with those switches applied before its
first call (``SETUPS``: a seccomp filter, transparent huge pages refused
through prctl, the speculation controls of prctl, membership of a cgroup).
Some cannot be undone (a seccomp filter stays for the life of a process),
so they are never applied to the default worker: ``end_setup_workers()``
ends every such worker, and the caller's own process is never touched.

``BENCHLIB_MEASURE_IN=process`` measures in the calling process instead (for
a debugger, or to see what a multi-threaded program of your own pays); the
result's ``process`` record says which it was and how many threads it had.

Ctrl-C reaches the worker too (same process group): the C core stops, the
caller raises KeyboardInterrupt, and the worker is ended (a new one starts
with the next call).  The worker dies with its caller (PR_SET_PDEATHSIG)
and exits when its pipe closes."""
from __future__ import annotations

import atexit
import os
import pickle
import signal
import subprocess
import sys
import threading
import traceback
import warnings
from multiprocessing.connection import Connection

from benchlib.errors import BenchlibError, MeasurementError

# every thread pool a numerical library might start, held to one thread
ONE_THREAD_ENV = {k: "1" for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                   "BLIS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
                                   "VECLIB_MAXIMUM_THREADS", "GOTO_NUM_THREADS")}
MODE_ENV = "BENCHLIB_MEASURE_IN"
SETUP_ENV = "BENCHLIB_WORKER_SETUP"

# prctl(2) numbers (linux/prctl.h)
PR_SET_THP_DISABLE, PR_GET_SPECULATION_CTRL, PR_SET_SPECULATION_CTRL = 41, 52, 53
PR_SPEC_STORE_BYPASS, PR_SPEC_INDIRECT_BRANCH = 0, 1
PR_SPEC_PRCTL, PR_SPEC_ENABLE, PR_SPEC_DISABLE = 1, 2, 4
SPECULATION = {"spec_store_bypass": PR_SPEC_STORE_BYPASS,
               "spec_indirect_branch": PR_SPEC_INDIRECT_BRANCH}

#: The per-process switches a worker can be made with: name -> what it does.
SETUPS = {
    "seccomp_rules": "a seccomp filter of N rules (0-64) installed before the first call "
                     "(csrc/seccomp.c; cannot be removed)",
    "thp_disable": "True: prctl(PR_SET_THP_DISABLE), no transparent huge pages for the worker",
    "spec_store_bypass": "'disable': prctl speculation control, speculative store bypass "
                         "disabled (SSBD) for the worker",
    "spec_indirect_branch": "'disable': prctl speculation control, indirect branch speculation "
                            "restricted (STIBP/IBPB) for the worker",
    "cgroup_procs": "a cgroup.procs file the worker joins before its first call",
}
_PKG_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mode() -> str:
    """'worker' (the default) or 'process' (the calling process)."""
    m = os.environ.get(MODE_ENV, "worker").strip().lower() or "worker"
    if m not in ("worker", "process"):
        raise BenchlibError(f"{MODE_ENV} must be 'worker' or 'process'; got {m!r}")
    return m


# ---------------------------------------------------------------- per-process switches

def setup_key(setup: dict | None) -> str:
    """A setup as the key of its worker ("" for none); unknown switches refused."""
    if not setup:
        return ""
    unknown = sorted(set(setup) - set(SETUPS))
    if unknown:
        raise BenchlibError(f"unknown per-process switch {', '.join(unknown)}; "
                            f"known: {', '.join(SETUPS)}")
    import json
    return json.dumps(setup, sort_keys=True)


def _prctl(*args: int) -> int:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.restype = ctypes.c_int
    rc = libc.prctl(*(ctypes.c_ulong(a) for a in args), *(ctypes.c_ulong(0),) * (5 - len(args)))
    if rc < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return rc


def speculation_control(which: str) -> int | None:
    """PR_GET_SPECULATION_CTRL for this process ("spec_store_bypass" or
    "spec_indirect_branch"): the kernel's bits (PR_SPEC_PRCTL set: a process
    may change it), None where the kernel has no such control."""
    try:
        return _prctl(PR_GET_SPECULATION_CTRL, SPECULATION[which])
    except OSError:
        return None


def apply_setup(setup: dict) -> None:
    """Apply per-process switches to this process (a worker made for them)."""
    for name, value in sorted(setup.items()):
        if name == "seccomp_rules":
            from benchlib._native import ffi, lib
            if lib.bl_install_seccomp_filter(int(value)) != lib.BL_OK:
                raise BenchlibError(ffi.string(lib.bl_last_error()).decode(errors="replace"))
        elif name == "thp_disable":
            _prctl(PR_SET_THP_DISABLE, 1 if value else 0)
        elif name in SPECULATION:
            if value != "disable":
                raise BenchlibError(f"{name} takes 'disable'; got {value!r}")
            _prctl(PR_SET_SPECULATION_CTRL, SPECULATION[name], PR_SPEC_DISABLE)
        elif name == "cgroup_procs":
            with open(value, "w") as f:
                f.write(str(os.getpid()))
        else:
            raise BenchlibError(f"unknown per-process switch {name!r}")


_ACTIVE_SETUP: dict = {}


# ---------------------------------------------------------------- the call itself

def make_opts(profile, n_samples: int | None, cpu: int):
    """The C core's bl_opts for one call."""
    from benchlib._native import ffi

    o = ffi.new("bl_opts *")
    o.n_samples = n_samples or profile.n_samples
    o.n_warmup = profile.n_warmup
    o.target_sample_ns = profile.target_sample_ms * 1e6
    o.iterations = 0
    o.max_iterations = 0
    o.max_total_ns = profile.max_total_s * 1e9
    o.cpu = cpu
    o.helper_cpu = -1
    o.subtract_overhead = 0
    return o


def call_here(name: str, params: dict, profile, n_samples: int | None, iterations: int = 0,
              max_total_s: float | None = None, kind: str = "process",
              stop: dict | None = None) -> dict:
    """One call of the C core in this process, as plain data: ``ns``,
    ``ticks``, ``ghz`` (None where absent), ``info`` (bl_info's fields),
    ``cpu`` (as requested), ``extras``, ``rc``, ``error``, the snapshots
    before and after and the process state around the loop.  ``stop``: the
    C core's adaptive stop (``rel_ci``, ``reciprocal``, ``prior``: the
    earlier calls' samples in ns, ``ranks``: one rank per sample count up
    to theirs and this call's; see ``harness.adaptive_stop``), which a
    benchmark whose samples bl_measure takes obeys and the others ignore."""
    from benchlib._native import ffi, lib
    from benchlib.measuring.process import Snapshot, process_state, thread_count
    from benchlib.measuring.registry import get_benchmark

    bench = get_benchmark(name)
    opts = make_opts(profile, n_samples, params.get("cpu", -1))
    opts.iterations = iterations
    if max_total_s is not None:
        opts.max_total_ns = max_total_s * 1e9
    n = opts.n_samples
    ns, ticks, ghz = (ffi.new("double[]", n) for _ in range(3))
    opts.clock_ghz = ghz
    ranks = prior = None      # alive until the call returns
    if stop:
        m = len(stop["prior"])
        if len(stop["ranks"]) < m + n + 1:
            raise ValueError(f"the adaptive stop has {len(stop['ranks'])} ranks for {m} + {n} "
                             "samples")
        ranks = ffi.new("int[]", stop["ranks"][:m + n + 1])
        prior = ffi.new("double[]", list(stop["prior"]) or [0.0])
        opts.stop_rel_ci = stop["rel_ci"]
        opts.stop_reciprocal = int(stop["reciprocal"])
        opts.stop_ranks = ranks
        opts.stop_prior = prior
        opts.stop_prior_n = m
    info = ffi.new("bl_info *")
    state = process_state()
    _process_facts()          # at once after the first call (the worker has it from its start)
    before = Snapshot()
    rc, measured_extras = bench.measure(params, opts, ns, ticks, info)
    after = Snapshot()
    state["threads_after"] = thread_count()
    state["kind"] = kind
    state["setup"] = dict(_ACTIVE_SETUP)
    k = info.n_samples
    info_d = {f: getattr(info, f) for f, _ in ffi.typeof("bl_info").fields}
    out = {"rc": rc, "error": ffi.string(lib.bl_last_error()).decode(errors="replace")
           if rc != lib.BL_OK else "",
           "ns": [ns[i] for i in range(k)],
           "ticks": [ticks[i] for i in range(k)] if info.has_ticks else None,
           # a benchmark that times itself (no per-sample probe) sets clock_ghz to NULL
           "ghz": [ghz[i] for i in range(k)] if opts.clock_ghz != ffi.NULL else None,
           "info": info_d, "cpu": opts.cpu, "before": before, "after": after,
           "process": state, "extras": {}}
    if rc == lib.BL_OK:
        from types import SimpleNamespace
        out["extras"] = {**(bench.extras(SimpleNamespace(**info_d), params) if bench.extras
                            else {}), **measured_extras}
    return out


def raise_for(out: dict, name: str) -> None:
    """The C core's return code as the caller's exception."""
    from benchlib._native import lib

    rc = out["rc"]
    if rc == lib.BL_EINTR:
        raise KeyboardInterrupt
    if rc == lib.BL_EINVAL:
        raise BenchlibError(out["error"])
    if rc != lib.BL_OK:
        raise MeasurementError(f"{name}: {out['error']}")


# ---------------------------------------------------------------- the caller's side

class _Worker:
    """One worker process and its two pipes."""

    def __init__(self, setup: str = ""):
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        env = {**os.environ, **ONE_THREAD_ENV, MODE_ENV: "process"}
        env.pop(SETUP_ENV, None)
        if setup:
            env[SETUP_ENV] = setup
        env["PYTHONPATH"] = os.pathsep.join(
            [_PKG_PARENT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "benchlib.measuring.worker", str(to_r), str(from_w)],
                pass_fds=(to_r, from_w), env=env, stdin=subprocess.DEVNULL, close_fds=True)
        finally:
            os.close(to_r)
            os.close(from_w)
        self.out = Connection(to_w, readable=False)
        self.inp = Connection(from_r, writable=False)

    def request(self, req: tuple):
        self.out.send(req)
        return self.inp.recv()

    def close(self, interrupt: bool = False, timeout: float = 5.0) -> None:
        if interrupt and self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGINT)
            except OSError:
                pass
        for c in (self.out, self.inp):
            try:
                c.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_lock = threading.Lock()
_current: _Worker | None = None
_with_setup: dict[str, _Worker] = {}   # setup key -> its own worker


def end_setup_workers() -> None:
    """End every worker made for per-process switches (the default one stays)."""
    with _lock:
        while _with_setup:
            _with_setup.popitem()[1].close()


def setup_worker_pids() -> dict[str, int]:
    """The running workers made for per-process switches: setup key -> PID."""
    return {k: w.proc.pid for k, w in _with_setup.items() if w.proc.poll() is None}


def _shutdown() -> None:
    global _current
    end_setup_workers()
    if _current is not None:
        _current.close()
        _current = None


atexit.register(_shutdown)


def _running(key: str = "") -> _Worker:
    """The worker for a setup key, started if none is running (the caller
    holds _lock)."""
    global _current
    if key:
        w = _with_setup.get(key)
        if w is None or w.proc.poll() is not None:
            w = _with_setup[key] = _Worker(key)
        return w
    if _current is None or _current.proc.poll() is not None:
        _current = _Worker()
    return _current


def _forget(key: str) -> None:
    global _current
    if key:
        _with_setup.pop(key, None)
    else:
        _current = None


def measuring_pid() -> int:
    """The PID of the process that runs this process's timed loops: the
    worker (started now if it is not running) or, in ``process`` mode, this
    process."""
    if mode() == "process":
        return os.getpid()
    w = _current  # a running worker is answered without waiting for its call
    if w is not None and w.proc.poll() is None:
        return w.proc.pid
    with _lock:
        return _running().proc.pid


def call(name: str, params: dict, profile, n_samples: int | None, iterations: int = 0,
         max_total_s: float | None = None, setup: dict | None = None,
         stop: dict | None = None) -> dict:
    """One call of the C core where the loop runs alone (see the module's
    docstring), in the worker made for ``setup`` when one is given; raises
    as the C core's return code says.  ``stop``: see ``call_here``."""
    key = setup_key(setup)
    if mode() == "process":
        if key:
            raise BenchlibError(f"per-process switches ({key}) need the measuring worker; "
                                f"unset {MODE_ENV}")
        out = call_here(name, params, profile, n_samples, iterations, max_total_s, stop=stop)
        raise_for(out, name)
        return out
    with _lock:
        w = _running(key)
        try:
            status, payload = w.request(("call", name, params, profile, n_samples, iterations,
                                         max_total_s, stop))
        except KeyboardInterrupt:
            _forget(key)
            w.close(interrupt=True)
            raise
        except (EOFError, OSError) as exc:
            _forget(key)
            w.close()
            raise MeasurementError(f"{name}: the measuring process ended unexpectedly "
                                   f"(exit status {w.proc.returncode}): {exc}") from None
    if status == "interrupted":
        raise KeyboardInterrupt
    if status == "raised":
        cls, message, text = payload
        exc_type = {"BenchlibError": BenchlibError, "MeasurementError": MeasurementError,
                    "ValueError": ValueError, "OSError": OSError}.get(cls)
        if exc_type is None:
            raise MeasurementError(f"{name}: the measuring process raised {cls}: {message}\n{text}")
        raise exc_type(message)
    for category, message in payload.pop("warnings"):
        warnings.warn(message, {"RuntimeWarning": RuntimeWarning}.get(category, UserWarning),
                      stacklevel=3)
    raise_for(payload, name)
    return payload


# ---------------------------------------------------------------- the worker's side

def _die_with_parent() -> None:
    """SIGINT when the caller dies: the C core stops at once, then the
    closed pipe ends the worker."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGINT, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _process_facts() -> None:
    """What the C core measures once per process for its measurements (the
    clock's resolution), measured when the worker starts and before any
    call's first snapshot (the calling process's own, in 'process' mode),
    so that no call pays it inside its measurement.  The TSC's rate (a 20 ms
    sleep) is not among them: no measurement needs it since bl_measure says
    whether samples carry ticks from the build, and the machine's
    description (metadata.machine_info, in the process that asks for the
    run, before it) measures it where it is wanted."""
    from benchlib._native import lib

    lib.bl_clock_resolution_ns()


def serve(in_fd: int, out_fd: int) -> None:
    import json

    global _ACTIVE_SETUP
    _die_with_parent()
    inp, out = Connection(in_fd, writable=False), Connection(out_fd, readable=False)
    if os.getppid() == 1:
        return
    failed = None
    if os.environ.get(SETUP_ENV):
        try:
            _ACTIVE_SETUP = json.loads(os.environ[SETUP_ENV])
            apply_setup(_ACTIVE_SETUP)
        except (BenchlibError, OSError, ValueError) as exc:
            failed = ("raised", ("BenchlibError", f"cannot apply {os.environ[SETUP_ENV]} to the "
                                 f"measuring worker: {exc}", ""))
    _process_facts()
    while True:
        try:
            req = inp.recv()
        except KeyboardInterrupt:
            continue
        except (EOFError, OSError):
            return
        if failed:
            try:
                out.send(failed)
            except (OSError, KeyboardInterrupt):
                return
            continue
        try:
            _, name, params, profile, n_samples, iterations, max_total_s, stop = req
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = call_here(name, params, profile, n_samples, iterations, max_total_s,
                                kind="worker", stop=stop)
            res["warnings"] = [(type(w.message).__name__, str(w.message)) for w in caught]
            reply = ("ok", res)
        except KeyboardInterrupt:
            reply = ("interrupted", None)
        except Exception as exc:  # sent to the caller, raised there
            reply = ("raised", (type(exc).__name__, str(exc), traceback.format_exc()))
        try:
            out.send(reply)
        except (pickle.PicklingError, TypeError) as exc:
            out.send(("raised", ("MeasurementError", f"result not transferable: {exc}", "")))
        except (OSError, KeyboardInterrupt):
            return


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
