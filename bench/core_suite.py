"""The core benchmarks, one parameter set each row: the set the A/A test
data (tests/data/compare/) and bench/adaptive_sampling.py measure.

    flock /work/cpu.lock .venv/bin/python bench/core_suite.py OUT.json [--profile quick]

records one run of the whole set to a result file (benchlib.results.resultfile);
with ``--twice OUT_B`` every benchmark is measured twice back to back, the
first into OUT, the second into OUT_B: an A/A pair taken under the same
conditions (the recorded pair in tests/data/compare/).  With ``--rounds N``
the whole set is measured N times, each round in a new random order (and,
with ``--twice``, A or B first at random), so that each benchmark's runs
spread over the session; ``benchlib compare OUT OUT_B --paired`` then pairs
the k-th runs (docs/comparing.md, "Interleaved rounds")."""
from __future__ import annotations

import argparse
import random
import sys

CORE = [
    ("syscall", {"op": "getpid"}),
    ("syscall", {"op": "getppid"}),
    ("syscall", {"op": "write"}),
    ("syscall", {"op": "read"}),
    ("syscall", {"op": "stat"}),
    ("syscall", {"op": "fstat"}),
    ("pipe_latency", {"placement": "same_cpu"}),
    ("pipe_latency", {"placement": "different_cpus"}),
    ("bcopy", {"size_bytes": "16k"}),
    ("bcopy", {"size_bytes": "1M"}),
    ("bcopy", {"size_bytes": "64M"}),
    ("mem_latency", {"size_bytes": "16k"}),
    ("mem_latency", {"size_bytes": "1M"}),
    ("mem_latency", {"size_bytes": "64M", "pattern": "random"}),
    ("context_switch", {"processes": 2}),
    ("context_switch", {"processes": 8, "process_kb": 16}),
    ("process_creation", {"op": "fork_exit"}),
    ("fs_create_delete", {"file_bytes": 0}),
    ("fs_create_delete", {"file_bytes": "10k"}),
    ("ipc_latency", {"transport": "tcp"}),
    ("ipc_latency", {"transport": "unix"}),
    ("signal_latency", {"op": "install"}),
    ("signal_latency", {"op": "deliver"}),
    ("cpu_clock", {}),
]


def label(name: str, params: dict) -> str:
    return " ".join([name, *(f"{k}={v}" for k, v in params.items())])


def main(argv=None) -> int:
    import benchlib
    from benchlib.results import resultfile

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="result file to write")
    ap.add_argument("--profile", default="quick")
    ap.add_argument("--twice", metavar="OUT_B", help="measure each twice; the second into OUT_B")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure the whole set this many times, each round in a new random "
                         "order, so that each benchmark's runs spread over the whole session "
                         "(compare pools them: two-level bootstrap)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the rounds' order")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    rng = random.Random(args.seed)
    outs = [args.out] + ([args.twice] if args.twice else [])
    done: list[list] = [[] for _ in outs]
    for _ in range(args.rounds):
        order = list(CORE) if args.rounds == 1 else rng.sample(CORE, len(CORE))
        for name, params in order:
            # several rounds of an interleaved pair: which side goes first is
            # drawn every time, so that an order effect (the second of two
            # back-to-back runs finding the other CPU awake) favours neither
            sides = list(zip(outs, done))
            if args.rounds > 1 and rng.random() < 0.5:
                sides.reverse()
            for out, kept in sides:
                r = benchlib.run(name, params, profile=args.profile)
                print(r, flush=True)
                kept.append(r)
        for out, kept in zip(outs, done):   # once a round: the file is whole at every step
            resultfile.write(out, kept)
    return 0


if __name__ == "__main__":
    sys.exit(main())
