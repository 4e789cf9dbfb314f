"""The comp.os.mach thread "Mach performance?" (December 1989): Alessandro
Forin's measurements of Mach 2.5 against Ultrix on a DECstation 3100
("pmax"), the RPC times he quoted for Cedar, Amoeba, V, Topaz and Sprite,
and Andy Tanenbaum's point that such times mean nothing until they are
normalised to the speed of the CPU.

Transcriptions live in ``data/papers/mach1989``; ``python -m
benchlib.papers.mach1989.paper SEED.txt`` regenerates them from the thread's text
(the folder's README says which post and line each table comes from).
This module also holds the CPU ratings the normalisation needs and the
normalisation itself.  No measurement happens here.
"""
from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass

import pandas as pd

from benchlib.stats import intervals as iv
from benchlib.papers import load_table, transcribe_main

PAPER = "mach1989"
TABLES = ("ipc_tests", "ipc_tests_per_call", "network_ipc_per_call", "unix_calls",
          "unix_programs", "compile_small", "compile_kernel", "andrew", "rpc_systems")

ITERATIONS = 10000        # "All tests ran 10000 times"
STRING_BYTES = 200        # "a 200bytes string"
TICK_MS = 1000 / 64       # the clock tick the 1989 user and system times were counted in


def load(table: str) -> pd.DataFrame:
    """One of ``TABLES`` as transcribed."""
    return load_table(PAPER, table)


# ------------------------------------------------------------ the thread's test names

# The IPC test program's names, and the procedure_call parameters that
# measure the same thing here.  "local": a procedure call in one address
# space; "remote": the same operation on a server process on the same
# machine (Forin, 22 Dec: "'remote' for a different thread but on the same
# machine ... the test is across separate address spaces").
IPC_TESTS = {
    "syscall": ("local", "syscall"),
    "localLoop": ("local", "loop"),
    "localNull": ("local", "null"),
    "localAdd": ("local", "add"),
    "localBigIn": ("local", "string_in"),
    "localBigOut": ("local", "string_out"),
    "localBigInOut": ("local", "string_inout"),
    "remoteNull": ("process", "null"),
    "remoteAdd": ("process", "add"),
    "remoteBigIn": ("process", "string_in"),
    "remoteBigOut": ("process", "string_out"),
    "remoteBigInOut": ("process", "string_inout"),
}


def per_call_us(total_ms: float, iterations: int = ITERATIONS) -> int:
    """The thread's own normalisation of a total (ms over ``iterations``) to
    microseconds per call: it truncates (remoteNull 1985 ms -> 198 us)."""
    return math.floor(total_ms * 1000 / iterations + 1e-9)


def ticks(total_ms: float) -> float:
    """A 1989 total in clock ticks of 1/64 s."""
    return total_ms / TICK_MS


# ------------------------------------------------------------ CPU speed

@dataclass(frozen=True)
class Rating:
    """A machine's integer speed in MIPS, VAX-11/780 = 1 (Ousterhout's Table 1
    convention), the range the sources allow, and where it comes from."""
    mips: float
    low: float
    high: float
    basis: str


SUN3 = 1.8  # Ousterhout 1990, Table 1: Sun-3/75

# Hardware as printed in the thread -> its rating.  Only the thread and the
# project's other sources are used; see the data README.
RATINGS: dict[str, Rating] = {
    "Sun 3/75": Rating(SUN3, SUN3, SUN3, "Ousterhout 1990, Table 1 (Sun-3/75: 1.8)"),
    "Tadpole (68020)": Rating(SUN3, 1.5, SUN3,
                              "a 68020 at 16 MHz, 'essentially Sun 3/50 type machines' "
                              "(Tanenbaum, 29 Dec); taken as the Sun-3/75's 1.8, the "
                              "slower Sun-3/50 allowing 1.5"),
    "Dorado": Rating(3 * SUN3, 2 * SUN3, 4 * SUN3,
                     "'something like 3 times faster than the Sun 3/50' (Tanenbaum); "
                     "2x to 4x a Sun-3"),
    "Firefly (5-way multi)": Rating(0.9, 0.9, 0.9,
                                    "five MicroVAX II processors (Schroeder and Burrows, "
                                    "Performance of Firefly RPC, 1989), 0.9 each (Ousterhout "
                                    "1990, Table 1); the calls used several at once"),
    "Firefly (mono)": Rating(0.9, 0.9, 0.9, "one MicroVAX II processor: 0.9 (Ousterhout "
                                            "1990, Table 1)"),
    "pmax": Rating(12.0, 12.0, 12.0, "DECstation 3100, DEC's 'pmax': 12 (Ousterhout 1990, "
                                     "Table 1)"),
}


