"""Chen and Patterson's self-scaling I/O benchmark and predicted performance
(ACM TOCS 12(4), 1994), run on this machine.

``IOSpace`` (``benchlib.measuring.benchmarks.iowork``, beside the ``io_workload``
benchmark it also serves) owns everything a run puts on the machine: a private directory
in the user's ``directory`` holding one data file (at most the disk budget),
and, where the kernel lets us, a memory cgroup that limits the page cache
the workload processes may fill.  That cgroup is how a machine with 24 GiB
of memory still shows a region beyond its file cache within a small disk
budget.  Everything is removed on exit, Ctrl-C included.

The C workload generator (``csrc/iowork.c``) does the I/O and the timing;
this module chooses the workloads (the self-scaling search) and collects
the rows.  The fits and the prediction model are pure functions in
``benchlib.analysis.self_scaling_model``.
"""
from __future__ import annotations

import inspect
import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from benchlib.analysis import self_scaling_model as model
from benchlib.measuring.benchmarks.iowork import MiB, IOSpace, Workload
from benchlib.errors import BenchlibError
from benchlib.measuring.metadata import machine_info
from benchlib.stats import intervals as iv
from benchlib.progress import tqdm
from benchlib.papers import TableRows
from benchlib.papers.chen1994 import paper
from benchlib.papers.chen1994.cells import CELLS, INTERPOLATION, MODEL, REPEATABILITY

PARAMS = model.PARAMS  # unique_bytes, size_mean_bytes, read_frac, seq_frac, process_num
# the fall in throughput a step needs to be a border between regions (find_regions' rule)
BORDER_MIN_DROP = inspect.signature(model.find_regions).parameters["min_drop"].default


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
# The workload that checks the generator does what its parameters say (the
# paper's Figure 3 checked its model against sort and TPC-B instead).
CHECK = PROBE.with_(unique_bytes=16 * MiB, read_frac=0.3, seq_frac=0.6, process_num=2)
# the realised mean of sizeMean's Normal(mean, sd = mean), redrawn until positive,
# over the mean: 1 + phi(1) / Phi(1), the mean of a normal truncated at 1 sd below it
SIZE_DRAW_MEAN = 1 + math.exp(-0.5) / math.sqrt(2 * math.pi) / (0.5 * (1 + math.erf(1 / math.sqrt(2))))


def generator_check(space: IOSpace) -> tuple[pd.DataFrame, dict]:
    """One run of ``CHECK``: the size, read and sequential fractions asked,
    realised and expected, and the run's row."""
    r = space.measure(CHECK)
    w = CHECK
    df = pd.DataFrame([
        {"parameter": "sizeMean (bytes)", "asked": w.size_mean_bytes,
         "realised": r["size_realised_bytes"], "expected": w.size_mean_bytes * SIZE_DRAW_MEAN},
        {"parameter": "readFrac", "asked": w.read_frac, "realised": r["read_realised"],
         "expected": w.read_frac},
        {"parameter": "seqFrac", "asked": w.seq_frac, "realised": r["seq_realised"],
         "expected": w.seq_frac}])
    return df, r


def measure_many(space: IOSpace, workloads, desc: str = "", progress: bool = True,
                 seed: int | None = None, **tags) -> pd.DataFrame:
    """Each workload measured once in ``space`` (seeds seed, seed + 1, ...),
    one row each, with the machine and the cache method in ``attrs``."""
    rows = []
    for i, w in enumerate(tqdm(list(workloads), desc=desc, unit="workload",
                               disable=not progress, leave=False)):
        rows.append(space.measure(w, seed=None if seed is None else seed + i, **tags))
    df = pd.DataFrame(rows)
    df.attrs["machine"] = machine_info()
    df.attrs["method"] = space.method_note
    return df


def sweep(space: IOSpace, focal: Workload, param: str, values, progress: bool = True,
          **tags) -> pd.DataFrame:
    """One single-parameter graph: `param` over `values`, the rest at `focal`."""
    cast = int if param in ("unique_bytes", "process_num") else float
    ws = [focal.with_(**{param: cast(v)}) for v in values]
    df = measure_many(space, ws, desc=param, progress=progress, param=param, **tags)
    return df


# ---------------------------------------------------------------- self-scaling

@dataclass
class SelfScaling:
    """What a self-scaling run found and measured."""
    unique_curve: pd.DataFrame
    regions: list                       # analysis.self_scaling_model.Region
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
              fraction: float | None = None) -> tuple[Workload, dict]:
    """The paper's first try (its section 7): sweep each parameter in turn
    and move it to its performance point (the least restrictive value
    giving at least ``fraction`` of the sweep's best: the paper's, from
    ``method.csv``, when None), `first_try_passes` times.
    Returns the focal vector and the last sweep of each parameter."""
    fraction = paper.method("performance_point_fraction") if fraction is None else fraction
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
    first = measure_many(space, ws, "random workloads", progress, seed=1000)
    again = measure_many(space, ws, "random, again", progress, seed=5000)
    axes, grid_ws = orthogonal_workloads(plan, space.max_unique_bytes)
    ortho = measure_many(space, grid_ws, "orthogonal sample", progress)
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


def figure15_rows(summary: pd.DataFrame, machine: str) -> TableRows:
    """This machine's row of Figure 15 (``cells.CELLS["fig15"]``): median,
    enhanced and repeatability errors (percent) from a run's
    ``accuracy_table``, each with its interval where the table has one;
    ``papers.paper_table`` puts it beside the paper's systems."""
    by = summary.set_index("predictor")
    row = {"system": f"{machine} (this machine)",
           "median_error_pct": iv.get(by, "median_error_pct", MODEL),
           "enhanced_error_pct": by.loc[MODEL, "enhanced_median_error_pct"],
           "repeatability_error_pct": iv.get(by, "median_error_pct", REPEATABILITY)}
    return TableRows("fig15", pd.DataFrame([row]), spec=CELLS["fig15"])


def beats_baselines(summary: pd.DataFrame) -> pd.DataFrame:
    """The paper's claim checked on a run's ``accuracy_table``: for each
    baseline (the interpolation, every single number) its median error
    minus the model's, with the interval from the two intervals' endpoints,
    and ``beats``: True when that interval lies wholly above 0, False
    wholly below, None when it straddles 0 (this run cannot tell)."""
    by = summary.set_index("predictor")
    model_err = iv.get(by, "median_error_pct", MODEL)
    rows, diffs = [], []
    for name in by.index:
        if name == INTERPOLATION or name.startswith("constant"):
            d = iv.get(by, "median_error_pct", name) - model_err
            rows.append({"baseline": name,
                         "beats": d.compare(0.0) if isinstance(d, iv.Measured) else None})
            diffs.append(d)
    df = pd.DataFrame(rows, columns=["baseline", "beats"])
    iv.put(df, "error_above_model_pct", diffs)
    return df
