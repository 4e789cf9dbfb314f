"""McVoy & Staelin, "lmbench: Portable Tools for Performance Analysis",
USENIX 1996: the data behind its tables and its context-switch figure.

The paper's extracted text lost its numbers, so the data come from the
troff sources of its tables (``*.tbl``) and figure (``ctx.pic``) shipped in
the ``doc/`` folder of the public distribution.  This module parses those
sources into tidy DataFrames; the committed CSVs live in
``data/papers/mcvoy1996`` and are regenerated with::

    python -m benchlib.papers.mcvoy1996.paper [SOURCE_DIR] [--out DIR]

Conventions of every table CSV (see that folder's README):

- ``system``: first column, the system name exactly as printed;
- ``row``: 0-based position of the row in the source file, because several
  rows share a system name (different machines of one vendor);
- value columns: snake_case with the unit in the name (``_us``, ``_ms``,
  ``_ns``, ``_mb_s``); NaN where the table has ``--`` or an empty cell
  (not measured) and also where it has a negative number (``-1``: the
  benchmark failed);
- ``failed``: True for a row that printed a negative number, so a failed
  measurement stays distinguishable from a missing one.
"""
from __future__ import annotations

import argparse
import ast
import math
import operator
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.papers import data_dir   # the shared locator: the repo's data/ or $BENCHLIB_DATA_DIR

PAPER = "mcvoy1996"


@dataclass(frozen=True)
class TableSpec:
    """How one ``.tbl`` file becomes one CSV."""
    name: str                  # tidy table name, what load() takes
    csv: str                   # CSV file name in data/papers/mcvoy1996
    header: tuple[str, ...]    # value-column labels as printed (header rows joined)
    columns: tuple[str, ...]   # our names for those columns, with units
    caption: str               # what the paper's table shows, with its unit


