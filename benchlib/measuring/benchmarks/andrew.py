"""Registration for csrc/andrew.c: the Modified Andrew Benchmark on the
tree in benchlib/mab/tree."""
from __future__ import annotations

import os

from benchlib.profiles import setting
from benchlib.measuring.registry import Benchmark, Param, register
from benchlib.measuring.benchmarks.common import (CPU, DIRECTORY, _check_cpu_param, _encode, _fs_extras, _lib, phase_buffer,
                     phase_extras)


# ---------------------------------------------------------------- Andrew

MAB_TREE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "mab",
                        "tree")
MAB_PHASES = ("mkdir", "copy", "stat", "read", "compile")


def _measure_andrew(p, o, ns, tk, info):
    phases = phase_buffer(o, len(MAB_PHASES))  # one run is seconds long: no per-sample probe
    rc = _lib().bl_andrew(_encode(MAB_TREE), _encode(p["directory"]), p["copy"] == "cp",
                          o.n_samples, ns, phases, info)
    return rc, phase_extras(phases, MAB_PHASES, info.n_samples, 1e9, "phase_s", "phase_median_s")


register(Benchmark(
    name="andrew_benchmark",
    description="The Modified Andrew Benchmark: make directories, copy, stat, read and compile "
                "a 325 KiB C program (benchlib/mab/tree) with cc at fixed flags",
    unit="s",
    counts="seconds per whole run; per-phase times in extras (phase_s, phase_median_s)",
    params=(Param("copy", "choice", "cp", "cp: one /bin/cp per file, as the original; "
                  "inprocess: copied by benchlib itself", choices=("cp", "inprocess")),
            DIRECTORY, CPU),
    measure=_measure_andrew,
    to_unit=lambda ns, p: ns / 1e9,
    check=_check_cpu_param,
    extras=_fs_extras,
    n_samples_for=lambda p, prof: setting("andrew_benchmark.samples", prof),
))

