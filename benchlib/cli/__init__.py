"""The ``benchlib`` command.

    benchlib list [--json]
    benchlib run NAME [-p KEY=VALUE ...] [--profile P] [--samples N] [--target-ci F]
                 [--time-cap S] [--json] [--save [DIR]] [--output FILE]
    benchlib compare A [B] [--margin M] [--pair SPEC_A SPEC_B] [--self-check] [--cycles] [--paired] [--json] [--plot PNG]
    benchlib export SOURCE [--csv FILE] [--samples] [--json FILE]
    benchlib info [--json]
    benchlib results [DIR] [--json]
    benchlib memory [--profile P] [--json] [--csv FILE] [--save DIR]
    benchlib fit-memory FILE|DIR [--json] [--clock-ghz G] [--stride-bytes S] [--placement size|curve|run]
                                 (a directory from `memory --save`, our CSV,
                                 a multichase-style CSV, or lat_mem_rd text output)
    benchlib db import PATH... [--db URL] | benchlib db list [--db URL] [--json]

A value with commas (``-p size_bytes=4k,64k,1M``) runs every combination.
Bad input prints one line naming the valid choices and exits 2; Ctrl-C
exits 130 after the C side has stopped and reaped its helper processes.

One module per subcommand (``benchlib/cli/<subcommand>.py``), each with
``add_parser(sub)`` and the function it runs; this module builds the parser
from them and turns errors into one line and an exit code.

The top layer: may import every other; nothing imports it.  A subcommand
imports what it needs when it runs, so building the parser loads no
optional extra (``benchlib db`` without SQLAlchemy says which to install).
"""
from __future__ import annotations

import argparse
import sys

from benchlib.errors import BenchlibError, MeasurementError
from benchlib.cli import compare, db, export, fit_memory, info, memory, results, run
from benchlib.cli import list as list_  # the module of `benchlib list`; the builtin stays `list`
from benchlib.cli._common import EXIT_INTERRUPTED, EXIT_MEASUREMENT, EXIT_USAGE, unstable_line  # noqa: F401

SUBCOMMANDS = (list_, run, info, memory, fit_memory, compare, export, results, db)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="benchlib", description=__doc__.split("\n\n")[0].strip(),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action="store_true", help="print the version and exit")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.add_parser(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.version:
        from benchlib._version import __version__
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
