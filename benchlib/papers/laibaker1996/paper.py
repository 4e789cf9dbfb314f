"""Lai and Baker, "A Performance Comparison of UNIX Operating Systems on the
Pentium" (slides, Stanford, 1996): its tables and its "normalized to best"
column.

The slides compared Linux 1.2.8, FreeBSD 2.0.5R and Solaris x86 2.4 on one
100 MHz Pentium.  Four slides carry tables (system call, TCP bandwidth, the
Modified Andrew Benchmark on the local disk and across NFS), one lists the
systems tested and one sums up who is fast and slow at what; the UDP,
small-file and context-switch slides showed only pictures, whose numbers
are not in the text.  Transcriptions live in ``data/papers/laibaker1996``;
``python -m benchlib.papers.laibaker1996.paper SEED.txt`` regenerates them from
the seed text (see that folder's README for what was checked by hand).
"""
from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass

import pandas as pd

from benchlib.stats import intervals as iv
from benchlib.errors import BenchlibError
from benchlib.papers import load_table, transcribe_main

PAPER = "laibaker1996"
SYSTEMS = ("Linux", "FreeBSD", "Solaris")

# The platform every system ran on ("1995 Platform" slide), as printed.
PLATFORM = ("100 MHZ Pentium, 32MB, NCR 53c810 SCSI controller, 2GB internal disk, "
            "2GB external disk, 17\" monitor 10Mb/sec. Ethernet")
MEGABIT = 1e6   # the slides' "megabits/second": taken as 10^6 bits (not stated)
PENTIUM_MHZ = 100.0   # the platform's clock: a time in µs x 100 is its cycles


@dataclass(frozen=True)
class TableSpec:
    """One table of the slides: where it is and how it becomes a CSV."""
    name: str                  # what load() takes
    csv: str                   # file in data/papers/laibaker1996
    slide: str                 # the slide's title
    marker: str                # text on the slide that picks it (two slides share a title)
    header: tuple[str, ...]    # the header cells as printed (tags and TeX removed)
    columns: tuple[str, ...]   # our names, with units
    value: str | None = None   # the column "normalized to best" is computed from
    higher_is_better: bool = False
    unit: str = ""             # the value column's unit, for labels


TABLES: dict[str, TableSpec] = {
    "system_call": TableSpec(
        "system_call", "table_system_call.csv", "System Call", "getpid",
        ("OS", "Time (µ seconds)", "Normalized to best"),
        ("os", "time_us", "normalized_to_best"), "time_us", unit="µs"),
    "tcp_bandwidth": TableSpec(
        "tcp_bandwidth", "table_tcp_bandwidth.csv", "Networking Performance (TCP)", "Bandwidth",
        ("OS", "Bandwidth (megabits/ second)", "Normalized to best"),
        ("os", "bandwidth_mbit_s", "normalized_to_best"), "bandwidth_mbit_s", True, "Mbit/s"),
    "andrew_local": TableSpec(
        "andrew_local", "table_andrew_local.csv", "Modified Andrew Benchmark", "On the local disk",
        ("OS", "Time (seconds)", "Normalized to best"),
        ("os", "time_s", "normalized_to_best"), "time_s", unit="s"),
    "andrew_nfs": TableSpec(
        "andrew_nfs", "table_andrew_nfs.csv", "Modified Andrew Benchmark", "Across NFS",
        ("OS", "Time (seconds)", "NFS overhead", "Normalized to best"),
        ("os", "time_s", "nfs_overhead_pct", "normalized_to_best"), "time_s", unit="s"),
    "systems": TableSpec(
        "systems", "table_systems.csv", "Operating Systems Tested", "Version",
        ("OS", "Version"), ("os", "version")),
}
# The "Results" slide is a list, not a pipe table: "<OS>: fast: ... slow: ...".
RESULTS = TableSpec("results_summary", "table_results_summary.csv", "Results", "fast:",
                    ("OS", "fast", "slow"), ("os", "fast", "slow"))

# What the slides say where they show only a picture, quoted exactly (the
# tests find every quote in the seed).  No number is read off a picture.
FIGURE_SLIDES = {
    "Networking Performance (UDP)": ["Linux: Does too many memory copies"],
    "Small File Performance": ["Create file", "Write n bytes", "Read n bytes", "Delete file",
                               "Linux: Uses asynchronous writes of file metadata.",
                               "FreeBSD: Performance worse than Solaris on similar FS."],
    "Context Switch (mostly)": ["Linux: Searching long linked list during context switch",
                                "Solaris: Multi-threaded kernel has complex scheduler"],
    "Context Switch Benchmark Design": ["Pipe latency", "Scheduling", "Context switching"],
}
# "What's Happening Now": the one number the slides give for a context
# switch, an upper bound for the next Linux release.
LINUX_1_3_53_CSWITCH = "Extremely fast context switch"
LINUX_1_3_53_CSWITCH_BOUND_US = 50.0
CONCLUSION = ["Performance (generally) doesn't matter!",
              "Qualitative factors make the difference:",
              "Linux, FreeBSD: Freely distributable kernel source",
              "Linux: Vast user community",
              "Solaris: Support for multiprocessing"]


