"""csrc/iowork.c from Python: ``IOSpace`` (the directory, data file and
cache limit a self-scaling run or one ``io_workload`` run uses), and the
``io_workload`` registration.  Chen & Patterson's search
(``benchlib.papers.chen1994.measure``) runs hundreds of workloads in one
``IOSpace``, so the data file is written once; ``io_workload`` makes one
``IOSpace`` per run.

``IOSpace`` owns everything a run puts on the machine: a private directory
in the user's ``directory`` holding one data file (at most the disk budget),
and, where the kernel lets us, a memory cgroup that limits the page cache
the workload processes may fill.  Everything is removed on exit, Ctrl-C
included.
"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field, replace

from benchlib.profiles import setting
from benchlib.errors import BenchlibError
from benchlib.measuring.registry import (Benchmark, Param, check_directory, check_free_space, filesystem_of,
                        register)
from benchlib.measuring.benchmarks.common import DIRECTORY, _ffi, _fs_extras

CACHE_METHODS = ("auto", "cgroup", "direct", "buffered")
MiB = 1 << 20


@dataclass(frozen=True)
class Workload:
    unique_bytes: int
    size_mean_bytes: float
    read_frac: float
    seq_frac: float
    process_num: int

    def with_(self, **kw) -> "Workload":
        return replace(self, **kw)


def check_workload(w: Workload, max_unique_bytes: int) -> None:
    """A clear error for every parameter out of range."""
    for name in ("read_frac", "seq_frac"):
        v = getattr(w, name)
        if not 0.0 <= v <= 1.0:
            raise BenchlibError(f"{name} must be between 0 and 1; got {v}")
    if not w.size_mean_bytes >= 1:
        raise BenchlibError(f"size_mean_bytes must be at least 1; got {w.size_mean_bytes}")
    if w.size_mean_bytes > 8 * MiB:
        raise BenchlibError(f"size_mean_bytes must be at most 8 MiB; got {w.size_mean_bytes:,.0f}")
    if not 1 <= w.process_num <= 64:
        raise BenchlibError(f"process_num must be between 1 and 64; got {w.process_num}")
    if w.unique_bytes < 4096:
        raise BenchlibError(f"unique_bytes must be at least 4096; got {w.unique_bytes}")
    if w.unique_bytes > max_unique_bytes:
        raise BenchlibError(f"unique_bytes ({w.unique_bytes:,}) is beyond the data file "
                            f"({max_unique_bytes:,} bytes, set by the disk budget)")


# ---------------------------------------------------------------- the cgroup

def _memory_cgroup_dir() -> tuple[str, int] | None:
    """(this process's memory cgroup directory, cgroup version) or None."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = [ln.rstrip("\n").split(":", 2) for ln in f]
        with open("/proc/self/mounts") as f:
            mounts = [ln.split()[:4] for ln in f]
    except OSError:
        return None
    for _, ctrls, path in lines:  # cgroup v1: a hierarchy with the memory controller
        if "memory" in ctrls.split(","):
            for _, mnt, fstype, opts in mounts:
                if fstype == "cgroup" and "memory" in opts.split(","):
                    return os.path.join(mnt, path.lstrip("/")), 1
    for hid, ctrls, path in lines:  # cgroup v2, where memory is delegated to us
        if hid == "0" and ctrls == "":
            for _, mnt, fstype, _ in mounts:
                if fstype == "cgroup2":
                    d = os.path.join(mnt, path.lstrip("/"))
                    try:
                        with open(os.path.join(d, "cgroup.subtree_control")) as f:
                            if "memory" in f.read().split():
                                return d, 2
                    except OSError:
                        pass
    return None


class CacheCgroup:
    """A child memory cgroup whose limit bounds the page cache its members
    fill (the kernel charges a page to the cgroup of the process that first
    faults it in).  ``procs`` is the file the workers write their pid to."""

    def __init__(self, limit_bytes: int):
        found = _memory_cgroup_dir()
        if found is None:
            raise OSError("no memory cgroup controller is available to this process")
        parent, self.version = found
        self.path = os.path.join(parent, f"benchlib-io-{os.getpid()}")
        os.mkdir(self.path)
        try:
            limit = "memory.limit_in_bytes" if self.version == 1 else "memory.max"
            with open(os.path.join(self.path, limit), "w") as f:
                f.write(str(int(limit_bytes)))
        except OSError:
            self.close()
            raise
        self.procs = os.path.join(self.path, "cgroup.procs")
        self.limit_bytes = int(limit_bytes)

    def close(self) -> None:
        try:
            os.rmdir(self.path)  # the workers have exited; cached pages move to the parent
        except FileNotFoundError:
            pass


# ---------------------------------------------------------------- the space

@dataclass
class IOSpace:
    """The directory, data file and cache limit every workload of a run uses.

    directory: an existing writable directory (a private one is made in it).
    disk_budget_bytes: the most this run may write to disk; checked against
        half the free space; the data file is this large (or max_unique_bytes).
    cache: "cgroup" (buffered I/O; the workers' page cache is limited to
        cache_bytes by a memory cgroup), "direct" (O_DIRECT: no file cache at
        all), "buffered" (the machine's whole file cache), or "auto" (cgroup if
        the kernel lets us, else direct, else buffered).
    duration_s: how long each workload runs.
    """
    directory: str = tempfile.gettempdir()
    disk_budget_bytes: int = 2 << 30
    max_unique_bytes: int | None = None
    cache: str = "auto"
    cache_bytes: int = 128 * MiB
    duration_s: float = 0.25
    seed: int = 1
    method: str = field(init=False, default="")
    method_note: str = field(init=False, default="")

    def __post_init__(self):
        if self.cache not in CACHE_METHODS:
            raise BenchlibError(f"unknown cache method {self.cache!r}; valid: "
                                f"{', '.join(CACHE_METHODS)}")
        self.directory = directory = check_directory(self.directory)
        if self.disk_budget_bytes < 4 * MiB:
            raise BenchlibError(f"disk_budget_bytes must be at least 4 MiB; got "
                                f"{self.disk_budget_bytes:,}")
        check_free_space(self.disk_budget_bytes, directory, "disk_budget_bytes")
        if self.max_unique_bytes is None:
            self.max_unique_bytes = self.disk_budget_bytes
        if self.max_unique_bytes > self.disk_budget_bytes:
            raise BenchlibError(f"max_unique_bytes ({self.max_unique_bytes:,}) is beyond the "
                                f"disk budget ({self.disk_budget_bytes:,})")
        self.max_unique_bytes = int(self.max_unique_bytes) // 4096 * 4096
        if not self.duration_s > 0:
            raise BenchlibError(f"duration_s must be positive; got {self.duration_s}")
        self._tmp = self._cgroup = None

    # -- set-up and tear-down
    def __enter__(self) -> "IOSpace":
        from benchlib._native import lib
        atexit.register(self.close)  # an interactive session that never reaches close()
        try:
            self._choose_method()
            self._tmp = tempfile.mkdtemp(prefix="benchlib-io-", dir=self.directory)
            self.path = os.path.join(self._tmp, "data")
            rc = lib.bl_io_fill_file(os.fsencode(self.path), self.max_unique_bytes)
            _raise_for(rc)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        atexit.unregister(self.close)
        if self._cgroup is not None:
            self._cgroup.close()
            self._cgroup = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def _choose_method(self) -> None:
        fs = filesystem_of(self.directory).get("fs_type")
        if fs in ("tmpfs", "ramfs"):
            raise BenchlibError(f"{self.directory} is on {fs}: memory, not a disk, so there is "
                                "no region beyond the file cache; choose a disk-backed directory")
        tried = []
        if self.cache in ("auto", "cgroup"):
            try:
                self._cgroup = CacheCgroup(self.cache_bytes)
                self.method = "cgroup"
                self.method_note = (
                    f"buffered I/O; the workload processes' page cache is limited to "
                    f"{self.cache_bytes / MiB:.0f} MiB by a memory cgroup (v{self._cgroup.version})")
                return
            except OSError as e:
                if self.cache == "cgroup":
                    raise BenchlibError(f"cannot make a memory cgroup to limit the file cache: "
                                        f"{e}; try cache='direct' or 'buffered'") from None
                tried.append(f"no memory cgroup ({e})")
        if self.cache in ("auto", "direct"):
            self.method = "direct"
            self.method_note = "O_DIRECT: every request goes past the file cache to the device"
            if tried:
                self.method_note += "; " + "; ".join(tried)
            return
        self.method = "buffered"
        self.method_note = ("buffered I/O through the machine's whole file cache: a region "
                            "beyond it needs a disk budget larger than free memory")

    # -- one workload
    def measure(self, w: Workload, seed: int | None = None, duration_s: float | None = None,
                total_bytes: int = 0, **tags) -> dict:
        """Run one workload for duration_s (default: the space's), or, with
        total_bytes > 0, until the processes have moved that many bytes
        between them; a row of its parameters and results."""
        from benchlib._native import ffi, lib
        if self._tmp is None:
            raise BenchlibError("IOSpace.measure outside its `with` block")
        check_workload(w, self.max_unique_bytes)
        direct = self.method == "direct"
        unique = w.unique_bytes // 4096 * 4096 if direct else w.unique_bytes
        p = ffi.new("bl_io_workload_params *")
        p.unique_bytes = unique
        p.size_mean_bytes = float(w.size_mean_bytes)
        p.read_frac, p.seq_frac = float(w.read_frac), float(w.seq_frac)
        p.process_num = int(w.process_num)
        p.direct = int(direct)
        if total_bytes < 0:
            raise BenchlibError(f"total_bytes must be positive; got {total_bytes}")
        p.duration_s = 0.0 if total_bytes else float(duration_s or self.duration_s)
        p.total_bytes = int(total_bytes)
        # a long run would have filled the cache with what fits: read that much first
        p.warm_bytes = 0 if direct else (
            min(unique, self._cgroup.limit_bytes) if self._cgroup else unique)
        p.seed = int(self.seed if seed is None else seed) & (2**64 - 1)
        procs = ffi.new("char[]", os.fsencode(self._cgroup.procs)) if self._cgroup else ffi.NULL
        p.cgroup_procs = procs
        r = ffi.new("bl_io_workload_result *")
        _raise_for(lib.bl_io_workload(os.fsencode(self.path), p, r))
        req = max(r.requests, 1)
        return {**asdict(w), "mb_s": r.bytes / r.elapsed_ns * 1e3,
                "response_ms": r.response_ns_sum / req / 1e6,
                "cpu_s": r.user_s + r.system_s, "user_s": r.user_s, "system_s": r.system_s,
                "elapsed_s": r.elapsed_ns / 1e9, "bytes": r.bytes, "requests": r.requests,
                "size_realised_bytes": r.bytes / req, "read_realised": r.reads / req,
                "seq_realised": r.sequential / req, "warm_s": r.warm_ns / 1e9,
                "method": self.method, **tags}


def _raise_for(rc: int) -> None:
    from benchlib._native import ffi, lib
    if rc == -1:
        raise KeyboardInterrupt
    if rc != 0:
        raise BenchlibError(ffi.string(lib.bl_last_error()).decode(errors="replace"))



# ---------------------------------------------------------------- io_workload

def _check_io_workload(p: dict) -> None:
    check_workload(Workload(p["unique_bytes"], p["size_mean_bytes"], p["read_frac"],
                            p["seq_frac"], p["process_num"]), p["unique_bytes"])


def _measure_io_workload(p, o, ns, tk, info):
    """Each sample is one run of the workload (its own random stream), from
    a dropped cache; ns[i] is the run's elapsed time per MB moved."""
    o.clock_ghz = _ffi().NULL  # a run is a whole multi-process workload: no per-sample probe
    w = Workload(p["unique_bytes"], p["size_mean_bytes"], p["read_frac"], p["seq_frac"],
                 p["process_num"])
    budget = max(p["unique_bytes"], 4 << 20)
    rows = []
    with IOSpace(p["directory"], disk_budget_bytes=budget, max_unique_bytes=p["unique_bytes"],
                 cache=p["cache"], cache_bytes=p["cache_bytes"], duration_s=p["duration_s"]) as sp:
        for i in range(o.n_samples):
            r = sp.measure(w, seed=i + 1, total_bytes=p["total_bytes"])
            ns[i] = r["elapsed_s"] * 1e9 / (r["bytes"] / 1e6)
            info.n_samples = i + 1
            rows.append(r)
        method = sp.method_note
    info.iterations, info.helper_cpu, info.cpu_first, info.cpu_last = 1, -1, -1, -1
    keys = ("response_ms", "cpu_s", "user_s", "system_s", "requests", "size_realised_bytes",
            "read_realised", "seq_realised")
    return 0, {"cache_method": method, **{k: [r[k] for r in rows] for k in keys}}


register(Benchmark(
    name="io_workload",
    description="Chen & Patterson's synthetic I/O workload: process_num processes issue reads "
                "and writes of normally distributed sizes over unique_bytes of one file",
    unit="MB/s",
    counts="bytes moved by all processes / elapsed time, MB = 10^6 bytes; each sample is one "
           "run from a dropped cache; mean response time and CPU time in extras",
    params=(Param("unique_bytes", "size", 64 << 20, "distinct bytes addressed (the data file's "
                  "size, written before the runs)", min=4096, max=1 << 40),
            Param("size_mean_bytes", "float", 32768, "mean request size; sizes ~ Normal(mean, "
                  "mean), non-positive draws redrawn", min=1, max=8 << 20),
            Param("read_frac", "float", 0.5, "fraction of requests that read", min=0, max=1),
            Param("seq_frac", "float", 0.5, "fraction of requests continuing sequentially from "
                  "the same process's previous one", min=0, max=1),
            Param("process_num", "int", 1, "processes issuing requests at once", min=1, max=64),
            Param("duration_s", "float", 0.25, "seconds each run lasts", min=0.01, max=600),
            Param("total_bytes", "size", 0, "> 0: each run moves this many bytes (shared by the "
                  "processes) instead of lasting duration_s", min=0, max=1 << 40),
            Param("cache", "choice", "auto", "auto, cgroup (a memory cgroup of cache_bytes holds "
                  "the page cache), direct (O_DIRECT) or buffered (the whole page cache)",
                  choices=("auto", "cgroup", "direct", "buffered")),
            Param("cache_bytes", "size", 128 << 20, "page-cache limit with cache=cgroup",
                  min=16 << 20, max=1 << 40),
            DIRECTORY),
    measure=_measure_io_workload,
    to_unit=lambda ns, p: 1e9 / ns,
    check=_check_io_workload,
    extras=_fs_extras,
    n_samples_for=lambda p, prof: setting("io_workload.samples", prof),
))
