"""Every paper's systems in one tidy dataset: the primitives the papers share
(kernel entry, context switch, pipe round trip, memory copy, main-memory
latency, file create/delete, process creation, TCP/UDP/RPC round trips, TCP
bandwidth), read from the papers' CSVs, never typed.

One row per printed cell: ``paper``, ``table`` (CSV stem), ``row_label``
(the first column as printed), ``row_index`` (0-based row in the CSV) and
``column`` point back to the cell; ``value`` and ``unit`` are the cell as
printed (a ``+`` in ``column`` means the sum of two cells of that row,
e.g. lmbench's create and delete times); ``value_std`` is the same figure in
the primitive's standard unit (``unit_std``).  ``system`` is the label as
printed, ``machine`` and ``os`` what it names; ``cpu_rating`` is the CPU's
speed as a ratio to the VAX-11/780 (one axis for every era):
``cpu_rating_kind`` says which ratio (the 1989-90 papers' VAX-MIPS, SPECint92
for the 1995-96 systems, a measured VAX-MIPS today), ``cpu_rating_basis``
where it comes from, ``cpu_rating_status`` whether it is a published figure
(``rated``), an ``estimate`` (the basis says of what kind) or ``unrated``
(``cpu_unrated_reason`` says why: such a row is ranked, never fitted);
``cpu_mhz`` the clock with ``cpu_mhz_source``; ``year`` with ``year_basis``.
Conditions: ``locality`` (local, remote file server, network),
``conditions`` (text).  Figures not printed in the table a row comes from
are read from ``data/papers/across/cpu_provenance.csv`` (row by row, with
their source); the 1995-96 systems' CPUs, clocks and SPECint92 ratings, or
why there is none, from ``data/papers/across/cpu_ratings_1995_96.csv`` (one
line per system as printed, with its source: ``ratings``); anything else is
left empty.  Where two papers measured the same machine and OS, both
rows stay (``disagreements`` shows them side by side).

The papers are ``benchlib.papers.PAPERS`` (ids, years, citations); the
function that reads each paper's rows is in ``ROWS``.
"""
from __future__ import annotations

import importlib
import math
import re
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from benchlib.analysis.scaling import CANNOT_TELL, interval_verdict
from benchlib.errors import BenchlibError
from benchlib.papers.data import PAPERS, data_dir, paper_dir
from benchlib.papers.verdict import Verdict, verdict
from benchlib.stats import intervals as iv

PROVENANCE = "across/cpu_provenance.csv"
RATINGS = "across/cpu_ratings_1995_96.csv"
RATED_PAPERS = ("mcvoy1996", "laibaker1996")    # every system of these has a RATINGS line
STATUSES = ("rated", "estimate", "unrated")
MIPS = "VAX-MIPS"
SPECINT92 = "SPECint92"

# primitive -> (standard unit, higher is better, what it is)
PRIMITIVES: dict[str, tuple[str, bool, str]] = {
    "kernel_entry": ("us", False, "null or trivial system call (getpid, write to /dev/null)"),
    "context_switch": ("us", False, "context switch, 2 processes, no data"),
    "pipe_round_trip": ("us", False, "one byte echoed between two processes over pipes"),
    "memory_copy_cached": ("MB/s", True, "bcopy of a block that fits the caches"),
    "memory_copy_uncached": ("MB/s", True, "bcopy of a block larger than the caches"),
    "main_memory_latency": ("ns", False, "load latency from main memory"),
    "file_create_delete": ("ms", False, "create and delete an empty file, local disk"),
    "file_create_delete_remote": ("ms", False, "create and delete an empty file on a file server"),
    "process_fork": ("ms", False, "fork (and exit) a process"),
    "process_fork_exec": ("ms", False, "fork, exec a program (and exit)"),
    "tcp_round_trip_local": ("us", False, "TCP round trip within one machine"),
    "tcp_round_trip_network": ("us", False, "TCP round trip between two machines"),
    "udp_round_trip_local": ("us", False, "UDP round trip within one machine"),
    "rpc_round_trip_local": ("us", False, "null RPC to a server on the same machine"),
    "rpc_round_trip_network": ("us", False, "null RPC between two machines"),
    "tcp_bandwidth_local": ("MB/s", True, "TCP bandwidth within one machine"),
}

# unit as printed -> factor to the standard unit
_TO_STD = {("us", "us"): 1.0, ("ms", "us"): 1e3, ("ms", "ms"): 1.0, ("us", "ms"): 1e-3,
           ("ns", "ns"): 1.0, ("MB/s", "MB/s"): 1.0, ("Mbit/s", "MB/s"): 1 / 8}

