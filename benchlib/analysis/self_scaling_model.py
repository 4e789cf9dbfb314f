"""The analysis behind Chen and Patterson's self-scaling benchmark and
predicted performance (ACM TOCS 12(4), 1994): pure functions of measured
curves, so they can be tested on synthetic data.

- ``find_regions``: the uniqueBytes curve's performance regions, from its
  slope (the paper's Figure 6 rule: steps steeper than the average slope are
  borders between storage-hierarchy levels);
- ``halfway_point`` and ``performance_point``: the focal points of the
  better benchmark and of the first try;
- ``ProductModel``: throughput predicted as a product of single-parameter
  functions, one family per region (the paper's section 9);
- ``interpolate_orthogonal``: the baseline, multilinear interpolation on an
  orthogonal sample;
- ``accuracy_table``: the paper's Figure 15 for one machine, with baselines.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchlib.stats.intervals import of_samples, put

PARAMS = ("unique_bytes", "size_mean_bytes", "read_frac", "seq_frac", "process_num")
LOG_PARAMS = ("unique_bytes", "size_mean_bytes")  # swept and interpolated in log scale


@dataclass(frozen=True)
class Region:
    """A plateau of the uniqueBytes curve: its first and last measured
    points and its focal uniqueBytes (the middle, in log scale)."""
    lo_bytes: float
    hi_bytes: float
    focal_unique_bytes: float
    mean_mb_s: float


def _x(v, log: bool) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return np.log(v) if log else v


def slopes(unique_bytes, mb_s) -> tuple[np.ndarray, float]:
    """Slope of throughput against log2(uniqueBytes) at each step (MB/s per
    doubling) and the curve's average slope.  The paper took the slope
    against uniqueBytes itself on a linear axis; our sweep is log-spaced over
    three decades, where a per-doubling slope weighs every step alike."""
    lx = np.log2(np.asarray(unique_bytes, dtype=float))
    y = np.asarray(mb_s, dtype=float)
    s = np.diff(y) / np.diff(lx)
    return s, float((y[-1] - y[0]) / (lx[-1] - lx[0]))


def find_regions(unique_bytes, mb_s, min_drop: float = 0.2,
                 min_step: float = 0.3) -> list[Region]:
    """Plateaus of the uniqueBytes curve.  A step is a border when its slope
    is below the curve's average slope (the paper's rule) and throughput
    falls by at least `min_drop` of its value there (so that noise on a flat
    curve makes no border).  Runs of points between borders are regions;
    a lone point between two borders is part of the border (the thrashing
    zone), while a lone point at either end is kept (the sweep ended there).
    Neighbouring regions whose mean throughputs differ by less than
    `min_step` of the larger are one region (a noisy step, not a level)."""
    x = np.asarray(unique_bytes, dtype=float)
    y = np.asarray(mb_s, dtype=float)
    if len(x) < 2 or np.any(np.diff(x) <= 0):
        raise ValueError("need at least two points with increasing unique_bytes")
    s, avg = slopes(x, y)
    border = [(s[j] < avg) and (y[j] - y[j + 1] >= min_drop * y[j]) for j in range(len(s))]
    runs, start = [], 0
    for j, b in enumerate(border):
        if b:
            runs.append((start, j))
            start = j + 1
    runs.append((start, len(x) - 1))
    keep = [r for k, r in enumerate(runs)
            if r[1] > r[0] or k == 0 or k == len(runs) - 1]
    merged = [keep[0]]
    for a, b in keep[1:]:
        pa, pb = y[merged[-1][0]:merged[-1][1] + 1].mean(), y[a:b + 1].mean()
        if abs(pa - pb) < min_step * max(pa, pb):
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    keep = merged
    return [Region(float(x[a]), float(x[b]), float(math.sqrt(x[a] * x[b])),
                   float(y[a:b + 1].mean())) for a, b in keep]


def halfway_point(x, y, log: bool = False) -> float:
    """The least x at which the curve crosses half-way between its minimum
    and maximum (linear interpolation, in log x if `log`).  A flat curve
    (no crossing) gives the middle of the range."""
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    order = np.argsort(xs)
    xs, ys = xs[order], ys[order]
    lx = _x(xs, log)
    target = (ys.min() + ys.max()) / 2
    if ys.min() == ys.max():
        mid = (lx[0] + lx[-1]) / 2
        return float(math.exp(mid) if log else mid)
    for j in range(len(xs) - 1):
        a, b = ys[j] - target, ys[j + 1] - target
        if a == 0:
            return float(xs[j])
        if a * b < 0:
            t = lx[j] + (lx[j + 1] - lx[j]) * a / (a - b)
            return float(math.exp(t) if log else t)
    return float(xs[-1])  # only the last point reaches half-way


def performance_point(x, y, fraction: float = 0.75, which: str = "smallest") -> float:
    """The first try's focal point: among the values giving at least
    `fraction` of the best throughput, the least restrictive one (the
    smallest or the largest x)."""
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    ok = xs[ys >= fraction * ys.max()]
    return float(ok.min() if which == "smallest" else ok.max())


def well_range(x, y, fraction: float = 0.75) -> tuple[float, float]:
    """The shaded "performs well" range of the first try's graphs."""
    xs = np.asarray(x, dtype=float)
    ok = xs[np.asarray(y, dtype=float) >= fraction * np.max(y)]
    return float(ok.min()), float(ok.max())