# ------------------------------------------------------------ "normalized to best"

def normalized_to_best(values, higher_is_better: bool = False) -> pd.Series:
    """The slides' normalisation: each value against the best of the group,
    so the best is 1.00 and the others below it.  Times (lower is better):
    best / value; rates: value / best.  NaN values stay NaN and do not take
    part in choosing the best."""
    s = pd.Series(values, dtype=float)
    valid = s.dropna()
    if valid.empty:
        return s * math.nan
    if (valid <= 0).any():
        raise BenchlibError("normalized_to_best needs positive values")
    return s / valid.max() if higher_is_better else valid.min() / s


def relative_to(value: float, reference: float, higher_is_better: bool = False) -> float:
    """One value on the scale of "normalized to best" with ``reference`` as
    the best: above 1.0 means faster than the reference."""
    return value / reference if higher_is_better else reference / value


# ------------------------------------------------------------ loading

def _spec(table: str) -> TableSpec:
    if table == RESULTS.name:
        return RESULTS
    if table in TABLES:
        return TABLES[table]
    raise BenchlibError(f"no table {table!r} for {PAPER}; tables: "
                        f"{', '.join(list(TABLES) + [RESULTS.name])}")


def load(table: str) -> pd.DataFrame:
    """One table as printed (``system_call``, ``tcp_bandwidth``,
    ``andrew_local``, ``andrew_nfs``, ``systems``, ``results_summary``)."""
    return load_table(PAPER, _spec(table).csv.removesuffix(".csv"))


def tables() -> list[str]:
    return list(TABLES) + [RESULTS.name]


def printed_check(table: str) -> pd.DataFrame:
    """The printed "normalized to best" column beside the slides' rule
    applied to the printed values, rounded as printed (two decimals)."""
    spec = TABLES[table]
    df = load(table)
    ours = normalized_to_best(df[spec.value], spec.higher_is_better)
    return pd.DataFrame({"os": df["os"], "printed": df["normalized_to_best"],
                         "recomputed": ours, "agrees": ours.round(2) == df["normalized_to_best"]})


def nfs_overhead_check() -> pd.DataFrame:
    """The printed NFS overhead beside (NFS time / local time - 1), and the
    range of local times the printed overhead allows (it is printed to
    0.01%, so the local time is pinned to about +-0.002 s)."""
    nfs = load("andrew_nfs").set_index("os")
    local = load("andrew_local").set_index("os")["time_s"]
    rows = []
    for os_, r in nfs.iterrows():
        pct = r["nfs_overhead_pct"]
        lo, hi = r["time_s"] / (1 + (pct + 0.005) / 100), r["time_s"] / (1 + (pct - 0.005) / 100)
        ours = 100 * (r["time_s"] / local[os_] - 1)
        rows.append({"os": os_, "printed_pct": pct, "recomputed_pct": ours,
                     "agrees": round(ours, 2) == pct, "local_s_printed": local[os_],
                     "local_s_allowed_low": lo, "local_s_allowed_high": hi})
    return pd.DataFrame(rows)


# ------------------------------------------------------------ this machine beside the slides

NFS_NOT_MEASURED = ("not measured here: the slides ran it across 10 Mb/s Ethernet against a "
                    "SunOS NFS server; this machine has no second machine and no NFS server, and "
                    "a loop-back mount would measure neither")


def andrew_paper_table(ours_local: dict[str, float]) -> pd.DataFrame:
    """Both Andrew tables in one: local and NFS times, the NFS overhead and
    both "normalized to best" columns, with this machine's rows.  This
    machine's NFS cells stay empty and ``nfs_source`` says why; every NFS
    figure shown is the slides'."""
    local = load("andrew_local").set_index("os")
    nfs = load("andrew_nfs").set_index("os")
    rows = [{"os": os_, "local_s": local.loc[os_, "time_s"], "nfs_s": nfs.loc[os_, "time_s"],
             "nfs_overhead_pct": nfs.loc[os_, "nfs_overhead_pct"],
             "local_normalized_to_best": local.loc[os_, "normalized_to_best"],
             "nfs_normalized_to_best": nfs.loc[os_, "normalized_to_best"],
             "nfs_source": "paper", "source": "paper"} for os_ in SYSTEMS]
    rows += [{"os": label, "local_s": v, "nfs_s": math.nan, "nfs_overhead_pct": math.nan,
              "local_normalized_to_best": math.nan, "nfs_normalized_to_best": math.nan,
              "nfs_source": NFS_NOT_MEASURED, "source": "this machine"}
             for label, v in ours_local.items()]
    df = pd.DataFrame(rows)
    best_1995 = local["time_s"].min()
    cells = list(df["local_s"])   # this machine's as given: Measured carry their intervals
    df.insert(df.columns.get_loc("nfs_source"), "local_vs_best_1995", math.nan)
    iv.put(df, "local_s", cells)
    iv.put(df, "local_vs_best_1995", [relative_to(x, best_1995) for x in cells])
    return df.sort_values("local_s", kind="stable").reset_index(drop=True)


