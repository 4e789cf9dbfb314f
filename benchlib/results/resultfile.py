"""The versioned result file: one documented JSON format for every result
benchlib writes (result files, the store's lines, notebooks' output folders).

A result file is a JSON object::

    {"schema_version": 2, "format": "benchlib-results", "created": "<UTC ISO time>",
     "results": [<record>, ...]}

and a record (also one line of a store file, results/store/<host>.jsonl) holds
one Result: ``schema_version``, benchmark, params, unit, higher_is_better,
every sample at full precision (JSON floats round-trip exactly), the raw ns
per iteration, TSC ticks and per-sample core clock, the summary, placement,
profile, timestamp, machine metadata, provenance (package version, git
commit, command or notebook) and the noise diagnostics.  The JSON Schema is
benchlib/results/schema/result-v2.schema.json (``schema()``).  NaN and infinity are
written as null.  Older records are upgraded on reading: version 0 (store
lines written before schema_version existed) gets its diagnostics
recomputed from the samples (the run-time facts, steal and context
switches, stay null); version 1 gets an empty ``process`` record (version 2
added it: the measuring process's kind, threads, descriptors, mappings and
signals; a version-1 result was measured in the calling Python process,
whose thread count nobody recorded)."""
from __future__ import annotations

import datetime as _dt
import functools
import json
import math
import os
from pathlib import Path
from typing import Iterable

from benchlib.files import write_text_atomic
from benchlib.errors import BenchlibError

SCHEMA_VERSION = 2
FORMAT = "benchlib-results"
RESULT_FILE_NAME = "results.json"
_SCHEMA_PATH = Path(__file__).parent / "schema" / f"result-v{SCHEMA_VERSION}.schema.json"

# ---------------------------------------------------------------- records

def _clean(x):
    """JSON-ready: NaN/inf to None, numpy scalars to Python, tuples to lists."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, bool) or x is None or isinstance(x, (str, int)):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if hasattr(x, "item"):  # numpy scalar
        return _clean(x.item())
    return str(x)


def to_record(result) -> dict:
    """A Result as a schema-v1 record."""
    return _clean({"schema_version": SCHEMA_VERSION, **result.to_dict()})


def dumps_record(result) -> str:
    return json.dumps(to_record(result), allow_nan=False)


def upgrade(rec: dict) -> dict:
    """A record of any known version as a current-version record, one step
    at a time (0 -> 1: diagnostics recomputed; 1 -> 2: ``process`` added,
    empty)."""
    v = rec.get("schema_version", 0)
    if v == SCHEMA_VERSION:
        return rec
    if not isinstance(v, int) or v > SCHEMA_VERSION or v < 0:
        raise BenchlibError(f"result schema_version {v} is newer than this benchlib reads "
                            f"({SCHEMA_VERSION}); upgrade benchlib")
    out = dict(rec)
    if v == 0:
        from benchlib.measuring.diagnostics import diagnose

        out.setdefault("extras", {})
        out.setdefault("counts", "")
        out.setdefault("placement", {})
        out["provenance"] = {"benchlib_version": (rec.get("machine") or {}).get("benchlib_version"),
                             "git_commit": None, "git_dirty": None, "command": None,
                             "notebook": None}
        out["diagnostics"] = diagnose(rec["samples"], rec.get("clock_ghz"), out["placement"],
                                      None)
    if v <= 1:
        out.setdefault("process", {})
    out["schema_version"] = SCHEMA_VERSION
    return _clean(out)


def from_record(rec: dict):
    """A record (any version) back as a Result."""
    from dataclasses import MISSING

    from benchlib.measuring.result import Result

    rec = upgrade(rec)
    kwargs = {}
    for k, f in Result.__dataclass_fields__.items():
        if k in rec:
            kwargs[k] = rec[k]
        elif f.default_factory is not MISSING:
            kwargs[k] = f.default_factory()
        else:
            kwargs[k] = None if f.default is MISSING else f.default
    return Result(**kwargs)


_MACHINE_COLUMNS = ("hostname", "cpu_model", "cpus_online", "kernel", "virtualized",
                    "thp_enabled", "l1d_bytes", "l2_bytes", "l3_bytes", "compiler",
                    "benchlib_version")


def result_row(rec: dict) -> dict:
    """One DataFrame row of a result record: parameters as columns, the main
    machine fields as ``machine.*``, ``stable``, the record itself in ``record``."""
    machine = rec.get("machine", {})
    row = {"benchmark": rec["benchmark"], **rec.get("params", {}),
           **{k: rec.get(k) for k in ("value", "unit", "min", "median", "max",
                                      "rel_iqr", "n_samples", "profile", "timestamp")},
           "stable": (rec.get("diagnostics") or {}).get("stable")}
    row.update({f"machine.{k}": machine.get(k) for k in _MACHINE_COLUMNS})
    row["record"] = rec
    return row


# ---------------------------------------------------------------- schema

@functools.lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON Schema of a result file (its $defs.record: one record)."""
    return json.loads(_SCHEMA_PATH.read_text())


def _schema_of(kind: str) -> dict:
    return schema() if kind == "file" else {"$defs": schema()["$defs"], "$ref": "#/$defs/record"}


