"""bench/fresh_buffer_ramp/ramp.py on simulated ramps with known answers
(structure and arithmetic; no live timing)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "fresh_buffer_ramp" / "ramp.py"
sys.path.insert(0, str(SCRIPT.parent))
import ramp  # noqa: E402


def _write(path, steps, passes=30, slow=26.0, fast=32.0, build=21.0):
    """One build a line: `slow` GB/s for steps[i] passes, then `fast`."""
    with open(path, "w") as f:
        for s in steps:
            speeds = [slow] * s + [fast] * (passes - s)
            f.write(f"build={build} " + " ".join(f"{v}/3.690" for v in speeds) + "\n")


def test_the_time_before_the_speed_holds_is_the_slow_passes_time(tmp_path):
    _write(tmp_path / "r.txt", [0, 4, 10])
    build, speeds, clocks = ramp.read(tmp_path / "r.txt")
    assert list(build) == [21.0] * 3 and clocks.shape == speeds.shape == (3, 30)
    ms = np.cumsum((64 << 20) / speeds / 1e6, axis=1)
    pass_ms = (64 << 20) / 26.0 / 1e6
    assert ramp.held_after_ms(speeds, ms) == pytest.approx([0.0, 4 * pass_ms, 10 * pass_ms])


def test_a_settle_past_the_ramp_leaves_no_bias_and_one_inside_it_does(tmp_path):
    _write(tmp_path / "r.txt", [10] * 5)
    _, speeds, _ = ramp.read(tmp_path / "r.txt")
    ms = np.cumsum((64 << 20) / speeds / 1e6, axis=1)
    build = np.full(5, 21.0)
    past = ramp.rule_report("12 passes", [12] * 5, speeds, ms, build)
    inside = ramp.rule_report("4 passes", [4] * 5, speeds, ms, build)
    assert "p50  +0.0 %" in past
    assert f"p50 {(26 / 32 - 1) * 100:+5.1f} %" in inside       # all six samples slow
    wall = 21.0 + ms[0, 12 + 6 - 1]
    assert f"wall p50 {wall:5.1f} ms" in past


def test_too_few_passes_is_a_clear_error(tmp_path):
    _write(tmp_path / "r.txt", [2], passes=10)
    r = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "r.txt")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "need 18" in r.stderr and "Traceback" not in r.stderr
