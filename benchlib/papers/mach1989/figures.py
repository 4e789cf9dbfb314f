"""The Mach thread's figures: the null RPC ranked as measured and as
Tanenbaum asked (normalised to CPU speed), and each IPC test's MIPS-relative
speed against the pmax.  Drawn with ``benchlib.report.figures.interval_plot``
(one bar per row, this machine in red, units on the axes, the machine named
in the title); the error bars are the range the CPU ratings allow, or the
95% interval of this machine's median where the axis is a measured time."""
from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from benchlib.report.figures import HIGHLIGHT, PAPER, interval_plot, plain_log_axis

SOURCES = {"this machine": HIGHLIGHT, "paper": PAPER}
#: The IPC tests' colours: a call that leaves the process, and one that does not.
LEAVES = {"to another process or the kernel": HIGHLIGHT, "a procedure call in one process": "#1f77b4"}


def _one_machine(path: str) -> bool:
    return not path.startswith("between")


def rpc_ranking_figure(ranking: pd.DataFrame, machine: str = ""):
    """``paper.rpc_ranking``'s rows as two panels of bars in its order: ms
    per call as measured (this machine's 95% intervals), and time x MIPS,
    ms on a VAX-11/780, with the range the ratings allow.  Hatched: both
    ends on one machine."""
    d = ranking.assign(name=[f"{s} ({h}, {'1 machine' if _one_machine(p) else '2 machines'})"
                             for s, h, p in zip(ranking.system, ranking.hardware, ranking.path)])
    fig, axes = plt.subplots(1, 2, figsize=(13, 0.4 * len(d) + 2))
    interval_plot(axes[0], d, "time_ms", "name", kind="bar", hue="source", palette=SOURCES)
    interval_plot(axes[1], d, "vax780_ms", "name", "vax780_ms_low", "vax780_ms_high", kind="bar",
                  hue="source", palette=SOURCES)
    for ax in axes:
        for bar in ax.patches:   # a bar's row is its position on the axis
            if _one_machine(d.path.iloc[round(bar.get_y() + bar.get_height() / 2)]):
                bar.set_hatch("//")
                bar.set_edgecolor("white")
        plain_log_axis(ax, "x")
    axes[1].tick_params(labelleft=False)
    net = d[~d.path.map(_one_machine) & (d.source == "paper")].sort_values("time_ms")
    axes[0].set_xlabel("ms per call, as measured\n(log scale; bars: 95% interval of the median)")
    axes[0].set_title(f"as measured: {net.system.iloc[0]} leads 1989's network RPCs"
                      if len(net) else "as measured")
    axes[1].set_xlabel("time × MIPS: ms on a VAX-11/780\n(log scale; bars: the range the CPU ratings allow)")
    axes[1].set_title("normalised to CPU speed (Tanenbaum)")
    fig.suptitle(f"Null RPC, 1989 and {machine or 'this machine'} (red). Hatched: both ends on one "
                 "machine; solid: two machines over Ethernet", fontsize=10)
    fig.tight_layout()
    return fig


def mips_relative_figure(norm: pd.DataFrame, rating: float, rating_low: float, rating_high: float,
                         machine: str = ""):
    """``measure.normalised_ipc``'s MIPS-relative speeds, one bar per test
    with a 1989 figure, with the range they take over the ratings the
    measurement supports (``rating_low``-``rating_high``; the speed scales
    as 1/rating); 1.0 = as much faster as the CPU."""
    d = norm.dropna(subset=["mips_relative_speed"])
    s = d["mips_relative_speed"]
    d = d.assign(leaves=[list(LEAVES)[0 if t.startswith("remote") or t == "syscall" else 1]
                         for t in d.test],
                 low=s * rating / rating_high, high=s * rating / rating_low)
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(d) + 1.8))
    interval_plot(ax, d, "mips_relative_speed", "test", "low", "high", kind="bar", hue="leaves",
                  palette=LEAVES, legend=True)
    ax.axvline(1.0, color="black", ls="--", lw=0.8)
    plain_log_axis(ax, "x")
    ax.legend(fontsize=8, title=None)
    ax.set_xlabel("MIPS-relative speed against the pmax (unitless, 1.0 = as much faster as the "
                  "CPU; log scale; bars: the rating's range)", fontsize=9)
    ax.set_title(f"Which tests kept pace with the CPU? {machine}".rstrip(), fontsize=10)
    fig.tight_layout()
    return fig
