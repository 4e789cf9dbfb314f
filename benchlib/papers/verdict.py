"""A paper's conclusion, checked against this run, in words and as data.

Every notebook ends by stating whether its paper's conclusion still holds
on this machine.  That statement must be computed from the run, never
typed: ``verdict`` chooses the words from a boolean the notebook computed,
prints them, and appends a record to ``<output_dir>/verdicts.json`` so the
HTML report of a reproduction (and anyone else) can read it back.

    from benchlib.papers.verdict import verdict
    verdict(out, "ousterhout1990", "OS primitives keep pace with integer speed",
            holds=rel_speed >= 0.9,
            evidence=f"median MIPS-relative speed {rel_speed:.2f}",
            if_true="They keep pace here.", if_false="They still lag here.")

``holds`` is True, False or None (the run cannot tell: say why in
``evidence``).  ``figures`` ({name: Measured or number}) are the measured
figures the verdict rests on: each is appended to the evidence with its 95%
interval (``benchlib.stats.intervals``) and recorded with it, so a reader
sees how firmly the run pinned what the words were chosen from.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchlib.stats import intervals as iv

VERDICT_FILE = "verdicts.json"


@dataclass(frozen=True)
class Verdict:
    paper: str
    claim: str
    holds: bool | None
    evidence: str
    text: str
    figures: list = field(default_factory=list)

    def _repr_markdown_(self) -> str:
        mark = {True: "holds", False: "does not hold", None: "cannot tell"}[self.holds]
        return f"**{self.claim}**: {mark} here. {self.text} ({self.evidence})"

    def __str__(self) -> str:
        return self._repr_markdown_().replace("**", "")


def _figure(name: str, x) -> dict:
    if isinstance(x, iv.Measured):
        ci = None if x.lo != x.lo or x.hi != x.hi else [x.lo, x.hi]   # NaN: no interval
        return {"name": name, "value": x.value, "ci95": ci, "note": x.note, "text": iv.short(x)}
    return {"name": name, "value": float(x), "ci95": None, "note": "no interval",
            "text": f"{float(x):.4g} (no interval)"}


def verdict(output_dir: str | os.PathLike | None, paper: str, claim: str, holds: bool | None,
            evidence: str, if_true: str = "", if_false: str = "", if_unknown: str = "",
            figures: dict | None = None) -> Verdict:
    """Record and return the verdict on one claim; the words follow ``holds``;
    ``figures`` are added to the evidence with their 95% intervals."""
    if holds is not None and not isinstance(holds, bool):
        holds = bool(holds)  # numpy booleans
    text = {True: if_true, False: if_false, None: if_unknown}[holds]
    figs = [_figure(k, x) for k, x in (figures or {}).items()]
    if figs:
        evidence = (f"{evidence}; 95% intervals: " + "; ".join(f"{f['name']} {f['text']}"
                                                               for f in figs))
    v = Verdict(paper, claim, holds, evidence, text, figs)
    if output_dir:
        path = Path(output_dir) / VERDICT_FILE
        records = read_verdicts(path.parent) if path.exists() else []
        records = [r for r in records if not (r["paper"] == paper and r["claim"] == claim)]
        records.append(asdict(v))
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(records, indent=1))
        os.replace(tmp, path)
    return v


def all_hold(holds) -> bool | None:
    """Several checks as one: True when every one holds, False when any
    does not, None when none fails but one cannot tell (or there are none)."""
    holds = [None if h is None else bool(h) for h in holds]
    if any(h is False for h in holds):
        return False
    if holds and all(h is True for h in holds):
        return True
    return None


def read_verdicts(output_dir: str | os.PathLike) -> list[dict]:
    """The verdicts a notebook recorded in ``output_dir`` (empty if none)."""
    path = Path(output_dir) / VERDICT_FILE
    if not path.exists():
        return []
    return json.loads(path.read_text())