COLUMNS = ["paper", "table", "row_label", "row_index", "column", "system", "machine", "os",
           "year", "year_basis", "cpu", "cpu_mhz", "cpu_mhz_source", "cpu_rating",
           "cpu_rating_kind", "cpu_rating_basis", "cpu_rating_status", "cpu_unrated_reason",
           "primitive", "value", "unit", "value_std", "unit_std", "locality", "conditions"]


def read_table(paper: str, table: str) -> pd.DataFrame:
    """One CSV of one paper, as committed (``table`` is the file stem)."""
    path = paper_dir(paper) / f"{table}.csv"
    if not path.is_file():
        raise BenchlibError(f"no table {table!r} for {paper} ({path})")
    return pd.read_csv(path)


def paper_module(paper: str):
    """The paper's loader module (for constants its CSVs do not hold)."""
    paper_dir(paper)   # a known paper
    return importlib.import_module(f"benchlib.papers.{paper}.paper")


def provenance() -> pd.DataFrame:
    return pd.read_csv(data_dir() / "papers" / PROVENANCE, dtype={"row_index": "Int64"})


def ratings() -> pd.DataFrame:
    """The 1995-96 systems' CPU ratings, one line per (paper, system as
    printed): ``cpu``, ``cpu_mhz`` and its source, ``specint92``,
    ``status`` (rated, estimate or unrated), ``basis``, ``source`` (a URL or
    citation), ``quote`` (the source's words the figure is read from) and
    ``reason`` (why unrated, or what an estimate rests on)."""
    df = pd.read_csv(data_dir() / "papers" / RATINGS, keep_default_na=False,
                     dtype=str)
    for col in ("cpu_mhz", "specint92"):
        df[col] = pd.to_numeric(df[col].replace("", math.nan))
    bad = df[~df["status"].isin(STATUSES)]
    if len(bad):
        raise BenchlibError(f"{RATINGS}: status must be one of {', '.join(STATUSES)}; "
                            f"got {sorted(set(bad['status']))}")
    figure = df["specint92"].notna()
    if (figure != (df["status"] != "unrated")).any() or (df["specint92"] <= 0).any():
        raise BenchlibError(f"{RATINGS}: a rated or estimated system needs a positive "
                            "specint92, an unrated one none")
    if (((df["status"] == "unrated") & (df["reason"] == ""))
            | ((df["status"] == "estimate") & (df["basis"] == ""))
            | (figure & (df["source"] == ""))).any():
        raise BenchlibError(f"{RATINGS}: every figure needs its source, every unrated "
                            "system its reason")
    if df.duplicated(["paper", "system"]).any():
        raise BenchlibError(f"{RATINGS}: a system appears twice")
    return df


# ------------------------------------------------------------ one extraction rule

@dataclass(frozen=True)
class Extract:
    """Cells of one table column that hold one primitive."""
    table: str
    column: str                      # "a+b": the sum of two cells
    primitive: str
    unit: str                        # as printed
    rows: Callable[[str], bool] = lambda label: True     # which row labels
    conditions: str = ""
    locality: str = "local"
    os: str | None = None            # fixed OS (tables with one column per OS)
    extra: dict = field(default_factory=dict)


def _cell(df: pd.DataFrame, i: int, column: str) -> float:
    parts = column.split("+")
    vals = [df.at[i, c] for c in parts]
    if any(pd.isna(v) for v in vals):
        return math.nan
    return float(sum(float(v) for v in vals))


def _row(paper: str, ex: Extract, label: str, i: int, value: float, **sys) -> dict:
    unit_std = PRIMITIVES[ex.primitive][0]
    return {"paper": paper, "table": ex.table, "row_label": label, "row_index": i,
            "column": ex.column, "primitive": ex.primitive, "value": value, "unit": ex.unit,
            "value_std": value * _TO_STD[(ex.unit, unit_std)], "unit_std": unit_std,
            "locality": ex.locality, "conditions": ex.conditions,
            "year": PAPERS[paper].year, "year_basis": f"date of the paper ({PAPERS[paper].cite})",
            **sys}