# File stem -> spec.  Headers in tbl are often two rows and group labels span
# columns (``c s``): ``header`` holds each column's labels joined top to
# bottom, and parse_tbl() checks it against the file so a changed source
# cannot be silently mislabelled.  Tables without a header row (one value
# column) take their meaning and unit from the paper's caption.  Units come
# from the paper's captions; lat_fs is the exception (see the README).
TABLES: dict[str, TableSpec] = {
    "bw_allmem": TableSpec(
        "memory_bandwidth", "table_memory_bandwidth.csv",
        ("Bcopy unrolled", "Bcopy libc", "Memory read", "Memory write"),
        ("bcopy_unrolled_mb_s", "bcopy_libc_mb_s", "memory_read_mb_s", "memory_write_mb_s"),
        "memory bandwidth, MB/s"),
    "bw_ipc": TableSpec(
        "ipc_bandwidth", "table_ipc_bandwidth.csv",
        ("bcopy", "pipe", "TCP"),
        ("bcopy_libc_mb_s", "pipe_mb_s", "tcp_mb_s"),
        "pipe and local TCP bandwidth beside libc bcopy, MB/s"),
    "bw_reread2": TableSpec(
        "file_reread_bandwidth", "table_file_reread_bandwidth.csv",
        ("Libc bcopy", "File read", "Memory read", "File mmap"),
        ("bcopy_libc_mb_s", "file_read_mb_s", "memory_read_mb_s", "file_mmap_mb_s"),
        "file reread (read and mmap) vs bcopy and memory read, MB/s"),
    "bw_tcp": TableSpec(
        "tcp_bandwidth", "table_tcp_bandwidth.csv",
        (), ("tcp_mb_s",),
        "local (loopback) TCP bandwidth, MB/s"),
    "ctx": TableSpec(
        "context_switch", "table_context_switch.csv",
        ("2 processes 0KB", "2 processes 32KB", "8 processes 0KB", "8 processes 32KB"),
        ("p2_0kb_us", "p2_32kb_us", "p8_0kb_us", "p8_32kb_us"),
        "context switch time for 2 and 8 processes of 0KB and 32KB, microseconds"),
    "lat_allmem": TableSpec(
        "memory_latency", "table_memory_latency.csv",
        ("Level 1 cache", "Level 2 cache", "Main memory"),
        ("l1_ns", "l2_ns", "main_memory_ns"),
        "cache and memory load latency, nanoseconds"),
    "lat_allproc": TableSpec(
        "process_creation", "table_process_creation.csv",
        ("fork & exit", "fork, exec & exit", "fork, exec sh -c & exit"),
        ("fork_exit_ms", "fork_exec_exit_ms", "fork_exec_sh_exit_ms"),
        "process creation time, milliseconds"),
    "lat_connect": TableSpec(
        "tcp_connect_latency", "table_tcp_connect_latency.csv",
        (), ("tcp_connect_us",),
        "TCP connection latency, microseconds"),
    "lat_disk": TableSpec(
        "disk_latency", "table_disk_latency.csv",
        (), ("disk_latency_us",),
        "SCSI I/O overhead per disk operation, microseconds"),
    "lat_fs": TableSpec(
        "file_create_delete", "table_file_create_delete.csv",
        ("Create", "Delete"),
        ("create_ms", "delete_ms"),
        "create / delete of a zero-length file, milliseconds (caption says microseconds)"),
    "lat_ipc": TableSpec(
        "remote_network", "table_remote_network.csv",
        ("Network", "TCP bw", "TCP latency", "UDP latency"),
        ("network", "tcp_bw_mb_s", "tcp_latency_us", "udp_latency_us"),
        "remote TCP bandwidth (MB/s) and TCP/UDP round-trip latency (microseconds)"),
    "lat_nullsys": TableSpec(
        "null_syscall", "table_null_syscall.csv",
        (), ("null_syscall_us",),
        "simple system call time, microseconds"),
    "lat_pipe": TableSpec(
        "pipe_latency", "table_pipe_latency.csv",
        (), ("pipe_us",),
        "pipe round-trip latency, microseconds"),
    "lat_signal": TableSpec(
        "signal_latency", "table_signal_latency.csv",
        ("sigaction", "sig handler"),
        ("sigaction_us", "sig_handler_us"),
        "signal install (sigaction) and handler dispatch, microseconds"),
    "lat_tcp": TableSpec(
        "tcp_latency", "table_tcp_latency.csv",
        ("TCP", "RPC/TCP"),
        ("tcp_us", "rpc_tcp_us"),
        "local TCP and Sun RPC over TCP round-trip latency, microseconds"),
    "lat_udp": TableSpec(
        "udp_latency", "table_udp_latency.csv",
        ("UDP", "RPC/UDP"),
        ("udp_us", "rpc_udp_us"),
        "local UDP and Sun RPC over UDP round-trip latency, microseconds"),
}

# The context-switch figure (ctx.pic): its own name, outside TABLES because
# the table ctx.tbl already owns the stem "ctx".
FIGURE_CTX = "ctx_linux_i686"
FIGURE_CTX_CSV = "figure_ctx_linux_i686.csv"
# The machine the figure was drawn on, as its label in ctx.pic reads ("Linux i686@167Mhz").
FIGURE_CTX_SYSTEM = "Linux i686 @ 167 MHz"

# Columns holding text rather than numbers.
TEXT_COLUMNS = ("system", "network")


# --------------------------------------------------------------------------
# troff markup

# Escapes that render as nothing we need: fonts (\fB \fP \f(CW \f[..]), sizes
# (\s+2 \s0 \s(12), zero-width \& and thin/hair spaces \| \^.
_INVISIBLE = re.compile(r"\\f(?:\(..|\[[^\]]*\]|.)|\\s(?:[+-]?\d+|\([+-]?\d\d)|\\[&|^%]")


