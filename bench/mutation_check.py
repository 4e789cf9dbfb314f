"""Mutation check: do the unit tests notice a wrong answer?

Each mutant is a small source edit (an off-by-one, a flipped comparison,
the mean for the median, a constant 10 % off, a dropped row, a swapped
ratio, the other word of a verdict) applied to a temporary copy of the
repository; the tests that cover it then run in that copy, with the copy's
``benchlib`` imported (PYTHONPATH and the working directory point at it),
not the installed one.  Because the source itself changes, every module
that imports the function sees the mutant: a name bound with ``from x
import f`` elsewhere, a notebook helper, a fit that calls a reader.  A
mutant that no test kills marks code whose tests cannot fail.

    python bench/mutation_check.py            # every mutant, a table at the end
    python bench/mutation_check.py --list     # the mutants and their tests
    python bench/mutation_check.py NAME ...   # some of them (names or their prefixes)

A mutant is (name, file, old snippet, new snippet, tests): the old
snippet must occur exactly once in the file (tests/test_mutation_table.py
checks that in the suite, so the table follows the code).  Tests are files
under the repository, or ``file::test_name``.  Exit status 1 if a mutant
survives or the tests fail unmutated, 2 if a mutant is invalid.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# what a test run needs from the repository (benchlib/ brings the built _cbench.abi3.so)
COPY = ("benchlib", "tests", "data", "notebooks", "bench", "docs", ".importlinter",
        "pyproject.toml", "mkdocs.yml", "setup.py", "README.md")
PYTEST = ["-q", "-x", "-rfE", "-p", "no:cacheprovider", "-m", "not notebook"]
TIMEOUT_S = 300


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str                # path under the repository
    old: str                 # occurs exactly once in file
    new: str
    tests: tuple[str, ...]   # paths under the repository, or path::test_name


def _m(name, file, old, new, tests):
    return Mutant(name, file, old, new, tuple(f"tests/{t}" for t in tests.split()))


S, IV, P, NZ = ("benchlib/stats/summary.py", "benchlib/stats/intervals.py",
                "benchlib/stats/paired.py", "benchlib/stats/noise.py")
C, SC, SS = ("benchlib/results/compare.py", "benchlib/analysis/scaling.py",
             "benchlib/analysis/self_scaling_model.py")
OUS, LB, MACH = ("benchlib/papers/ousterhout1990/paper.py", "benchlib/papers/laibaker1996/paper.py",
                 "benchlib/papers/mach1989/paper.py")
STATS_T, SCALE_T = "test_stats_compare.py", "test_scaling.py"
AC, ACROSS_T = "benchlib/papers/across.py", "papers/test_across_ratings.py"
# the model's tests, without the I/O generator's (which measure, and check system-wide state)
CHEN_T = "test_self_scaling_model.py " + " ".join(
    f"papers/test_chen1994_measure.py::test_{t}" for t in (
        "two_plateaus_give_two_regions_and_a_border", "noise_on_the_plateaus_makes_no_extra_region",
        "flat_curve_is_one_region", "halfway_and_performance_points",
        "product_model_is_exact_on_a_separable_function",
        "product_model_picks_the_region_by_unique_bytes", "accuracy_table"))

MUTANTS = [
    # ------------------------------------------------------ stats/summary.py
    _m("bootstrap_median_ci: mean for median", S,
       "return resampled[:, k] if x.size % 2 else (resampled[:, k - 1] + resampled[:, k]) / 2",
       "return resampled.mean(axis=1)",
       f"{STATS_T} test_paired.py test_intervals.py"),
    _m("bootstrap_medians: many samples' mean for median", S,
       "return np.median(resampled, axis=1)", "return np.mean(resampled, axis=1)", STATS_T),
    _m("bootstrap_median_ci: one tail at (1-c)", S,
       "a = (1 - confidence) / 2", "a = (1 - confidence)", f"{STATS_T} test_paired.py"),
    _m("median_ci_ranks: one tail at (1-c)", S,
       "tail = 0.5 * (1 - confidence)",
       "tail = 1 - confidence",
       "test_summary.py test_intervals.py"),
    _m("median_ci_rank_table: a window above the rank", S,
       "j0 = np.maximum(0, np.floor(n / 2 - z * np.sqrt(n) / 2).astype(int) - 3)",
       "j0 = np.maximum(0, np.floor(n / 2 - z * np.sqrt(n) / 2).astype(int) + 1)",
       "test_summary.py::test_the_rank_table_is_the_ranks"),
    _m("median_ci: one rank further in", S,
       "return float(x[k - 1]), float(x[m - 1])", "return float(x[k]), float(x[m - 2])",
       "test_summary.py"),
    _m("rel_ci_halfwidth: a half-width from too few samples", S,
       "if median_ci_ranks(len(samples), confidence)[2] < confidence:",
       "if median_ci_ranks(len(samples), confidence)[2] < 0:",
       "test_summary.py test_harness.py::test_adaptive_batches_are_sized_by_what_the_interval_lacks"),
    _m("rel_ci_halfwidth: the whole width", S,
       "return float((hi - lo) / 2 / abs(med))", "return float((hi - lo) / abs(med))", STATS_T),
    _m("two-level bootstrap: runs not resampled", S,
       "chosen = rng.integers(0, g, size=(n_boot, g))",
       "chosen = np.tile(np.arange(g), (n_boot, 1))", STATS_T),
    _m("bootstrap_ratio_ci: ratios swapped", S,
       "ratios = mb / ma", "ratios = ma / mb", STATS_T),
    _m("bootstrap_ratio_ci: ratio of means", S,
       'float(np.median(np.concatenate(gb)) / np.median(np.concatenate(ga)))',
       'float(np.mean(np.concatenate(gb)) / np.mean(np.concatenate(ga)))', STATS_T),
    _m("mann_whitney_p: one-sided", S,
       'alternative="two-sided"', 'alternative="greater"', STATS_T),
    _m("mann_whitney_p: ties give p 0", S,
       "== 0:\n        return 1.0", "== 0:\n        return 0.0", STATS_T),
    _m("ratio_summary: the band's upper edge excluded", S,
       "0.85 <= ratio <= 1.15", "0.85 <= ratio < 1.15", STATS_T),
    _m("relative_spread: over the mean", S,
       "(v.max() - v.min()) / np.median(v)", "(v.max() - v.min()) / np.mean(v)", STATS_T),
    _m("interval_side: >= for > (touching counts as above)", S,
       "if lo > threshold:", "if lo >= threshold:", f"{STATS_T} test_intervals.py"),
    _m("interval_side: below read as undecided", S,
       "if hi < threshold:\n        return False", "if hi < threshold:\n        return None",
       f"{STATS_T} test_intervals.py"),
    _m("equivalence_bounds: 1 - margin (not log-symmetric)", S,
       "return 1 / (1 + margin), 1 + margin", "return 1 - margin, 1 + margin", STATS_T),
    _m("ratio_verdict: equivalence on the 95% interval", S,
       "if interval_inside(ci90, (lo_eq, hi_eq)):", "if interval_inside(ci95, (lo_eq, hi_eq)):",
       STATS_T),
    _m("ratio_verdict: p-value comparison flipped", S,
       "p_value < alpha", "p_value > alpha", STATS_T),
    _m("ratio_verdict: margin condition dropped", S,
       "and not lo_eq <= ratio <= hi_eq)", ")", STATS_T),
    _m("ratio_verdict: direction flipped", S,
       "b_larger = ratio > 1", "b_larger = ratio < 1", STATS_T),
    _m("ratio_verdict: faster/slower words swapped", S,
       'return "faster" if b_larger == higher_is_better else "slower"',
       'return "slower" if b_larger == higher_is_better else "faster"', STATS_T),
    _m("ratio_verdict: inconclusive says no difference", S,
       'return "inconclusive"', 'return "no difference"', STATS_T),
    # ------------------------------------------------------ stats/intervals.py
    _m("Measured arithmetic: corners not min/max", IV,
       "else (min(corners), max(corners)))", "else (corners[0], corners[-1]))", "test_intervals.py"),
    _m("Measured arithmetic: one measurement marked propagated", IV,
       "several = not a.is_exact and not b.is_exact", "several = not a.is_exact or not b.is_exact",
       "test_intervals.py"),
    _m("Measured.map: endpoints not reordered", IV,
       "lo=min(a, b), hi=max(a, b)", "lo=a, hi=b", "test_intervals.py"),
    _m("Measured division: divisor touching 0 bounded", IV,
       "b.lo <= 0 <= b.hi", "b.lo < 0 < b.hi", "test_intervals.py"),
    _m("of_samples: mean for median", IV,
       "return Measured(float(np.median(x)), lo, hi", "return Measured(float(np.mean(x)), lo, hi",
       "test_intervals.py"),
    _m("of_samples: one sample given an interval", IV,
       "if x.size < 2:", "if x.size < 1:", "test_intervals.py"),
    _m("of_result: unstable reasons of a stable result", IV,
       'if diag.get("stable") is False else ()', 'if diag.get("stable") else ()',
       "test_intervals.py"),
    _m("gmean: arithmetic mean", IV,
       "return float(np.exp(np.mean(np.log([float(v) for v in values]))))",
       "return float(np.mean([float(v) for v in values]))", "test_intervals.py"),
    _m("gmean: one measurement marked propagated", IV,
       "sum(not m.is_exact for m in ms) > 1", "sum(not m.is_exact for m in ms) >= 1",
       "test_intervals.py"),
    # ------------------------------------------------------ stats/paired.py, noise.py
    _m("paired_ratio: ratio swapped", P, "ratios = a / b", "ratios = b / a", "test_paired.py"),
    _m("paired_ratio: mean of the ratios", P,
       '"ratio_median": float(np.median(ratios))', '"ratio_median": float(np.mean(ratios))',
       "test_paired.py"),
    _m("interval_inside: 'or' for 'and'", S,
       "return bool(bounds[0] <= ci[0] and ci[1] <= bounds[1])",
       "return bool(bounds[0] <= ci[0] or ci[1] <= bounds[1])", "test_paired.py"),
    _m("paired_ratio: equivalence read from the 95 % interval", P,
       "lo90, hi90 = percentile_interval(meds, 0.90)", "lo90, hi90 = percentile_interval(meds, 0.95)",
       "test_compare_perf.py"),
    _m("noise: spread threshold 10% off", NZ, '"max_rel_stdev": 0.10', '"max_rel_stdev": 0.11',
       STATS_T),
    _m("noise: minimum samples off by one", NZ, '"min_samples": 5', '"min_samples": 4', STATS_T),
    _m("noise: a falling clock not flagged", NZ,
       "abs(clock_change) > t", "clock_change > t", STATS_T),
    _m("noise: clock from halves, not quarters", NZ,
       "q = max(1, c.size // 4)", "q = max(1, c.size // 2)", STATS_T),
    # ------------------------------------------------------ results/compare.py
    _m("compare_samples: ratio swapped (a/b)", C,
       "ci = bootstrap_ratio_ci(a, b)", "ci = bootstrap_ratio_ci(b, a)", f"{STATS_T} test_compare.py"),
    _m("compare_samples: the 95% interval as the 90%", C,
       "ci[0.95], ci[0.90], p, margin", "ci[0.95], ci[0.95], p, margin",
       f"{STATS_T} test_compare.py"),
    _m("compare_paired: ratio swapped", C, "r = mb / ma", "r = ma / mb", "test_compare_paired.py"),
    _m("compare_paired: 90% interval at 95%", C,
       "bootstrap_median_ci(r, 0.90)", "bootstrap_median_ci(r, 0.95)", "test_compare_paired.py"),
    _m("compare_paired: signed-rank on ratios, not logs", C,
       "float(wilcoxon(logs).pvalue)", "float(wilcoxon(r).pvalue)", "test_compare_paired.py"),
    _m("compare_paired: minimum rounds off by one", C, "MIN_PAIRS = 6", "MIN_PAIRS = 5",
       "test_compare_paired.py"),
    _m("compare summary: slower rows not counted as differing", C,
       'differ = df["verdict"].isin(["faster", "slower"])', 'differ = df["verdict"].isin(["faster"])',
       "test_compare.py"),
    _m("per_clock: cycles as ns / GHz", C,
       "[n * g for n, g in zip(ns, ghz)]", "[n / g for n, g in zip(ns, ghz)]", "test_compare.py"),
    _m("per_clock: a rate times GHz", C,
       "[s / g for s, g in zip(samples, ghz)]", "[s * g for s, g in zip(samples, ghz)]",
       "test_compare.py"),
    # ------------------------------------------------------ analysis/scaling.py
    _m("fit_exponent: t with n-1 degrees of freedom", SC,
       "stats.t.ppf(0.5 + level / 2, n - 2)", "stats.t.ppf(0.5 + level / 2, n - 1)", SCALE_T),
    _m("fit_exponent: a slope from 2 points", SC, "if n < 3:", "if n < 2:", SCALE_T),
    _m("fit_exponent: r for r squared", SC,
       "float(res.rvalue ** 2)", "float(res.rvalue)", SCALE_T),
    _m("fit_exponent: a CPU rating of 0 kept", SC,
       "(x > 0) & (y > 0)", "(x >= 0) & (y > 0)", SCALE_T),
    _m("bootstrap_exponent: x not centred", SC,
       "dx = x - x.mean(axis=1, keepdims=True)", "dx = x", SCALE_T),
    _m("bootstrap_exponent: the level not passed on", SC,
       "return percentile_interval(slopes, level)", "return percentile_interval(slopes)",
       SCALE_T),
    _m("scaling verdict: the slope, not its interval", SC,
       "return interval_verdict(e.low, e.high) if e.ok", "return interval_verdict(e.slope, e.slope) if e.ok",
       SCALE_T),
    _m("scaling verdict: against 0.9, not 1", SC,
       "side = interval_side(low, high, 1.0)", "side = interval_side(low, high, 0.9)",
       SCALE_T),
    _m("scaling verdict: a wide interval read as keeping pace", SC,
       "if low <= NO_GAIN or high >= DOUBLE_GAIN:", "if False:", SCALE_T),
    _m("trend: caught up / fell behind swapped", SC,
       'return "caught up"', 'return "fell behind"', SCALE_T),
    _m("trend: an undetermined fit read", SC,
       "if not (early.ok and overall.ok):", "if not (early.ok or overall.ok):", SCALE_T),
    _m("rank_of: off by one", SC,
       "return int(better.sum()) + 1, len(v) + 1", "return int(better.sum()), len(v) + 1",
       SCALE_T),
    _m("rank_of: ties not shared", SC,
       "better = (v > ours) if higher_is_better", "better = (v >= ours) if higher_is_better",
       SCALE_T),
    _m("per_mips: times MIPS", SC,
       "speed(value_std, higher_is_better) / np.asarray(cpu_mips, dtype=float)",
       "speed(value_std, higher_is_better) * np.asarray(cpu_mips, dtype=float)",
       f"{SCALE_T} papers/test_ousterhout1990.py"),
    _m("rate: microseconds per second 1e3", SC, '"us": 1e6', '"us": 1e3', SCALE_T),
    # ------------------------------------------------------ papers/across.py (every era on one axis)
    _m("across ratings: an estimate left unrated", AC,
       'if line.status == "unrated":', 'if line.status != "rated":', ACROSS_T),
    _m("across eras: all eras without today", AC,
       "groups[ALL_ERAS] = era.isin(list(ERAS))", "groups[ALL_ERAS] = era.isin(list(ERAS)[:2])",
       ACROSS_T),
    _m("across era verdicts: behind read from the slope", AC,
       "said = {r.primitive: interval_verdict(r.ci_low, r.ci_high) for r in f.itertuples()}",
       "said = {r.primitive: 'falls behind' if r.exponent < 1 else '' for r in f.itertuples()}",
       ACROSS_T),
    # ------------------------------------------------------ analysis/self_scaling_model.py
    _m("find_regions: border slope flipped", SS, "(s[j] < avg)", "(s[j] > avg)", CHEN_T),
    _m("find_regions: merge against the smaller mean", SS,
       "abs(pa - pb) < min_step * max(pa, pb)", "abs(pa - pb) < min_step * min(pa, pb)", CHEN_T),
    _m("find_regions: lone last point dropped", SS,
       "or k == 0 or k == len(runs) - 1", "or k == 0", CHEN_T),
    _m("find_regions: arithmetic focal point", SS,
       "float(math.sqrt(x[a] * x[b]))", "float((x[a] + x[b]) / 2)", CHEN_T),
    _m("halfway_point: half the maximum", SS,
       "target = (ys.min() + ys.max()) / 2", "target = ys.max() / 2", CHEN_T),
    _m("halfway_point: interpolation from the wrong end", SS,
       "(lx[j + 1] - lx[j]) * a / (a - b)", "(lx[j + 1] - lx[j]) * b / (a - b)", CHEN_T),
    _m("relative_error: over the prediction", SS,
       "np.abs(p - m) / m", "np.abs(p - m) / p", CHEN_T),
    _m("accuracy_table: median error outside the zone only", SS,
       "medians.append(of_samples(e))", "medians.append(of_samples(e[inside]))", CHEN_T),
    _m("accuracy_table: enhanced error keeps the border", SS,
       "float(np.median(e[inside]))", "float(np.median(e))", CHEN_T),
    _m("ProductModel.in_border: the region's last point inside", SS,
       "a.hi_bytes < unique_bytes < b.lo_bytes", "a.hi_bytes <= unique_bytes < b.lo_bytes", CHEN_T),
    # ------------------------------------------------------ units, Result
    _m("parse_size: k = 1000", "benchlib/units.py", '"k": 1 << 10,', '"k": 1000,', "test_registry.py"),
    _m("format_size: a size not a whole k", "benchlib/units.py",
       "if n >= factor and n % factor == 0:", "if n >= factor:", "test_registry.py"),
    _m("Result.median: mean", "benchlib/measuring/result.py",
       "median = property(lambda self: float(np.median(", "median = property(lambda self: float(np.mean(",
       "test_harness.py::test_summary_statistics_on_known_samples"),
    _m("Result.rel_iqr: 10th-90th percentiles", "benchlib/measuring/result.py",
       "np.percentile(self.samples, [25, 75])", "np.percentile(self.samples, [10, 90])",
       "test_harness.py::test_summary_statistics_on_known_samples"),
    _m("Result.best: the other end", "benchlib/measuring/result.py",
       "return self.max if self.higher_is_better else self.min",
       "return self.min if self.higher_is_better else self.max",
       "test_harness.py::test_result_structure_and_summary"),
    # ------------------------------------------------------ papers: MIPS, tables, normalisations
    _m("vax_mips: times the instruction ratio", "benchlib/papers/mips.py",
       "return native_mips / (instruction_ratio * vax_native_mips)",
       "return native_mips * instruction_ratio / vax_native_mips",
       "papers/test_ousterhout1990_measure.py papers/test_across.py"),
    _m("VAX-11/780 native MIPS 10% off", "benchlib/papers/mips.py",
       "VAX780_NATIVE_MIPS = 0.47", "VAX780_NATIVE_MIPS = 0.52",
       "papers/test_ousterhout1990_measure.py papers/test_across.py"),
    _m("rating_range: ratios swapped", "benchlib/papers/mips.py",
       "vax_mips(native_low, max(ratios)), vax_mips(native_high, min(ratios))",
       "vax_mips(native_low, min(ratios)), vax_mips(native_high, max(ratios))",
       "papers/test_ousterhout1990_measure.py"),
    _m("beside_paper: the paper's last row dropped", "benchlib/papers/tables.py",
       "pd.concat([paper.assign(source=PAPER_SOURCE)", "pd.concat([paper.iloc[:-1].assign(source=PAPER_SOURCE)",
       "papers/test_tables.py papers/test_tables_intervals.py test_intervals.py"),
    _m("beside_paper: always ascending", "benchlib/papers/tables.py",
       "out.sort_values(sort_by, ascending=ascending,", "out.sort_values(sort_by, ascending=True,",
       "papers/test_tables.py papers/test_tables_intervals.py"),
    _m("mips_relative: MIPS ratio swapped", OUS,
       "return speed / (mips / ref_mips)", "return speed / (ref_mips / mips)",
       "papers/test_ousterhout1990.py papers/test_tables_intervals.py"),
    _m("machine_of: Table 8's hyphenated Sun-4 not read", OUS,
       'return {"Sun-4": "Sun4"}.get(abbrev, abbrev)', "return abbrev",
       "papers/test_ousterhout1990_measure.py"),
    _m("implied_mips: over the reference", OUS,
       "return speed * ref_mips", "return speed / ref_mips",
       "papers/test_ousterhout1990.py papers/test_tables_intervals.py"),
    _m("normalized_to_best: times inverted", LB,
       "else valid.min() / s", "else s / valid.min()",
       "papers/test_laibaker1996.py papers/test_tables_intervals.py"),
    _m("relative_to: times inverted", LB,
       "return value / reference if higher_is_better else reference / value",
       "return value / reference if higher_is_better else value / reference",
       "papers/test_laibaker1996.py papers/test_tables_intervals.py"),
    _m("vax780_ms: over MIPS", MACH, "return time_ms * mips", "return time_ms / mips",
       "papers/test_mach1989.py papers/test_tables_intervals.py"),
    _m("per_call_us: rounded up", MACH, "math.floor(total_ms * 1000 / iterations + 1e-9)",
       "math.ceil(total_ms * 1000 / iterations - 1e-9)", "papers/test_mach1989.py"),
    _m("rpc_to_local_ratios: local over remote", MACH,
       '"remote_over_local": re_ / lo', '"remote_over_local": lo / re_',
       "papers/test_mach1989.py papers/test_tables_intervals.py"),
    _m("rpc_ranking: sorted by time, not normalised", MACH,
       'out.sort_values("vax780_ms", kind="stable")', 'out.sort_values("time_ms", kind="stable")',
       "papers/test_mach1989.py papers/test_tables_intervals.py"),
    # ------------------------------------------------------ verdict rules and words
    _m("verdict: words of holds swapped", "benchlib/papers/verdict.py",
       "{True: if_true, False: if_false, None: if_unknown}",
       "{True: if_false, False: if_true, None: if_unknown}", "test_verdict_helpers.py test_intervals.py"),
    _m("verdict: an earlier record of the claim kept", "benchlib/papers/verdict.py",
       'records = [r for r in records if not (r["paper"] == paper and r["claim"] == claim)]',
       "records = list(records)", "test_verdict_helpers.py test_intervals.py"),
    _m("Verdict markdown: holds / does not hold swapped", "benchlib/papers/verdict.py",
       '{True: "holds", False: "does not hold", None: "cannot tell"}',
       '{True: "does not hold", False: "holds", None: "cannot tell"}',
       "test_verdict_helpers.py test_intervals.py"),
    _m("all_hold: one failing check not enough", "benchlib/papers/verdict.py",
       "if any(h is False for h in holds):", "if all(h is False for h in holds):",
       "test_verdict_helpers.py"),
    _m("era_of: the era's last year excluded", "benchlib/papers/across.py",
       "if lo <= year <= hi:", "if lo <= year < hi:", "papers/test_across.py"),
    _m("machine_flags: noisy at a quarter excluded", "benchlib/papers/classroom.py",
       '"noisy": share >= NOISY_SHARE', '"noisy": share > NOISY_SHARE', "test_classroom.py"),
    # ------------------------------------------------------ memory: MAY NEED RE-POINTING AFTER
    # THE MEMORY REWRITE (file, snippet and test names are today's).  Both are killed only
    # through fit_memory: measure_hierarchy on a simulated machine, and `benchlib fit-memory`
    # run as a child process on another tool's curves, which the old in-process patch of
    # read_strides never reached (that mutant survived it).
    # ------------------------------------------- the papers' verdict rules
    _m("keeps_pace: a straddling range read as keeping pace", "benchlib/papers/ousterhout1990/measure.py",
       "    if hi < pace:\n        return False\n    return None",
       "    if hi < pace:\n        return False\n    return True", "test_verdict_helpers.py"),
    _m("creation_waits_for_disk: ratio inverted", "benchlib/papers/ousterhout1990/measure.py",
       "return False if fsync_ms / no_fsync_ms >= min_ratio else None",
       "return False if no_fsync_ms / fsync_ms >= min_ratio else None", "test_verdict_helpers.py"),
    _m("lookup_share: per component not divided", "benchlib/papers/ousterhout1990/measure.py",
       "def lookup_share(foo: float, abc_foo: float, extra_components: int = 3) -> float:",
       "def lookup_share(foo: float, abc_foo: float, extra_components: int = 1) -> float:",
       "test_verdict_helpers.py"),
    _m("kept_pace: any for all", "benchlib/papers/mach1989/measure.py",
       "return bool((values >= pace).all())", "return bool((values >= pace).any())",
       "test_verdict_helpers.py"),
    _m("within_factor: the upper bound dropped", "benchlib/papers/mach1989/measure.py",
       "return target / factor <= value <= target * factor", "return target / factor <= value",
       "test_verdict_helpers.py"),
    _m("differences_within_noise: mean for median", "benchlib/papers/laibaker1996/measure.py",
       "return bool(own.max() >= np.median(s95))", "return bool(own.max() >= np.mean(s95))",
       "test_verdict_helpers.py"),
    _m("each_step_multiplies: one step is enough", "benchlib/papers/mcvoy1996/measure.py",
       "return all(b / a >= factor for a, b in zip(t, t[1:]))",
       "return any(b / a >= factor for a, b in zip(t, t[1:]))", "test_verdict_helpers.py"),
    _m("ipc_over_copy: below and above swapped", "benchlib/papers/mcvoy1996/measure.py",
       '"below_copy": None if side is None else not side', '"below_copy": None if side is None else side',
       "papers/test_mcvoy1996_measure.py"),
    _m("ring_rises: the ratio inverted", "benchlib/papers/mcvoy1996/measure.py",
       'ratio = iv.get(curves, "median", j) / iv.get(curves, "median", i)',
       'ratio = iv.get(curves, "median", i) / iv.get(curves, "median", j)',
       "papers/test_mcvoy1996_measure.py"),
    _m("normalised_ipc: the 1989 total not divided by the iterations", "benchlib/papers/mach1989/measure.py",
       'then = t["elapsed_ms"] * 1000 / t["iterations"] or math.nan',
       'then = t["elapsed_ms"] * 1000 or math.nan', "papers/test_mach1989_measure.py"),
    # ------------------------------------------- the memory fit (levels, walk, TLB, revisit)
    _m("level finding: a step needs half the ratio", "benchlib/memory/levels.py",
       "    lmr = math.log(min_ratio)", "    lmr = math.log(min_ratio) / 2",
       "memory/test_levels.py memory/test_fit.py"),
    _m("walk refit: a second level kept without its gain", "benchlib/memory/walk.py",
       "if gain >= 2 * math.log(len(pts)) and not close:", "if gain >= -1e300 and not close:",
       "memory/test_walk.py memory/test_fit.py"),
    _m("stride fit: paged strides always witnesses", "benchlib/memory/stride.py",
       "if len(paged) < 2 or len(small) < PAGED_WITNESSES:",
       "if True:",
       "memory/test_stride.py::test_the_recorded_folders_read_l2_within_10_percent_without_the_paged_strides"),
    _m("stride fit: a run's strides drawn apart", "benchlib/memory/stride.py",
       'shared=placement == "run")', "shared=False)",
       "memory/test_stride.py::test_a_run_with_one_array_gets_an_interval_that_holds_its_board"),
    _m("stride fit: a run's strides drawn at the same page", "benchlib/memory/stride_model.py",
       "return [col[::s] for s in steps]", "return [col for s in steps]",
       "memory/test_stride.py::test_one_array_for_every_stride_is_drawn_as_one_placement"),
    _m("stride fit: no occupancy chain", "benchlib/memory/stride.py",
       'if placement in ("curve", "run"):\n            # before a level',
       "if False:\n            # before a level",
       "memory/test_stride.py::test_one_placement_per_stride_is_read_by_its_occupancy_chain"),
    _m("stride fit: the chain's drop only after the shapes", "benchlib/memory/stride.py",
       "if sc is not None and sc[1] is not None:", "if False:",
       "memory/test_stride.py::test_a_level_the_chain_does_without_is_dropped_before_the_shapes_are_chosen"),
    _m("stride fit: candidates by least squares alone", "benchlib/memory/stride.py",
       "if all(x is not None for x in sc):", "if False:",
       "memory/test_stride.py::test_one_placements_candidates_are_compared_by_its_chain"),
    _m("stride fit: candidates' chain from past the first level", "benchlib/memory/stride.py",
       "floor = max(page or 0 for f, _ in sets for _, _, page, _ in f)",
       "floor = min(2.0 * f[0][0] for f, _ in sets)",
       "memory/test_stride.py::test_the_candidates_chain_counts_the_first_levels_own_step"),
    _m("stride fit: the chain drops no level", "benchlib/memory/placement_chain.py",
       "for drop in [None] + ([] if coarse else list(range(1, k))):", "for drop in [None]:",
       "memory/test_stride.py::test_a_level_the_chain_does_without_is_dropped_before_the_shapes_are_chosen"),
    _m("occupancy chain: sizes uncorrelated", "benchlib/memory/placement_chain.py",
       "cov[:, j, :j + 1] = (u[:, :j + 1] @ kw) / (n * n_obs[:j + 1])[None]",
       "cov[:, j, :j + 1] = (u[:, :j + 1] @ kw) / (n * n_obs[:j + 1])[None] * (n_obs[:j + 1] == n)",
       "memory/test_cache_model.py"),
    _m("stride fit: paged strides never witnesses", "benchlib/memory/stride.py",
       "        if not _agree(in_a, alone[b], lo, hi):\n            return paged",
       "        if True:\n            return paged",
       "memory/test_stride.py::test_paged_strides_that_agree_stay"),
    _m("stride fit: any capacity for a small cache", "benchlib/memory/buildable.py",
       "return (np.abs(x - np.round(x)) <= step / 2 + 1e-9) | (g > BUILT_MAX)",
       "return np.ones(len(g), bool)", "memory/test_stride.py memory/test_live_recorded.py"),
    _m("ring fit: any capacity for a small cache on random pages", "benchlib/memory/cache_model.py",
       "dev = np.where(_built(grid, ways) | (grid / ways < 2 * page), dev, np.inf)",
       "dev = dev", "memory/test_live_recorded.py"),
    _m("line pairs: a step's points above the level's median only", "benchlib/memory/line_tlb.py",
       "apart = all(float(np.min(fastest[a:b])) > float(np.quantile(y[c:a], 0.75))",
       "apart = all(float(np.min(fastest[a:b])) > float(np.median(y[c:a]))",
       "memory/test_live_recorded.py"),
    _m("stride fit: the interval offers every replacement policy", "benchlib/memory/stride.py",
       "every = [sh for sh in _shapes() if sh[2] == fixed[k][3]]", "every = list(_shapes())",
       "memory/test_stride.py::test_a_levels_interval_keeps_the_replacement_policy_it_was_chosen_with"),
    _m("ring fit: a capacity at its search's edge kept there", "benchlib/memory/cache_model.py",
       "robust: bool = False, edge_rounds: int = EDGE_ROUNDS)",
       "robust: bool = False, edge_rounds: int = 0)", "memory/test_live_recorded.py"),
    _m("walk refit: a ring level closer than CLOSEST_LEVELS kept", "benchlib/memory/walk.py",
       "close = nxt.size_bytes < CLOSEST_LEVELS * t2.size_bytes", "close = False",
       "memory/test_live_recorded.py"),
    _m("walk refit: the ring's size kept", "benchlib/memory/walk.py",
       "sized = replace(lv, ring_size_bytes=ring, walk=t, size_bytes=t.size_bytes,",
       "sized = replace(lv, ring_size_bytes=ring, walk=t, size_bytes=lv.size_bytes,",
       "memory/test_walk.py memory/test_fit.py memory/test_pipeline.py"),
    _m("TLB fit: the step's ratio test dropped", "benchlib/memory/line_tlb.py",
       "or (c + hi) / max(c + lo, 1e-12) < min_ratio", "or (c + hi) / max(c + lo, 1e-12) < 0",
       "memory/test_line_tlb.py memory/test_fit.py"),
    _m("revisit rule: inside the passes' spread read as a loss", "benchlib/memory/hierarchy.py",
       'kind, loses = "inconclusive", None', 'kind, loses = "inconclusive", True',
       "memory/test_hierarchy.py memory/test_pipeline.py"),
    _m("read_pairs: twice the line (through fit_memory)", "benchlib/memory/line_tlb.py",
       'out["line"] = line\n', 'out["line"] = 2 * line\n',
       "memory/test_fit.py::test_an_epyc_like_l2_comes_out_at_512k_from_its_gradual_onset "
       "memory/test_memory_cli.py::test_measure_hierarchy_on_a_simulated_machine_keeps_the_json_contract"),
    _m("read_strides: twice the line (through fit-memory)", "benchlib/memory/line_tlb.py",
       'out["line"] = strides[best]\n', 'out["line"] = 2 * strides[best]\n',
       "memory/test_memory_cli.py::test_fit_memory_reads_other_tools_files[_write_lat_mem_rd]"),
]


# ---------------------------------------------------------------- checking the table

def problems(m: Mutant, root: Path = REPO) -> list[str]:
    """Why ``m`` cannot run as given (empty if it can)."""
    out = []
    path = root / m.file
    if not path.is_file():
        return [f"{m.file} does not exist"]
    n = path.read_text().count(m.old)
    if n != 1:
        out.append(f"the old snippet occurs {n} times in {m.file} (must be once): {m.old!r}")
    if m.new == m.old:
        out.append("the new snippet is the old one")
    for t in m.tests:
        file, _, test = t.partition("::")
        test = test.split("[")[0]        # a parametrized case: the function's name
        if not (root / file).is_file():
            out.append(f"no test file {file}")
        elif test and not re.search(rf"^def {re.escape(test)}\(", (root / file).read_text(), re.M):
            out.append(f"no test {test} in {file}")
    return out


# ---------------------------------------------------------------- running

def make_copy(dest: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache")
    for name in COPY:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dest / name)
    return dest


def _env(root: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    shared = REPO.parent / "shared"   # the papers' texts, found beside the real checkout
    if shared.is_dir() and "BENCHLIB_SHARED" not in env:
        env["BENCHLIB_SHARED"] = str(shared)
    return env


# pytest in the copy; afterwards the file of the benchlib the tests imported
_RUNNER = ("import sys, pytest\n"
           "rc = pytest.main(sys.argv[1:])\n"
           "import benchlib\n"
           "print('BENCHLIB_FILE=' + benchlib.__file__)\n"
           "sys.exit(int(rc))\n")


def run_tests(mutant: Mutant | None, tests: tuple[str, ...]) -> tuple[bool, str, float, str]:
    """(tests passed, first failing test or a note, seconds, benchlib's file)
    for ``tests`` run in a fresh copy with ``mutant`` applied."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="benchlib-mutant-") as tmp:
        root = make_copy(Path(tmp) / "repo")
        if mutant:
            path = root / mutant.file
            path.write_text(path.read_text().replace(mutant.old, mutant.new, 1))
        try:
            p = subprocess.run([sys.executable, "-c", _RUNNER, *PYTEST, *tests], cwd=root,
                               env=_env(root), capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return False, f"timeout after {TIMEOUT_S} s", time.monotonic() - t0, ""
        where = re.search(r"^BENCHLIB_FILE=(.*)$", p.stdout, re.M)
        imported = where.group(1) if where else ""
        if imported and not Path(imported).is_relative_to(root):
            raise SystemExit(f"the tests imported {imported}, not the copy under {root}")
        imported = imported.replace(str(root), "<copy>")
    failed = [m.group(1) for line in p.stdout.splitlines()
              if (m := re.match(r"(?:FAILED|ERROR) (.+?)(?: - .*)?$", line))]
    if failed:
        note = failed[0]
    else:
        lines = [x for x in p.stdout.splitlines() if x.strip() and not x.startswith("BENCHLIB_FILE")]
        note = lines[-1] if lines else (p.stderr.strip().splitlines() or [""])[-1]
    return p.returncode == 0, note, time.monotonic() - t0, imported


def _edit(m: Mutant, width: int = 70) -> str:
    def short(s):
        s = " ".join(s.split())
        return s if len(s) <= width else s[:width - 3] + "..."
    return f"`{short(m.old)}` -> `{short(m.new)}`".replace("|", "\\|")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="mutants to run, by name or name prefix (default: all)")
    ap.add_argument("--list", action="store_true", help="list the mutants and their tests")
    ap.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2)")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.names or any(m.name.startswith(n) for n in args.names)]
    invalid = {m.name: p for m in chosen if (p := problems(m))}
    if args.list:
        for m in MUTANTS:
            flag = "  INVALID: " + "; ".join(invalid[m.name]) if m.name in invalid else ""
            print(f"{m.name:52} {m.file:42} {' '.join(m.tests)}{flag}")
        return 2 if invalid else 0
    if not chosen:
        print(f"no mutant named {' or '.join(args.names)} (--list shows them)")
        return 2
    if invalid:
        for name, p in invalid.items():
            print(f"invalid mutant {name!r}: {'; '.join(p)}")
        return 2

    every = tuple(sorted({t for m in chosen for t in m.tests}))
    ok, note, dt, imported = run_tests(None, every)
    print(f"unmutated: {'pass' if ok else 'FAIL ' + note} ({dt:.0f} s; benchlib from {imported})",
          flush=True)
    if not ok:
        return 1
    t0 = time.monotonic()
    results: dict[str, tuple[bool, str, float]] = {}
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_tests, m, m.tests): m for m in chosen}
        for f in as_completed(futures):
            m = futures[f]
            passed, note, dt, _ = f.result()
            results[m.name] = (not passed, note, dt)
            print(f"  {'killed  ' if not passed else 'SURVIVED'} {m.name:52} ({dt:.0f} s) "
                  f"{note}", flush=True)
    print("\n| mutant | file | edit | killed by |")
    print("| --- | --- | --- | --- |")
    for m in chosen:
        killed, note, _ = results[m.name]
        print(f"| {m.name} | {m.file.removeprefix('benchlib/')} | {_edit(m)} | "
              f"{'`' + note + '`' if killed else '**survived**'} |")
    survivors = [m.name for m in chosen if not results[m.name][0]]
    print(f"\n{len(chosen) - len(survivors)} of {len(chosen)} killed "
          f"({time.monotonic() - t0:.0f} s, {args.jobs} at a time)"
          + (f"; survived: {', '.join(survivors)}" if survivors else ""))
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