def _extract(paper: str, ex: Extract, describe: Callable[[str, int], dict]) -> list[dict]:
    df = read_table(paper, ex.table)
    label_col = df.columns[0]
    out = []
    for i in range(len(df)):
        label = str(df.at[i, label_col])
        if not ex.rows(label):
            continue
        v = _cell(df, i, ex.column)
        if math.isnan(v):
            continue
        out.append(_row(paper, ex, label, i, v, **describe(label, i)))
    return out


# ------------------------------------------------------------ Ousterhout 1990

def _ousterhout(paper: str) -> list[dict]:
    hw = read_table(paper, "table01_hardware")
    by_abbrev = {str(r.abbrev): r for r in hw.itertuples()}

    def describe(label: str, i: int) -> dict:
        abbrev, _, rest = label.partition(" ")
        h = by_abbrev.get(abbrev)
        if h is None:
            raise BenchlibError(f"{paper}: no Table 1 machine for {label!r}")
        os_ = re.sub(r"\s+(Local|NFS|AFS|Remote|Diskless)$", "", rest)
        return {"system": label, "machine": h.hardware, "os": os_, "cpu": h.hardware,
                "cpu_rating": float(h.mips), "cpu_rating_kind": MIPS, "cpu_rating_status": "rated",
                "cpu_rating_basis": "Ousterhout 1990 Table 1 (author's estimate, VAX-11/780 = 1)"}

    local = lambda s: s.endswith(" Local")                       # noqa: E731
    remote = lambda s: s.endswith((" NFS", " AFS", " Remote"))   # noqa: E731
    rules = [
        Extract("table02_getpid", "time_us", "kernel_entry", "us", conditions="getpid "
                "(HP835: gethostid, as the paper notes)"),
        Extract("table03_cswitch", "time_ms", "pipe_round_trip", "ms",
                conditions="one byte echoed over two pipes"),
        Extract("table05_bcopy", "cached_mb_s", "memory_copy_cached", "MB/s"),
        Extract("table05_bcopy", "uncached_mb_s", "memory_copy_uncached", "MB/s"),
        Extract("table10_create_delete", "no_data_ms", "file_create_delete", "ms", local,
                conditions="create, close, open, close, delete; no data"),
        Extract("table10_create_delete", "no_data_ms", "file_create_delete_remote", "ms",
                remote, conditions="NFS, AFS or Sprite remote file server",
                locality="remote file server"),
    ]
    return [r for ex in rules for r in _extract(paper, ex, describe)]


# ------------------------------------------------------------ the Mach thread

def _mach(paper: str) -> list[dict]:
    ratings = paper_module(paper).RATINGS
    pmax = ratings["pmax"]

    def pmax_os(os_: str) -> Callable[[str, int], dict]:
        return lambda label, i: {"system": f"pmax {os_}", "machine": "DECstation 3100",
                                 "os": os_, "cpu": "DECstation 3100 (pmax)",
                                 "cpu_rating": pmax.mips, "cpu_rating_kind": MIPS,
                                 "cpu_rating_status": "rated", "cpu_rating_basis": pmax.basis}

    def rpc_system(label: str, i: int) -> dict:
        hw = str(read_table(paper, "rpc_systems").at[i, "hardware"])
        r = ratings[hw]
        return {"system": f"{label} on {hw}", "machine": hw, "os": label, "cpu": hw,
                "cpu_rating": r.mips, "cpu_rating_kind": MIPS, "cpu_rating_status": "rated",
                "cpu_rating_basis": r.basis}

    is_ = lambda name: (lambda s: s == name)   # noqa: E731
    out = []
    for ex, how in [
        (Extract("ipc_tests_per_call", "elapsed_us", "kernel_entry", "us", is_("syscall"),
                 conditions="Forin's 'syscall' test (call not named)"), pmax_os("Mach 2.5")),
        (Extract("ipc_tests_per_call", "elapsed_us", "rpc_round_trip_local", "us",
                 is_("remoteNull"), conditions="Mach IPC null call to a server on the same "
                 "machine"), pmax_os("Mach 2.5")),
        (Extract("network_ipc_per_call", "elapsed_us", "rpc_round_trip_network", "us",
                 is_("remoteNull"), conditions="Mach IPC null call between two pmaxen",
                 locality="network"), pmax_os("Mach 2.5")),
        (Extract("unix_calls", "ultrix_ms", "process_fork", "ms", is_("fork")),
         pmax_os("Ultrix")),
        (Extract("unix_calls", "mach_ms", "process_fork", "ms", is_("fork")),
         pmax_os("Mach 2.5")),
        (Extract("unix_calls", "ultrix_ms", "process_fork_exec", "ms", is_("exec"),
                 conditions="'exec' read as fork + exec (data README)"), pmax_os("Ultrix")),
        (Extract("unix_calls", "mach_ms", "process_fork_exec", "ms", is_("exec"),
                 conditions="'exec' read as fork + exec (data README)"), pmax_os("Mach 2.5")),
        (Extract("rpc_systems", "time_ms", "rpc_round_trip_network", "ms",
                 conditions="null RPC between two machines (SOSP figures quoted by Forin)",
                 locality="network"), rpc_system),
    ]:
        out += _extract(paper, ex, how)
    return out