def clean_cell(cell: str) -> str:
    """Text of one tbl entry with troff markup removed: ``\\fBpipe\\fP`` ->
    ``pipe``, ``78\\ `` -> ``78``, ``\\-1`` -> ``-1``."""
    s = _INVISIBLE.sub("", cell)
    s = s.replace("\\ ", " ").replace("\\~", " ").replace("\\0", " ")  # unpaddable spaces
    s = s.replace("\\-", "-").replace("\\e", "\\").replace("\\(mi", "-")
    return s.strip()


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")
_MISSING = ("", "--")


def _is_number(s: str) -> bool:
    return _NUMBER.fullmatch(s) is not None


# --------------------------------------------------------------------------
# tbl structure

# A column's key letter: l r c n a (content), s (span from the left), ^ (span
# from above), _ - = (a rule instead of content).  Modifiers that may follow:
# fonts b i and f<name>, t u e z x, widths w(..), sizes p/v<n>, separation digits.
_KEY = re.compile(r"[lrcnasLRCNAS^_=-]")
_MODIFIER = re.compile(
    r"[fF](?:\([^\s]{2}|\[[^\]]*\]|[A-Za-z0-9])|[wW](?:\([^)]*\)|\d+)"
    r"|[pPvV][+-]?\d+|\d+|[bBiItTuUeEzZxX]")


def _parse_format_row(text: str) -> list[str]:
    """Key letters of one format row, lower-cased: ``"c|c s|c s"`` ->
    ``['c', 'c', 's', 'c', 's']``."""
    keys, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch in " \t|":            # column separators and vertical rules
            i += 1
        elif _KEY.match(ch):
            keys.append(ch.lower())
            i += 1
        else:
            m = _MODIFIER.match(text, i)
            if not m:
                raise ValueError(f"tbl format: cannot read {text[i:]!r} in {text!r}")
            i = m.end()
    return keys


def _read_format(lines: list[str], i: int) -> tuple[list[list[str]], int]:
    """Format rows starting at lines[i]; they end at the row whose last
    character is '.'.  Rows may also be separated by commas."""
    rows = []
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        done = line.endswith(".")
        for part in (line[:-1] if done else line).split(","):
            if part.strip():
                rows.append(_parse_format_row(part))
        if done:
            return rows, i
    raise ValueError("tbl format section has no terminating '.'")


def _split_tbl(text: str) -> tuple[list[list[tuple[str, str]]], str]:
    """(rows, tab) of the single table in ``text``: each row a list of
    (column key, entry) pairs, entries mapped onto columns.

    An entry goes to the next column that is not a horizontal span ('s'):
    ``\\tBcopy\\tMemory`` under ``c|c s|c s`` puts Memory over the fourth
    column, which is how the paper printed it (both group labels survive in
    its extracted text).  A full-width rule line is taken not to use up a
    format row."""
    lines = text.splitlines()
    starts = [k for k, l in enumerate(lines) if l.startswith(".TS")]
    if len(starts) != 1:
        raise ValueError(f"expected exactly one .TS/.TE table, found {len(starts)}")
    i = starts[0] + 1
    tab = "\t"
    if i < len(lines) and lines[i].rstrip().endswith(";"):   # global options line
        m = re.search(r"tab\s*\((.)\)", lines[i])
        if m:
            tab = m.group(1)
        i += 1
    formats, i = _read_format(lines, i)
    rows, row_in_section = [], 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith(".TE"):
            return rows, tab
        if line.startswith(".T&"):            # table continues with a new format
            formats, i = _read_format(lines, i)
            row_in_section = 0
            continue
        if re.match(r"\.(?:[A-Za-z]|\\\")", line) or line.startswith("'"):
            continue                          # troff request or comment inside the table
        if line.strip() in ("_", "=", "\\_"):
            continue                          # full-width rule: not a row
        if "T{" in line:
            raise ValueError("tbl text blocks (T{ ... T}) are not supported")
        fmt = formats[min(row_in_section, len(formats) - 1)]
        row_in_section += 1
        if all(k in "_=-" for k in fmt):
            raise ValueError("tbl format rows made only of rules are not supported")
        entries = line.split(tab)
        cols = [k for k in range(len(fmt)) if fmt[k] != "s"]
        if len(entries) > len(cols):
            # A trailing empty entry is only a stray tab; anything else is data we would lose.
            if any(e.strip() for e in entries[len(cols):]):
                raise ValueError(f"tbl row has more entries than columns: {line!r}")
            entries = entries[:len(cols)]
        row = [(fmt[k], "") for k in range(len(fmt))]
        for k, entry in zip(cols, entries):
            row[k] = (fmt[k], entry)
        rows.append(row)
    raise ValueError("tbl table has no .TE")


