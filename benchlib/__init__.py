"""benchlib: operating-system and hardware microbenchmarks.

Every timed loop is in C (``benchlib/csrc``); Python configures, calls and
analyses.  Start with::

    import benchlib
    r = benchlib.run("syscall", op="getpid")
    r.median, r.unit, r.samples
    df = benchlib.sweep("mem_latency", {"size_bytes": [4096, 1 << 20]}, stride_bytes=64)
"""
__version__ = "0.1.0"

from .errors import BenchlibError, MeasurementError  # noqa: E402
from .harness import PROFILES, Result, run, sweep  # noqa: E402
from .metadata import machine_info  # noqa: E402
from .registry import get_benchmark, list_benchmarks  # noqa: E402
from .store import load_results, save_results  # noqa: E402

from . import benchmarks as _benchmarks  # noqa: E402,F401  (registers them)

__all__ = [
    "BenchlibError", "MeasurementError", "PROFILES", "Result", "run", "sweep",
    "machine_info", "get_benchmark", "list_benchmarks", "load_results", "save_results",
]