# ------------------------------------------------------------ McVoy & Staelin 1996

def _mcvoy(paper: str) -> list[dict]:
    def describe(label: str, i: int) -> dict:
        m = re.search(r"@(\d+)$", label)
        return {"system": label, "machine": label, "os": label.split()[0].split("/")[0],
                "cpu": label, "cpu_mhz": float(m.group(1)) if m else math.nan,
                "cpu_mhz_source": "printed in the system name" if m else ""}

    rules = [
        Extract("table_null_syscall", "null_syscall_us", "kernel_entry", "us",
                conditions="write of one byte to /dev/null"),
        Extract("table_context_switch", "p2_0kb_us", "context_switch", "us",
                conditions="2 processes, 0 KB"),
        Extract("table_pipe_latency", "pipe_us", "pipe_round_trip", "us"),
        Extract("table_memory_bandwidth", "bcopy_libc_mb_s", "memory_copy_uncached", "MB/s",
                conditions="libc bcopy of a block beyond the second-level cache"),
        Extract("table_memory_latency", "main_memory_ns", "main_memory_latency", "ns"),
        Extract("table_file_create_delete", "create_ms+delete_ms", "file_create_delete", "ms",
                conditions="create plus delete of a zero-length file"),
        Extract("table_process_creation", "fork_exit_ms", "process_fork", "ms"),
        Extract("table_process_creation", "fork_exec_exit_ms", "process_fork_exec", "ms"),
        Extract("table_tcp_latency", "tcp_us", "tcp_round_trip_local", "us"),
        Extract("table_udp_latency", "udp_us", "udp_round_trip_local", "us"),
        Extract("table_udp_latency", "rpc_udp_us", "rpc_round_trip_local", "us",
                conditions="Sun RPC over UDP"),
        Extract("table_tcp_bandwidth", "tcp_mb_s", "tcp_bandwidth_local", "MB/s"),
        Extract("table_remote_network", "tcp_latency_us", "tcp_round_trip_network", "us",
                locality="network"),
    ]
    out = [r for ex in rules for r in _extract(paper, ex, describe)]
    net = read_table(paper, "table_remote_network")
    for r in out:
        if r["table"] == "table_remote_network":
            r["conditions"] = f"over {net.at[r['row_index'], 'network']}"
    return out


# ------------------------------------------------------------ Lai & Baker 1996

def _laibaker(paper: str) -> list[dict]:
    def describe(label: str, i: int) -> dict:
        return {"system": f"{label} (Pentium 100)", "machine": "100 MHz Pentium PC", "os": label,
                "cpu": "Pentium"}

    rules = [
        Extract("table_system_call", "time_us", "kernel_entry", "us",
                conditions="getpid, averaged over 1000 calls"),
        Extract("table_tcp_bandwidth", "bandwidth_mbit_s", "tcp_bandwidth_local", "Mbit/s",
                conditions="megabits taken as 10^6 bits; loopback inferred (data README)"),
    ]
    return [r for ex in rules for r in _extract(paper, ex, describe)]


def _apply_provenance(df: pd.DataFrame) -> pd.DataFrame:
    prov = provenance()
    for p in prov.itertuples():
        if p.field not in ("cpu_mhz", "cpu_mips"):
            raise BenchlibError(f"{PROVENANCE}: field {p.field!r} is neither cpu_mhz nor cpu_mips")
        hit = df["paper"] == p.paper
        if p.table != "*":
            hit &= df["table"] == p.table
        if p.row_label != "*":
            hit &= df["row_label"] == p.row_label
        if not pd.isna(p.row_index):
            hit &= df["row_index"] == int(p.row_index)
        if not hit.any():
            raise BenchlibError(f"{PROVENANCE}: no row matches {p.paper}/{p.table}/{p.row_label}")
        if p.field == "cpu_mhz":
            df.loc[hit, ["cpu_mhz", "cpu_mhz_source"]] = [float(p.value), p.source]
        else:
            df.loc[hit, ["cpu_rating", "cpu_rating_kind", "cpu_rating_status",
                         "cpu_rating_basis"]] = [float(p.value), MIPS, "rated", p.source]
    return df


