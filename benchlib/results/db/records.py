"""From a result record (the dict ``Result.to_dict()`` gives, as a store line
holds it) to the rows of the database, and back.

Keys are content hashes, so the same record imported twice, from any path,
by any process, is one row:

- machine: the hardware and its virtualisation (hostname, CPU, cores, memory,
  caches); kernel, compiler and versions belong to the run;
- run: the machine, profile, producer (command or notebook), label (the
  reproduction folder) and the software environment;
- result: what was measured, when, its samples and the machine (a notebook's
  results.json and its store line hold the same measurement: one row).
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path

MACHINE_IDENTITY = ("hostname", "cpu_model", "arch", "cpus_online", "memory_total_bytes",
                    "l1d_bytes", "l2_bytes", "l3_bytes", "virtualized", "hypervisor_hint",
                    "recorded_condition")
MACHINE_DYNAMIC = ("loadavg", "timestamp")
SAMPLE_ARRAYS = ("samples", "ns_per_iteration", "tsc_ticks_per_iteration", "clock_ghz")
_RUN_FOLDER = re.compile(r".+-\d{8}-\d{6}$")  # reproduce.sh's results/<host>-<date>-<time>


class BadRecord(ValueError):
    """A line or entry that is not a result record; the message says why."""


def canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=float)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_record(rec) -> None:
    """Raise BadRecord unless rec has what every result must have."""
    if not isinstance(rec, dict):
        raise BadRecord("not a JSON object")
    for key, kind in (("benchmark", str), ("params", dict), ("samples", list), ("machine", dict)):
        if key not in rec:
            raise BadRecord(f"no {key!r}")
        if not isinstance(rec[key], kind):
            raise BadRecord(f"{key!r} is not a {kind.__name__}")
    if not rec["samples"]:
        raise BadRecord("no samples")
    if not all(_number(s) for s in rec["samples"]):
        raise BadRecord("a sample is not a number")


def provenance_from_path(path: Path) -> tuple[str, str]:
    """(producer, label) for a store file that does not say them itself: a
    notebook's store (``<run>/<notebook>/store/<host>.jsonl`` beside the
    executed ``<run>/<notebook>.ipynb``) or the CLI's; the label is the
    reproduce.sh run folder it sits in, if any."""
    path = Path(path).resolve()
    producer = "benchlib"
    if path.parent.name == "store":
        nb_dir = path.parent.parent
        if (nb_dir.parent / f"{nb_dir.name}.ipynb").exists():
            producer = f"notebook {nb_dir.name}"
    label = next((p.name for p in path.parents if _RUN_FOLDER.fullmatch(p.name)), "")
    return producer, label


def machine_row(machine: dict) -> dict:
    ident = {k: machine.get(k) for k in MACHINE_IDENTITY}
    row = {k: ident[k] for k in MACHINE_IDENTITY if k != "recorded_condition"}
    row["virtualized"] = None if ident["virtualized"] is None else bool(ident["virtualized"])
    row["machine_key"] = sha256(canonical(ident))
    row["info"] = canonical({k: v for k, v in machine.items() if k not in MACHINE_DYNAMIC})
    return row


def run_row(rec: dict, machine_key: str, producer: str, label: str) -> dict:
    """The run a record belongs to.  A versioned record names its notebook or
    command and git commit (``provenance``); a store line written before
    that is placed by its path (``provenance_from_path``)."""
    m = rec["machine"]
    env = {k: v for k, v in m.items() if k not in MACHINE_IDENTITY and k not in MACHINE_DYNAMIC}
    prov = rec.get("provenance") if isinstance(rec.get("provenance"), dict) else {}
    if prov.get("notebook"):
        producer = f"notebook {prov['notebook']}"
    elif prov.get("command"):
        producer = str(prov["command"])
    git_commit = prov.get("git_commit")
    ident = [machine_key, rec.get("profile"), producer, label, git_commit, env]
    return {"run_key": sha256(canonical(ident)), "profile": rec.get("profile"),
            "producer": producer, "label": label, "kernel": m.get("kernel"),
            "benchlib_version": m.get("benchlib_version"), "git_commit": git_commit,
            "environment": canonical(env)}


def result_key(rec: dict) -> str:
    """One measurement, wherever it was stored (a notebook's results.json and
    its store line hold the same one): what was measured, when, its samples,
    and the machine."""
    ident = [rec["benchmark"], rec["params"], rec.get("timestamp"), rec["samples"],
             machine_row(rec["machine"])["machine_key"]]
    return sha256(canonical(ident))


def _float(x):
    if not _number(x):
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def result_rows(rec: dict) -> tuple[dict, list[dict]]:
    """The results row (without run_id) and its samples rows (without
    result_id).  Per-sample arrays as long as ``samples`` move to the
    samples table; the rest of the record is kept whole as JSON."""
    n = len(rec["samples"])
    moved = [k for k in SAMPLE_ARRAYS
             if isinstance(rec.get(k), list) and len(rec[k]) == n
             and all(v is None or _number(v) for v in rec[k])]
    kept = {k: v for k, v in rec.items() if k not in moved}
    diag = rec.get("diagnostics") if isinstance(rec.get("diagnostics"), dict) else {}
    ci, reasons, stable = diag.get("median_ci95"), diag.get("unstable_reasons"), diag.get("stable")
    row = {
        "result_key": result_key(rec),
        "benchmark": rec["benchmark"],
        "params": canonical(rec["params"]),
        "unit": rec.get("unit"),
        **{k: _float(rec.get(k)) for k in ("value", "min", "median", "max", "rel_iqr")},
        "n_samples": n,
        "timestamp": rec.get("timestamp") or rec["machine"].get("timestamp"),
        "record": json.dumps(kept, default=float),
        "stable": None if stable is None else bool(stable),
        "unstable_reasons": None if reasons is None else json.dumps(reasons),
        "ci_low": _float(ci[0]) if isinstance(ci, (list, tuple)) and len(ci) == 2 else None,
        "ci_high": _float(ci[1]) if isinstance(ci, (list, tuple)) and len(ci) == 2 else None,
    }
    cols = {"samples": "value", "ns_per_iteration": "ns_per_iteration",
            "tsc_ticks_per_iteration": "tsc_ticks_per_iteration", "clock_ghz": "clock_ghz"}
    samples = [{"sample_index": i, **{cols[k]: None for k in SAMPLE_ARRAYS}} for i in range(n)]
    for k in moved:
        for i, v in enumerate(rec[k]):
            samples[i][cols[k]] = None if v is None else float(v)
    return row, samples


def rebuild_record(record_json: str, samples: list[tuple]) -> dict:
    """The record as imported: the kept JSON plus the arrays from the samples
    rows (sample_index, value, ns_per_iteration, tsc_ticks, clock_ghz)."""
    rec = json.loads(record_json)
    for j, k in enumerate(SAMPLE_ARRAYS, 1):
        if k not in rec:
            rec[k] = [s[j] for s in samples]
    return rec
