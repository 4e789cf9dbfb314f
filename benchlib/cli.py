"""The ``benchlib`` command.

    benchlib list [--json]
    benchlib run NAME [-p KEY=VALUE ...] [--profile P] [--samples N] [--json] [--save [DIR]]
    benchlib info [--json]
    benchlib results [DIR] [--json]
    benchlib memory [--profile P] [--json] [--csv FILE]
    benchlib fit-memory FILE [--json] [--clock-ghz G]   (our CSV, multichase-style CSV,
                                                       or lat_mem_rd text output)

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


def cmd_run(args) -> int:
    from .harness import expand_grid, get_profile, run
    from .registry import get_benchmark
    from .store import save_results

    bench = get_benchmark(args.name)
    get_profile(args.profile)
    points = expand_grid(_parse_kv(args.param))
    for p in points:  # validate every point before measuring any
        bench.resolve(p)
    for p in points:
        r = run(args.name, p, profile=args.profile, n_samples=args.samples)
        if args.save is not None:
            save_results([r], args.save)
        if args.json:
            d = r.to_dict() if args.all else {"benchmark": r.benchmark, "params": r.params,
                                               **r.summary(), "samples": r.samples,
                                               "placement": r.placement, "extras": r.extras}
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

    p = sub.add_parser("results", help="show stored results")
    p.add_argument("dir", nargs="?", default="results")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_results)
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
