"""``benchlib list``: every registered benchmark, its parameters and its unit."""
from __future__ import annotations

import json


def add_parser(sub) -> None:
    p = sub.add_parser("list", help="every benchmark, its parameters and its unit")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)


def cmd_list(args) -> int:
    from benchlib.measuring.registry import list_benchmarks

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
                allowed = f" one of {{{', '.join(map(str, p.choices))}}}"
            elif p.min is not None or p.max is not None:
                lo = "" if p.min is None else f"{p.min:g}"
                hi = "" if p.max is None else f"{p.max:g}"
                allowed = f" in [{lo or '-inf'}, {hi or 'inf'}]"
            print(f"    {p.name}={p.default!s:<10} {p.kind}{allowed}: {p.help}")
    return 0
