"""``benchlib info``: this machine's description."""
from __future__ import annotations

import json


def add_parser(sub) -> None:
    p = sub.add_parser("info", help="this machine's description")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_info)


def cmd_info(args) -> int:
    from benchlib.measuring.metadata import machine_info

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