def _entry_text(key: str, entry: str) -> str:
    """An entry's text; '^' for a vertical span (``\\^``: same as above), ''
    for a rule drawn in place of an entry."""
    if entry.strip() == "\\^":
        return "^"
    if key in "_=-" or entry.strip() in ("_", "=", "\\_", "\\="):
        return ""
    return clean_cell(entry)


def _header_labels(header_rows: list[list[tuple[str, str]]], ncols: int) -> list[str]:
    """Each column's header text, header rows joined top to bottom; a label
    over a span ('c s') heads every column it spans."""
    labels = [[] for _ in range(ncols)]
    for row in header_rows:
        k = 0
        while k < ncols:
            text = clean_cell(row[k][1])
            end = k + 1
            while end < ncols and row[end][0] == "s":
                end += 1
            if text:
                for j in range(k, end):
                    labels[j].append(text)
            k = end
    return [" ".join(parts) for parts in labels]


def _snake(label: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", label.lower()).strip("_")


def parse_tbl(text: str, table: str | None = None) -> pd.DataFrame:
    """One troff ``tbl`` table as a tidy DataFrame.

    ``table`` is a key of TABLES (file stem, e.g. ``"lat_allmem"``) or its
    tidy name; with it, the header rows are checked against the spec and the
    columns get their names with units.  Without it, names are the header
    labels in snake_case (no units: tbl headers rarely print them), or
    ``value``/``value_<n>`` for a table with no header.

    Columns: ``system``, ``row``, the value columns, ``failed``.  A leading
    row with no number in it is a header row; ``--`` or an empty entry is
    NaN (not measured); a negative number is NaN with ``failed`` True."""
    spec = _spec(table) if table is not None else None
    rows, _ = _split_tbl(text)
    if not rows:
        raise ValueError("tbl table has no rows")
    ncols = len(rows[0])
    if any(len(r) != ncols for r in rows):
        raise ValueError("tbl rows have different numbers of columns (.T& with a new width)")

    cells = [[_entry_text(key, entry) for key, entry in r] for r in rows]
    nhead = 0   # header rows: the leading rows with no number and no '--'
    while nhead < len(cells) and not any(_is_number(c) or c == "--" for c in cells[nhead][1:]):
        nhead += 1
    labels = tuple(_header_labels(rows[:nhead], ncols)[1:]) if nhead else ()
    data = cells[nhead:]
    for j in range(1, len(data)):   # \^ entries repeat the entry above
        data[j] = [above if c == "^" else c for above, c in zip(data[j - 1], data[j])]

    if spec is not None:
        if len(spec.columns) != ncols - 1:
            raise ValueError(f"{spec.name}: table has {ncols - 1} value columns, spec has "
                             f"{len(spec.columns)}")
        if labels != spec.header:
            raise ValueError(f"{spec.name}: header {labels} does not match spec {spec.header}")
        names = list(spec.columns)
    elif nhead:
        names = [_snake(lab) or f"value_{k + 1}" for k, lab in enumerate(labels)]
    else:
        names = ["value"] if ncols == 2 else [f"value_{k + 1}" for k in range(ncols - 1)]

    out: dict[str, list] = {"system": [r[0] for r in data], "row": list(range(len(data)))}
    failed = [False] * len(data)
    for k, name in enumerate(names, start=1):
        column = [r[k] for r in data]
        if not all(_is_number(c) or c in _MISSING for c in column):
            if spec is not None and name not in TEXT_COLUMNS:
                bad = next(c for c in column if not (_is_number(c) or c in _MISSING))
                raise ValueError(f"{spec.name}: {name} holds non-numeric entry {bad!r}")
            out[name] = column                  # a text column (lat_ipc's network)
            continue
        values = []
        for j, c in enumerate(column):
            if c in _MISSING:
                values.append(math.nan)
            elif float(c) < 0:                  # -1: the benchmark failed
                values.append(math.nan)
                failed[j] = True
            else:
                values.append(float(c))
        # int when every entry is printed as a whole number, as read_csv would infer
        as_int = all(re.fullmatch(r"\+?\d+", c) for c in column)
        out[name] = [int(v) for v in values] if as_int else values
    out["failed"] = failed
    return pd.DataFrame(out)


# --------------------------------------------------------------------------
# pic figure

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv}


