"""The ``benchlib`` command.

    benchlib list [--json]
    benchlib run NAME [-p KEY=VALUE ...] [--profile P] [--samples N] [--target-ci F]
                 [--time-cap S] [--json] [--save [DIR]] [--output FILE]
    benchlib compare A [B] [--margin M] [--pair SPEC_A SPEC_B] [--self-check] [--cycles] [--paired] [--json] [--plot PNG]
    benchlib export SOURCE [--csv FILE] [--samples] [--json FILE]
    benchlib info [--json]
    benchlib results [DIR] [--json]
    benchlib memory [--profile P] [--json] [--csv FILE]
    benchlib fit-memory FILE [--json] [--clock-ghz G]   (our CSV, multichase-style CSV,
                                                       or lat_mem_rd text output)
    benchlib db import PATH... [--db URL] | benchlib db list [--db URL] [--json]

A value with commas (``-p size_bytes=4k,64k,1M``) runs every combination.
Bad input prints one line naming the valid choices and exits 2; Ctrl-C
exits 130 after the C side has stopped and reaped its helper processes.
"""
from __future__ import annotations

import argparse
import json
import sys

from .errors import BenchlibError, MeasurementError

EXIT_USAGE = 2
EXIT_MEASUREMENT = 1
EXIT_INTERRUPTED = 130


