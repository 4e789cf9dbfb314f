"""benchlib: operating-system and hardware microbenchmarks.

Every timed loop is in C (``benchlib/csrc``); Python configures, calls and
analyses.  Start with::

    import benchlib
    r = benchlib.run("syscall", op="getpid")
    r.median, r.unit, r.samples
    df = benchlib.sweep("mem_latency", {"size_bytes": [4096, 1 << 20]}, stride_bytes=64)
"""
from benchlib._version import __version__  # noqa: F401

# The public names load on first use (PEP 562), so that the measuring worker
# (benchlib.measuring.worker), which imports this package, loads neither numpy nor
# pandas and so starts no thread pool.
_PUBLIC = {
    "BenchlibError": "benchlib.errors", "MeasurementError": "benchlib.errors",
    "PROFILES": "benchlib.measuring.profiles", "Result": "benchlib.measuring.result",
    "run": "benchlib.measuring.harness", "sweep": "benchlib.measuring.harness",
    "machine_info": "benchlib.measuring.metadata",
    "get_benchmark": "benchlib.measuring.registry", "list_benchmarks": "benchlib.measuring.registry",
    "load_results": "benchlib.results.store", "save_results": "benchlib.results.store",
    "Recorder": "benchlib.results.store",
    "compare": "benchlib.results.compare",
    "measure_hierarchy": "benchlib.memory.measure", "fit_memory": "benchlib.memory.fit",
}
__all__ = list(_PUBLIC)

from benchlib.measuring import benchmarks as _benchmarks  # noqa: E402,F401  (registers them; light)


def __getattr__(name):
    if name in _PUBLIC:
        import importlib

        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'benchlib' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