class _Curve:
    """A measured single-parameter curve, interpolated (flat beyond its ends)."""

    def __init__(self, x, y, log: bool):
        xs = np.asarray(x, dtype=float)
        order = np.argsort(xs)
        self.log = log
        self.x = _x(xs[order], log)
        self.y = np.asarray(y, dtype=float)[order]

    def __call__(self, v: float) -> float:
        return float(np.interp(_x([v], self.log)[0], self.x, self.y))


@dataclass
class ProductModel:
    """Throughput(w) = T_r * prod_p f_p(w_p) / f_p(focal_p) for the region r
    that w's uniqueBytes falls in, with the uniqueBytes factor taken from
    the uniqueBytes curve.  T_r is the focal vector's throughput, estimated
    as the geometric mean of every family curve read at its focal value."""
    regions: list
    focal: dict            # region -> {param: value}
    curves: dict           # region -> {param: _Curve}
    unique: _Curve
    throughput: dict       # region -> T_r (MB/s)

    @classmethod
    def fit(cls, unique_curve: pd.DataFrame, regions: list, focal: dict,
            families: dict) -> "ProductModel":
        unique = _Curve(unique_curve["unique_bytes"], unique_curve["mb_s"], log=True)
        curves, thr = {}, {}
        for r, fam in families.items():
            curves[r] = {p: _Curve(df[p], df["mb_s"], p in LOG_PARAMS) for p, df in fam.items()}
            at_focal = [c(focal[r][p]) for p, c in curves[r].items()]
            thr[r] = float(np.exp(np.mean(np.log(at_focal))))
        return cls(list(regions), focal, curves, unique, thr)

    def boundaries(self) -> list[float]:
        """uniqueBytes at which one region hands over to the next: the
        middle (log scale) of the border zone between them."""
        return [math.sqrt(a.hi_bytes * b.lo_bytes) for a, b in zip(self.regions, self.regions[1:])]

    def region_of(self, unique_bytes: float) -> int:
        return int(np.searchsorted(self.boundaries(), unique_bytes))

    def in_border(self, unique_bytes: float) -> bool:
        """Inside a thrashing zone: between one region's last point and the
        next region's first."""
        return any(a.hi_bytes < unique_bytes < b.lo_bytes
                   for a, b in zip(self.regions, self.regions[1:]))

    def predict(self, w: dict) -> float:
        r = self.region_of(w["unique_bytes"])
        f = self.focal[r]
        out = self.throughput[r] * self.unique(w["unique_bytes"]) / self.unique(f["unique_bytes"])
        for p, c in self.curves[r].items():
            out *= c(w[p]) / c(f[p])
        return out


def interpolate_orthogonal(axes: dict, orthogonal: pd.DataFrame, targets: pd.DataFrame,
                           ) -> np.ndarray:
    """Multilinear interpolation of throughput on an orthogonal sample
    (rows in itertools.product order over `axes`), at the targets' nominal
    parameters, clipped to the sample's range (log scale for the sizes)."""
    from scipy.interpolate import RegularGridInterpolator

    shape = [len(axes[p]) for p in PARAMS]
    values = orthogonal["mb_s"].to_numpy(dtype=float).reshape(shape)
    pts = [_x(axes[p], p in LOG_PARAMS) for p in PARAMS]
    f = RegularGridInterpolator(pts, values, method="linear")
    q = np.column_stack([np.clip(_x(targets[p], p in LOG_PARAMS), pts[i].min(), pts[i].max())
                         for i, p in enumerate(PARAMS)])
    return f(q)


def relative_error(predicted, measured) -> np.ndarray:
    p = np.asarray(predicted, dtype=float)
    m = np.asarray(measured, dtype=float)
    return np.abs(p - m) / m


def accuracy_table(df: pd.DataFrame, constants: dict, n_model: int,
                   n_orthogonal: int) -> pd.DataFrame:
    """Median and quartile prediction errors (percent) on the random
    workloads for every predictor, with the paper's "enhanced" error
    (workloads outside the thrashing zones) and the repeatability error
    (one run of the same workloads predicting the other).  The median error
    has interval columns: its 95% interval over the workloads (``median_ci``)
    (the predictors share the workloads, so two intervals that overlap do
    not by themselves say the predictors are alike)."""
    meas = df["mb_s"].to_numpy()
    inside = ~df["in_border"].to_numpy(dtype=bool)
    predictors = {
        "product of single-parameter functions": (df["predicted_mb_s"], n_model),
        "interpolation on an orthogonal sample": (df["interpolated_mb_s"], n_orthogonal),
        **{f"constant: {k}": (np.full(len(df), v), 1) for k, v in constants.items()},
        "constant: best single number in hindsight (median measured)":
            (np.full(len(df), np.median(meas)), len(df)),
        "repeatability (the same workloads run again)": (df["mb_s_again"], len(df)),
    }
    rows, medians = [], []
    for name, (pred, n) in predictors.items():
        e = 100 * relative_error(pred, meas)
        # over the random workloads: the median error's 95% interval
        medians.append(of_samples(e))
        rows.append({"predictor": name, "workloads_measured": n,
                     "median_error_pct": float(np.median(e)),
                     "q1_error_pct": float(np.percentile(e, 25)),
                     "q3_error_pct": float(np.percentile(e, 75)),
                     "enhanced_median_error_pct": float(np.median(e[inside])) if inside.any()
                     else float("nan")})
    df = pd.DataFrame(rows)
    put(df, "median_error_pct", medians)
    return df
