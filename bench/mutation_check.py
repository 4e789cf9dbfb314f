"""Mutation check: do the unit tests notice a wrong answer?

For each core function (fits, normalisations, table joins, the harness's
statistics) the function is replaced by one that returns a plausible wrong
value (10% off, a row or region dropped, the mean for the median), and the
tests that cover it are run.  A mutant that no test kills marks a function
whose tests cannot fail.  Each mutant runs in its own interpreter, so the
patch never leaks.

    python bench/mutation_check.py            # every mutant, a table at the end
    python bench/mutation_check.py --list     # the mutants and their tests
    python bench/mutation_check.py NAME ...   # some of them

Exit status 1 if a mutant survives, or if the tests fail unmutated.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- wrong answers

def perturb(value, factor: float = 1.1):
    """A plausible wrong value of the same type: numbers 10% off, numeric
    columns and arrays 10% off, lists one element short."""
    import numpy as np
    import pandas as pd

    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, np.number)):
        return type(value)(value * factor) if not isinstance(value, int) else value + 1
    if isinstance(value, np.ndarray):
        return value * factor
    if isinstance(value, pd.Series):
        return value * factor if pd.api.types.is_numeric_dtype(value) else value
    if isinstance(value, pd.DataFrame):
        out = value.copy()
        for c in out.columns:
            if pd.api.types.is_float_dtype(out[c]):
                out[c] = out[c] * factor
        return out
    if isinstance(value, list):
        return value[:-1]
    if isinstance(value, tuple):
        return tuple(perturb(v, factor) for v in value)
    if isinstance(value, dict):  # every float 10% off, the rest as it was
        return {k: v * factor if isinstance(v, float) else v for k, v in value.items()}
    if dataclasses.is_dataclass(value):  # every numeric field 10% off
        return dataclasses.replace(value, **{
            f.name: perturb(getattr(value, f.name), factor) for f in dataclasses.fields(value)
            if isinstance(getattr(value, f.name), float)})
    raise TypeError(f"no mutation for a {type(value).__name__}")


def drop_last_row(df):
    return df.iloc[:-1]


def line_x2(found: dict) -> dict:
    """A line-size reading one power of two off (twice the line)."""
    return {**found, "line": None if found.get("line") is None else 2 * found["line"]}


@dataclass(frozen=True)
class Mutant:
    name: str
    target: str              # "module:attribute" or "module:Class.property"
    how: str                 # "perturb", "drop_last_row", "mean_for_median", "spread_x1.5", "line_x2"
    tests: tuple[str, ...]


# name, "module:attribute", how, the tests that cover it (paths under tests/)
_TABLE = [
    ("mips_relative", "benchlib.papers.ousterhout1990.paper:mips_relative", "perturb",
     "papers/test_ousterhout1990.py papers/test_ousterhout1990_measure.py"),
    ("vax_mips", "benchlib.papers.mips:vax_mips", "perturb",
     "papers/test_ousterhout1990.py papers/test_ousterhout1990_measure.py"),
    ("implied_mips", "benchlib.papers.ousterhout1990.paper:implied_mips", "perturb",
     "papers/test_ousterhout1990.py"),
    ("normalized_to_best", "benchlib.papers.laibaker1996.paper:normalized_to_best", "perturb",
     "papers/test_laibaker1996.py papers/test_laibaker1996_measure.py"),
    ("vax780_ms", "benchlib.papers.mach1989.paper:vax780_ms", "perturb",
     "papers/test_mach1989.py papers/test_mach1989_measure.py"),
    ("beside_paper (table join)", "benchlib.papers:beside_paper", "drop_last_row",
     "papers/test_tables.py"),
    ("find_regions", "benchlib.analysis.self_scaling_model:find_regions", "perturb",
     "papers/test_chen1994_measure.py"),
    ("halfway_point", "benchlib.analysis.self_scaling_model:halfway_point", "perturb",
     "papers/test_chen1994_measure.py"),
    ("relative_error", "benchlib.analysis.self_scaling_model:relative_error", "perturb",
     "papers/test_chen1994_measure.py"),
    ("accuracy_table", "benchlib.analysis.self_scaling_model:accuracy_table", "perturb",
     "papers/test_chen1994_measure.py"),
    ("normalised_ipc", "benchlib.papers.mach1989.measure:normalised_ipc", "perturb",
     "papers/test_mach1989_measure.py"),
    ("Result.median", "benchlib.measuring.harness:Result.median", "mean_for_median", "test_harness.py"),
    ("Result.rel_iqr", "benchlib.measuring.harness:Result.rel_iqr", "spread_x1.5",
     "test_harness.py test_cli.py"),
    ("parse_size", "benchlib.measuring.registry:parse_size", "perturb", "test_registry.py"),
    ("bootstrap_median_ci", "benchlib.stats.summary:bootstrap_median_ci", "perturb",
     "test_stats_compare.py"),
    ("mann_whitney_p", "benchlib.stats.summary:mann_whitney_p", "perturb",
     "test_stats_compare.py"),
    ("fit_exponent (then and now)", "benchlib.analysis.scaling:fit_exponent", "perturb",
     "test_scaling.py"),
    ("read_pairs (line size)", "benchlib.memory.line_tlb:read_pairs", "line_x2",
     "memory/test_line_tlb.py"),
    ("read_strides (line size)", "benchlib.memory.line_tlb:read_strides", "line_x2",
     "memory/test_line_tlb.py"),
    ("kept_fraction (cache model)", "benchlib.memory.cache_model:kept_fraction", "perturb",
     "memory/test_cache_model.py"),
    ("kept by a random walk", "benchlib.memory.cache_model:_kept_walk", "perturb",
     "memory/test_walk.py"),
    ("fit_walk (size from the walk)", "benchlib.memory.cache_model:fit_walk", "perturb",
     "memory/test_walk.py"),
    ("compare_paired (rounds)", "benchlib.results.compare:compare_paired", "perturb",
     "test_compare_paired.py"),
]
MUTANTS = [Mutant(name, target, how, tuple(f"tests/{t}" for t in tests.split()))
           for name, target, how, tests in _TABLE]


def apply(mutant: Mutant) -> None:
    """Patch the target in this interpreter (before the tests import it)."""
    module_name, attr = mutant.target.split(":")
    module = importlib.import_module(module_name)
    owner, _, name = attr.rpartition(".")
    holder = getattr(module, owner) if owner else module
    original = getattr(holder, name) if not owner else holder.__dict__[name]

    if mutant.how == "mean_for_median":
        import numpy as np
        setattr(holder, name, property(lambda self: float(np.mean(self.samples))))
        return
    if mutant.how == "spread_x1.5":
        setattr(holder, name, property(lambda self: original.fget(self) * 1.5))
        return
    wrong = {"perturb": perturb, "drop_last_row": drop_last_row, "line_x2": line_x2}[mutant.how]

    def mutated(*args, **kwargs):
        return wrong(original(*args, **kwargs))
    mutated.__name__ = getattr(original, "__name__", name)
    setattr(holder, name, mutated)


def run_one(mutant: Mutant | None, tests: tuple[str, ...]) -> tuple[bool, str, float]:
    """(tests passed, first failing test or error, seconds)."""
    code = ("import sys; sys.path.insert(0, 'bench'); import mutation_check as m\n"
            f"mut = {repr(mutant.name) if mutant else None}\n"
            "if mut: m.apply(next(x for x in m.MUTANTS if x.name == mut))\n"
            "import pytest\n"
            f"sys.exit(pytest.main(['-q', '-x', '-rf', '-p', 'no:cacheprovider', '-m', 'not notebook', "
            f"*{list(tests)!r}]))\n")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    failed = [line.split()[1] for line in p.stdout.splitlines() if line.startswith("FAILED")]
    note = failed[0] if failed else (p.stdout.strip().splitlines() or [""])[-1]
    return p.returncode == 0, note, time.monotonic() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="mutants to run (default: all)")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]
    if args.list or not chosen:
        for m in MUTANTS:
            print(f"{m.name:28} {m.target:55} {m.how:16} {' '.join(m.tests)}")
        return 0 if chosen or args.list else 2
    every = tuple(sorted({t for m in chosen for t in m.tests}))
    ok, note, dt = run_one(None, every)
    print(f"unmutated: {'pass' if ok else 'FAIL ' + note} ({dt:.0f} s)", flush=True)
    if not ok:
        return 1
    rows = []
    for m in chosen:
        passed, note, dt = run_one(m, m.tests)
        rows.append((m, not passed, note, dt))
        print(f"  {m.name:28} {'killed' if not passed else 'SURVIVED'} ({dt:.0f} s) {note}",
              flush=True)
    print("\n| function | mutation | tests run | killed by |")
    print("| --- | --- | --- | --- |")
    for m, killed, note, _ in rows:
        print(f"| `{m.target}` | {m.how} | {', '.join(Path(t).name for t in m.tests)} | "
              f"{note if killed else '**survived**'} |")
    survivors = [m.name for m, killed, _, _ in rows if not killed]
    print(f"\n{len(rows) - len(survivors)} of {len(rows)} mutants killed"
          + (f"; survived: {', '.join(survivors)}" if survivors else ""))
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
