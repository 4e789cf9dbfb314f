import json
import os
import subprocess
import sys

import pytest


def run_cli(*args, timeout=120, **kw):
    """The CLI as a user runs it, in a child interpreter."""
    return subprocess.run([sys.executable, "-m", "benchlib.cli", *args], capture_output=True,
                          text=True, timeout=timeout, **kw)


@pytest.fixture
def cli():
    return run_cli


def json_lines(text):
    return [json.loads(l) for l in text.splitlines() if l.strip()]


@pytest.fixture
def two_cpus():
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two CPUs")
    return cpus