def rating(hardware: str) -> Rating:
    try:
        return RATINGS[hardware]
    except KeyError:
        raise KeyError(f"no CPU rating for {hardware!r}; known: {', '.join(RATINGS)}") from None


def vax780_ms(time_ms, mips):
    """Tanenbaum's normalisation: "RPC protocols are basically CPU limited",
    so a call that takes ``time_ms`` on a CPU of ``mips`` (VAX-11/780 = 1)
    would take time x MIPS on a VAX-11/780.  Equal figures mean equally
    efficient software; the figure is also thousands of VAX instructions
    per call.  It assumes the whole time is CPU work: wire time and waiting
    for memory do not scale with MIPS, so fast machines are penalised."""
    return time_ms * mips


def rpc_ranking(extra: pd.DataFrame | None = None) -> pd.DataFrame:
    """The list Tanenbaum asked for, "including Mach": the thread's RPC times
    (Cedar ... Sprite, between two machines), Mach's null call between two
    pmaxen and on one pmax (Forin's tables), and any ``extra`` rows (same
    columns: system, hardware, path, time_ms, mips, mips_low, mips_high),
    with the time normalised to a VAX-11/780 (``vax780_ms`` and its range
    from the rating's range) and both rankings."""
    rows = []
    for _, r in load("rpc_systems").iterrows():
        g = rating(r["hardware"])
        rows.append({"system": r["system"], "hardware": r["hardware"],
                     "path": "between two machines (Ethernet)", "time_ms": r["time_ms"],
                     "mips": g.mips, "mips_low": g.low, "mips_high": g.high})
    pmax = rating("pmax")
    net = load("network_ipc_per_call").set_index("test").loc["remoteNull", "elapsed_us"]
    local = load("ipc_tests_per_call").set_index("test").loc["remoteNull", "elapsed_us"]
    for path, us in (("between two machines (Ethernet)", net), ("one machine, two processes", local)):
        rows.append({"system": "Mach 2.5", "hardware": "pmax", "path": path,
                     "time_ms": us / 1000, "mips": pmax.mips, "mips_low": pmax.low,
                     "mips_high": pmax.high})
    out = pd.DataFrame(rows).assign(source="paper")
    if extra is not None and len(extra):
        out = pd.concat([out, extra.assign(source="this machine")], ignore_index=True)
    out["vax780_ms"] = vax780_ms(out["time_ms"], out["mips"])
    if "time_ms" + iv.LO in out.columns:   # measured times' 95% intervals, the rating as exact
        iv.put(out, "vax780_ms", [vax780_ms(iv.get(out, "time_ms", i), out.loc[i, "mips"])
                                  for i in out.index])
    out["vax780_ms_low"] = vax780_ms(out["time_ms"], out["mips_low"])
    out["vax780_ms_high"] = vax780_ms(out["time_ms"], out["mips_high"])
    out["rank_by_time"] = out["time_ms"].rank(method="min").astype(int)
    out["rank_normalised"] = out["vax780_ms"].rank(method="min").astype(int)
    return out.sort_values("vax780_ms", kind="stable").reset_index(drop=True)


def rpc_to_local_ratios(per_call: pd.DataFrame) -> pd.DataFrame:
    """Forin's reading: remote (another process) over local (a procedure
    call) per operation, from a table in the per-call shape (test,
    elapsed_us).  A local figure of 0 (below the 1989 clock's resolution)
    gives an infinite ratio."""
    t = per_call.set_index("test")
    rows = []
    for op in ("Null", "Add", "BigIn", "BigOut", "BigInOut"):
        if f"local{op}" not in t.index or f"remote{op}" not in t.index:
            continue
        # figures with interval columns come as Measured, and so does the ratio
        lo, re_ = (iv.get(t, "elapsed_us", f"{w}{op}") for w in ("local", "remote"))
        rows.append({"operation": op, "local_us": lo, "remote_us": re_,
                     "remote_over_local": re_ / lo if iv.value(lo) else math.inf})
    df = pd.DataFrame(rows, columns=["operation", "local_us", "remote_us", "remote_over_local"])
    for c in ("local_us", "remote_us", "remote_over_local"):
        iv.put(df, c, list(df[c]))
    return df


