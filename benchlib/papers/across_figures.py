"""Figures of the cross-paper dataset: each primitive's speed against CPU
speed on log-log axes with the fitted exponents, and each primitive's
figure by year, every paper's systems beside today's machines."""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from benchlib.analysis.scaling import rate
from benchlib.report.figures import HIGHLIGHT
from benchlib.papers.across import PAPERS, PRIMITIVES

PAPER_COLOURS = dict(zip([*PAPERS, "today"],
                         ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#ff7f0e"]))
FIT_STYLES = ["--", "-"]


def _grid(n: int, width: float = 4.2, height: float = 3.4):
    cols = min(4, max(1, n))
    rows = max(1, math.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def speed_vs_cpu(df: pd.DataFrame, fits: pd.DataFrame, this_host: str, title: str):
    """One panel per primitive with a CPU rating: speed (operations/s or
    MB/s) against VAX-MIPS, log-log; lines for each fit of ``fits`` (the
    ``systems`` groups), exponent and 95% interval in the legend."""
    rated = df[df["cpu_mips"].notna()]
    prims = [p for p in PRIMITIVES if p in set(rated["primitive"])]
    fig, axes = _grid(len(prims))
    for ax, prim in zip(axes, prims):
        sub = rated[rated["primitive"] == prim]
        higher = PRIMITIVES[prim][1]
        for paper, g in sub.groupby("paper", sort=False):
            y, unit = rate(g["value_std"], PRIMITIVES[prim][0], higher)
            ours = (g["machine"] == this_host).to_numpy()
            if (~ours).any():
                ax.scatter(g["cpu_mips"][~ours], y[~ours], s=18, alpha=0.8,
                           color=PAPER_COLOURS.get(paper, "k"), label=paper)
            if ours.any():
                ax.scatter(g["cpu_mips"][ours], y[ours], s=120, marker="*", color=HIGHLIGHT,
                           edgecolor="k", zorder=5, label="this machine")
        _, unit = rate([1.0], PRIMITIVES[prim][0], higher)
        xs = np.logspace(np.log10(sub["cpu_mips"].min()), np.log10(sub["cpu_mips"].max()), 50)
        drawn = set()
        for style, (_, f) in zip(FIT_STYLES, fits[fits["primitive"] == prim].iterrows()):
            if not np.isfinite(f["exponent"]) or (f["n"], f["exponent"]) in drawn:
                continue      # no fit, or the same points as a line already drawn
            drawn.add((f["n"], f["exponent"]))
            ax.plot(xs, 10 ** (f["intercept"] + f["exponent"] * np.log10(xs)), style, color="k",
                    lw=1, label=f"{f['systems']}: b = {f['exponent']:.2f} "
                                f"[{f['ci_low']:.2f}, {f['ci_high']:.2f}]")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("CPU speed (VAX-MIPS, VAX-11/780 = 1)")
        ax.set_ylabel(f"speed ({unit})")
        ax.set_title(prim.replace("_", " "), fontsize=10)
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=6, loc="best")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def value_by_year(df: pd.DataFrame, this_host: str, title: str):
    """One panel per primitive: the figure (its standard unit, log axis)
    against the year of the figure, every paper's systems and today's."""
    prims = [p for p in PRIMITIVES if p in set(df["primitive"])]
    fig, axes = _grid(len(prims), height=3.0)
    rng = np.random.default_rng(0)
    for ax, prim in zip(axes, prims):
        sub = df[df["primitive"] == prim]
        for paper, g in sub.groupby("paper", sort=False):
            ours = (g["machine"] == this_host).to_numpy()
            jitter = rng.uniform(-0.25, 0.25, len(g))
            x = g["year"].to_numpy(dtype=float) + jitter
            if (~ours).any():
                ax.scatter(x[~ours], g["value_std"][~ours], s=12, alpha=0.7,
                           color=PAPER_COLOURS.get(paper, "k"), label=paper)
            if ours.any():
                ax.scatter(x[ours], g["value_std"][ours], s=120, marker="*", color=HIGHLIGHT,
                           edgecolor="k", zorder=5, label="this machine")
        ax.set_yscale("log")
        higher = PRIMITIVES[prim][1]
        ax.set_ylabel(f"{PRIMITIVES[prim][0]} ({'higher' if higher else 'lower'} is better)")
        ax.set_xlabel("year of the figure")
        ax.set_title(prim.replace("_", " "), fontsize=10)
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=6)
    fig.suptitle(title)
    fig.tight_layout()
    return fig
