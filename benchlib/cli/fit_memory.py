"""``benchlib fit-memory``: fit levels to a saved latency curve."""
from __future__ import annotations

import json

from benchlib.cli.memory import _print_fit


def add_parser(sub) -> None:
    p = sub.add_parser("fit-memory", help="fit levels to a latency curve: our CSV, a "
                       "multichase-style CSV, or lat_mem_rd text output")
    p.add_argument("file")
    p.add_argument("--json", action="store_true")
    p.add_argument("--clock-ghz", type=float, default=None, help="to give latencies in cycles")
    p.add_argument("--stride-bytes", type=int, default=None, help="fit this stride's curve")
    p.set_defaults(func=cmd_fit_memory)


def cmd_fit_memory(args) -> int:
    from benchlib.memory.curve_readers import read_curve_file
    from benchlib.memory.fit import fit_memory

    df = read_curve_file(args.file)
    fit = fit_memory(df, clock_ghz=args.clock_ghz, stride_bytes=args.stride_bytes)
    if args.json:
        print(json.dumps(fit.to_dict(), default=float, indent=1))
    else:
        _print_fit(fit)
    return 0