@functools.lru_cache(maxsize=2)
def _fast_check(kind: str):
    """The schema compiled to Python by fastjsonschema, once per process:
    some 30x faster than jsonschema's interpreter (which made 100,000
    samples take half a minute), and no import of jsonschema, whose format
    checkers take 1.5-2 s to import where rfc3987-syntax is installed (the
    notebook stack brings it).  None where fastjsonschema is missing.  The
    schema uses only keywords both implement alike."""
    try:
        import fastjsonschema
    except ImportError:
        return None
    # every $ref is local ("#/$defs/..."); without the $id, fastjsonschema
    # resolves them in the document instead of fetching the $id's URL
    return fastjsonschema.compile({k: v for k, v in _schema_of(kind).items() if k != "$id"})


def validate(doc: dict, kind: str = "file", where: str = "result") -> None:
    """Raise BenchlibError (one line) unless ``doc`` is a valid result file
    (kind "file") or record (kind "record").  A valid document is passed by
    the compiled check; jsonschema words what is wrong with an invalid one."""
    fast = _fast_check(kind)
    if fast is not None:
        try:
            fast(doc)
            return
        except Exception:  # fastjsonschema's own exception: jsonschema words the error
            pass
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(_schema_of(kind)).iter_errors(doc),
                    key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        path = "/".join(str(p) for p in e.absolute_path) or "(top level)"
        raise BenchlibError(f"{where}: not a valid benchlib result {kind} at {path}: {e.message[:200]}")


# ---------------------------------------------------------------- files

def document(results: Iterable) -> dict:
    """Results (Result objects or records) as a result-file object."""
    recs = [r if isinstance(r, dict) else to_record(r) for r in results]
    return {"schema_version": SCHEMA_VERSION, "format": FORMAT,
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "results": [upgrade(r) for r in recs]}


def write(path: str | os.PathLike, results: Iterable) -> Path:
    """Write a result file (atomically) holding ``results``."""
    doc = document(results)
    return write_text_atomic(path, json.dumps(doc, allow_nan=False, indent=1) + "\n")


def _parse(text: str, where: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchlibError(f"{where}: not JSON ({exc.msg} at line {exc.lineno})") from None


def read_records(path: str | os.PathLike, check: bool = True) -> list[dict]:
    """Every record in one result file (.json) or store file (.jsonl, one
    record a line), upgraded to the current version; validated if ``check``."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise BenchlibError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise BenchlibError(f"{path}: not a text file") from None
    recs = []
    if path.suffix == ".jsonl":
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            rec = _parse(line, f"{path}:{n}")
            if not isinstance(rec, dict) or "benchmark" not in rec or "samples" not in rec:
                raise BenchlibError(f"{path}:{n}: not a benchlib result line")
            rec = upgrade(rec)
            if check:
                validate(rec, "record", f"{path}:{n}")
            recs.append(rec)
        return recs
    doc = _parse(text, str(path))
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise BenchlibError(f"{path}: not a benchlib result file (no \"format\": \"{FORMAT}\")")
    if doc.get("schema_version", 0) > SCHEMA_VERSION:
        raise BenchlibError(f"{path}: schema_version {doc['schema_version']} is newer than this "
                            f"benchlib reads ({SCHEMA_VERSION}); upgrade benchlib")
    if not isinstance(doc.get("results"), list):
        raise BenchlibError(f"{path}: not a valid benchlib result file (no \"results\" list)")
    doc = {**doc, "schema_version": SCHEMA_VERSION,
           "results": [upgrade(r) if isinstance(r, dict) else r for r in doc["results"]]}
    if check:
        validate(doc, "file", str(path))
    return doc["results"]


def read(path: str | os.PathLike) -> list:
    """The Results in one result file or store file."""
    return [from_record(r) for r in read_records(path)]


def _files_under(directory: Path) -> list[Path]:
    files = [p for p in directory.rglob("*") if p.is_file() and not p.name.startswith(".")
             and (p.suffix == ".jsonl" and p.parent.name == "store" or p.name == RESULT_FILE_NAME
                  or p.name.endswith(".results.json"))]
    return sorted(files)


def _identity(rec: dict) -> tuple:
    return (rec["benchmark"], json.dumps(rec.get("params", {}), sort_keys=True),
            rec.get("timestamp"), tuple(rec["samples"]))


def load_records(source: str | os.PathLike | Iterable, check: bool = True,
                 on_error=None) -> list[dict]:
    """Records from a result file, a store file, a directory (searched
    recursively for store/*.jsonl, results.json and *.results.json: a
    reproduce.sh run folder, a notebook's output folder, a results/ tree), or
    an iterable of Results/records.  A measurement found twice (a notebook's
    results.json and its store line) is kept once.  In a directory, a file
    that is not a valid benchlib result file stops the reading, unless
    ``on_error(path, error)`` is given: then it is called and the file skipped."""
    if not isinstance(source, (str, os.PathLike)):
        recs = [upgrade(r) if isinstance(r, dict) else to_record(r) for r in source]
    else:
        path = Path(source)
        if path.is_dir():
            recs = []
            for f in _files_under(path):
                try:
                    recs += read_records(f, check)
                except BenchlibError as exc:
                    if on_error is None:
                        raise
                    on_error(f, exc)
        elif path.exists():
            recs = read_records(path, check)
        else:
            raise BenchlibError(f"{path}: no such file or directory")
    seen, out = set(), []
    for r in recs:
        key = _identity(r)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out
