"""The explorer's figures: a run's samples (seaborn), a sweep's medians
against the swept parameter, and, for the memory notebook's questions, a
cache level's model against the points and the two readings of the line
size.  Each draws what ``explore.session`` and ``explore.memory`` computed
(the 95 % intervals are the diagnostics' and the fit's, never re-estimated
here); units are in the labels, the machine in the title."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.ticker import FuncFormatter

from benchlib.explore.memory import human_bytes
from benchlib.explore.session import params_text
from benchlib.report.figures import HIGHLIGHT, PAPER, machine_label, plain_log_axis
from benchlib.units import format_size

#: The alternative shapes drawn around a level: the best few (the table lists all).
ALTERNATIVES_DRAWN = 6
SHAPE_COLOURS = ("#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf",
                 "#ff7f0e", "#7f7f7f", "#aec7e8")


def distribution_figure(runs, title: str = ""):
    """Each run's samples (one row per run: a box, whiskers at 1.5 IQR, and
    every sample as a point) with its median and the median's 95 % interval
    in red.  ``runs``: ``explore.session.Run`` objects of one unit."""
    units = {r.result.unit for r in runs}
    if len(units) != 1:
        raise ValueError(f"runs in different units cannot share an axis: {sorted(units)}")
    labels = [f"#{r.number} {params_text(r.result.params)}" for r in runs]
    long = pd.DataFrame([{"run": k, "value": v} for k, r in zip(labels, runs)
                         for v in r.result.samples])
    order = list(dict.fromkeys(labels))
    fig, ax = plt.subplots(figsize=(7.5, 0.5 * len(runs) + 1.8))
    sns.boxplot(long, x="value", y="run", order=order, showfliers=False, color="0.9",
                linecolor="0.3", ax=ax)
    sns.stripplot(long, x="value", y="run", order=order, color=PAPER, size=3, alpha=0.7,
                  jitter=0.15, ax=ax)
    for y, r in enumerate(runs):
        ci = r.result.median_ci95
        med = r.result.median
        err = None if not ci else [[med - ci[0]], [ci[1] - med]]
        ax.errorbar([med], [y], xerr=err, fmt="D", color=HIGHLIGHT, ms=6, capsize=4, lw=1.5,
                    zorder=5, label="median, 95 % interval" if y == 0 else None)
    values = long["value"].to_numpy(float)
    if values.min() > 0 and values.max() / values.min() > 20:
        ax.set_xscale("log")
    ax.set_xlabel(f"{runs[0].result.benchmark} ({units.pop()}, each sample)")
    ax.set_ylabel("")
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(title or f"Samples of each run\n{machine_label(runs[-1].result.machine)}",
                 fontsize=10)
    fig.tight_layout()
    return fig


def sweep_figure(frame: pd.DataFrame, param: str, title: str = ""):
    """A sweep's medians against the swept parameter, with their 95 %
    intervals; unstable points hollow.  Sizes on a log axis in KiB/MiB,
    choices as categories."""
    fig, ax = plt.subplots(figsize=(8, 4.2))
    x = frame[param]
    numeric = pd.api.types.is_numeric_dtype(x)
    pos = x.to_numpy(float) if numeric else np.arange(len(frame))
    med = frame["median"].to_numpy(float)
    lo, hi = frame["ci95_lo"].to_numpy(float), frame["ci95_hi"].to_numpy(float)
    ok = np.isfinite(lo) & np.isfinite(hi)
    ax.errorbar(pos[ok], med[ok], yerr=[med[ok] - lo[ok], hi[ok] - med[ok]], fmt="none",
                ecolor=HIGHLIGHT, capsize=3, lw=1)
    stable = frame["stable"].fillna(True).astype(bool).to_numpy()
    ax.plot(pos, med, "-", color=HIGHLIGHT, lw=1)
    ax.plot(pos[stable], med[stable], "o", color=HIGHLIGHT, label="median, 95 % interval")
    if (~stable).any():
        ax.plot(pos[~stable], med[~stable], "o", mfc="white", color=HIGHLIGHT,
                label="unstable (the diagnostics' flag)")
    if numeric and pos.min() > 0 and pos.max() / pos.min() >= 8:
        ax.set_xscale("log", base=2)
        if param.endswith("_bytes"):
            ax.set_xticks(pos, [format_size(int(v), iec=True) for v in pos], rotation=30)
    if not numeric:
        ax.set_xticks(pos, [str(v) for v in x])
    if med.min() > 0 and med.max() / med.min() > 20:
        ax.set_yscale("log")
        plain_log_axis(ax, "y")
    unit = frame["unit"].iloc[0]
    ax.set_xlabel(param + (" (bytes)" if param.endswith("_bytes") else ""))
    ax.set_ylabel(f"{frame['benchmark'].iloc[0]} median ({unit}"
                  + (", log scale)" if ax.get_yscale() == "log" else ")"))
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def level_figure(view, title: str = ""):
    """One cache level questioned (``explore.memory.level_view``): the
    measured points, the fitted model, each alternative shape at its own
    best capacity (thin), the fitted capacity and its 95 % interval, and
    sysfs's size."""
    fig, ax = plt.subplots(figsize=(9, 5))
    pts = view.points
    ax.plot(pts.size_bytes, pts.latency_ns, "o", color="black", ms=4,
            label="measured (ring chase, pattern=random)")
    others = [k for k in view.shapes.index if not view.shapes.loc[k, "chosen"]][:ALTERNATIVES_DRAWN]
    for i, key in enumerate(others):
        row, curve = view.shapes.loc[key], view.alternatives[key]
        ax.plot(curve.size_bytes, curve.latency_ns, "-", lw=0.9, alpha=0.8,
                color=SHAPE_COLOURS[i % len(SHAPE_COLOURS)],
                label=f"{key}: {human_bytes(row['size_bytes'])}, "
                      f"Δχ² {row['delta_chi2']:.1f}")
    ax.plot(view.model.size_bytes, view.model.latency_ns, "-", color=HIGHLIGHT, lw=2.2,
            label=f"fitted, {view.chosen}: {view.shape}")
    lv = view.level
    if lv.walk is not None:
        ax.axvline(lv.size_bytes, color="#1f77b4", ls="--", lw=1,
                   label=f"{lv.name} from the random walk: {human_bytes(lv.size_bytes)}")
    ax.axvspan(view.model_low, view.model_high, color=HIGHLIGHT, alpha=0.1,
               label=f"{lv.name} {human_bytes(view.model_bytes)}, 95 % interval")
    ax.axvline(view.model_bytes, color=HIGHLIGHT, ls="--", lw=1)
    if view.sysfs_bytes:
        ax.axvline(view.sysfs_bytes, color="k", ls=":", lw=1,
                   label=f"sysfs: {human_bytes(view.sysfs_bytes)}")
    ax.set_xscale("log", base=2)
    ticks = [2 ** k for k in range(int(np.floor(np.log2(pts.size_bytes.min()))),
                                   int(np.ceil(np.log2(pts.size_bytes.max()))) + 1)]
    ax.set_xticks(ticks, [format_size(t, iec=True) for t in ticks], rotation=30)
    ax.set_yscale("log")
    plain_log_axis(ax, "y")
    lo, hi = ax.get_ylim()
    if hi / lo < 10:             # less than a decade: every minor tick labelled
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("working set (bytes, log scale)")
    ax.set_ylabel("latency per dependent load (ns, log scale)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def line_size_figure(readings, title: str = ""):
    """The line size's two readings side by side (``explore.memory.line_readings``):
    the load pairs' time against the second load's distance, and the time
    per load against the stride beyond the last cache, each with the line
    it reads."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for ax, r in zip(axes, (readings.pairs, readings.strides)):
        if r.curve is not None and len(r.curve):
            ax.plot(r.curve.iloc[:, 0], r.curve.iloc[:, 1], "o-", color=PAPER)
        if r.line:
            ax.axvline(r.line, color=HIGHLIGHT, ls="--", label=f"reads {r.line} B")
            ax.legend(fontsize=8)
        ax.set_xscale("log", base=2)
        if r.curve is not None and len(r.curve):
            x = r.curve.iloc[:, 0].to_numpy(float)
            ticks = [2 ** k for k in range(int(np.floor(np.log2(x.min()))),
                                           int(np.ceil(np.log2(x.max()))) + 1)]
            ax.set_xticks(ticks, [format_size(t, iec=True) for t in ticks])
        ax.set_xlabel(r.x_label)
        ax.set_ylabel(r.y_label)
        ax.set_title(f"{r.name}: {r.line or 'no'} B line", fontsize=10)
        ax.grid(alpha=0.3, which="both")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
