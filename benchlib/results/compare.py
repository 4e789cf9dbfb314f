"""Is B faster than A?  Two sets of results compared benchmark by benchmark.

    import benchlib.results.compare as bc
    df = bc.compare("results/host-20261123-1700", "results/host-20261123-1730", margin=0.05)
    bc.summary(df)          # counts of each verdict
    # its figure: benchlib.report.figures.compare_figure(df)

A and B are anything benchlib.results.resultfile.load_records reads: a result file,
a store file, a directory searched recursively (a reproduce.sh run folder,
notebook output folders, a results/ tree), or a list of Results.  Results
are matched on benchmark and parameters (parameters that name a place, such
as ``directory``, are ignored: they differ between runs of the same
workload); several results with the same key on one side are pooled, and
their interval then comes from a two-level bootstrap (runs, then samples
within runs), so the spread between runs counts.

Per match: the medians, the ratio median(B) / median(A) with a bootstrap 95%
interval, a two-sided Mann-Whitney U p-value and a verdict (see
benchlib.stats.summary.ratio_verdict): "faster" / "slower" (B against A,
whichever direction is better for the benchmark), "no difference" (the ratio
shown to lie within the margin: an equivalence test, TOST on the ratio) or
"inconclusive".  The samples of one run are not independent of that run's
conditions, so the interval says how well each run pinned its own median;
an A/A comparison of two runs shows how far runs move beyond that.

``paired=True`` (``benchlib compare --paired``) is for two sides measured
interleaved, round by round (``bench/core_suite.py A --twice B --rounds N``
measures each benchmark for A and for B back to back, in a random order
every round): the k-th run of a benchmark in A is paired with the k-th in B,
the ratio is the median of the per-round ratios of medians, its interval a
bootstrap over rounds and its p-value a Wilcoxon signed-rank test on their
logarithms.  A slow phase of a shared host then hits both sides of a round
and cancels in its ratio, where the unpaired interval (runs pooled) has to
count it as noise; a benchmark with unequal run counts on the two sides is
compared unpaired, with a note.

``cycles=True`` (``benchlib compare --cycles``) compares each sample
divided out by the core clock probed around it (``per_clock``: a time in
cycles, a rate per GHz).  On a VM the host moves the core clock between two
runs seconds apart by several percent; a run's own samples cannot show
that, so in ns two runs of the same code differ by more than their
intervals allow, and in cycles they do not (tests/data/compare/, docs/comparing.md).
It suits work the measuring CPU does; a figure that waits for another CPU
or a device does not scale with this CPU's clock.  Results without a
per-sample clock, and the clock benchmark itself, are compared as measured,
with a note."""
from __future__ import annotations

import json
import os
from pathlib import Path
import numpy as np
import pandas as pd

from benchlib.stats.summary import bootstrap_median_ci
from benchlib.stats.summary import bootstrap_ratio_ci, equivalence_bounds, mann_whitney_p, ratio_verdict
from benchlib.errors import BenchlibError
from benchlib.measuring.registry import get_benchmark
from benchlib.results.resultfile import load_records

IGNORED_PARAMS = ("directory",)
COLUMNS = ["benchmark", "params", "unit", "higher_is_better", "n_a", "n_b", "median_a", "median_b",
           "ratio", "ratio_ci95_lo", "ratio_ci95_hi", "ratio_ci90_lo", "ratio_ci90_hi", "p_value",
           "verdict", "stable_a", "stable_b", "note", "margin", "pairs"]
#: Fewest rounds a paired comparison uses (fewer: the rows are compared
#: unpaired); with 6 a signed-rank test can reach p < 0.05.
MIN_PAIRS = 6


def _params_text(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items() if k not in IGNORED_PARAMS)


def _params(rec: dict) -> dict:
    """A record's parameters, with the default of any parameter its
    benchmark has gained since it was made: a parameter is added with the
    old behaviour as its default (file_reread_bandwidth's write_bytes, for
    one), so yesterday's record and today's at the default are one
    configuration, compared, not two left unmatched."""
    have = rec.get("params", {})
    try:
        bench = get_benchmark(rec["benchmark"])
    except BenchlibError:  # a benchmark this benchlib no longer has
        return have
    return {**{p.name: p.default for p in bench.params if p.name not in have}, **have}


def _key(rec: dict) -> tuple[str, str]:
    p = {k: v for k, v in _params(rec).items() if k not in IGNORED_PARAMS}
    return rec["benchmark"], json.dumps(p, sort_keys=True, default=str)


