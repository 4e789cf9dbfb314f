"""``benchlib fit-memory``: the fit of ``benchlib memory``
(``benchlib.memory.fit.fit_memory``) on saved data: a directory that
``benchlib memory --save`` wrote, or one latency curve from any tool."""
from __future__ import annotations

import dataclasses
import json

from benchlib.cli.memory import print_result


def add_parser(sub) -> None:
    p = sub.add_parser("fit-memory", help="fit levels to saved data: a directory from "
                       "`benchlib memory --save`, our CSV, a multichase-style CSV, or "
                       "lat_mem_rd text output")
    p.add_argument("file", help="a directory saved by `benchlib memory --save` (or its "
                   "memory.json), or one curve file")
    p.add_argument("--json", action="store_true")
    p.add_argument("--clock-ghz", type=float, default=None,
                   help="the clock: latencies in cycles (default: the saved run's)")
    p.add_argument("--stride-bytes", type=int, default=None, help="fit this stride's curve")
    p.add_argument("--placement", choices=("size", "curve", "run"), default=None,
                   help="how the tool placed its array, for a sequential stride chase: a new "
                        "array for every size (size: lmbench3's lat_mem_rd, the default), "
                        "one array per stride whose prefixes are the sizes (curve), or one "
                        "array for every stride and size (run: lmbench 1.x and 2.x's "
                        "lat_mem_rd)")
    p.set_defaults(func=cmd_fit_memory)


def cmd_fit_memory(args) -> int:
    from benchlib.memory.curve_readers import read_input

    data = read_input(args.file)  # a file it cannot read is said before the fit's imports
    if args.placement:
        data = dataclasses.replace(data, latency=data.latency.assign(placement=args.placement))
    from benchlib.memory.fit import fit_memory
    from benchlib.memory.hierarchy import MemoryResult

    r = MemoryResult(data, fit_memory(data, clock_ghz=args.clock_ghz,
                                      stride_bytes=args.stride_bytes))
    if args.json:
        print(json.dumps(r.to_dict(), default=float, indent=1))
    else:
        print_result(r)
        print(f"\nfitted from {data.source}: {', '.join(data.inputs)}")
    return 0
