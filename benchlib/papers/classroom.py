"""Many machines' results side by side, for an instructor's class or a
fleet: which benchmarks the class notebook compares and with which paper
tables, anonymised machine names, flags for virtual, noisy and throttled
machines, and the figures.  Pure functions of a results DataFrame (as
``benchlib.load_results(db=...)`` returns it), except ``measure_core`` and
``build_class_database``, which run the few benchmarks and import files."""
from __future__ import annotations

import hashlib
import math
import socket
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from benchlib.measuring.registry import get_benchmark
from benchlib.papers import cells, load_table
from benchlib.papers.tables import column_params, matches

REPO = Path(__file__).resolve().parents[2]
RECORDED_DIR = REPO / "data" / "class"
NOISY_SHARE = 0.25  # a machine is noisy when a quarter of its results are unstable for noise
NOISE_REASONS = ("spread", "steal")  # of the noise diagnostics' reasons (benchlib.stats.noise)
CLOCK_REASON = "clock_moved"


@dataclass(frozen=True)
class Comparison:
    """A paper cell the class set stands beside (``paper``, ``table``,
    ``column``, ``row``: a cell of that paper's ``cells.CELLS``).  The class
    measures it as the paper's declaration says (benchmark, parameters),
    in the benchmark's unit, on each machine's own placement."""
    paper: str
    table: str
    column: str
    row: str | None = None

    @property
    def spec(self):
        return cells(self.paper)[self.table]

    @property
    def cell(self):
        return self.spec.cell(self.column, self.row)

    @property
    def csv(self) -> str:
        return self.spec.csv

    @property
    def benchmark(self) -> str:
        return self.cell.benchmark

    @property
    def params(self) -> dict:
        """The declared parameters as run (placement included, no CPU)."""
        p = column_params(self.cell)
        p.pop("cpu", None)
        return p

    @property
    def name(self) -> str:
        """The measurement in words, the same for every cell it stands beside."""
        return " ".join([self.benchmark] + [f"{k}={v}" for k, v in self.params.items()])

    @property
    def label(self) -> str:
        """The paper's side: its table's title and column."""
        return f"{self.spec.title}, {self.column}"

    @property
    def unit(self) -> str:
        return get_benchmark(self.benchmark).unit

    @property
    def paper_scale(self) -> float:
        """Multiply the paper's column by this to get ``unit``."""
        return 1.0 / self.cell.scale

    @property
    def higher_is_better(self) -> bool:
        return bool(get_benchmark(self.benchmark).higher_is_better)


CORE = (
    Comparison("mcvoy1996", "null_syscall", "null_syscall_us"),
    Comparison("mcvoy1996", "pipe_latency", "pipe_us"),
    Comparison("mcvoy1996", "process_creation", "fork_exit_ms"),
    Comparison("mcvoy1996", "memory_bandwidth", "bcopy_libc_mb_s"),
    Comparison("ousterhout1990", "table02", "time_us", "pinned"),
    Comparison("ousterhout1990", "table03", "time_ms", "same_cpu"),
)


def core_points() -> list[tuple[str, dict]]:
    """The distinct (benchmark, params) the comparisons need."""
    seen = []
    for c in CORE:
        if (c.benchmark, c.params) not in seen:
            seen.append((c.benchmark, c.params))
    return seen


def measure_core(profile: str = "quick", cpu: int = -1, recorder=None):
    """Run the class set on this machine; returns the Results (each also
    handed to ``recorder``, if given)."""
    from benchlib.measuring.harness import run

    return [run(b, {**p, "cpu": cpu}, profile=profile, recorder=recorder) for b, p in core_points()]


def build_class_database(output_dir: str | Path, profile: str, recorded=None, recorder=None) -> str:
    """A database in output_dir holding this machine's class set (measured
    now) and the recorded example files: what the notebook uses when no
    database is given.  Returns its URL."""
    from benchlib.results import db as bdb
    from benchlib.results.store import save_results

    out = Path(output_dir)
    save_results(measure_core(profile, recorder=recorder), out / "this_machine")
    url = f"sqlite:///{out / 'class.sqlite'}"
    engine = bdb.open_db(url)
    try:
        files = [out / "this_machine"] + list(recorded if recorded is not None
                                              else recorded_files())
        report = bdb.import_paths(engine, files)
    finally:
        engine.dispose()
    if report.skipped:
        raise RuntimeError("; ".join(f"{f.path}: {f.error}" for f in report.skipped))
    return url


def recorded_files() -> list[Path]:
    """The example result files shipped in data/class/ (recorded here)."""
    return sorted(RECORDED_DIR.glob("recorded-here_*.results.json"))


# -- machines -----------------------------------------------------------------
def add_machine_columns(df: pd.DataFrame, salt: str | None) -> pd.DataFrame:
    """Adds ``machine_key`` and ``machine`` (a salted-hash name such as
    ``M-3f9a21``, or the hostname when salt is None)."""
    from benchlib.results.db.records import machine_row

    out = df.copy()
    out["machine_key"] = [machine_row(r["machine"])["machine_key"] for r in out["record"]]
    if salt is None:
        names = {k: h for k, h in zip(out["machine_key"], out["machine.hostname"])}
    else:
        names = {k: "M-" + hashlib.sha256(f"{salt}:{k}".encode()).hexdigest()[:6]
                 for k in out["machine_key"]}
    out["machine"] = out["machine_key"].map(names)
    return out


def _matches(df: pd.DataFrame, c: Comparison) -> pd.Series:
    """Rows that are c's declared measurement (``papers.tables.matches``:
    its parameters, other parameters free), in c's unit."""
    unit = df["unit"].astype(str).str.replace("µ", "u") == c.unit
    same = df["record"].map(lambda r: r["benchmark"] == c.benchmark
                            and matches(c.cell, r.get("params", {}), r.get("machine", {})))
    return unit & same.astype(bool)