def _group(records: list[dict]) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for r in records:
        out.setdefault(_key(r), []).append(r)
    return out


def _check_margin(margin: float) -> float:
    if not isinstance(margin, (int, float)) or not 0 < margin < 1:
        raise BenchlibError(f"margin must be a fraction between 0 and 1 (0.05 = 5%); got {margin}")
    return margin


def _records(source) -> list[dict]:
    if isinstance(source, dict):
        source = [source]
    recs = load_records(source)
    if not recs:
        raise BenchlibError(f"no results in {source}" if isinstance(source, (str, os.PathLike))
                            else "no results given")
    return recs


def compare_samples(a, b, margin: float = 0.05, higher_is_better: bool = False) -> dict:
    """The comparison of two sets of samples: medians, ratio b/a with its
    95% and 90% bootstrap intervals, Mann-Whitney p-value, verdict.  a and b
    are samples, or lists of several runs' samples (resampled at two levels:
    see benchlib.stats.summary.bootstrap_ratio_ci)."""
    equivalence_bounds(margin)  # checks the margin
    ci = bootstrap_ratio_ci(a, b)
    a, b = (np.concatenate([np.asarray(g, dtype=float) for g in x])
            if len(x) and isinstance(x[0], (list, tuple, np.ndarray)) else np.asarray(x, dtype=float)
            for x in (a, b))
    p = mann_whitney_p(a, b)
    verdict = ratio_verdict(ci["ratio"], ci[0.95], ci[0.90], p, margin, higher_is_better)
    return {"n_a": int(a.size), "n_b": int(b.size), "median_a": float(np.median(a)),
            "median_b": float(np.median(b)), "ratio": ci["ratio"],
            "ratio_ci95_lo": ci[0.95][0], "ratio_ci95_hi": ci[0.95][1],
            "ratio_ci90_lo": ci[0.90][0], "ratio_ci90_hi": ci[0.90][1],
            "p_value": p, "verdict": verdict, "margin": margin}


def compare_paired(a: list, b: list, margin: float = 0.05, higher_is_better: bool = False) -> dict:
    """The comparison of two sides measured round by round: ``a`` and ``b``
    hold one list of samples per round, equally many.  The ratio is the
    median over rounds of median(b_k) / median(a_k), with percentile
    bootstrap 95% and 90% intervals over the rounds, and a two-sided
    Wilcoxon signed-rank p-value on the log ratios."""
    from scipy.stats import wilcoxon

    equivalence_bounds(margin)
    if len(a) != len(b) or len(a) < 2:
        raise BenchlibError(f"a paired comparison needs equally many rounds on both sides, at "
                            f"least 2 (got {len(a)} and {len(b)})")
    ma = np.array([np.median(np.asarray(x, dtype=float)) for x in a])
    mb = np.array([np.median(np.asarray(x, dtype=float)) for x in b])
    if not (np.all(ma > 0) and np.all(mb > 0)):
        raise BenchlibError("a paired comparison needs positive values")
    r = mb / ma
    logs = np.log(r)
    p = 1.0 if np.all(logs == 0) else float(wilcoxon(logs).pvalue)
    ci95, ci90 = bootstrap_median_ci(r, 0.95), bootstrap_median_ci(r, 0.90)
    ratio = float(np.median(r))
    flat_a = np.concatenate([np.asarray(x, dtype=float) for x in a])
    flat_b = np.concatenate([np.asarray(x, dtype=float) for x in b])
    return {"n_a": int(flat_a.size), "n_b": int(flat_b.size), "median_a": float(np.median(flat_a)),
            "median_b": float(np.median(flat_b)), "ratio": ratio,
            "ratio_ci95_lo": ci95[0], "ratio_ci95_hi": ci95[1],
            "ratio_ci90_lo": ci90[0], "ratio_ci90_hi": ci90[1], "p_value": p,
            "verdict": ratio_verdict(ratio, ci95, ci90, p, margin, higher_is_better),
            "margin": margin, "pairs": len(r)}


def per_clock(rec: dict) -> tuple[list[float] | None, str]:
    """A result's samples divided out by the core clock probed around each
    sample: a time becomes cycles per iteration (ns x GHz), a rate becomes
    the rate per GHz.  (None, why) when that cannot be done: no per-sample
    clock, or the result measures the clock itself."""
    ghz, samples = rec.get("clock_ghz"), rec["samples"]
    if rec["unit"] == "GHz":
        return None, "measures the clock itself"
    if not ghz or len(ghz) != len(samples) or any(not g or g != g for g in ghz):
        return None, "no per-sample clock"
    if rec["higher_is_better"]:
        return [s / g for s, g in zip(samples, ghz)], f"{rec['unit']} per GHz"
    ns = rec.get("ns_per_iteration") or []
    if len(ns) != len(samples):
        return None, "no per-sample clock"
    return [n * g for n, g in zip(ns, ghz)], "cycles"


