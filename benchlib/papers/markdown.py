"""Tables in the seed texts.

The plain-text extractions of the papers in ``shared/seeds`` keep most
tables as markdown pipe tables followed by their caption ("Table N.").
This module finds them, so that transcriptions can be generated and
tested against the source instead of copied by eye."""
from __future__ import annotations

import re


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def tables_with_captions(text: str) -> dict[int, list[list[str]]]:
    """{table number: rows of cells} for every pipe table whose caption
    ("Table N. ...") follows it within a few lines.  Separator rows
    (``|---|``) are dropped; header rows are kept as they are."""
    lines = text.splitlines()
    found: dict[int, list[list[str]]] = {}
    i = 0
    while i < len(lines):
        if not lines[i].lstrip().startswith("|"):
            i += 1
            continue
        start = i
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            i += 1
        rows = [_cells(l) for l in lines[start:i] if not re.fullmatch(r"\|[\s\-:|]*", l.strip())]
        for j in range(i, min(i + 4, len(lines))):
            m = re.match(r"\s*Table (\d+)\.", lines[j])
            if m:
                found.setdefault(int(m.group(1)), rows)
                break
    return found