def ousterhout_cross_check() -> pd.DataFrame:
    """The same machine and system measured by Ousterhout 1990 (DS3100 Mach
    2.5) beside Forin's figures: the two sources agree where they measure
    the same thing."""
    o2 = load_table("ousterhout1990", "table02").set_index("configuration")
    o3 = load_table("ousterhout1990", "table03").set_index("configuration")
    o7 = load_table("ousterhout1990", "table07").set_index("configuration")
    ipc = load("ipc_tests_per_call").set_index("test")
    mab = load("andrew").set_index("phase")
    phases_1_4 = sum(mab.loc[f"Phase {p}", "mach_s"] for p in ("I", "II", "III", "IV"))
    return pd.DataFrame([
        {"quantity": "system call (us)", "forin_1989": ipc.loc["syscall", "elapsed_us"],
         "ousterhout_1990": o2.loc["DS3100 Mach 2.5", "time_us"],
         "what Ousterhout measured": "getpid (Table 2)"},
        {"quantity": "cross-process null call / round trip (us)",
         "forin_1989": ipc.loc["remoteNull", "elapsed_us"],
         "ousterhout_1990": o3.loc["DS3100 Mach 2.5", "time_ms"] * 1000,
         "what Ousterhout measured": "cswitch: a byte echoed over two pipes (Table 3)"},
        {"quantity": "Andrew phases I-IV (s)", "forin_1989": phases_1_4,
         "ousterhout_1990": o7.loc["DS3100 Mach 2.5 Local", "copy_s"],
         "what Ousterhout measured": "'copy' phases of the Modified Andrew Benchmark (Table 7)"},
        {"quantity": "Andrew phase V, compile (s)", "forin_1989": mab.loc["Phase V", "mach_s"],
         "ousterhout_1990": o7.loc["DS3100 Mach 2.5 Local", "compile_s"],
         "what Ousterhout measured": "compile phase, modified benchmark (Table 7)"},
    ])


# ------------------------------------------------------------ transcription

_TEST_TOTALS = re.compile(r"^Test\s+(\w+):\s+Iters:(\d+)\s+E:(\d+)\s+U:(\d+)\s+S:(\d+)\s*$")
_TEST_PER_CALL = re.compile(r"^Test\s+(\w+):\s+E:(\d+)\s+U:(\d+)\s+S:(\d+)\s*$")


def _line_index(lines: list[str], text: str) -> int:
    """The first line containing ``text`` that is not a quoted ("> ") copy."""
    return next(i for i, l in enumerate(lines) if text in l and not l.startswith(">"))


def _block_after(lines: list[str], anchor: str, pattern: re.Pattern) -> list[tuple]:
    """Matches of ``pattern`` on the lines after the first one containing
    ``anchor``, from the first match to the first line that does not match."""
    out = []
    for line in lines[_line_index(lines, anchor) + 1:]:
        m = pattern.match(line.strip())
        if m:
            out.append(m.groups())
        elif out:
            break
    if not out:
        raise ValueError(f"no table after {anchor!r}")
    return out


def _ipc(lines):
    totals = pd.DataFrame(
        [(t, int(i), int(e), int(u), int(s)) for t, i, e, u, s in
         _block_after(lines, "binding to host testarossa", _TEST_TOTALS)],
        columns=["test", "iterations", "elapsed_ms", "user_ms", "system_ms"])
    per_call, network = (
        pd.DataFrame([(t, int(e), int(u), int(s)) for t, e, u, s in
                      _block_after(lines, anchor, _TEST_PER_CALL)],
                     columns=["test", "elapsed_us", "user_us", "system_us"])
        for anchor in ("Here are the normalized numbers", "binding to host rvb"))
    return totals, per_call, network


_UNIX = re.compile(r"^(Elapsed|exec|touch|fork|getpid|iocall|puzzle|pgtest)\s+([\d.]+)\s*(ms|secs)"
                   r"\s+([\d.]+)\s*(ms|secs)(?:\s+\[([\d.]+)\])?\s*$")


def _unix(lines):
    start = _line_index(lines, "suite of little programs")
    calls, programs = [], []
    for line in lines[start:start + 16]:
        m = _UNIX.match(line.strip())
        if not m:
            continue
        test, u, uu, mach, mu, now = m.groups()
        if uu != mu:
            raise ValueError(f"{test}: Ultrix and Mach in different units")
        row = (test, float(u), float(mach), float(now) if now else math.nan)
        (calls if uu == "ms" else programs).append(row)
    return (pd.DataFrame(calls, columns=["test", "ultrix_ms", "mach_ms", "mach_right_now_ms"]),
            pd.DataFrame(programs, columns=["test", "ultrix_s", "mach_s", "mach_right_now_s"]))


