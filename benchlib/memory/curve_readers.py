"""The fit's input read from files: what ``benchlib memory --save`` wrote,
or latency curves people already have.

:func:`read_input` is what ``benchlib fit-memory`` reads: a directory that
``benchlib memory --save DIR`` wrote (or its ``memory.json``) gives the
whole :class:`.data.MemoryData` (every chase, the clock, the machine's
reports), so that the fit is the one ``benchlib memory`` made; any other
file is one latency table (size_bytes, stride_bytes, latency_ns) in
MemoryData, and the fit says what it could not determine without the rest:

* the classic ``lat_mem_rd`` text output: a header line ``"stride=N`` per
  curve, then lines "size_in_MB ns_per_load" (MB = 2^20 bytes), curves
  separated by blank lines;
* a multichase-style CSV: a header naming a size column (``size``,
  ``arena``, ``working_set``, ``bytes``...) whose values may carry a k/m/g
  suffix (2^10, 2^20, 2^30), a latency column in ns (``ns``, ``latency``...),
  and optionally a stride column;
* our own CSV (``benchlib memory --csv``, or ``latency.csv`` of a saved
  directory): size_bytes, stride_bytes, latency_ns (and pattern,
  huge_pages, latency_cycles, clock_ghz).
"""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd

from benchlib.errors import BenchlibError
from benchlib.memory.dataset import FORMAT, MANIFEST, TABLES, VERSION, MemoryData
from benchlib.units import parse_size


def read_lat_mem_rd(text: str) -> pd.DataFrame:
    rows, stride = [], None
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s:
            continue
        m = re.match(r'^"?\s*stride\s*=\s*(\d+)', s)
        if m:
            stride = int(m.group(1))
            continue
        parts = s.split()
        if len(parts) < 2:
            raise BenchlibError(f"line {n}: expected 'size_in_MB ns', got {s!r}")
        try:
            mb, ns = float(parts[0]), float(parts[1])
        except ValueError:
            raise BenchlibError(f"line {n}: expected 'size_in_MB ns', got {s!r}") from None
        if stride is None:
            raise BenchlibError(f"line {n}: a data line before any '\"stride=N' header")
        rows.append({"size_bytes": mb * (1 << 20), "stride_bytes": stride, "latency_ns": ns,
                     "pattern": "stride"})
    if not rows:
        raise BenchlibError("no data lines (expected '\"stride=N' then 'size_in_MB ns' lines)")
    df = pd.DataFrame(rows)
    df["size_bytes"] = (df["size_bytes"] / 8).round() * 8      # MB printed to 5 decimals
    return df


def _pick(cols: list[str], names: tuple[str, ...]) -> str | None:
    low = {c.lower().strip(): c for c in cols}
    for n in names:
        for lc, c in low.items():
            if lc == n or lc.startswith(n):
                return c
    return None


def read_csv_curve(text: str) -> pd.DataFrame:
    try:
        df = pd.read_csv(io.StringIO(text))
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise BenchlibError(f"cannot read the file as CSV: {exc}") from None
    if "size_bytes" in df.columns and "latency_ns" in df.columns:
        return df                                     # ours
    cols = list(df.columns)
    size_c = _pick(cols, ("size", "arena", "working_set", "bytes", "mem"))
    lat_c = _pick(cols, ("latency_ns", "ns", "latency", "nanoseconds"))
    if size_c is None or lat_c is None:
        raise BenchlibError("missing columns: size_bytes, latency_ns (or a size/arena column and "
                            f"an ns/latency column); the table has: {', '.join(map(str, cols))}")
    out = pd.DataFrame({"size_bytes": [parse_size(v, "a curve's size", whole=False)
                                       for v in df[size_c]],
                        "latency_ns": pd.to_numeric(df[lat_c], errors="coerce")})
    stride_c = _pick(cols, ("stride",))
    if stride_c is not None:
        out["stride_bytes"] = [parse_size(v, "a curve's stride", whole=False)
                               for v in df[stride_c]]
    return out


def read_curve_file(path) -> pd.DataFrame:
    """Any of the three formats, by content."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchlibError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        raise BenchlibError(f"cannot read {path}: the file is empty")
    first = next(s for s in text.splitlines() if s.strip()).strip()
    if re.match(r'^"?\s*stride\s*=', first):
        return read_lat_mem_rd(text)
    return read_csv_curve(text)


def read_saved(path) -> MemoryData:
    """A directory written by ``benchlib memory --save`` (or the path of
    its ``memory.json``), read back as the MemoryData that was fitted."""
    p = Path(path)
    manifest = p / MANIFEST if p.is_dir() else p
    try:
        m = json.loads(manifest.read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchlibError(f"cannot read {manifest}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise BenchlibError(f"{manifest} is not JSON: {exc}") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise BenchlibError(f"{manifest} is not a saved benchlib memory measurement "
                            f"(no \"format\": \"{FORMAT}\")")
    if m.get("version") != VERSION:
        raise BenchlibError(f"{manifest}: format version {m.get('version')!r}; this benchlib "
                            f"reads version {VERSION}")
    tables = m.get("tables") or {}
    unknown = sorted(set(tables) - set(TABLES))
    if unknown or "latency" not in tables:
        raise BenchlibError(f"{manifest}: " + (f"unknown tables {', '.join(unknown)}" if unknown
                                               else "no latency table"))
    frames = {}
    for name, file in tables.items():
        f = manifest.parent / file
        try:
            frames[name] = pd.read_csv(f)
        except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise BenchlibError(f"cannot read {f} (named in {manifest}): {exc}") from None
    rep = m.get("tlb_reported")
    if rep is not None:
        rep = {**rep, "levels": {int(k): v for k, v in (rep.get("levels") or {}).items()}}
    return MemoryData(**frames, clock_ghz=m.get("clock_ghz"), machine=m.get("machine") or {},
                      tlb_reported=rep, profile=m.get("profile"), elapsed_s=m.get("elapsed_s"),
                      source=str(manifest))


def read_lat_mem_rd_dir(path) -> pd.DataFrame:
    """Every ``lat_mem_rd`` text file in a directory (one run per stride,
    as people keep them), as one table."""
    p = Path(path)
    parts = []
    for f in sorted(p.iterdir()):
        if not f.is_file() or f.suffix not in (".txt", ".out", ".log", ""):
            continue
        try:
            text = f.read_text()
        except (OSError, UnicodeDecodeError):
            continue
        first = next((s for s in text.splitlines() if s.strip()), "").strip()
        if re.match(r'^"?\s*stride\s*=', first):
            parts.append(read_lat_mem_rd(text))
    if not parts:
        raise BenchlibError(f"{p}: no memory.json and no lat_mem_rd output files")
    return pd.concat(parts, ignore_index=True)


def read_input(path) -> MemoryData:
    """What ``benchlib fit-memory`` fits: a saved directory (or its
    manifest) whole; a directory of ``lat_mem_rd`` outputs (one per
    stride) as one table; else one curve file (:func:`read_curve_file`)."""
    p = Path(path)
    if p.is_dir() and not (p / MANIFEST).exists():
        return MemoryData(latency=read_lat_mem_rd_dir(p), source=str(p))
    if p.is_dir() or p.suffix == ".json":
        return read_saved(p)
    return MemoryData(latency=read_curve_file(p), source=str(p))