def _apply_ratings(df: pd.DataFrame) -> pd.DataFrame:
    """The 1995-96 systems' lines of ``ratings()``: each names rows by paper
    and row label; its SPECint92 (when rated or estimated) is the rows'
    ``cpu_rating``, its reason the unrated rows' ``cpu_unrated_reason``;
    its clock fills rows that have none and must equal any a row has.
    Every system of ``RATED_PAPERS`` needs a line, every line a system."""
    r = ratings()
    for line in r.itertuples():
        hit = (df["paper"] == line.paper) & (df["row_label"] == line.system)
        if not hit.any():
            raise BenchlibError(f"{RATINGS}: no row matches {line.paper}/{line.system}")
        df.loc[hit, "cpu"] = line.cpu
        if not math.isnan(line.cpu_mhz):
            clash = hit & df["cpu_mhz"].notna() & (df["cpu_mhz"] != line.cpu_mhz)
            if clash.any():
                raise BenchlibError(f"{RATINGS}: {line.system} at {line.cpu_mhz:g} MHz, but a "
                                    f"row of it says {df.loc[clash, 'cpu_mhz'].iloc[0]:g}")
            empty = hit & df["cpu_mhz"].isna()
            df.loc[empty, ["cpu_mhz", "cpu_mhz_source"]] = [line.cpu_mhz, line.cpu_mhz_source]
        df.loc[hit, "cpu_rating_status"] = line.status
        if line.status == "unrated":
            df.loc[hit, "cpu_unrated_reason"] = line.reason
            continue
        basis = f"{SPECINT92}: {line.source}" + (f"; estimate: {line.basis}"
                                                 if line.status == "estimate" else "")
        df.loc[hit, ["cpu_rating", "cpu_rating_kind", "cpu_rating_basis"]] = [
            line.specint92, SPECINT92, basis]
    missing = df["paper"].isin(RATED_PAPERS) & (df["cpu_rating_status"] == "")
    if missing.any():
        names = sorted(set(df.loc[missing, "paper"] + "/" + df.loc[missing, "row_label"]))
        raise BenchlibError(f"{RATINGS}: no rating and no reason for {', '.join(names)}")
    return df


# The function that reads each paper's rows.  Chen & Patterson measure
# self-scaling I/O workloads only: none of the shared primitives, so that
# paper contributes no rows (the counts say 0).
ROWS: dict[str, Callable[[str], list[dict]]] = {
    "ousterhout1990": _ousterhout, "mach1989": _mach, "mcvoy1996": _mcvoy,
    "laibaker1996": _laibaker,
}


def dataset() -> pd.DataFrame:
    """Every paper's rows of the shared primitives (see the module docstring)."""
    rows = []
    for paper, read in ROWS.items():
        rows += read(paper)
    df = pd.DataFrame(rows).reindex(columns=COLUMNS)
    for col in ("cpu_mhz_source", "cpu_rating_kind", "cpu_rating_basis", "cpu_rating_status",
                "cpu_unrated_reason"):
        df[col] = df[col].astype(object).fillna("")
    df = _apply_ratings(_apply_provenance(df))
    df["higher_is_better"] = df["primitive"].map(lambda p: PRIMITIVES[p][1])
    return df


def counts(df: pd.DataFrame) -> tuple[pd.Series, pd.DataFrame]:
    """Rows per paper (every paper in PAPERS, 0 where none) and a
    primitive x paper table of row counts."""
    per_paper = df["paper"].value_counts().reindex(list(PAPERS), fill_value=0)
    per_primitive = (df.pivot_table(index="primitive", columns="paper", values="value",
                                    aggfunc="count", fill_value=0)
                     .reindex(index=[p for p in PRIMITIVES if p in set(df["primitive"])]))
    per_primitive["all"] = per_primitive.sum(axis=1)
    return per_paper.rename("rows"), per_primitive


def disagreements(df: pd.DataFrame) -> pd.DataFrame:
    """The same machine, OS and primitive reported by more than one paper."""
    key = df.assign(os_family=df["os"].str.split().str[0])
    g = key.groupby(["machine", "os_family", "primitive"])
    multi = g["paper"].transform("nunique") > 1
    cols = ["machine", "os_family", "primitive", "paper", "table", "row_label", "column",
            "value_std", "unit_std", "conditions"]
    return key.loc[multi, cols].sort_values(["primitive", "machine", "os_family", "paper"])


