"""LEBench's figures: the paper's heatmap redrawn from its CSV, and this
machine's switch costs with their 95 % intervals (the intervals are the
paired comparison's, ``measure.switch_costs``, never re-estimated here)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FormatStrFormatter, MaxNLocator
import pandas as pd
import seaborn as sns

from benchlib.papers.ren2019 import paper
from benchlib.report.figures import HIGHLIGHT, PAPER

VERDICT_COLOURS = {"slower": HIGHLIGHT, "faster": "tab:green", "no difference": "tab:blue",
                   "inconclusive": PAPER}


def heatmap(table: str = "heatmap_e5_2630v3", title: str = ""):
    """Every test's latency change (%) against Linux 4.0, one row per test,
    one column per kernel, each cell labelled as the paper prints it."""
    df = paper.load(table).set_index("test")
    df.columns = [paper.kernel_of(c) for c in df.columns]
    fig, ax = plt.subplots(figsize=(0.42 * len(df.columns) + 2.5, 0.32 * len(df) + 1.5))
    sns.heatmap(df, ax=ax, cmap="RdYlGn_r", center=0, vmin=-60, vmax=150, annot=True, fmt=".0f",
                annot_kws={"fontsize": 6}, cbar_kws={"label": "latency change against 4.0 (%)"},
                linewidths=0.3, linecolor="white")
    ax.set_xlabel("Linux kernel version")
    ax.set_ylabel("LEBench test")
    ax.set_title(title or "LEBench: test latency change (%) against Linux 4.0 "
                 "(paper's data, Xeon E5-2630 v3)", fontsize=10)
    fig.tight_layout()
    return fig


def switch_costs_figure(costs: pd.DataFrame, title: str = ""):
    """One panel per switched condition: each test's ratio t(switched) /
    t(as found) with its 95 % interval, coloured by verdict."""
    conds = sorted(dict.fromkeys(costs["condition"]))
    tests = list(dict.fromkeys(costs["test"]))
    n = len(conds)
    cols = min(4, max(1, n))
    rows = int(np.ceil(n / cols)) if n else 1
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 0.28 * len(tests) * rows + 1.6),
                             sharey=True, squeeze=False)
    y = np.arange(len(tests))
    for ax, cond in zip(axes.flat, conds):
        sub = costs[costs.condition == cond].set_index("test").reindex(tests)
        for yi, (_, r) in zip(y, sub.iterrows()):
            if pd.isna(r["ratio"]):
                continue
            ax.errorbar(r["ratio"], yi, xerr=[[r["ratio"] - r["ratio_ci95_lo"]],
                                              [r["ratio_ci95_hi"] - r["ratio"]]],
                        fmt="o", ms=3, capsize=2, color=VERDICT_COLOURS.get(r["verdict"], PAPER))
        ax.axvline(1, color="k", lw=0.8)
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.tick_params(labelsize=7)
        ax.set_title(cond, fontsize=8)
        ax.set_xlabel("time switched / as found", fontsize=7)
        ax.grid(axis="x", alpha=0.3)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    axes[0][0].set_yticks(y, tests, fontsize=7)
    axes[0][0].invert_yaxis()
    for v, c in VERDICT_COLOURS.items():
        axes[0][0].plot([], [], "o", color=c, label=v)
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="lower center", ncol=4, fontsize=7,
               frameon=False)
    fig.suptitle(title or "What each run-time switch costs (95 % paired intervals)", fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def cost_shares_figure(shares: pd.DataFrame, title: str = ""):
    """Per test: the share (%) of its time here that the switches in force,
    turned off, take away, with its (propagated) 95 % interval."""
    df = shares.dropna(subset=["share_pct"])
    fig, ax = plt.subplots(figsize=(7, 0.3 * max(len(df), 1) + 1.4))
    y = np.arange(len(df))
    ax.barh(y, df["share_pct"], color=HIGHLIGHT)
    ax.errorbar(df["share_pct"], y, xerr=[df["share_pct"] - df["share_pct_ci95_lo"],
                                          df["share_pct_ci95_hi"] - df["share_pct"]],
                fmt="none", ecolor="black", capsize=3, lw=1)
    ax.axvline(0, color="k", lw=0.8)
    ax.set_yticks(y, df["test"], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("share of the operation's time from switches in force (%)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title or "How much of each operation's time the run-time switches in force "
                 "account for", fontsize=9)
    fig.tight_layout()
    return fig
