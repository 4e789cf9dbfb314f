"""``benchlib memory``: measure the memory hierarchy and fit its levels
(plan -> measure -> the one fit, ``benchlib.memory.fit.fit_memory``)."""
from __future__ import annotations

import json
import sys
import time


def add_parser(sub) -> None:
    p = sub.add_parser("memory", help="measure the memory hierarchy and fit its levels")
    p.add_argument("--profile", default="quick", choices=("smoke", "quick", "full"))
    p.add_argument("--json", action="store_true")
    p.add_argument("--csv", metavar="FILE", help="also write the latency table here")
    p.add_argument("--save", metavar="DIR",
                   help="also save everything the fit used (every chase, the clock, the "
                        "machine's reports) in DIR: `benchlib fit-memory DIR` fits it again")
    p.set_defaults(func=cmd_memory)


def print_result(r) -> None:
    """A :class:`benchlib.memory.hierarchy.MemoryResult` in words (both
    ``benchlib memory`` and ``benchlib fit-memory``)."""
    d = r.to_dict()
    print(r.fit.table().to_string(index=False))
    line = r.fit.line_size_bytes
    print(f"line size: {line} bytes" if line else "line size: not found")
    for t in d["tlb"]:
        rep = t.get("reported_entries")
        said = ("nothing recorded" if d["tlb_reported"] is None else
                rep if rep is not None else "nothing")
        print(f"TLB level {t['level']}: {t['entries']:.0f} entries (4 KiB pages; the CPU reports "
              f"{said}), reach {t['reach_bytes'] / 2**20:.2f} MiB, "
              f"miss penalty {t['miss_penalty_ns']:.1f} ns")
    for note in r.fit.notes:
        print(f"note: {note}")
    shared = d["shared_last_level"]
    if shared:
        print(f"last level {shared['level']}: effective {shared['effective_bytes'] / 2**20:.2f} MiB "
              f"at {shared['latency_ns']:.1f} ns; sysfs L{shared['sysfs_level']} "
              f"{shared['sysfs_bytes'] / 2**20:.0f} MiB shared by CPUs {shared['shared_cpu_list']}; "
              f"per pass: " + (", ".join("?" if v is None else f"{v / 2**20:.2f} MiB"
                                         for v in shared["passes_sizes"]) or "one pass")
              + (f"; {shared['reason']}" if shared["reason"] else ""))
    comparison = r.comparison
    if not comparison.empty:
        print("\nfitted against sysfs:")
        print(comparison.to_string(index=False))


def cmd_memory(args) -> int:
    from benchlib.memory.fit import fit_memory
    from benchlib.memory.measure import measure
    from benchlib.memory.hierarchy import MemoryResult

    data = measure(args.profile, progress=not args.json and sys.stderr.isatty())
    t0 = time.monotonic()
    r = MemoryResult(data, fit_memory(data))
    fitted_s = time.monotonic() - t0
    if args.csv:
        data.latency.to_csv(args.csv, index=False)
    if args.save:
        manifest = data.save(args.save)
        (manifest.parent / "result.json").write_text(
            json.dumps(r.to_dict(), default=float, indent=1))
    if args.json:
        print(json.dumps(r.to_dict(), default=float, indent=1))
    else:
        print_result(r)
        print(f"\nmeasured and fitted in {data.elapsed_s + fitted_s:.1f} s (the final fit "
              f"{fitted_s:.1f} s; profile {data.profile})")
        if args.save:
            print(f"saved in {args.save}: `benchlib fit-memory {args.save}` fits it again")
    return 0
