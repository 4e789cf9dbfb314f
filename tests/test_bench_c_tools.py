"""The C tools under bench/ that docs/peers.md cites build and print what
their readers expect (structure only: tiny runs, no timing compared)."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
CC = os.environ.get("CC", "cc")
pytestmark = pytest.mark.skipif(shutil.which(CC) is None, reason="no C compiler")


def test_ramp_prints_a_build_time_and_a_speed_and_clock_a_pass(tmp_path):
    exe = tmp_path / "ramp"
    subprocess.run([CC, "-O2", "-Wall", "-Werror", f"-I{BENCH.parent / 'benchlib' / 'csrc'}",
                    "-o", exe, BENCH / "fresh_buffer_ramp/ramp.c"], check=True)
    for op in ("read", "write", "copy"):
        out = subprocess.run([exe, "2", "3", op], capture_output=True, text=True, check=True)
        lines = out.stdout.splitlines()
        assert len(lines) == 2
        for line in lines:
            build, *passes = line.split()
            assert build.startswith("build=") and float(build[6:]) > 0
            assert len(passes) == 3 and all(float(v) > 0 for p in passes for v in p.split("/"))
    bad = subprocess.run([exe, "1"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr


def test_read_loops_reports_each_loop_against_the_strided_one(tmp_path):
    exe = tmp_path / "read_loops"
    subprocess.run(["bash", BENCH / "build_parts.sh", BENCH / "read_loops/read_loops.c", exe],
                   check=True, env={**os.environ, "CC": CC})
    out = subprocess.run([exe, "2", "0"], capture_output=True, text=True, check=True)
    rows = [line.split() for line in out.stdout.splitlines()]
    assert [r[0] for r in rows] == ["dense", "stride16", "block32"]
    assert rows[1][-1] == "1.000"           # the strided loop against itself