def _row(ra: list[dict], rb: list[dict], margin: float, params_text: str | None = None,
         cycles: bool = False, paired: bool = False) -> dict:
    first = ra[0]
    units = {r["unit"] for r in ra + rb}
    if len(units) > 1:
        raise BenchlibError(f"{first['benchmark']}: cannot compare results in different units "
                            f"({', '.join(sorted(units))})")
    sa = [r["samples"] for r in ra]  # one list per run: resampled at two levels
    sb = [r["samples"] for r in rb]
    unit, notes = first["unit"], []
    if cycles:
        norm = [per_clock(r) for r in ra + rb]
        why = sorted({w for x, w in norm if x is None})
        if why:
            notes.append(f"not clock-normalised: {', '.join(why)}")
        else:
            sa, sb = [x for x, _ in norm[:len(ra)]], [x for x, _ in norm[len(ra):]]
            unit = norm[0][1]
    hib = bool(first["higher_is_better"])
    if paired and len(sa) == len(sb) and len(sa) >= MIN_PAIRS:
        stats = compare_paired(sa, sb, margin, hib)
    else:
        if paired:
            notes.append(f"not paired: {len(sa)} runs in A, {len(sb)} in B (a paired comparison "
                         f"needs equally many, at least {MIN_PAIRS})")
        stats = {**compare_samples(sa, sb, margin, hib), "pairs": None}
    row = {"benchmark": first["benchmark"],
           "params": params_text if params_text is not None else _params_text(first["params"]),
           "unit": unit, "higher_is_better": hib, **stats,
           "stable_a": all(r["diagnostics"].get("stable") for r in ra),
           "stable_b": all(r["diagnostics"].get("stable") for r in rb)}
    for side, recs in (("A", ra), ("B", rb)):
        reasons = sorted({x for r in recs for x in r["diagnostics"].get("unstable_reasons", [])})
        if reasons:
            notes.append(f"{side} unstable: {', '.join(reasons)}")
    row["note"] = "; ".join(notes)
    return row


def _frame(rows: list[dict], a: list[dict], b: list[dict]) -> pd.DataFrame:
    """The rows, with the machines each side ran on in ``attrs`` (``machines_a``,
    ``machines_b``: for a figure's title)."""
    df = pd.DataFrame(rows, columns=COLUMNS)
    df.attrs["machines_a"], df.attrs["machines_b"] = _machines(a), _machines(b)
    return df


def _machines(recs: list[dict]) -> list[dict]:
    """The distinct machines (host, CPU, kernel) behind some records, each
    as the few fields that name it."""
    out: dict[tuple, dict] = {}
    for r in recs:
        m = r.get("machine") or {}
        out.setdefault((m.get("hostname"), m.get("cpu_model"), m.get("kernel")),
                       {k: m.get(k) for k in ("hostname", "cpu_model", "cpus_online", "kernel",
                                              "virtualized")})
    return list(out.values())


def compare(a, b, margin: float = 0.05, cycles: bool = False, paired: bool = False) -> pd.DataFrame:
    """One row per benchmark and parameters found in both A and B (see the
    module's docstring).  ``df.attrs["only_a"]`` / ``["only_b"]`` list the
    keys found on one side only.  ``cycles``: compare clock-normalised
    samples (``per_clock``), so that the host moving the core clock between
    two runs, which one run's samples cannot show, does not count.
    ``paired``: the sides were measured interleaved, round by round; the
    k-th runs of a benchmark are paired (see the module's docstring)."""
    _check_margin(margin)
    ga, gb = _group(_records(a)), _group(_records(b))
    keys = [k for k in ga if k in gb]
    rows = [_row(ga[k], gb[k], margin, cycles=cycles, paired=paired) for k in keys]
    df = _frame(rows, [r for k in keys for r in ga[k]], [r for k in keys for r in gb[k]])
    df.attrs["only_a"] = [f"{k[0]} {k[1]}" for k in ga if k not in gb]
    df.attrs["only_b"] = [f"{k[0]} {k[1]}" for k in gb if k not in ga]
    df.attrs["margin"] = margin
    df.attrs["cycles"] = cycles
    df.attrs["paired"] = paired
    return df