def _compile(lines):
    start = _line_index(lines, "Compilation benchmark, small programs.")
    small = []
    for line in lines[start + 1:start + 16]:
        s = line.strip()
        m = re.match(r"^Elapsed\s+([\d.]+)\s+([\d.]+)$", s)
        if m:
            small.append(("Elapsed", float(m.group(1)), float(m.group(2))))
            continue
        m = re.match(r"^([\d.]+) real\s+([\d.]+) real$", s)
        if m:
            small.append((f"Breakdown {len(small)}", float(m.group(1)), float(m.group(2))))
    small = pd.DataFrame(small, columns=["row", "ultrix_s", "mach_s"])

    start = _line_index(lines, "Mach kernel compilation benchmark.")
    header = lines[start + 2].split()
    cells = {}
    for line in lines[start + 3:start + 9]:
        parts = line.split()
        if len(parts) == len(header) + 1:
            cells[parts[0]] = parts[1:]
    rows = []
    for k, conf in enumerate(header):
        io_in, io_out = cells["I/O"][k].split("+")
        rows.append((conf, float(cells["Elapsed"][k]), float(cells["User"][k]),
                     float(cells["System"][k]), int(cells["Utilization"][k].rstrip("%")),
                     int(io_in), int(io_out)))
    kernel = pd.DataFrame(rows, columns=["configuration", "elapsed_s", "user_s", "system_s",
                                         "utilization_pct", "block_inputs", "block_outputs"])
    return small, kernel


def _andrew(lines):
    start = _line_index(lines, "(1) On local disk")
    rows, phase = [], None
    for line in lines[start + 1:start + 14]:
        s = line.strip()
        m = re.match(r"^Total elapsed\s+(\d+) secs\s+(\d+) secs$", s)
        if m:
            rows.append(("Total elapsed", None, int(m.group(1)), int(m.group(2))))
            continue
        m = re.match(r"^(Phase [IV]+):$", s)
        if m:
            phase = m.group(1)
            continue
        m = re.match(r"^(.+?)\s+(\d+) secs\s+(\d+) secs$", s)
        if m and phase:
            rows.append((phase, m.group(1), int(m.group(2)), int(m.group(3))))
            phase = None
    return pd.DataFrame(rows, columns=["phase", "what", "ultrix_s", "mach_s"])


_RPC = re.compile(r"^(Cedar|Amoeba|V|Topaz|Sprite):\s+([\d.]+)\s+(?:MILLIsecs/call\s+)?(.+?)\s*$")


def _rpc(lines):
    start = _line_index(lines, "the official score seems to be")
    rows = []
    for line in lines[start + 1:start + 8]:
        m = _RPC.match(line.strip())
        if m:
            rows.append((m.group(1), float(m.group(2)), m.group(3)))
    return pd.DataFrame(rows, columns=["system", "time_ms", "hardware"])


def transcribe(seed_text: str) -> dict[str, pd.DataFrame]:
    """Every table of the thread as a DataFrame, from its text."""
    lines = seed_text.splitlines()
    totals, per_call, network = _ipc(lines)
    calls, programs = _unix(lines)
    small, kernel = _compile(lines)
    return {"ipc_tests": totals, "ipc_tests_per_call": per_call,
            "network_ipc_per_call": network, "unix_calls": calls, "unix_programs": programs,
            "compile_small": small, "compile_kernel": kernel, "andrew": _andrew(lines),
            "rpc_systems": _rpc(lines)}


def quoted_copies(seed_text: str) -> dict[str, pd.DataFrame]:
    """The tables that later posts quote ("> "): Discolo's quote of the IPC
    test table and Tanenbaum's quote of the RPC list, parsed the same way,
    so a test can check that the copies agree with the originals."""
    quoted = [l[1:].lstrip() if l.startswith(">") else "" for l in seed_text.splitlines()]
    totals = [(t, int(i), int(e), int(u), int(s)) for t, i, e, u, s in
              (m.groups() for m in map(_TEST_TOTALS.match, quoted) if m)]
    rpc = [(m.group(1), float(m.group(2)), m.group(3))
           for m in map(_RPC.match, quoted) if m]
    return {"ipc_tests": pd.DataFrame(totals, columns=["test", "iterations", "elapsed_ms",
                                                       "user_ms", "system_ms"]),
            "rpc_systems": pd.DataFrame(rpc, columns=["system", "time_ms", "hardware"])}


def main(argv: list[str] | None = None) -> int:
    return transcribe_main(PAPER, transcribe, argv)


if __name__ == "__main__":
    sys.exit(main())
