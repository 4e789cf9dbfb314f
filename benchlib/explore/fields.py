"""A benchmark's form: one field per parameter, read from the registry's
declaration (``benchlib.measuring.registry.Param``), with nothing about
the widget toolkit in it, so that it is tested without ipywidgets and the
widgets (``explore.widgets``) only draw it.

The rule, by the parameter's kind:

- ``choice``: a dropdown of its choices;
- ``size``: a slider in powers of two from its minimum to its maximum,
  labelled in B / KiB / MiB / GiB (its default added where it is not a
  power of two);
- ``int``: a slider over the range when it spans at most ``SLIDER_SPAN``
  values; a wider range that starts at 0 or 1 a slider over 1-2-5 steps
  (0 first where allowed, the default added); a range that reaches below 0
  (``cpu``: -1 leaves the process unpinned) a number box;
- ``float``: a log slider when the range spans two decades or more (from a
  positive minimum), a linear one otherwise, a number box without bounds;
- ``path``: a text box.

Whatever a field shows, the value is checked by the registry itself
(``Param.parse``, then ``Benchmark.resolve`` for the parameters together):
a refused value is refused with the registry's message."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchlib.errors import BenchlibError
from benchlib.measuring.registry import Benchmark, Param, get_benchmark, list_benchmarks
from benchlib.units import format_size

#: An int range of at most this many values is a plain slider.
SLIDER_SPAN = 64
#: The largest size a size slider offers, whatever the declaration allows
#: (a larger one is refused by the registry or the machine anyway).
MAX_SIZE_OFFERED = 1 << 40

#: What a parameter's name says its unit is (the conventions: units in names).
NAME_UNITS = (("_bytes", "bytes"), ("_kb", "KiB"), ("_frac", "fraction"), ("_ms", "ms"),
              ("_us", "µs"), ("_ns", "ns"), ("_s", "s"))

WIDGETS = ("dropdown", "size_slider", "int_slider", "int_steps", "int_text", "log_slider",
           "float_slider", "float_text", "text")


@dataclass(frozen=True)
class Field:
    """One parameter as a form shows it.  ``widget`` is one of ``WIDGETS``;
    ``options`` the (label, value) pairs of a dropdown or stepped slider;
    ``low``/``high`` a slider's ends (a log slider's in the value's units)."""
    name: str
    widget: str
    default: Any
    unit: str
    help: str
    options: tuple = ()
    low: float | None = None
    high: float | None = None

    @property
    def label(self) -> str:
        return f"{self.name} ({self.unit})" if self.unit else self.name


def param_unit(name: str) -> str:
    """The unit a parameter's name carries (``size_bytes`` -> bytes), or ""."""
    for suffix, unit in NAME_UNITS:
        if name.endswith(suffix):
            return unit
    return ""


def _size_options(p: Param) -> tuple:
    lo = 0 if (p.min or 0) <= 0 else int(p.min)
    hi = int(min(p.max if p.max is not None else MAX_SIZE_OFFERED, MAX_SIZE_OFFERED))
    values = {lo} if lo == 0 else set()
    k = 1
    while k <= hi:
        if k >= max(lo, 1):
            values.add(k)
        k *= 2
    if lo > 0:
        values.add(lo)
    values.add(int(p.default))
    return tuple((format_size(v, iec=True), v) for v in sorted(values))


def _steps_125(lo: int, hi: int) -> list[int]:
    out, decade = [], 1
    while decade <= hi:
        out += [m * decade for m in (1, 2, 5) if lo <= m * decade <= hi]
        decade *= 10
    return out


