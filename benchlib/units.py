"""Sizes in bytes, read and written one way everywhere: the command line's
``64k``, a parameter's ``1M``, sysfs's ``48K``, another tool's ``0.00049``
(MB, as lat_mem_rd prints), and the labels of tables and figures.  Suffixes
are powers of two (k = KiB).  The bottom layer: imports only
``benchlib.errors``."""
from __future__ import annotations

import re
from typing import Any

from benchlib.errors import BenchlibError

_SUFFIX = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
           "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
           "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
           "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}
_NUMBER = re.compile(r"\s*(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|-?\.\d+)\s*([a-zA-Z]*)\s*")


def parse_size(text: Any, name: str = "size", *, whole: bool = True) -> int | float:
    """Bytes from an int or a string such as ``4096``, ``64k``, ``1M``,
    ``2GiB`` (suffixes are powers of 2).  ``whole=False`` accepts fractions
    of a byte count as other tools print them (``0.00049`` with no suffix is
    0.00049 bytes: scale it yourself) and returns a float."""
    if isinstance(text, bool):
        raise BenchlibError(f"{name} must be a number of bytes, got {text!r}")
    if isinstance(text, int):
        return text
    if isinstance(text, float) and (text.is_integer() or not whole):
        return int(text) if whole else float(text)
    m = _NUMBER.fullmatch(str(text))
    if not m or m.group(2).lower() not in _SUFFIX:
        raise BenchlibError(
            f"cannot read {text!r} as a size: {name} must be a number of bytes such as "
            "4096, 64k or 1M")
    value = float(m.group(1)) * _SUFFIX[m.group(2).lower()]
    if not whole:
        return value
    if not value.is_integer():
        raise BenchlibError(f"{name} must be a whole number of bytes; got {text!r}")
    return int(value)


def format_size(n: int, *, iec: bool = False) -> str:
    """The shortest exact form: ``64k``, ``2M``, ``4096`` (``iec=True``:
    ``64 KiB``, ``2 MiB``, ``4096 B``, for tables and labels)."""
    units = ((" GiB", " MiB", " KiB", " B") if iec else ("G", "M", "k", ""))
    for unit, factor in zip(units, (1 << 30, 1 << 20, 1 << 10)):
        if n >= factor and n % factor == 0:
            return f"{n // factor}{unit}"
    return f"{n}{units[-1]}"
