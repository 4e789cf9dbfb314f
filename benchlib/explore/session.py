"""What the explorer does, without widgets: measure a benchmark with the
parameters given, summarise the result (median, its 95 % interval, the
stability flag and why), put it beside every paper cell it is the declared
measurement of, sweep one parameter, and compare two runs.  The widgets
(``explore.widgets``) call these; so do papermill, a plain ``python`` and
the tests.

    from benchlib.explore import Session
    s = Session(profile="smoke")
    run = s.run("pipe_latency", {"placement": "different_cpus"})
    run.summary(); run.papers[0].frame          # Ousterhout's Table 3 with this run's row
    s.run("pipe_latency", {"placement": "same_cpu"})
    s.compare(0, 1)                             # verdict and ratio interval
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.measuring.harness import Result, get_profile, run as _run, sweep as _sweep
from benchlib.measuring.registry import get_benchmark
from benchlib.papers import beside_paper, cells, cells_matching, load_table
from benchlib.papers.tables import MACHINE_SOURCE, TableRows
from benchlib.results.compare import compare_pair

#: Parameters that name a place, not a condition (as ``benchlib compare`` ignores them).
PLACE_PARAMS = ("directory",)


def params_text(params: dict) -> str:
    """``key=value ...``, places left out."""
    return " ".join(f"{k}={v}" for k, v in params.items() if k not in PLACE_PARAMS)


def summary(result: Result, label: str = "") -> dict:
    """One result in a row: the median with its 95 % interval (the
    diagnostics' ``median_ci``), the samples, the spread, and whether it is
    stable, with the diagnostics' reasons where it is not."""
    lo, hi = result.median_ci95 or (float("nan"), float("nan"))
    why = result.diagnostics.get("unstable_detail") or result.diagnostics.get("unstable_reasons")
    return {"run": label, "benchmark": result.benchmark, "params": params_text(result.params),
            "median": result.median, "ci95_lo": lo, "ci95_hi": hi, "unit": result.unit,
            "samples": result.n_samples, "rel_iqr": result.rel_iqr,
            "stable": result.stable, "why_unstable": "; ".join(why or []),
            "profile": result.profile}


def stability_text(result: Result) -> str:
    """The stability flag in words."""
    s = summary(result)
    if s["stable"] is None:
        return "stability not assessed"
    return "stable" if s["stable"] else f"UNSTABLE: {s['why_unstable'] or 'see the diagnostics'}"


@dataclass
class PaperRows:
    """A paper table with one run's row inserted where the paper's order
    (by the matched column, best first) puts it: ``frame`` is
    ``papers.beside_paper``'s join (``source`` marks the run's row, its
    95 % interval beside the column), in the paper's units."""
    paper: str
    table: str
    column: str
    title: str
    unit: str
    measurement: str
    frame: pd.DataFrame

    @property
    def caption(self) -> str:
        return (f"{self.paper}: {self.title}, column {self.column} ({self.unit}); "
                f"the paper's cell is {self.measurement}")


def paper_rows(result: Result, label: str | None = None) -> list[PaperRows]:
    """Every paper table that has a cell for this measurement
    (``papers.cells_matching``: the paper's declaration of its cells), with
    the result's median, in the column's unit, inserted as a row of its own
    (labelled ``label``, default "this machine, <benchmark params>")."""
    out = []
    for paper, name, column, row in cells_matching(result.benchmark, result.params,
                                                   result.machine):
        spec = cells(paper)[name]
        col = spec.cell(column, row)
        mine = TableRows(name, pd.DataFrame([{
            spec.label_column: label or f"{MACHINE_SOURCE}, {result.benchmark} "
                                        f"{params_text(result.params)}",
            column: result.measured * col.scale}]), spec=spec)
        paper_df = load_table(spec.paper, spec.csv).drop(columns=list(spec.drop), errors="ignore")
        frame = beside_paper(paper_df, mine, column, ascending=not spec.higher_is_better)
        out.append(PaperRows(paper, name, column, spec.title or name, spec.unit(column),
                             col.describe(), frame))
    return out


@dataclass
class Run:
    """One measurement of the session: its number, the result and the
    paper tables it stands in."""
    number: int
    result: Result
    papers: list[PaperRows] = field(default_factory=list)
    sweep: str = ""          # the sweep it belongs to, if any

    @property
    def label(self) -> str:
        return f"#{self.number} {self.result.benchmark} {params_text(self.result.params)}"

    def summary(self) -> dict:
        return summary(self.result, self.label)


def compare_results(a: Result, b: Result, margin: float = 0.05) -> pd.DataFrame:
    """Is B faster than A?  ``benchlib.results.compare.compare_pair`` on the
    two results, whatever their parameters: one row with both medians, the
    ratio B/A with its 95 % interval and the verdict."""
    if a.benchmark != b.benchmark:
        raise BenchlibError(f"cannot compare {a.benchmark} with {b.benchmark}: different "
                            "benchmarks (pick two runs of one benchmark)")
    spec_a = f"{a.benchmark} {params_text(a.params)}".strip()
    spec_b = f"{b.benchmark} {params_text(b.params)}".strip()
    return compare_pair([a], spec_a, [b], spec_b, margin=margin)


class Session:
    """The runs of one notebook, numbered from 0 in the order taken.
    ``profile`` is the default of every run; ``recorder`` (anything with
    ``add``, e.g. ``benchlib.results.store.Recorder``) receives each result."""

    def __init__(self, profile: str = "quick", recorder=None):
        get_profile(profile)
        self.profile = profile
        self.recorder = recorder
        self.runs: list[Run] = []
        #: called with each new Run (the explorer's list of runs)
        self.listeners: list[Callable[[Run], None]] = []

    def _add(self, result: Result, sweep: str = "") -> Run:
        r = Run(len(self.runs), result, paper_rows(result), sweep)
        self.runs.append(r)
        for f in self.listeners:
            f(r)
        return r

    def run(self, benchmark: str, params: dict | None = None, profile: str | None = None) -> Run:
        """Measure ``benchmark`` with ``params`` (the registry's defaults for
        the rest; values as the command line takes them, ``"64k"``)."""
        r = _run(benchmark, dict(params or {}), profile=profile or self.profile,
                 recorder=self.recorder)
        return self._add(r)

    def sweep(self, benchmark: str, param: str, values: list, params: dict | None = None,
              profile: str | None = None, on_point: Callable[[Result], None] | None = None
              ) -> pd.DataFrame:
        """Measure ``benchmark`` at each of ``values`` of ``param`` (every
        point checked before any is measured: ``benchlib.sweep``), the other
        parameters ``params``; each point becomes a run.  ``on_point(result)``
        is called as each is measured (a progress bar).  Returns one row per
        point (``sweep_frame``)."""
        fixed = {k: v for k, v in (params or {}).items() if k != param}
        get_benchmark(benchmark).param(param)
        results: list[Result] = []
        session = self

        class _Each:                     # the sweep's recorder: anything with ``add``
            def add(self, result):
                if session.recorder is not None:
                    session.recorder.add(result)
                if on_point is not None:
                    on_point(result)

        _sweep(benchmark, {param: list(values)}, profile=profile or self.profile,
               progress=False, results=results, recorder=_Each(), **fixed)
        name = f"sweep of {param}"
        runs = [self._add(r, name) for r in results]
        return sweep_frame(runs, param)

    def table(self) -> pd.DataFrame:
        """Every run so far, one row each (``summary``)."""
        return pd.DataFrame([r.summary() for r in self.runs])

    def compare(self, a: int, b: int, margin: float = 0.05) -> pd.DataFrame:
        """Run ``b`` against run ``a`` (``compare_results``)."""
        for k in (a, b):
            if not isinstance(k, int) or not 0 <= k < len(self.runs):
                raise BenchlibError(f"no run {k!r}; " + (f"runs: 0-{len(self.runs) - 1}"
                                                        if self.runs else "no run taken yet"))
        ra, rb = self.runs[a], self.runs[b]
        df = compare_results(ra.result, rb.result, margin)
        df.insert(0, "runs", f"{ra.label} -> {rb.label}")
        return df


def sweep_frame(runs: list[Run], param: str) -> pd.DataFrame:
    """A sweep's points: the swept value, the median with its 95 % interval,
    the unit and the stability flag, in the order measured."""
    return pd.DataFrame([{param: r.result.params[param], **{k: v for k, v in r.summary().items()
                                                            if k not in ("params",)}}
                         for r in runs])
