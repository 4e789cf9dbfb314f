"""A measured figure with its 95% interval, carried through the arithmetic
that turns measurements into a paper's columns.  Pure: no C calls.

``Measured(value, lo, hi)`` is one figure: the median of a result (``of_result``)
or of a list of values (``of_samples``), with the distribution-free 95%
interval of that median (``benchlib.stats.summary.median_ci``: two order
statistics),
and the reasons the diagnostics gave if a result behind it was flagged
unstable.

How an interval follows a figure:

* scaling by a constant, or any monotone function of **one** measurement
  (``m * 1e-3``, ``m.map(f)``): the endpoints are mapped.  Order
  statistics commute with monotone maps, so this is still the median's
  interval of the new figure, exactly.
* a figure made of **two or more** measurements (a ratio, a difference, a
  geometric mean): interval arithmetic on the endpoints (the smallest and
  largest value the figure takes over the box of the inputs' intervals).
  For independent inputs this contains the interval of the
  combination, so it is conservative (wider); it is marked ``propagated``.
* a constant (a paper's figure, a MIPS rating given as a number) has no
  interval; its own uncertainty is not propagated.

Tables carry the interval as three columns beside a value column ``x``:
``x_ci95_lo``, ``x_ci95_hi`` and ``x_ci95_note`` ("", "unstable: spread",
"propagated", ...), written by ``put`` and read back by ``get``.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Sequence

import numpy as np

from benchlib.stats.summary import interval_side, median_ci

LO, HI, NOTE = "_ci95_lo", "_ci95_hi", "_ci95_note"
SUFFIXES = (LO, HI, NOTE)
MARK_UNSTABLE = "†"     # a result behind the figure was flagged unstable
MARK_PROPAGATED = "‡"   # interval of several measurements, from their endpoints
LEGEND = ("[lo, hi]: 95% interval of the median measured here (two order statistics); "
          f"{MARK_PROPAGATED} interval propagated from two or more measurements by their "
          f"endpoints (conservative); {MARK_UNSTABLE} a result flagged unstable by its "
          "diagnostics (see benchlib.stats.noise)")


@dataclass(frozen=True)
class Measured:
    """A figure and its 95% interval.  Arithmetic with numbers and other
    ``Measured`` follows the rules in the module's docstring; ``float(m)``
    is the figure, ``f"{m:.2f}"`` the figure with its interval."""
    value: float
    lo: float
    hi: float
    unstable: tuple[str, ...] = field(default=())
    propagated: bool = False

    # ---------------------------------------------------------- reading
    def __float__(self) -> float:
        return float(self.value)

    @property
    def stable(self) -> bool:
        return not self.unstable

    @property
    def rel_halfwidth(self) -> float:
        return (self.hi - self.lo) / 2 / abs(self.value) if self.value else math.nan

    @property
    def note(self) -> str:
        parts = []
        if self.unstable:
            parts.append("unstable: " + ", ".join(self.unstable))
        if self.propagated:
            parts.append("propagated")
        return "; ".join(parts)

    @property
    def marks(self) -> str:
        return (MARK_PROPAGATED if self.propagated else "") + (MARK_UNSTABLE if self.unstable else "")

    def contains(self, x: float) -> bool:
        return self.lo <= x <= self.hi

    def compare(self, threshold: float) -> bool | None:
        """True if the whole interval lies above ``threshold``, False if below,
        None if it straddles it (this run cannot tell which side): the one
        interval rule, ``benchlib.stats.summary.interval_side``."""
        return interval_side(self.lo, self.hi, threshold)

    def __format__(self, spec: str) -> str:
        return self.text(spec) if spec else short(self)

    def text(self, spec: str | Callable[[float], str] = ".4g") -> str:
        """"1.23 [1.20, 1.26]", plus the marks (see ``LEGEND``)."""
        f = spec if callable(spec) else (lambda v: format(v, spec))
        if math.isnan(self.lo) or math.isnan(self.hi):
            return f(self.value) + " [no interval]" + self.marks
        return f"{f(self.value)} [{f(self.lo)}, {f(self.hi)}]{self.marks}"

    def __str__(self) -> str:
        return short(self)

    # ---------------------------------------------------------- arithmetic
    def map(self, f: Callable[[float], float]) -> "Measured":
        """A monotone function of this one figure: the endpoints mapped (the
        median's interval of f(samples), exactly)."""
        a, b = f(self.lo), f(self.hi)
        return replace(self, value=f(self.value), lo=min(a, b), hi=max(a, b))

    def _binary(self, other, op, reflected: bool = False) -> "Measured":
        if not isinstance(other, Measured):
            other = exact(other)
        a, b = (other, self) if reflected else (self, other)
        if op is operator.truediv and b.lo <= 0 <= b.hi and not b.is_exact:
            lo, hi = -math.inf, math.inf
        else:
            corners = [op(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
            lo, hi = ((math.nan, math.nan) if any(map(math.isnan, corners))
                      else (min(corners), max(corners)))
        # one measurement through a monotone map keeps its exact interval;
        # two or more combined by their endpoints are marked
        several = not a.is_exact and not b.is_exact
        return Measured(op(a.value, b.value), lo, hi, _union(a.unstable, b.unstable),
                        a.propagated or b.propagated or several)

    @property
    def is_exact(self) -> bool:
        """A constant: no interval and no flag (a missing figure, NaN, too)."""
        return not self.unstable and (self.lo == self.hi == self.value
                                      or all(map(math.isnan, (self.value, self.lo, self.hi))))

    def __mul__(self, o):
        return self._binary(o, operator.mul)

    def __rmul__(self, o):
        return self._binary(o, operator.mul, True)

    def __truediv__(self, o):
        return self._binary(o, operator.truediv)

    def __rtruediv__(self, o):
        return self._binary(o, operator.truediv, True)

    def __add__(self, o):
        return self._binary(o, operator.add)

    def __radd__(self, o):
        return self._binary(o, operator.add, True)

    def __sub__(self, o):
        return self._binary(o, operator.sub)

    def __rsub__(self, o):
        return self._binary(o, operator.sub, True)

    def __neg__(self):
        return self.map(operator.neg)


def _union(*reasons: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(x for r in reasons for x in r))


def exact(value: float) -> Measured:
    """A figure known exactly (no interval to carry)."""
    v = float(value)
    return Measured(v, v, v)


def of_samples(samples: Sequence[float], unstable: Iterable[str] = ()) -> Measured:
    """The median of ``samples`` and its 95% interval (``median_ci``)."""

    x = np.asarray(samples, dtype=float)
    x = x[~np.isnan(x)]
    if x.size < 2:   # nothing to resample: no interval
        v = float(x[0]) if x.size else math.nan
        return Measured(v, math.nan, math.nan, tuple(unstable))
    lo, hi = median_ci(x)
    return Measured(float(np.median(x)), lo, hi, tuple(unstable))


def of_result(result, scale: float = 1.0) -> Measured:
    """A Result's median (times ``scale``, the factor to a column's unit) with
    the 95% interval its diagnostics recorded (computed from its samples
    when they did not), and its unstable reasons."""
    diag = getattr(result, "diagnostics", None) or {}
    reasons = tuple(diag.get("unstable_reasons") or ()) if diag.get("stable") is False else ()
    ci = diag.get("median_ci95")
    # the figure a Result reports (its ``median``), or the samples' median
    med = getattr(result, "median", None)
    v = float(med) if med is not None else (float(np.median(result.samples))
                                            if len(result.samples) else math.nan)
    if len(result.samples) < 2:   # one sample: no interval to give
        m = Measured(v, math.nan, math.nan, reasons)
    elif ci:
        m = Measured(v, float(ci[0]), float(ci[1]), reasons)
    else:
        m = of_samples(result.samples, reasons)
    return m if scale == 1.0 else m * scale


def value(x) -> float:
    """The figure of a Measured or a number."""
    return float(x.value) if isinstance(x, Measured) else float(x)


def gmean(values: Sequence) -> Measured | float:
    """Geometric mean of positive figures; with any Measured among them, its
    interval from the endpoints (it grows with every input: conservative)."""
    if not any(isinstance(v, Measured) for v in values):
        return float(np.exp(np.mean(np.log([float(v) for v in values]))))
    ms = [v if isinstance(v, Measured) else exact(v) for v in values]
    g = lambda xs: float(np.exp(np.mean(np.log(xs))))  # noqa: E731
    return Measured(g([m.value for m in ms]), g([m.lo for m in ms]), g([m.hi for m in ms]),
                    _union(*[m.unstable for m in ms]),
                    sum(not m.is_exact for m in ms) > 1 or any(m.propagated for m in ms))


def _num(v: float, digits: int) -> str:
    if not math.isfinite(v):
        return str(v)
    if abs(v) >= 10 ** digits:
        return f"{v:,.0f}"
    return f"{v:#,.{digits}g}".rstrip(".")  # 2.00, not 2; 100, not 100.


def short(m: Measured, digits: int = 3) -> str:
    """"1.23 [1.20, 1.26]" with the marks, to as many significant digits
    (``digits`` to 6) as it takes to tell the three numbers apart."""
    nums = [x for x in (m.lo, m.value, m.hi) if not math.isnan(x)]
    for k in range(digits, 7):
        if len({_num(x, k) for x in nums}) == len(set(nums)):
            break
    return m.text(lambda x: _num(x, k))


# ------------------------------------------------------------ table columns

def put(df, column: str, values: Sequence) -> None:
    """Write ``values`` (Measured or numbers) as column ``column`` of ``df``
    (in place), with its interval columns when any value has an interval."""
    df[column] = [value(v) if v is not None else math.nan for v in values]
    # a missing figure (NaN) has neither interval nor note
    ms = [v if isinstance(v, Measured) and not math.isnan(v.value) else None for v in values]
    if any(ms):
        df[column + LO] = [m.lo if m else math.nan for m in ms]
        df[column + HI] = [m.hi if m else math.nan for m in ms]
        df[column + NOTE] = [m.note if m else "" for m in ms]


def get(df, column: str, i) -> Measured | float:
    """Row ``i`` (a label of df's index) of ``column`` as a Measured when it
    has an interval, else as a number."""
    v = df.loc[i, column]
    if column + LO not in df.columns:
        return v
    note = df.loc[i, column + NOTE] if column + NOTE in df.columns else ""
    note = "" if not isinstance(note, str) else note
    if _isnan(df.loc[i, column + LO]) and not note:
        return v   # a paper's row, or a figure with neither interval nor flag
    reasons = ()
    for part in note.split("; "):
        if part.startswith("unstable: "):
            reasons = tuple(part[len("unstable: "):].split(", "))
    return Measured(float(v), float(df.loc[i, column + LO]), float(df.loc[i, column + HI]),
                    reasons, "propagated" in note)


def interval_columns(df) -> list[str]:
    """The value columns of ``df`` that have interval columns beside them."""
    return [c for c in df.columns if c + LO in df.columns and c + HI in df.columns]


def strip(df):
    """``df`` without its interval columns (what a CSV of it keeps)."""
    return df.drop(columns=[c for c in df.columns if str(c).endswith(SUFFIXES)])


def select(df, columns: Sequence[str]):
    """``df[columns]`` with the interval columns of those columns kept."""
    return df[[x for c in columns for x in (c, c + LO, c + HI, c + NOTE)
               if x == c or x in df.columns]]


def rename(df, mapping: dict):
    """``df.rename(columns=mapping)`` with each column's interval columns
    renamed alike."""
    full = {c + sfx: new + sfx for c, new in mapping.items() for sfx in ("", *SUFFIXES)}
    return df.rename(columns=full)


def cells(df, column: str, label: str) -> dict:
    """{row label: the cell of ``column`` as Measured or number}, ``label``
    the column that names the rows (for a verdict's ``figures``)."""
    return {str(df.loc[i, label]): get(df, column, i) for i in df.index}


def _isnan(v) -> bool:
    try:
        return math.isnan(float(v))
    except (TypeError, ValueError):
        return True
