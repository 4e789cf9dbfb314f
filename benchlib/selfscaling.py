"""Chen and Patterson's self-scaling I/O benchmark and predicted performance
(ACM TOCS 12(4), 1994), run on this machine.

``IOSpace`` owns everything a run puts on the machine: a private directory
in the user's ``directory`` holding one data file (at most the disk budget),
and, where the kernel lets us, a memory cgroup that limits the page cache
the workload processes may fill.  That cgroup is how a machine with 24 GiB
of memory still shows a region beyond its file cache within a small disk
budget.  Everything is removed on exit, Ctrl-C included.

The C workload generator (``csrc/iowork.c``) does the I/O and the timing;
this module chooses the workloads (the self-scaling search) and collects
the rows.  The fits and the prediction model are pure functions in
``benchlib.analysis.selfscaling``.
"""
from __future__ import annotations

import atexit
import math
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import pandas as pd

from .analysis import selfscaling as model
from .errors import BenchlibError
from .metadata import machine_info
from .registry import check_directory, check_free_space, filesystem_of

PARAMS = model.PARAMS  # unique_bytes, size_mean_bytes, read_frac, seq_frac, process_num
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
        from ._native import lib
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
        from ._native import ffi, lib
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

    def measure_many(self, workloads, desc: str = "", progress: bool = True,
                     seed: int | None = None, **tags) -> pd.DataFrame:
        from .progress import tqdm
        rows = []
        for i, w in enumerate(tqdm(list(workloads), desc=desc, unit="workload",
                                   disable=not progress, leave=False)):
            rows.append(self.measure(w, seed=None if seed is None else seed + i, **tags))
        df = pd.DataFrame(rows)
        df.attrs["machine"] = machine_info()
        df.attrs["method"] = self.method_note
        return df


def _raise_for(rc: int) -> None:
    from ._native import ffi, lib
    if rc == -1:
        raise KeyboardInterrupt
    if rc != 0:
        raise BenchlibError(ffi.string(lib.bl_last_error()).decode(errors="replace"))


# ---------------------------------------------------------------- profiles

@dataclass(frozen=True)
class Plan:
    """How much a self-scaling run measures (per profile)."""
    duration_s: float
    cache_bytes: int
    unique_points: int          # points of the uniqueBytes sweep (log-spaced)
    min_unique_bytes: int
    sizes: tuple                # sizeMean values (bytes)
    fracs: tuple                # readFrac and seqFrac values
    processes: tuple            # processNum values
    n_random: int               # random workloads for the accuracy test
    grid_values: int            # orthogonal sample: values per dimension
    first_try_passes: int


PLANS = {
    "smoke": Plan(0.04, 16 * MiB, 5, 1 * MiB, (4096, 65536, 1 * MiB), (0.0, 1.0), (1, 2),
                  6, 2, 1),
    "quick": Plan(0.2, 128 * MiB, 11, 1 * MiB, (1024, 4096, 16384, 65536, 262144, 1 * MiB),
                  (0.0, 0.25, 0.5, 0.75, 1.0), (1, 2, 4), 20, 2, 1),
    "full": Plan(0.8, 256 * MiB, 17, 1 * MiB,
                 (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1 * MiB),
                 (0.0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 1.0), (1, 2, 3, 4, 6, 8),
                 100, 3, 2),
}


def plan_for(profile: str) -> Plan:
    try:
        return PLANS[profile]
    except KeyError:
        raise BenchlibError(f"unknown profile {profile!r}; valid: {', '.join(PLANS)}") from None