def _eval(expr: str, env: dict[str, str], seen: tuple[str, ...] = ()) -> float:
    """A pic arithmetic expression (numbers, names, + - * /, parentheses);
    names are looked up, recursively, among the figure's assignments."""
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.Name):
            if node.id not in env or node.id in seen:
                raise ValueError(f"pic: undefined or circular variable {node.id!r}")
            return _eval(env[node.id], env, seen + (node.id,))
        raise ValueError(f"pic: unsupported expression {expr!r}")
    return ev(ast.parse(expr.strip(), mode="eval"))


def _split_pair(s: str) -> tuple[str, str]:
    """``"a * (b - c), d"`` -> (``"a * (b - c)"``, ``"d"``): split at the top-level comma."""
    depth = 0
    for k, ch in enumerate(s):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            return s[:k], s[k + 1:]
    raise ValueError(f"pic: not a coordinate pair: {s!r}")


def parse_ctx_pic(text: str) -> pd.DataFrame:
    """The context-switch figure's points, one row each:
    ``process_size_kb``, ``processes`` (X), ``time_us`` (Y), ``overhead_us``.

    Each point is drawn at ``O.sw + (xscale * (X - xlower), yscale * (Y -
    ylower))``; the offsets are evaluated with the figure's own variables and
    the transform inverted, so X and Y come out in data units whatever form
    the expressions take.  Text labels (the working-set sizes ".25M" ...)
    are not points and are skipped."""
    # Join continuation lines so each statement is one line.
    lines = text.replace("\\\n", " ").splitlines()
    env: dict[str, str] = {}
    for line in lines:
        m = re.match(r"\s*([A-Za-z_]\w*)\s*=\s*([^#]+?)\s*(?:#.*)?$", line)
        if m and m.group(1) not in env:     # first definition: later ones are loop counters
            env[m.group(1)] = m.group(2)
    xscale, xlower = _eval("xscale", env), _eval("xlower", env)
    yscale, ylower = _eval("yscale", env), _eval("ylower", env)

    # The legend prints each dataset's size with its unit ("size=16KB overhead=66"):
    # check the DATASET labels, which drop the unit, against it.
    legend = {int(s): int(o) for s, o in
              re.findall(r'"size=(\d+)KB\s*(?:\\ )?\s*overhead=(\d+)"', text)}

    points, dataset = [], None
    for line in lines:
        m = re.match(r"#\s*DATASET:\s*Process size=(\d+)\s+overhead=(\d+)", line.strip())
        if m:
            dataset = (int(m.group(1)), int(m.group(2)))
            if legend and legend.get(dataset[0]) != dataset[1]:
                raise ValueError(f"ctx.pic: dataset {dataset} not in the legend {legend}")
            continue
        if line.strip().startswith("#"):
            dataset = None                    # any other comment ends the data blocks
            continue
        m = re.match(r'\s*\[\s*"[^"]*"\s*\]\s+at\s+O\.sw\s*\+\s*\((.*)\)\s*$', line)
        if m and dataset is not None:
            xexpr, yexpr = _split_pair(m.group(1))
            x = _eval(xexpr, env) / xscale + xlower
            y = _eval(yexpr, env) / yscale + ylower
            if abs(x - round(x)) > 1e-6:
                raise ValueError(f"ctx.pic: process count {x} is not whole")
            points.append({"process_size_kb": dataset[0], "processes": int(round(x)),
                           "time_us": round(y, 6), "overhead_us": dataset[1]})
    if not points:
        raise ValueError("ctx.pic: no data points found")
    return pd.DataFrame(points).astype({"process_size_kb": "int64", "processes": "int64",
                                        "time_us": "float64", "overhead_us": "int64"})


