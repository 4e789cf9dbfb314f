"""``benchlib memory``: measure the memory hierarchy and fit its levels."""
from __future__ import annotations

import json
import sys


def add_parser(sub) -> None:
    p = sub.add_parser("memory", help="measure the memory hierarchy and fit its levels")
    p.add_argument("--profile", default="quick", choices=("smoke", "quick", "full"))
    p.add_argument("--json", action="store_true")
    p.add_argument("--csv", metavar="FILE", help="also write the latency table here")
    p.set_defaults(func=cmd_memory)


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
    from benchlib.memory.measure import measure_hierarchy

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