def self_check(a, margin: float = 0.05, cycles: bool = False) -> pd.DataFrame:
    """The A/A sanity check: every result's samples split into two
    interleaved halves (even and odd samples, so a drift during the run lands
    in both) and compared.  No row should say "faster" or "slower" beyond
    the false-positive rate the tests allow."""
    _check_margin(margin)
    rows, recs_a = [], _records(a)
    for key, recs in _group(recs_a).items():
        s = [x for r in recs for x in r["samples"]]
        if len(s) < 4:
            continue
        half = {k: [x for r in recs for x in (r.get(k) or [])]
                for k in ("ns_per_iteration", "clock_ghz")}
        half_a = [{**recs[0], "samples": s[0::2], **{k: v[0::2] for k, v in half.items()}}]
        half_b = [{**recs[0], "samples": s[1::2], **{k: v[1::2] for k, v in half.items()}}]
        rows.append(_row(half_a, half_b, margin, cycles=cycles))
    df = _frame(rows, recs_a, recs_a)
    df.attrs["margin"] = margin
    return df


def _parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    words = spec.split()
    if not words:
        raise BenchlibError("a --pair side is 'BENCHMARK [KEY=VALUE ...]'; got an empty string")
    params = {}
    for w in words[1:]:
        if "=" not in w:
            raise BenchlibError(f"a --pair side is 'BENCHMARK [KEY=VALUE ...]'; got {w!r} in {spec!r}")
        k, v = w.split("=", 1)
        params[k] = v
    return words[0], params


def _value_matches(have, want: str) -> bool:
    from benchlib.units import parse_size

    if str(have) == want:
        return True
    if isinstance(have, (int, float)) and not isinstance(have, bool):
        try:
            return float(want) == have
        except ValueError:
            try:
                return parse_size(want) == have
            except BenchlibError:
                return False
    return False


def select(records: list[dict], spec: str) -> list[dict]:
    """The records that ``spec`` ("BENCHMARK KEY=VALUE ...") names: one
    parameter set (several records of it are pooled)."""
    bench, want = _parse_spec(spec)
    hits = [r for r in records if r["benchmark"] == bench
            and all(k in (p := _params(r)) and _value_matches(p[k], v) for k, v in want.items())]
    if not hits:
        raise BenchlibError(f"no result matches {spec!r}")
    keys = {_key(r) for r in hits}
    if len(keys) > 1:
        raise BenchlibError(f"{spec!r} matches {len(keys)} parameter sets; add parameters, e.g. "
                            f"{bench} {_params_text(hits[0]['params'])}")
    return hits


def compare_pair(a, spec_a: str, b, spec_b: str, margin: float = 0.05,
                 cycles: bool = False) -> pd.DataFrame:
    """Two named results compared, whatever their parameters (e.g. pipe
    latency on the same CPU against different CPUs).  One row."""
    _check_margin(margin)
    recs_a = _records(a)
    same = b is a or (isinstance(a, (str, os.PathLike)) and isinstance(b, (str, os.PathLike))
                      and Path(a) == Path(b))
    recs_b = recs_a if same else _records(b)  # one file: read and checked once
    ra, rb = select(recs_a, spec_a), select(recs_b, spec_b)
    if ra[0]["benchmark"] != rb[0]["benchmark"]:
        raise BenchlibError(f"cannot compare {ra[0]['benchmark']} with {rb[0]['benchmark']}: "
                            "different benchmarks")
    text = f"{_params_text(ra[0]['params'])} -> {_params_text(rb[0]['params'])}"
    df = _frame([_row(ra, rb, margin, text, cycles=cycles)], ra, rb)
    df.attrs["margin"] = margin
    return df


def summary(df: pd.DataFrame) -> dict:
    """Counts of each verdict, the fraction with no difference (of all rows,
    and of the rows whose results were stable on both sides)."""
    counts = {v: int((df["verdict"] == v).sum()) for v in
              ("no difference", "faster", "slower", "inconclusive")}
    n = len(df)
    differ = df["verdict"].isin(["faster", "slower"])
    stable = df[df["stable_a"] & df["stable_b"]]
    return {"compared": n, **counts,
            "no_difference_fraction": counts["no difference"] / n if n else None,
            "differing_with_an_unstable_side": int((differ & ~(df["stable_a"] & df["stable_b"])).sum()),
            "stable_on_both_sides": len(stable),
            "no_difference_fraction_stable": float((stable["verdict"] == "no difference").mean())
            if len(stable) else None,
            "paired_rows": int(df["pairs"].notna().sum())}
