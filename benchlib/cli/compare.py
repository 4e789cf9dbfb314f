"""``benchlib compare``: is B faster than A? Ratios, intervals and verdicts."""
from __future__ import annotations

import json

from benchlib.errors import BenchlibError


def add_parser(sub) -> None:
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


def cmd_compare(args) -> int:
    from benchlib.results import compare as bc

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
        from benchlib.report.figures import compare_figure

        fig = compare_figure(df)
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