def field(p: Param) -> Field:
    """The field of one declared parameter (the module's docstring gives the rule)."""
    unit = param_unit(p.name)
    if p.kind == "choice":
        return Field(p.name, "dropdown", p.default, unit, p.help,
                     tuple((str(c), c) for c in p.choices))
    if p.kind == "size":
        return Field(p.name, "size_slider", int(p.default), unit, p.help, _size_options(p))
    if p.kind == "int":
        lo, hi = p.min, p.max
        if lo is not None and hi is not None and hi - lo < SLIDER_SPAN:
            return Field(p.name, "int_slider", p.default, unit, p.help, low=lo, high=hi)
        if lo is not None and hi is not None and lo >= 0:
            values = sorted({*([0] if lo == 0 else []), *_steps_125(max(int(lo), 1), int(hi)),
                             int(p.default)})
            return Field(p.name, "int_steps", p.default, unit, p.help,
                         tuple((f"{v:,}", v) for v in values))
        return Field(p.name, "int_text", p.default, unit, p.help, low=lo, high=hi)
    if p.kind == "float":
        lo, hi = p.min, p.max
        if lo is not None and hi is not None and lo > 0 and hi / lo >= 100:
            return Field(p.name, "log_slider", float(p.default), unit, p.help, low=lo, high=hi)
        if lo is not None and hi is not None:
            return Field(p.name, "float_slider", float(p.default), unit, p.help, low=lo, high=hi)
        return Field(p.name, "float_text", float(p.default), unit, p.help)
    if p.kind == "path":
        return Field(p.name, "text", str(p.default), unit, p.help)
    raise BenchlibError(f"parameter {p.name!r}: no field for kind {p.kind!r}")  # pragma: no cover


def form(name: str | Benchmark) -> list[Field]:
    """The form of a registered benchmark: one field per parameter, in the
    declaration's order."""
    bench = name if isinstance(name, Benchmark) else get_benchmark(name)
    return [field(p) for p in bench.params]


def coverage() -> list[dict]:
    """Every registered benchmark with the widget each parameter gets
    (docs/explore.md lists it; its test keeps the two the same)."""
    return [{"benchmark": b.name, "fields": [(f.name, f.widget) for f in form(b)]}
            for b in list_benchmarks()]


def parse_values(bench: str | Benchmark, name: str, text: str | list) -> list:
    """The values to sweep ``name`` over: a list, or text with commas as on
    the command line (``4k,64k,1M``); each parsed by the registry (its
    message on a refused one); at least two, none repeated."""
    b = bench if isinstance(bench, Benchmark) else get_benchmark(bench)
    p = b.param(name)
    items = [x.strip() for x in text.split(",")] if isinstance(text, str) else list(text)
    items = [x for x in items if x != ""]
    values = [p.parse(x) for x in items]
    if len(values) < 2:
        raise BenchlibError(f"a sweep of {name} needs at least two values; got {len(values)}")
    if len(set(map(str, values))) != len(values):
        raise BenchlibError(f"a sweep of {name} lists a value twice: {text}")
    return values


def sweep_default(f: Field) -> list:
    """The values a sweep of field ``f`` starts with: every choice; for a
    size, the default a quarter, a sixteenth, four and sixteen times over
    (within the declared range); for a number, steps either side of the
    default."""
    if f.widget in ("dropdown",):
        return [v for _, v in f.options]
    if f.widget in ("size_slider", "int_steps"):
        values = [v for _, v in f.options]
        i = values.index(f.default)
        step = 2 if f.widget == "size_slider" else 1
        picked = values[max(0, i - 2 * step):i + 2 * step + 1:step]
        return picked if len(picked) >= 2 else values[:3]
    if f.widget == "int_slider":
        lo, hi = int(f.low), int(f.high)
        return sorted({lo, f.default, min(hi, max(f.default * 2, lo + 1)), hi})
    if f.widget in ("log_slider", "float_slider"):
        lo, hi = float(f.low), float(f.high)
        if f.widget == "log_slider":
            return [v for v in (f.default / 4, f.default, f.default * 4) if lo <= v <= hi] \
                or [lo, hi]
        return sorted({lo, f.default, hi})
    raise BenchlibError(f"{f.name} ({f.widget}) cannot be swept: give its values")


def sweepable(f: Field) -> bool:
    """Fields a sweep may vary: every one with values to step through."""
    return f.widget not in ("text", "int_text", "float_text")