# Eras by the year of the figure (the paper's date; today's: the measurement's)
ERAS = {"1989-90": (1989, 1990), "1995-96": (1995, 1996), "today": (2000, 9999)}


def era_of(year) -> str:
    for name, (lo, hi) in ERAS.items():
        if lo <= year <= hi:
            return name
    return "other"


# ------------------------------------------------------------ the eras on one axis

ALL_ERAS = "all eras"
CLAIM = "operating-system primitives get faster as fast as the processor"


def era_groups(df: pd.DataFrame) -> dict[str, pd.Series]:
    """Each era's rows (by ``era_of`` the year) and every era's together."""
    era = df["year"].map(era_of)
    groups = {name: era == name for name in ERAS}
    groups[ALL_ERAS] = era.isin(list(ERAS))
    return groups


def fit_eras(df: pd.DataFrame, n_boot: int = 2000, level: float = 0.95) -> pd.DataFrame:
    """The exponent of speed against ``cpu_rating`` per primitive, for each
    era and for all eras (``benchlib.analysis.scaling.fit_table``: OLS on
    log-log axes, t interval, pairs bootstrap as a check).  Unrated rows have
    no rating and take no part (they are ranked, not fitted)."""
    from benchlib.analysis.scaling import fit_table

    return fit_table(df, era_groups(df), level=level, n_boot=n_boot)


def rating_table(df: pd.DataFrame) -> pd.DataFrame:
    """One line per system of ``df`` (era, paper, row label): its rows, CPU
    and clock, rating and its kind, status, and the basis or why unrated."""
    d = df.assign(era=df["year"].map(era_of),
                  why=df["cpu_rating_basis"].where(df["cpu_rating_status"] != "unrated",
                                                   df["cpu_unrated_reason"]))
    first = lambda x: x.dropna().iloc[0] if x.notna().any() else math.nan   # noqa: E731
    return (d.groupby(["era", "paper", "row_label"], sort=False)
             .agg(rows=("value", "size"), cpu=("cpu", "first"), cpu_mhz=("cpu_mhz", first),
                  cpu_rating=("cpu_rating", first), kind=("cpu_rating_kind", "first"),
                  status=("cpu_rating_status", "first"), basis_or_reason=("why", "first"))
             .reset_index())


def era_verdicts(output_dir, fits: pd.DataFrame) -> list[Verdict]:
    """One verdict per era and for all eras (``benchlib.papers.verdict``):
    the claim holds when no fitted primitive's 95% interval lies wholly
    below 1, fails when one does, and cannot be told without a fit.  Each
    fitted exponent is a figure of the verdict, with its interval."""
    out = []
    for name in [*ERAS, ALL_ERAS]:
        mine = fits[fits["systems"] == name]
        f = mine[mine["exponent"].notna()]
        said = {r.primitive: interval_verdict(r.ci_low, r.ci_high) for r in f.itertuples()}
        behind = [p for p, v in said.items() if v == "falls behind"]
        vague = [p for p, v in said.items() if v == CANNOT_TELL]
        told = len(f) - len(vague)
        why = mine.loc[mine["exponent"].isna(), "note"].value_counts()
        figures = {r.primitive: iv.Measured(r.exponent, r.ci_low, r.ci_high)
                   for r in f.itertuples()}
        names = ", ".join(p.replace("_", " ") for p in behind)
        out.append(verdict(
            output_dir, "then_and_now", f"{CLAIM} ({name})",
            holds=None if not told else not behind,
            evidence=(f"{len(f)} of {len(mine)} primitives fitted: exponent of speed against "
                      "the CPU rating (VAX-11/780 = 1), 1 = kept pace"),
            if_true=(f"No fitted primitive's 95% interval lies wholly below 1: {told} kept pace"
                     + (f"; {len(vague)} cannot tell (interval reaching 0 or 2)" if vague else "")
                     + "."),
            if_false=f"{len(behind)} of {len(f)} fitted primitives fell behind: {names}.",
            if_unknown=(("No primitive has a fit in this era"
                         + (f" (most often: {why.index[0]})" if len(why) else ""))
                        if f.empty else
                        f"Every fitted primitive's interval holds 1 and reaches 0 or 2 "
                        f"({len(vague)}): too few or too scattered rated systems to tell") + ".",
            figures=figures))
    return out