def _parse_kv(items: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in items or []:
        if "=" not in item:
            raise BenchlibError(f"parameters are KEY=VALUE; got {item!r}")
        k, v = item.split("=", 1)
        k = k.strip()
        if not k:
            raise BenchlibError(f"parameters are KEY=VALUE; got {item!r}")
        out[k] = [x.strip() for x in v.split(",")] if "," in v else [v.strip()]
    return out


def cmd_list(args) -> int:
    from .registry import list_benchmarks

    benches = list_benchmarks()
    if args.json:
        print(json.dumps([b.describe() for b in benches], indent=2))
        return 0
    for b in benches:
        print(f"{b.name}  [{b.unit}]  {b.description}")
        if b.counts:
            print(f"    counts: {b.counts}")
        for p in b.params:
            allowed = ""
            if p.choices:
                allowed = f" one of {{{', '.join(p.choices)}}}"
            elif p.min is not None or p.max is not None:
                lo = "" if p.min is None else f"{p.min:g}"
                hi = "" if p.max is None else f"{p.max:g}"
                allowed = f" in [{lo or '-inf'}, {hi or 'inf'}]"
            print(f"    {p.name}={p.default!s:<10} {p.kind}{allowed}: {p.help}")
    return 0


def unstable_line(r) -> str:
    """One line saying why a result is not to be trusted."""
    params = " ".join(f"{k}={v}" for k, v in r.params.items())
    return (f"{r.benchmark} {params}: unstable ({'; '.join(r.diagnostics['unstable_detail'])}); "
            "rerun on a quieter machine or with more samples")


def cmd_run(args) -> int:
    from .harness import adaptive_profile, expand_grid, get_profile, run
    from .registry import get_benchmark
    from .store import save_results

    from . import resultfile

    bench = get_benchmark(args.name)
    get_profile(args.profile)
    adaptive_profile(args.profile, args.target_ci, args.time_cap)  # checks both
    points = expand_grid(_parse_kv(args.param))
    for p in points:  # validate every point before measuring any
        bench.resolve(p)
    done = []
    for p in points:
        r = run(args.name, p, profile=args.profile, n_samples=args.samples,
                target_rel_ci=args.target_ci, time_cap_s=args.time_cap)
        done.append(r)
        if args.save is not None:
            save_results([r], args.save)
        if args.output:
            resultfile.write(args.output, done)
        if r.diagnostics.get("stable") is False:
            print(f"benchlib: warning: {unstable_line(r)}", file=sys.stderr, flush=True)
        if args.json:
            d = r.to_dict() if args.all else {"benchmark": r.benchmark, "params": r.params,
                                               **r.summary(), "samples": r.samples,
                                               "placement": r.placement, "extras": r.extras,
                                               "diagnostics": r.diagnostics}
            print(json.dumps(d, default=float), flush=True)
        else:
            print(r, flush=True)
    return 0


def cmd_info(args) -> int:
    from .metadata import machine_info

    info = machine_info()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    for k, v in info.items():
        if k == "caches":
            for c in v:
                print(f"{'cache':>22}: L{c['level']} {c['type']:<11} {c['size_bytes']:>10,} B, "
                      f"line {c['line_bytes']} B")
        else:
            print(f"{k:>22}: {v}")
    return 0


def cmd_results(args) -> int:
    from .store import load_results

    df = load_results(args.dir)
    if df.empty:
        print(f"no results under {args.dir}", file=sys.stderr)
        return 0
    if args.json:
        print(df.drop(columns=["record"]).to_json(orient="records", indent=1))
    else:
        cols = [c for c in df.columns if c not in ("record",) and not c.startswith("machine.")]
        print(df[cols + ["machine.hostname"]].to_string(index=False))
    return 0


def cmd_compare(args) -> int:
    from . import compare as bc

    if args.paired and (args.self_check or args.pair):
        raise BenchlibError("--paired compares A and B round by round; it does not combine with "
                            "--self-check or --pair")
    if args.self_check:
        if args.b is not None:
            raise BenchlibError("--self-check takes one source (it compares each result's halves)")
        df = bc.self_check(args.a, args.margin, cycles=args.cycles)
    elif args.pair:
        df = bc.compare_pair(args.a, args.pair[0], args.b or args.a, args.pair[1], args.margin,
                             cycles=args.cycles)
    else:
        if args.b is None:
            raise BenchlibError("compare needs two sources, A and B (or --self-check A)")
        df = bc.compare(args.a, args.b, args.margin, cycles=args.cycles, paired=args.paired)
    if df.empty:
        raise BenchlibError("no benchmark with the same parameters in both A and B")
    summ = bc.summary(df)
    if args.plot:
        fig = bc.plot_compare(df)
        try:
            fig.savefig(args.plot, dpi=120, bbox_inches="tight")
        except OSError as exc:
            raise BenchlibError(f"cannot write {args.plot}: {exc.strerror}") from None
    if args.json:
        print(json.dumps({"summary": summ, "only_a": df.attrs.get("only_a", []),
                          "only_b": df.attrs.get("only_b", []),
                          "rows": json.loads(df.to_json(orient="records"))}, indent=1))
        return 0
    show = df.assign(interval=[f"[{lo:.3f}, {hi:.3f}]" for lo, hi in
                               zip(df["ratio_ci95_lo"], df["ratio_ci95_hi"])])
    cols = ["benchmark", "params", "median_a", "median_b", "unit", "ratio", "interval",
            "p_value", "verdict"]
    with __import__("pandas").option_context("display.width", 200, "display.max_colwidth", 60,
                                             "display.float_format", "{:.4g}".format):
        print(show[cols].to_string(index=False))
    print(f"\n{summ['compared']} compared at margin {100 * args.margin:g}%: "
          f"{summ['no difference']} no difference ({100 * summ['no_difference_fraction']:.0f}%), "
          f"{summ['faster']} faster, {summ['slower']} slower, {summ['inconclusive']} inconclusive "
          + ("(B against A; ratio = median over rounds of median B / median A, 95% bootstrap "
             "interval over rounds" if summ["paired_rows"] else
             "(B against A; ratio = median B / median A, 95% bootstrap interval")
          + ("; samples clock-normalised" if args.cycles else "") + ")")
    if args.paired and summ["paired_rows"] < summ["compared"]:
        print(f"{summ['compared'] - summ['paired_rows']} compared unpaired (unequal or too few "
              "rounds; see note)")
    if summ["stable_on_both_sides"] and summ["stable_on_both_sides"] < summ["compared"]:
        print(f"of the {summ['stable_on_both_sides']} stable on both sides: "
              f"{100 * summ['no_difference_fraction_stable']:.0f}% no difference")
    if summ["differing_with_an_unstable_side"]:
        print(f"{summ['differing_with_an_unstable_side']} of the {summ['faster'] + summ['slower']} "
              "differences involve a result flagged unstable (see --json, note)")
    for side in ("only_a", "only_b"):
        if df.attrs.get(side):
            print(f"{len(df.attrs[side])} only in {side[-1].upper()} (not compared)")
    return 0


def cmd_export(args) -> int:
    from . import resultfile
    from .store import load_results

    if not args.csv and not args.json:
        raise BenchlibError("export needs --csv FILE (or -) and/or --json FILE")
    recs = resultfile.load_records(args.source)
    if not recs:
        raise BenchlibError(f"no results in {args.source}")
    if args.json:
        resultfile.write(args.json, recs)
    if args.csv:
        import pandas as pd

        if args.samples:
            df = pd.DataFrame([{"benchmark": r["benchmark"], **r["params"], "unit": r["unit"],
                                "timestamp": r["timestamp"], "sample": i, "value": x}
                               for r in recs for i, x in enumerate(r["samples"])])
        else:
            df = load_results(args.source).drop(columns=["record"])
            diag = pd.DataFrame([{"median_ci95_lo": r["diagnostics"]["median_ci95"][0],
                                  "median_ci95_hi": r["diagnostics"]["median_ci95"][1],
                                  "unstable_reasons": " ".join(r["diagnostics"]["unstable_reasons"]),
                                  "git_commit": r["provenance"].get("git_commit")}
                                 for r in resultfile.load_records(args.source)])
            df = pd.concat([df, diag], axis=1)
        try:
            df.to_csv(sys.stdout if args.csv == "-" else args.csv, index=False)
        except OSError as exc:
            raise BenchlibError(f"cannot write {args.csv}: {exc.strerror}") from None
    return 0


def _print_fit(fit, comparison=None, tlb=None, shared=None) -> None:
    print(fit.table().to_string(index=False))
    print(f"line size: {fit.line_size_bytes} bytes" if fit.line_size_bytes else "line size: not found")
    for t in tlb if tlb is not None else fit.tlb:
        rep = t.get("reported_entries")
        print(f"TLB level {t['level']}: {t['entries']:.0f} entries (4 KiB pages; the CPU reports "
              f"{rep if rep is not None else 'nothing'}), reach {t['reach_bytes'] / 2**20:.2f} MiB, "
              f"miss penalty {t['miss_penalty_ns']:.1f} ns")
    for note in fit.notes:
        print(f"note: {note}")
    if shared:
        print(f"last level {shared['level']}: effective {shared['effective_bytes'] / 2**20:.2f} MiB "
              f"at {shared['latency_ns']:.1f} ns; sysfs L{shared['sysfs_level']} "
              f"{shared['sysfs_bytes'] / 2**20:.0f} MiB shared by CPUs {shared['shared_cpu_list']}; "
              f"per pass: " + ", ".join("?" if v is None else f"{v / 2**20:.2f} MiB"
                                      for v in shared["passes_sizes"])
              + (f"; {shared['reason']}" if shared["reason"] else ""))
    if comparison is not None and not comparison.empty:
        print("\nfitted against sysfs:")
        print(comparison.to_string(index=False))


def cmd_memory(args) -> int:
    from .memory import measure_hierarchy

    m = measure_hierarchy(args.profile, progress=not args.json and sys.stderr.isatty())
    if args.csv:
        m.latency.to_csv(args.csv, index=False)
    if args.json:
        print(json.dumps(m.to_dict(), default=float, indent=1))
    else:
        d = m.to_dict()
        _print_fit(m.fit, m.comparison, tlb=d["tlb"], shared=d["shared_last_level"])
        print(f"\nmeasured and fitted in {m.elapsed_s:.1f} s (profile {m.profile})")
    return 0


def cmd_fit_memory(args) -> int:
    from .analysis.curve_readers import read_curve_file
    from .analysis.memory_fit import fit_memory

    df = read_curve_file(args.file)
    fit = fit_memory(df, clock_ghz=args.clock_ghz, stride_bytes=args.stride_bytes)
    if args.json:
        print(json.dumps(fit.to_dict(), default=float, indent=1))
    else:
        _print_fit(fit)
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="benchlib", description=__doc__.split("\n\n")[0].strip(),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action="store_true", help="print the version and exit")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("list", help="every benchmark, its parameters and its unit")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("run", help="run a benchmark")
    p.add_argument("name")
    p.add_argument("-p", "--param", action="append", metavar="KEY=VALUE",
                   help="a parameter; commas give a list to sweep (repeatable)")
    p.add_argument("--profile", default="quick", help="smoke, quick (default) or full")
    p.add_argument("--samples", type=int, default=None, help="timed samples (overrides the profile)")
    p.add_argument("--target-ci", type=float, default=None, metavar="F",
                   help="adaptive: sample until the 95%% interval of the median is within F of it "
                        "(e.g. 0.03)")
    p.add_argument("--time-cap", type=float, default=None, metavar="S",
                   help="adaptive: stop sampling after S seconds (default 30)")
    p.add_argument("--output", metavar="FILE", help="also write a result file (JSON) here")
    p.add_argument("--json", action="store_true", help="one JSON object per result")
    p.add_argument("--all", action="store_true", help="with --json: include machine metadata")
    p.add_argument("--save", nargs="?", const="results", default=None, metavar="DIR",
                   help="append results to the store under DIR (default results/)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("info", help="this machine's description")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("memory", help="measure the memory hierarchy and fit its levels")
    p.add_argument("--profile", default="quick", choices=("smoke", "quick", "full"))
    p.add_argument("--json", action="store_true")
    p.add_argument("--csv", metavar="FILE", help="also write the latency table here")
    p.set_defaults(func=cmd_memory)

    p = sub.add_parser("fit-memory", help="fit levels to a latency curve: our CSV, a "
                       "multichase-style CSV, or lat_mem_rd text output")
    p.add_argument("file")
    p.add_argument("--json", action="store_true")
    p.add_argument("--clock-ghz", type=float, default=None, help="to give latencies in cycles")
    p.add_argument("--stride-bytes", type=int, default=None, help="fit this stride's curve")
    p.set_defaults(func=cmd_fit_memory)

    p = sub.add_parser("compare", help="is B faster than A? ratios, intervals and verdicts")
    p.add_argument("a", metavar="A", help="result file, store file or directory")
    p.add_argument("b", metavar="B", nargs="?", help="result file, store file or directory")
    p.add_argument("--margin", type=float, default=0.05,
                   help="differences within this fraction count as no difference (default 0.05)")
    p.add_argument("--pair", nargs=2, metavar=("SPEC_A", "SPEC_B"),
                   help="compare two named results, e.g. 'pipe_latency placement=same_cpu' "
                        "'pipe_latency placement=different_cpus' (B defaults to A)")
    p.add_argument("--self-check", action="store_true",
                   help="A/A: each result's even samples against its odd samples")
    p.add_argument("--cycles", action="store_true",
                   help="compare clock-normalised samples (times in cycles, rates per GHz): "
                        "the host moving the core clock between runs does not count")
    p.add_argument("--paired", action="store_true",
                   help="A and B were measured interleaved, round by round (bench/core_suite.py "
                        "A --twice B --rounds N): pair each benchmark's k-th runs")
    p.add_argument("--json", action="store_true")
    p.add_argument("--plot", metavar="PNG", help="write the ratios figure here")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("export", help="results as CSV or as one result file")
    p.add_argument("source", help="result file, store file or directory")
    p.add_argument("--csv", metavar="FILE", help="one row per result (- for stdout)")
    p.add_argument("--samples", action="store_true", help="with --csv: one row per sample")
    p.add_argument("--json", metavar="FILE", help="write one result file (schema v1)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("results", help="show stored results")
    p.add_argument("dir", nargs="?", default="results")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_results)

    from .db.command import add_parser as add_db_parser
    add_db_parser(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.version:
        from . import __version__
        print(__version__)
        return 0
    if not args.command:
        ap.print_help()
        return EXIT_USAGE
    try:
        return args.func(args)
    except BenchlibError as exc:
        print(f"benchlib: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except MeasurementError as exc:
        print(f"benchlib: measurement failed: {exc}", file=sys.stderr)
        return EXIT_MEASUREMENT
    except KeyboardInterrupt:
        print("benchlib: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `benchlib list | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
