"""Ousterhout 1990's figures: Figure 1 with this machine on it, the pipe
round trip beside its parts, and Table 10's follow-up sweep.  Drawn with the
shared helpers of ``benchlib.report.figures`` (units on the axes, this
machine in red, the machine named in the title the caller gives)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from benchlib.report.figures import HIGHLIGHT, PAPER, interval_plot
from benchlib.papers.ousterhout1990.cells import KB

#: Table 10's sweep: each ``fsync`` setting in words, and its colour.
FSYNC = {"no": ("no fsync: as the system does it", "#1f77b4"),
         "yes": ("fsync: waits for the disk", HIGHLIGHT)}


def figure1_plot(fig1: pd.DataFrame, rating_range: tuple[float, float] | None = None,
                 ax=None, title: str = ""):
    """Ousterhout's Figure 1: geometric mean of MIPS-relative speeds against
    the MIPS rating, one point per machine, this machine in red (with the
    curve it follows across the range of ratings its measurement supports)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 5))
    paper = fig1[fig1.machine != "this machine"]
    ours = fig1[fig1.machine == "this machine"]
    ax.scatter(paper["mips"], paper["geometric_mean"], color=PAPER, zorder=3, label="Ousterhout 1990")
    for _, r in paper.iterrows():
        ax.annotate(r["machine"], (r["mips"], r["geometric_mean"]), textcoords="offset points",
                    xytext=(4, 4), fontsize=8)
    if not ours.empty:
        r = ours.iloc[0]
        if rating_range:
            # every MIPS-relative speed scales as 1/rating, and so does their geometric mean
            x = np.geomspace(*rating_range, 50)
            ax.plot(x, r["geometric_mean"] * r["mips"] / x, color=HIGHLIGHT, alpha=0.5, lw=3,
                    label="this machine at the other ratings supported")
        ax.scatter([r["mips"]], [r["geometric_mean"]], color=HIGHLIGHT, s=60, zorder=4,
                   label="this machine")
        ax.annotate("this machine", (r["mips"], r["geometric_mean"]), textcoords="offset points",
                    xytext=(4, 6), fontsize=9, color=HIGHLIGHT)
    ax.axhline(1.0, color="black", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("MIPS rating (VAX-11/780 = 1), log scale")
    ax.set_ylabel("geometric mean of MIPS-relative speeds")
    ax.set_title(title or "Figure 1: operating-system speed against processor speed")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper right")
    return ax


def cswitch_parts_figure(parts, title: str = "cswitch and its parts"):
    """Ousterhout's pipe round trip beside its parts (``ousterhout1990.measure
    .cswitch_parts``): the four pipe calls, two bare switches and two
    sleeps and wake-ups, stacked against the measured round trip."""
    n = parts.notes
    wr = parts.results["write + read, no switch"].median
    fig, ax = plt.subplots(figsize=(8, 2.6))
    segments = [("2 x (write + read)", 2 * wr, "#1f77b4"),
                ("2 x bare switch", 2 * n["bare_switch_us"], "#ff7f0e"),
                ("2 x sleep + wake-up", 2 * n["wakeup_us"], "#2ca02c")]
    left = 0
    for name, w, c in segments:
        ax.barh(["parts"], [w], left=left, color=c, label=f"{name}: {w:.2f} µs")
        left += w
    ax.barh(["measured"], [parts.results["round trip (same CPU)"].median], color=HIGHLIGHT,
            label="round trip, measured")
    ax.set_xlabel("µs per round trip (both processes pinned to one CPU)")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def table10_sweep_figure(sweep: pd.DataFrame, machine: str = ""):
    """Table 10's follow-up (``measure.table10_sweep``): create-use-delete
    time against file size, 1 to 10 kbytes, one curve per ``fsync``
    setting; each point the median with its 95% interval."""
    fig, ax = plt.subplots(figsize=(8, 4))
    d = sweep.assign(kbytes=sweep["file_bytes"] / KB,
                     fsync=[FSYNC[s][0] for s in sweep["fsync"]])
    interval_plot(ax, d, "median", "kbytes", orient="v", hue="fsync", join=True, legend=True,
                  palette=dict(FSYNC.values()))
    ax.set_xlabel("file size (kbytes)")
    ax.set_ylabel(f"create-use-delete time ({sweep['unit'].iloc[0]}, log scale)")
    ax.set_xticks(range(1, 11))
    ax.legend(fontsize=8, title=None)
    ax.set_title("Table 10 follow-up: 1 to 10 kbytes (median, 95% interval)"
                 + (f"\n{machine}" if machine else ""), fontsize=10)
    fig.tight_layout()
    return fig
