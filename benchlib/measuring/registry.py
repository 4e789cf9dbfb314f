"""The benchmark registry: each benchmark is declared once, with its
parameters, unit and description; the API, the CLI and ``benchlib list``
all read it from here."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from benchlib.errors import BenchlibError
from benchlib.units import format_size, parse_size  # noqa: F401  (the one reader and writer of sizes)

@dataclass(frozen=True)
class Param:
    """One parameter.  kind: 'size' (bytes, suffixes allowed), 'int',
    'float', 'choice' or 'path' (an existing, writable directory)."""
    name: str
    kind: str
    default: Any
    help: str
    choices: tuple = ()
    min: float | None = None
    max: float | None = None

    def parse(self, value: Any) -> Any:
        if self.kind == "choice":
            if value in self.choices:
                return value
            # a choice of numbers takes its text too (the command line's -p loop_loads=100)
            same = [c for c in self.choices if not isinstance(c, str) and str(c) == str(value)]
            if not same:
                raise BenchlibError(
                    f"{self.name} must be one of {', '.join(map(str, self.choices))}; got {value!r}")
            return same[0]
        if self.kind == "path":
            return check_directory(value, self.name)
        if self.kind == "size":
            v = parse_size(value, self.name)
        elif self.kind == "int":
            try:
                v = int(str(value), 0) if isinstance(value, str) else int(value)
                if not isinstance(value, str) and v != value:
                    raise ValueError
            except (TypeError, ValueError):
                raise BenchlibError(f"{self.name} must be an integer; got {value!r}") from None
        elif self.kind == "float":
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise BenchlibError(f"{self.name} must be a number; got {value!r}") from None
        else:  # pragma: no cover - a registration error
            raise AssertionError(self.kind)
        if self.min is not None and v < self.min:
            raise BenchlibError(f"{self.name} must be >= {self.min:g}; got {value!r}")
        if self.max is not None and v > self.max:
            raise BenchlibError(f"{self.name} must be <= {self.max:g}; got {value!r}")
        return v

    def describe(self) -> dict:
        d = {"name": self.name, "type": self.kind, "default": self.default, "help": self.help}
        if self.choices:
            d["choices"] = list(self.choices)
        if self.min is not None:
            d["min"] = self.min
        if self.max is not None:
            d["max"] = self.max
        return d


# Units of rates: more is better.  Every other unit is a time per operation.
RATE_UNITS = ("MB/s", "GHz", "MIPS")


@dataclass(frozen=True)
class Benchmark:
    """A registered benchmark.

    ``measure(params, opts, ns, ticks, info)`` calls the C library, which
    fills the sample arrays and ``info``, and returns ``(rc, extras)``: the C
    return code and a dict of facts only the measurement knows (``{}`` when
    there are none; ``benchmarks.common.no_extras``); ``to_unit`` turns ns per
    iteration into the reported unit; ``check`` validates the parameters
    together (after each was parsed alone) and may raise BenchlibError;
    ``memory_bytes`` says how much memory a run needs, so that sizes beyond
    the machine fail before anything is allocated."""
    name: str
    description: str
    unit: str
    params: tuple[Param, ...]
    measure: Callable
    to_unit: Callable[[float, dict], float]
    higher_is_better: bool | None = None  # None: from the unit (RATE_UNITS are higher-better)
    check: Callable[[dict], None] | None = None
    memory_bytes: Callable[[dict], int] | None = None
    counts: str = ""  # how the figure is counted, when that needs saying
    extras: Callable | None = None  # (info, params) -> dict of benchmark-specific facts
    # (params, profile) -> samples, for benchmarks whose one sample takes seconds
    n_samples_for: Callable | None = None

    def __post_init__(self):
        if self.higher_is_better is None:
            object.__setattr__(self, "higher_is_better", self.unit in RATE_UNITS)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise BenchlibError(
            f"unknown parameter {name!r} for benchmark {self.name!r}; "
            f"valid parameters: {', '.join(p.name for p in self.params)}")

    def resolve(self, given: dict) -> dict:
        """Defaults filled in, every value parsed and checked."""
        for key in given:
            self.param(key)
        out = {p.name: p.parse(given.get(p.name, p.default)) for p in self.params}
        if self.check:
            self.check(out)
        if self.memory_bytes:
            need = self.memory_bytes(out)
            avail = available_memory_bytes()
            if avail is not None and need > 0.8 * avail:
                raise BenchlibError(
                    f"{self.name} with these sizes needs {need:,} bytes of memory but only "
                    f"{avail:,} are available; choose smaller sizes")
        return out

    def describe(self) -> dict:
        d = {"name": self.name, "description": self.description, "unit": self.unit,
             "higher_is_better": self.higher_is_better,
             "params": [p.describe() for p in self.params]}
        if self.counts:
            d["counts"] = self.counts
        return d


_REGISTRY: dict[str, Benchmark] = {}


def register(bench: Benchmark) -> Benchmark:
    if bench.name in _REGISTRY:  # pragma: no cover - a programming error
        raise AssertionError(f"benchmark {bench.name} registered twice")
    _REGISTRY[bench.name] = bench
    return bench


def get_benchmark(name: str) -> Benchmark:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise BenchlibError(
            f"unknown benchmark {name!r}; valid benchmarks: {', '.join(sorted(_REGISTRY))}"
        ) from None


def list_benchmarks() -> list[Benchmark]:
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def check_directory(value, name: str = "directory") -> str:
    """An existing directory we may create files in, as an absolute path."""
    import os

    path = os.path.abspath(os.path.expanduser(str(value)))
    if not os.path.isdir(path):
        raise BenchlibError(f"{name} {value!r} does not exist or is not a directory")
    if not os.access(path, os.W_OK | os.X_OK):
        raise BenchlibError(f"{name} {value!r} is not writable")
    return path


def check_free_space(nbytes: int, directory: str, what: str) -> None:
    """Refuse to write more than half the free space of `directory`."""
    import os

    st = os.statvfs(directory)
    free = st.f_bavail * st.f_frsize
    if nbytes > free // 2:
        raise BenchlibError(f"{what} ({nbytes:,} bytes) is more than half the free space in "
                            f"{directory} ({free:,} bytes free)")


def filesystem_of(path: str) -> dict:
    """The mount a path lives on: type and mount point (from /proc/self/mounts)."""
    import os

    best = {"fs_type": None, "mount_point": None}
    real = os.path.realpath(path)
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                dev, mnt, fstype = line.split()[:3]
                mnt = mnt.replace("\\040", " ")
                if (real == mnt or real.startswith(mnt.rstrip("/") + "/")) and \
                        len(mnt) >= len(best["mount_point"] or ""):
                    best = {"fs_type": fstype, "mount_point": mnt}
    except OSError:
        pass
    return best


def available_memory_bytes() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None
