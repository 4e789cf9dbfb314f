"""Parameters, validation and the registry: no measurement here."""
import pytest

import benchlib
from benchlib.errors import BenchlibError
from benchlib.measuring.registry import get_benchmark
from benchlib.units import format_size, parse_size


@pytest.mark.parametrize("text,expected", [
    (4096, 4096), ("4096", 4096), ("64k", 65536), ("64K", 65536), ("1M", 1 << 20),
    ("2GiB", 2 << 30), ("1.5k", 1536), (" 8 ", 8),
])
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["abc", "12q", "", "1.3", True, None, "0x10"])
def test_parse_size_rejects(bad):
    with pytest.raises(BenchlibError):
        parse_size(bad)


def test_format_size_round_trips():
    for n in (1, 100, 1024, 65536, 3 << 20, 1 << 30):
        assert parse_size(format_size(n)) == n
        assert parse_size(format_size(n, iec=True).replace(" ", "")) == n
    # a size that is not a whole number of k (or M) stays in the smaller unit
    assert format_size(1536) == "1536" and format_size(3 << 19) == "1536k"
    assert format_size(1536, iec=True) == "1536 B"


def test_one_size_reader_for_every_source():
    """Another tool's fractions, sysfs's 48K and the table labels use the
    same reader and writer."""
    from benchlib.measuring.metadata import _size_to_bytes

    def curve_size(text):  # how benchlib.memory.curve_readers reads another tool's sizes
        return parse_size(text, "a curve's size", whole=False)

    assert parse_size("0.00049", whole=False) == pytest.approx(0.00049)
    assert curve_size("1.5k") == 1536.0 and curve_size("2e3") == 2000.0
    assert _size_to_bytes("48K") == 48 << 10 and _size_to_bytes("") is None
    assert _size_to_bytes("garbage") is None
    assert format_size(48 << 10, iec=True) == "48 KiB" and format_size(100, iec=True) == "100 B"


def test_every_benchmark_is_described_with_unit_and_defaults():
    names = [b.name for b in benchlib.list_benchmarks()]
    assert {"cpu_clock", "syscall", "pipe_latency", "bcopy", "mem_latency"} <= set(names)
    for b in benchlib.list_benchmarks():
        d = b.describe()
        assert d["unit"] and d["description"]
        for p in d["params"]:
            assert "default" in p and p["type"] in ("size", "int", "float", "choice", "path")
        # defaults must themselves be valid, and fill every parameter
        resolved = b.resolve({})
        assert set(resolved) == {p["name"] for p in d["params"]}


def test_resolve_fills_defaults_and_parses_strings():
    p = get_benchmark("mem_latency").resolve({"size_bytes": "64k", "stride_bytes": "128"})
    assert p == {"size_bytes": 65536, "stride_bytes": 128, "pattern": "stride",
                 "huge_pages": "off", "loop_loads": 16, "window_bytes": 2 << 20, "cpu": -1}


@pytest.mark.parametrize("name,params,message", [
    ("nosuch", {}, "valid benchmarks: .*bcopy, (.*, )?cpu_clock"),
    ("syscall", {"nope": 1}, "valid parameters: op, cpu"),
    ("syscall", {"op": "fork"}, "must be one of getpid, write, getppid"),
    ("bcopy", {"size_bytes": "lots"}, "number of bytes"),
    ("bcopy", {"size_bytes": -1}, ">= 1"),
    ("bcopy", {"size_bytes": 0}, ">= 1"),
    ("mem_latency", {"size_bytes": 4096, "stride_bytes": 8192}, "larger than size_bytes"),
    ("mem_latency", {"size_bytes": 4096, "stride_bytes": 12}, "multiple of 8"),
    ("mem_latency", {"size_bytes": 100, "stride_bytes": 64}, "two slots"),
    ("mem_latency", {"size_bytes": "1T"}, "memory"),
    ("bcopy", {"size_bytes": "1T"}, "memory"),
    ("syscall", {"cpu": 4000}, "not available"),
    ("syscall", {"cpu": "x"}, "integer"),
    ("pipe_latency", {"placement": "unpinned", "cpu": 0}, "cannot be set"),
])
def test_bad_input_is_a_clear_error(name, params, message):
    with pytest.raises(BenchlibError, match=message):
        benchlib.run(name, params, profile="smoke")


def test_unknown_profile():
    with pytest.raises(BenchlibError, match="valid profiles"):
        benchlib.run("syscall", profile="fastest")


def test_one_table_says_what_each_profile_means():
    """benchlib.profiles: every setting has smoke, quick and full, precise
    reads quick's, and an unknown profile or setting is refused by name."""
    from benchlib.profiles import PROFILES, SETTINGS, setting

    for name, row in SETTINGS.items():
        assert set(row) == {"smoke", "quick", "full"}, name
        assert setting(name, "precise") == row["quick"]
        assert setting(name, PROFILES["full"]) == row["full"]
    with pytest.raises(BenchlibError, match="unknown profile 'huge'"):
        setting("memory.passes", "huge")
    with pytest.raises(BenchlibError, match="no profile setting"):
        setting("memory.nothing", "quick")