def spread_1995() -> pd.DataFrame:
    """How far apart the three systems were on each table: the best and the
    worst, and the worst's time over the best's (rates: best over worst)."""
    rows = []
    for name, spec in TABLES.items():
        if spec.value is None:
            continue
        df = load(name)
        v = df[spec.value]
        ib, iw = (v.idxmax(), v.idxmin()) if spec.higher_is_better else (v.idxmin(), v.idxmax())
        best, worst = v[ib], v[iw]
        rows.append({"table": name, "unit": spec.unit, "best": df.os[ib], "best_value": best,
                     "worst": df.os[iw],
                     "worst_value": worst,
                     "spread": (best / worst) if spec.higher_is_better else (worst / best)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------ transcription from the seed

def _clean(cell: str) -> str:
    """A header or data cell without HTML tags, TeX and doubled spaces:
    "Time<br>( $\\mu$ seconds)" -> "Time (µ seconds)"."""
    s = re.sub(r"<br\s*/?>", " ", cell)
    s = re.sub(r"<[^>]+>", "", s)
    s = s.replace("$\\mu$", "µ").replace("$", "")
    s = re.sub(r"\s+", " ", s).strip()
    return s.replace("( ", "(").replace(" )", ")")


def _slides(text: str) -> list[tuple[str, list[str]]]:
    """(title, lines) of every slide: a slide starts at a "# " heading."""
    out: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("# "):
            out.append((line[2:].strip(), []))
        elif out:
            out[-1][1].append(line)
    return out


def _pipe_rows(lines: list[str]) -> list[list[str]]:
    rows = []
    for line in lines:
        if not line.lstrip().startswith("|") or re.fullmatch(r"\|[\s\-:|]*", line.strip()):
            continue
        rows.append([_clean(c) for c in line.strip().strip("|").split("|")])
    return rows


def _number(cell: str) -> float:
    m = re.fullmatch(r"\+?(-?\d+(?:\.\d+)?)%?", cell)
    if not m:
        raise ValueError(f"not a number: {cell!r}")
    return float(m.group(1))


def _find_slide(slides, spec: TableSpec) -> list[str]:
    hits = [lines for title, lines in slides
            if title == spec.slide and any(spec.marker in l for l in lines)]
    if len(hits) != 1:
        raise ValueError(f"{spec.name}: expected one slide {spec.slide!r} with "
                         f"{spec.marker!r}, found {len(hits)}")
    return hits[0]


def _results_summary(slides) -> pd.DataFrame:
    lines = [l.strip() for l in _find_slide(slides, RESULTS) if l.strip()]
    rows = []
    for i, line in enumerate(lines):
        m = re.fullmatch(r"(\w+):\s+fast:\s*(.*?)", line)
        if m:
            slow = re.fullmatch(r"slow:\s*(.*?)", lines[i + 1])
            if not slow:
                raise ValueError(f"Results: no 'slow:' line after {line!r}")
            rows.append([m.group(1), m.group(2), slow.group(1)])
    return pd.DataFrame(rows, columns=list(RESULTS.columns))


def transcribe(seed_text: str) -> dict[str, pd.DataFrame]:
    """Every table of the slides as a DataFrame, from the seed text.  The
    header of each table is checked against what is expected, so a changed
    source cannot be silently mislabelled."""
    slides = _slides(seed_text)
    out = {}
    for spec in TABLES.values():
        rows = _pipe_rows(_find_slide(slides, spec))
        header, body = rows[0], rows[1:]
        if tuple(header) != spec.header:
            raise ValueError(f"{spec.name}: header {header} is not {list(spec.header)}")
        df = pd.DataFrame(body, columns=list(spec.columns))
        for c in spec.columns[1:]:
            if c != "version":
                df[c] = [_number(x) for x in df[c]]
        out[spec.csv.removesuffix(".csv")] = df
    out[RESULTS.csv.removesuffix(".csv")] = _results_summary(slides)
    return out


def main(argv: list[str] | None = None) -> int:
    return transcribe_main(PAPER, transcribe, argv)


if __name__ == "__main__":
    sys.exit(main())
