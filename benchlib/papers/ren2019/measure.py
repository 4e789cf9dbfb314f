"""This machine's row of every LEBench test, and what each switch that can
change while the machine runs costs each core operation here.

``lebench_rows``: every test of ``cells.CELLS["tests"]``, with the paper's
slowdown of its figure row beside it.

``switch_rounds``: the paired experiment.  Every round measures each
operation once as found and once in every state of every switch this
machine allows, in a random order each time (so a slow phase of a shared
host falls on both sides of a pair); a system-wide switch is written just
before its run and written back just after, inside ``Restoring`` (so it is
back after an error, Ctrl-C, SIGTERM or SIGHUP too), and a per-process one
runs in a worker made for it.  ``switch_costs`` pairs each state's k-th run
with the k-th run as found (``benchlib.results.compare.compare_paired``,
the machinery of ``benchlib compare --paired``): the ratio of medians, its
95 % interval and a verdict.  ``cost_shares`` answers how much of each
operation's time here the switches in force account for."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchlib.measuring import switches as sw
from benchlib.measuring.harness import run
from benchlib.measuring.switches import Restoring, Switch
from benchlib.papers import TableRows, column_params, measure_rows
from benchlib.papers.ren2019 import paper
from benchlib.papers.ren2019.cells import CELLS
from benchlib.profiles import setting
from benchlib.results.compare import compare_paired
from benchlib.stats import intervals as iv
from benchlib.stats.summary import interval_side

MARGIN = 0.05          # a switch that moves an operation less than 5 % is "no difference"
AS_FOUND = "as found"


# ------------------------------------------------------------ LEBench's tests here

def lebench_rows(profile: str = "quick", directory: str | None = None,
                 tests: list[str] | None = None) -> TableRows:
    """This machine's latency of each test (µs per call, median with its 95 %
    interval), what measured it, and the paper's slowdown of the test's
    figure row at 4.14 and 4.15 against 4.0 (E5-2630 v3)."""
    spec = CELLS["tests"]
    if tests is not None:
        from dataclasses import replace
        spec = replace(spec, rows={k: v for k, v in spec.rows.items() if k in tests})
    t = measure_rows(spec, profile, directory)
    heat = paper.load("heatmap_e5_2630v3").set_index("test")
    rows = []
    for i, test in enumerate(spec.rows):
        fig = paper.figure_row_of(test)
        rows.append({"test": test, "latency_us": t.cell("latency_us", i),
                     "measured_by": spec.cell("latency_us", test).describe(),
                     "figure_row": fig or "",
                     "paper_4_14_pct": heat.loc[fig, paper.column_of("4.14")] if fig else math.nan,
                     "paper_4_15_pct": heat.loc[fig, paper.column_of("4.15")] if fig else math.nan})
    return TableRows("tests", pd.DataFrame(rows), t.results, spec=spec)


# ------------------------------------------------------------ the paired experiment

@dataclass(frozen=True)
class Condition:
    """One state a measurement runs in: as found, or a switch in a state."""
    switch: Switch | None
    state: str

    @property
    def name(self) -> str:
        return AS_FOUND if self.switch is None else f"{self.switch.name}={self.state}"

    @property
    def removes_cause(self) -> bool:
        """True when this state takes away a cause in force here (huge pages
        always, where they are not; fault-around off, where it is on)."""
        s = self.switch
        if s is None:
            return False
        if s.name == "thp_enabled":
            return self.state == "always"
        if s.name == "fault_around_bytes":
            return self.state == sw.FaultAround.OFF and s.as_found() not in (sw.FaultAround.OFF,
                                                                              "unknown")
        return False


def conditions(switches: list[Switch]) -> tuple[list[Condition], dict[str, str]]:
    """Every condition a round measures (as found first) and the switches
    skipped here, with why."""
    conds, skipped = [Condition(None, AS_FOUND)], {}
    for s in switches:
        why = s.unavailable()
        if why:
            skipped[s.name] = why
            continue
        conds += [Condition(s, st) for st in s.states()]
    return conds, skipped


@dataclass
class SwitchRuns:
    """What ``switch_rounds`` measured: one row per run (test, condition,
    round, median) and its Result; the switches as found and skipped."""
    runs: pd.DataFrame
    results: list = field(default_factory=list)
    switches: pd.DataFrame = field(default_factory=pd.DataFrame)
    skipped: dict = field(default_factory=dict)
    restored: dict = field(default_factory=dict)


def switch_tests(profile: str) -> list[str]:
    return list(setting("ren2019.switch_tests", profile))


def switch_rounds(profile: str = "quick", tests: list[str] | None = None,
                  switches: list[Switch] | None = None, rounds: int | None = None,
                  directory: str | None = None, measure=run, seed: int | None = None,
                  recorder=None, progress: bool = True) -> SwitchRuns:
    """Measure ``tests`` (LEBench test names; the profile's list by default)
    in every condition, ``rounds`` times, interleaved (see the module's
    docstring).  ``measure(benchmark, params, profile=, setup=)`` is the
    harness's ``run`` (a test may pass another).  Every system-wide switch
    is back to its state as found when this returns or raises."""
    from benchlib.progress import tqdm

    switches = sw.runtime_switches() if switches is None else switches
    tests = switch_tests(profile) if tests is None else tests
    rounds = setting("ren2019.switch_rounds", profile) if rounds is None else rounds
    sampling = setting("ren2019.switch_sampling", profile)
    conds, skipped = conditions(switches)
    found = {s.name: s.as_found() for s in switches}
    rng = np.random.default_rng(seed)
    spec = CELLS["tests"]
    cols = {t: spec.cell("latency_us", t) for t in tests}
    params = {t: column_params(c, directory) for t, c in cols.items()}
    rows, results = [], []
    with Restoring() as guard:
        for c in conds:
            if c.switch is not None and c.switch.scope == "process":
                guard.track(c.switch)      # its worker ended, its cgroup removed, after
        total = rounds * len(tests) * len(conds)
        with tqdm(total=total, desc="switches", unit="run", disable=not progress,
                  leave=False) as bar:
            for k in range(rounds):
                for test in tests:
                    for j in rng.permutation(len(conds)):
                        c, setup = conds[j], None
                        if c.switch is not None and c.switch.scope == "system":
                            guard.set(c.switch, c.state)
                        elif c.switch is not None:
                            setup = c.switch.setup(c.state)
                        try:
                            r = measure(cols[test].benchmark, params[test], profile=sampling,
                                        setup=setup)
                        finally:
                            if c.switch is not None and c.switch.scope == "system":
                                c.switch.restore()
                        r.extras = {**r.extras, "switch_condition": c.name}
                        results.append(r)
                        if recorder is not None:
                            recorder.add(r)
                        rows.append({"test": test, "condition": c.name,
                                     "switch": c.switch.name if c.switch else "",
                                     "state": c.state, "removes_cause": c.removes_cause,
                                     "round": k, "median_us": r.median * cols[test].scale,
                                     "result": len(results) - 1})
                        bar.update(1)
    restored = {s.name: s.as_found() for s in switches}
    table = pd.DataFrame([{**s.describe(), "as_found": found[s.name]} for s in switches])
    return SwitchRuns(pd.DataFrame(rows), results, table, skipped, restored)


# ------------------------------------------------------------ the analysis

COST_COLUMNS = ["test", "switch", "state", "condition", "removes_cause", "median_as_found_us",
                "median_switched_us", "ratio", "ratio_ci95_lo", "ratio_ci95_hi", "p_value",
                "verdict", "pairs", "cost_pct", "cost_pct_ci95_lo", "cost_pct_ci95_hi"]


def switch_costs(runs: SwitchRuns, margin: float = MARGIN) -> pd.DataFrame:
    """Per test and switched condition: the paired ratio t(switched) / t(as
    found) over the rounds (each round's median against the same round's
    as found), its 95 % interval, the signed-rank p-value, the verdict
    ("slower": the switch costs; "faster"; "no difference" within
    ``margin``; "inconclusive"), and the cost in % with its interval."""
    df, out = runs.runs, []
    for test in dict.fromkeys(df["test"]):
        base = df[(df.test == test) & (df.condition == AS_FOUND)].sort_values("round")
        base_samples = {int(r["round"]): runs.results[r["result"]].samples
                        for _, r in base.iterrows()}
        for cond in dict.fromkeys(df[(df.test == test) & (df.condition != AS_FOUND)].condition):
            sub = df[(df.test == test) & (df.condition == cond)].sort_values("round")
            pairs = [(base_samples[int(r["round"])], runs.results[r["result"]].samples)
                     for _, r in sub.iterrows() if int(r["round"]) in base_samples]
            if len(pairs) < 2:
                continue
            st = compare_paired([a for a, _ in pairs], [b for _, b in pairs], margin)
            first = sub.iloc[0]
            scale = first["median_us"] / runs.results[first["result"]].median \
                if runs.results[first["result"]].median else 1.0
            out.append({"test": test, "switch": first["switch"], "state": first["state"],
                        "condition": cond, "removes_cause": bool(first["removes_cause"]),
                        "median_as_found_us": st["median_a"] * scale,
                        "median_switched_us": st["median_b"] * scale,
                        "ratio": st["ratio"], "ratio_ci95_lo": st["ratio_ci95_lo"],
                        "ratio_ci95_hi": st["ratio_ci95_hi"], "p_value": st["p_value"],
                        "verdict": st["verdict"], "pairs": st["pairs"],
                        "cost_pct": 100 * paper.extra_cost(st["ratio"]),
                        "cost_pct_ci95_lo": 100 * paper.extra_cost(st["ratio_ci95_lo"]),
                        "cost_pct_ci95_hi": 100 * paper.extra_cost(st["ratio_ci95_hi"])})
    return pd.DataFrame(out, columns=COST_COLUMNS)


def cost_shares(costs: pd.DataFrame) -> pd.DataFrame:
    """Per test: how much of its time here the switches in force that this
    run could turn off account for (``share_pct``, with its interval: the
    sum of each such switch's 1 - ratio, endpoints added, so conservative),
    and which switches those were.  A test with no such switch measured has
    no share (NaN)."""
    rows = []
    for test in dict.fromkeys(costs["test"]):
        sub = costs[(costs.test == test) & costs.removes_cause]
        if sub.empty:
            rows.append({"test": test, "share_pct": math.nan, "share_pct_ci95_lo": math.nan,
                         "share_pct_ci95_hi": math.nan, "switches": ""})
            continue
        share = sum(100 * paper.share_of_cost(r) for r in sub["ratio"])
        lo = sum(100 * paper.share_of_cost(r) for r in sub["ratio_ci95_hi"])
        hi = sum(100 * paper.share_of_cost(r) for r in sub["ratio_ci95_lo"])
        rows.append({"test": test, "share_pct": share, "share_pct_ci95_lo": lo,
                     "share_pct_ci95_hi": hi, "switches": ", ".join(sub["condition"])})
    return pd.DataFrame(rows, columns=["test", "share_pct", "share_pct_ci95_lo",
                                       "share_pct_ci95_hi", "switches"])


def share_measured(row) -> iv.Measured:
    """A share row as a Measured figure (for the verdict's evidence)."""
    return iv.Measured(row["share_pct"], row["share_pct_ci95_lo"], row["share_pct_ci95_hi"],
                       propagated=True)


def above(lo: float, hi: float, threshold: float) -> bool | None:
    """True when the interval lies above ``threshold``, False below, None
    when it holds it (the verdict rule's side of an interval)."""
    if any(isinstance(x, float) and math.isnan(x) for x in (lo, hi)):
        return None
    return interval_side(lo, hi, threshold)