# --------------------------------------------------------------------------
# committed CSVs

def _spec(table: str) -> TableSpec:
    if table in TABLES:
        return TABLES[table]
    for spec in TABLES.values():
        if table in (spec.name, spec.csv, spec.csv.removesuffix(".csv")):
            return spec
    raise BenchlibError(f"no mcvoy1996 table {table!r}; tables: {', '.join(tables())}")


def data_path() -> Path:
    """``data/papers/mcvoy1996`` of the source tree, or under $BENCHLIB_DATA_DIR."""
    return data_dir() / "papers" / PAPER


def tables() -> list[str]:
    """Names load() takes: the tables' tidy names, then the figure."""
    return [spec.name for spec in TABLES.values()] + [FIGURE_CTX]


def load(table: str) -> pd.DataFrame:
    """One committed CSV as a DataFrame.  ``table`` is a tidy name from
    tables() (``"memory_latency"``), a source stem (``"lat_allmem"``) or the
    CSV's name; ``"ctx_linux_i686"`` is the context-switch figure."""
    if table in (FIGURE_CTX, FIGURE_CTX_CSV, FIGURE_CTX_CSV.removesuffix(".csv")):
        return pd.read_csv(data_path() / FIGURE_CTX_CSV)
    spec = _spec(table)
    # Text columns stay text ("NA" would otherwise be NaN); only empty cells are missing.
    return pd.read_csv(data_path() / spec.csv, keep_default_na=False, na_values=[""],
                       dtype={c: str for c in TEXT_COLUMNS if c in ("system",) + spec.columns})


def parse_source_dir(source: Path) -> dict[str, pd.DataFrame]:
    """Every table and the figure, freshly parsed, keyed by CSV file name."""
    out = {}
    for stem, spec in TABLES.items():
        out[spec.csv] = parse_tbl((source / f"{stem}.tbl").read_text(), stem)
    out[FIGURE_CTX_CSV] = parse_ctx_pic((source / "ctx.pic").read_text())
    return out


def main(argv: list[str] | None = None) -> int:
    repo = Path(__file__).resolve().parents[3]
    parser = argparse.ArgumentParser(
        prog="python -m benchlib.papers.mcvoy1996.paper",
        description="Regenerate data/papers/mcvoy1996/*.csv from the paper's tbl/pic sources.")
    parser.add_argument("source", nargs="?", type=Path,
                        default=repo.parent / "shared" / "reference" / "lmbench",
                        help="folder with *.tbl and ctx.pic (default: ../shared/reference/lmbench)")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: data/papers/mcvoy1996)")
    args = parser.parse_args(argv)
    if not args.source.is_dir():
        parser.error(f"source folder not found: {args.source}")
    unknown = sorted(p.stem for p in args.source.glob("*.tbl") if p.stem not in TABLES)
    if unknown:     # a new table needs its column names written into TABLES first
        parser.error(f"tables without a spec in TABLES: {', '.join(unknown)}")
    out = args.out or data_path()
    out.mkdir(parents=True, exist_ok=True)
    for name, df in parse_source_dir(args.source).items():
        df.to_csv(out / name, index=False)
        print(f"wrote {name} ({len(df)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