def _distinct(comparisons) -> list[Comparison]:
    return list({c.name: c for c in comparisons}.values())


def class_results(df: pd.DataFrame, comparisons=CORE) -> pd.DataFrame:
    """One row per machine and benchmark of the class set: the median of
    the machine's results (several runs: the median of their medians)."""
    rows = []
    for c in _distinct(comparisons):
        for m, g in df[_matches(df, c)].groupby("machine"):
            rows.append({"benchmark": c.name, "unit": c.unit, "machine": m,
                         "median": float(np.median(g["median"])), "results": len(g),
                         "samples": int(g["n_samples"].sum())})
    return pd.DataFrame(rows, columns=["benchmark", "unit", "machine", "median", "results", "samples"])


def samples_long(df: pd.DataFrame, comparisons=CORE) -> pd.DataFrame:
    """Every sample of the class set, one row each: benchmark, machine, value."""
    rows = []
    for c in _distinct(comparisons):
        for _, r in df[_matches(df, c)].iterrows():
            rows.extend({"benchmark": c.name, "unit": c.unit,
                         "machine": r["machine"], "value": v} for v in r["record"]["samples"])
    return pd.DataFrame(rows)


def machine_flags(df: pd.DataFrame) -> pd.DataFrame:
    """Per machine: virtual or not (its metadata); noisy when at least
    NOISY_SHARE of its results were marked unstable for spread or steal by
    the noise diagnostics (pyperf-like thresholds, benchlib.stats.noise);
    throttled when the core clock, probed around the samples, moved between
    the start and the end of a result (the diagnostics' ``clock_moved``).
    The figures behind each flag are columns."""
    rows = []
    for m, g in df.groupby("machine"):
        recs = list(g["record"])
        diags = [r.get("diagnostics") or {} for r in recs]
        noisy = [any(x in (d.get("unstable_reasons") or []) for x in NOISE_REASONS) for d in diags]
        changes = [abs(d["clock_change"]) for d in diags if d.get("clock_change") is not None]
        share = sum(noisy) / len(recs)
        rows.append({"machine": m, "cpu_model": recs[0]["machine"].get("cpu_model"),
                     "cpus": recs[0]["machine"].get("cpus_online"),
                     "virtual": any(bool(r["machine"].get("virtualized")) for r in recs),
                     "hypervisor": recs[0]["machine"].get("hypervisor_hint"),
                     "results": len(recs), "noisy_share": share, "noisy": share >= NOISY_SHARE,
                     "max_clock_change": max(changes) if changes else math.nan,
                     "throttled": any(CLOCK_REASON in (d.get("unstable_reasons") or []) for d in diags),
                     "recorded_condition": recs[0]["machine"].get("recorded_condition")})
    return pd.DataFrame(rows)


# -- papers -------------------------------------------------------------------
def against_paper(class_df: pd.DataFrame, c: Comparison) -> pd.DataFrame:
    """The paper's table (one column, in the class unit) with each machine's
    median inserted in sorted order; ``source`` says which rows are whose."""
    t = load_table(c.paper, c.csv)
    name_col = t.columns[0]
    paper = pd.DataFrame({"system": t[name_col].astype(str),
                          c.unit: pd.to_numeric(t[c.column], errors="coerce") * c.paper_scale})
    paper = paper.dropna().assign(source=f"paper ({c.paper})")
    ours = class_df[class_df["benchmark"] == c.name]
    ours = pd.DataFrame({"system": ours["machine"], c.unit: ours["median"], "source": "class"})
    both = pd.concat([paper, ours], ignore_index=True)
    return both.sort_values(c.unit, ascending=not c.higher_is_better, kind="stable").reset_index(drop=True)


def plot_distributions(samples: pd.DataFrame, title: str):
    """One panel per benchmark: each machine's samples as a box (seaborn's
    ``boxplot``, whiskers at 1.5 IQR) with every sample over it as a point
    (``stripplot``), log scale; the panel's axis names the benchmark and unit."""
    import seaborn as sns

    benches = list(dict.fromkeys(samples["benchmark"]))
    machines = sorted(samples["machine"].unique())
    g = sns.catplot(samples, kind="box", x="value", y="machine", row="benchmark", row_order=benches,
                    order=machines, log_scale=True, showfliers=False, color="0.85", linecolor="0.2",
                    sharex=False, height=2.2, aspect=8 / 2.2)
    g.map_dataframe(sns.stripplot, x="value", y="machine", order=machines, color="C0", size=3,
                    alpha=0.6, jitter=0.15)
    g.set_titles("")
    for b, ax in g.axes_dict.items():
        ax.set_xlabel(f"{b} ({samples.loc[samples['benchmark'] == b, 'unit'].iloc[0]})")
        ax.set_ylabel("")
        ax.tick_params(labelbottom=True)
    g.figure.suptitle(title)
    g.figure.tight_layout()
    return g.figure


def plot_against_paper(table: pd.DataFrame, c: Comparison, title: str):
    """Horizontal bars, the class's machines in colour among the paper's systems."""
    import matplotlib.pyplot as plt

    from benchlib.report.figures import bars

    fig, ax = plt.subplots(figsize=(8, 0.28 * len(table) + 1.2))
    bars(ax, table, "system", c.unit, highlight="class", colour="tab:orange")
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xlabel(f"{c.name} ({c.unit}; {'higher' if c.higher_is_better else 'lower'} is better)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def this_host() -> str:
    return socket.gethostname()