def unique_grid(plan: Plan, max_unique_bytes: int) -> list[int]:
    """Log-spaced uniqueBytes from the plan's minimum to the largest the
    budget allows (at most 8 x the cache limit: far enough past it)."""
    top = min(max_unique_bytes, 8 * plan.cache_bytes)
    if top <= plan.min_unique_bytes:
        raise BenchlibError(f"the disk budget allows at most {top:,} unique bytes; give at "
                            f"least {2 * plan.min_unique_bytes:,}")
    pts = np.geomspace(plan.min_unique_bytes, top, plan.unique_points)
    return sorted({int(v) // 4096 * 4096 for v in pts})


PROBE = Workload(unique_bytes=0, size_mean_bytes=32768, read_frac=0.5, seq_frac=0.5,
                 process_num=1)


def sweep(space: IOSpace, focal: Workload, param: str, values, progress: bool = True,
          **tags) -> pd.DataFrame:
    """One single-parameter graph: `param` over `values`, the rest at `focal`."""
    cast = int if param in ("unique_bytes", "process_num") else float
    ws = [focal.with_(**{param: cast(v)}) for v in values]
    df = space.measure_many(ws, desc=param, progress=progress, param=param, **tags)
    return df


# ---------------------------------------------------------------- self-scaling

@dataclass
class SelfScaling:
    """What a self-scaling run found and measured."""
    unique_curve: pd.DataFrame
    regions: list                       # analysis.selfscaling.Region
    focal: dict                         # region index -> Workload
    families: dict                      # region index -> {param: DataFrame}
    plan: Plan
    method_note: str

    def curves(self) -> pd.DataFrame:
        out = [df.assign(region=r) for r, fam in self.families.items() for df in fam.values()]
        return pd.concat(out, ignore_index=True)

    def model(self) -> model.ProductModel:
        return model.ProductModel.fit(self.unique_curve, self.regions,
                                      {r: asdict(w) for r, w in self.focal.items()},
                                      self.families)


def self_scale(space: IOSpace, plan: Plan, progress: bool = True) -> SelfScaling:
    """The paper's better self-scaling benchmark (its section 8).

    1. uniqueBytes swept at a probe vector; its regions found from the slope.
    2. For each region: uniqueBytes at the region's middle, readFrac and
       seqFrac at 0.5; sizeMean at the half-way performance point of a size
       sweep, then processNum at the half-way point of a process sweep (the
       size sweep is repeated if processNum's focal point is not 1); then
       the readFrac and seqFrac graphs at the final focal vector."""
    grid = unique_grid(plan, space.max_unique_bytes)
    ucurve = sweep(space, PROBE.with_(unique_bytes=grid[0]), "unique_bytes", grid, progress,
                   region=-1)
    regions = model.find_regions(ucurve["unique_bytes"].to_numpy(), ucurve["mb_s"].to_numpy())
    focal, families = {}, {}
    for k, reg in enumerate(regions):
        f = PROBE.with_(unique_bytes=int(reg.focal_unique_bytes) // 4096 * 4096)
        sizes = [s for s in plan.sizes if s <= f.unique_bytes / 2] or [plan.sizes[0]]
        fam = {"size_mean_bytes": sweep(space, f, "size_mean_bytes", sizes, progress)}
        f = f.with_(size_mean_bytes=model.halfway_point(sizes, fam["size_mean_bytes"]["mb_s"],
                                                        log=True))
        fam["process_num"] = sweep(space, f, "process_num", plan.processes, progress)
        pn = int(round(model.halfway_point(plan.processes, fam["process_num"]["mb_s"])))
        if pn != f.process_num:
            f = f.with_(process_num=pn)
            fam["size_mean_bytes"] = sweep(space, f, "size_mean_bytes", sizes, progress)
        fam["read_frac"] = sweep(space, f, "read_frac", plan.fracs, progress)
        fam["seq_frac"] = sweep(space, f, "seq_frac", plan.fracs, progress)
        for df in fam.values():
            df["region"] = k
        focal[k], families[k] = f, fam
    return SelfScaling(ucurve, regions, focal, families, plan, space.method_note)


# the first try: every parameter at its 75% performance point
LEAST_RESTRICTIVE = {"unique_bytes": "largest", "size_mean_bytes": "smallest",
                     "read_frac": "smallest", "process_num": "smallest", "seq_frac": "smallest"}


def first_try(space: IOSpace, plan: Plan, progress: bool = True,
              fraction: float = 0.75) -> tuple[Workload, dict]:
    """The paper's first try (its section 7): sweep each parameter in turn
    and move it to its 75% performance point (the least restrictive value
    giving at least 75% of the sweep's best), `first_try_passes` times.
    Returns the focal vector and the last sweep of each parameter."""
    grid = unique_grid(plan, space.max_unique_bytes)
    values = {"unique_bytes": grid, "size_mean_bytes": plan.sizes, "read_frac": plan.fracs,
              "process_num": plan.processes, "seq_frac": plan.fracs}
    f = PROBE.with_(unique_bytes=grid[len(grid) // 2])
    graphs = {}
    for _ in range(plan.first_try_passes):
        for param in ("unique_bytes", "size_mean_bytes", "read_frac", "process_num", "seq_frac"):
            vals = values[param]
            if param == "size_mean_bytes":
                vals = [s for s in vals if s <= f.unique_bytes / 2] or [vals[0]]
            df = sweep(space, f, param, vals, progress)
            v = model.performance_point(vals, df["mb_s"], fraction, LEAST_RESTRICTIVE[param])
            f = f.with_(**{param: int(v) if param in ("unique_bytes", "process_num") else v})
            graphs[param] = df
    return f, graphs


# ---------------------------------------------------------------- prediction

def random_workloads(n: int, plan: Plan, max_unique_bytes: int, seed: int = 7) -> list[Workload]:
    """Workloads drawn over the whole space: uniqueBytes and sizeMean
    log-uniform over the ranges the benchmark swept, the fractions uniform
    on [0, 1], processNum uniform over the swept process counts' range."""
    rng = np.random.default_rng(seed)
    grid = unique_grid(plan, max_unique_bytes)
    lo_u, hi_u = math.log(grid[0]), math.log(grid[-1])
    lo_s, hi_s = math.log(min(plan.sizes)), math.log(max(plan.sizes))
    out = []
    for _ in range(n):
        u = int(math.exp(rng.uniform(lo_u, hi_u))) // 4096 * 4096
        s = min(math.exp(rng.uniform(lo_s, hi_s)), u / 2)
        out.append(Workload(u, float(s), float(rng.uniform()), float(rng.uniform()),
                            int(rng.integers(min(plan.processes), max(plan.processes) + 1))))
    return out


def orthogonal_workloads(plan: Plan, max_unique_bytes: int) -> tuple[dict, list[Workload]]:
    """The interpolation baseline's sample: `grid_values` evenly spaced values
    per parameter (log-spaced for the two sizes), only the two ends for
    processNum as in the paper, every combination."""
    import itertools
    k = plan.grid_values
    grid = unique_grid(plan, max_unique_bytes)
    axes = {"unique_bytes": [int(v) // 4096 * 4096 for v in np.geomspace(grid[0], grid[-1], k)],
            "size_mean_bytes": list(np.geomspace(min(plan.sizes), max(plan.sizes), k)),
            "read_frac": list(np.linspace(0, 1, k)), "seq_frac": list(np.linspace(0, 1, k)),
            "process_num": [min(plan.processes), max(plan.processes)]}
    ws = [Workload(u, min(float(s), u / 2), float(r), float(q), int(p))
          for u, s, r, q, p in itertools.product(*(axes[n] for n in PARAMS))]
    return axes, ws


@dataclass
class Evaluation:
    random: pd.DataFrame        # the random workloads: measured twice, predicted
    orthogonal: pd.DataFrame    # the orthogonal sample
    constants: dict             # name -> MB/s of each single-point benchmark
    summary: pd.DataFrame       # the Figure 15 table for this machine


def evaluate(space: IOSpace, ss: SelfScaling, plan: Plan, progress: bool = True,
             seed: int = 7) -> Evaluation:
    """Measure random workloads twice, the orthogonal sample and the
    single-point benchmarks; predict the random ones every way; summarise."""
    ws = random_workloads(plan.n_random, plan, space.max_unique_bytes, seed)
    first = space.measure_many(ws, "random workloads", progress, seed=1000)
    again = space.measure_many(ws, "random, again", progress, seed=5000)
    axes, grid_ws = orthogonal_workloads(plan, space.max_unique_bytes)
    ortho = space.measure_many(grid_ws, "orthogonal sample", progress)
    top = unique_grid(plan, space.max_unique_bytes)[-1]
    singles = {
        "focal point of the first region": ss.focal[0],
        "sequential 8 KiB writes, largest uniqueBytes (Bonnie-like)":
            Workload(top, 8192, 0.0, 1.0, 1),
    }
    constants = {name: space.measure(w)["mb_s"] for name, w in singles.items()}
    m = ss.model()
    df = first.copy()
    df["mb_s_again"] = again["mb_s"].to_numpy()
    df["predicted_mb_s"] = [m.predict(asdict(w)) for w in ws]
    df["interpolated_mb_s"] = model.interpolate_orthogonal(axes, ortho, df)
    df["region"] = [m.region_of(w.unique_bytes) for w in ws]
    df["in_border"] = [m.in_border(w.unique_bytes) for w in ws]
    summary = model.accuracy_table(df, constants, n_model=len(ss.curves()) + len(ss.unique_curve),
                                   n_orthogonal=len(ortho))
    return Evaluation(df, ortho, constants, summary)
