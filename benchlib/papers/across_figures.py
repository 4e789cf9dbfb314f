"""Figures of the cross-paper dataset, drawn with seaborn: each primitive's
speed against CPU speed on log-log axes with the fitted exponents, and each
primitive's figure by year, every paper's systems beside today's machines."""
from __future__ import annotations

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D

from benchlib.analysis.scaling import rate
from benchlib.report.figures import HIGHLIGHT
from benchlib.papers.across import PAPERS, PRIMITIVES

PAPER_COLOURS = {**dict(zip(PAPERS, ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf",
                                     "#e377c2"])), "today": "#ff7f0e"}
FIT_STYLES = ["--", "-"]
THIS = "this machine"


def _who(df: pd.DataFrame, this_host: str) -> pd.Series:
    """Each row's colour group: its paper, or this machine."""
    return df["paper"].where(df["machine"] != this_host, THIS)


def _order(who: pd.Series) -> list[str]:
    return [w for w in [*PAPER_COLOURS, THIS] if w in set(who)] + \
        sorted(set(who) - {*PAPER_COLOURS, THIS})


def _palette(order: list[str]) -> dict[str, str]:
    return {w: HIGHLIGHT if w == THIS else PAPER_COLOURS.get(w, "k") for w in order}


def _panel(ax, prim: str, xlabel: str, ylabel: str):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(prim.replace("_", " "), fontsize=10)
    ax.grid(which="both", alpha=0.3)


def speed_vs_cpu(df: pd.DataFrame, fits: pd.DataFrame, this_host: str, title: str):
    """One panel per primitive with a CPU rating (seaborn ``relplot``):
    speed (operations/s or MB/s) against VAX-MIPS, log-log; a line for each
    fit of ``fits`` (the ``systems`` groups, drawn from its exponent and
    intercept, not refitted), exponent and 95% interval in the panel's
    legend."""
    rated = df[df["cpu_mips"].notna()]
    prims = [p for p in PRIMITIVES if p in set(rated["primitive"])]
    d = rated[rated["primitive"].isin(prims)].copy()
    d["who"] = _who(d, this_host)
    d["speed"] = np.nan
    for prim, g in d.groupby("primitive"):
        d.loc[g.index, "speed"] = rate(g["value_std"], *PRIMITIVES[prim][:2])[0]
    order = _order(d["who"])
    g = sns.relplot(d, kind="scatter", x="cpu_mips", y="speed", col="primitive", col_order=prims,
                    col_wrap=min(4, len(prims)), hue="who", hue_order=order, palette=_palette(order),
                    style="who", style_order=order, markers={w: "*" if w == THIS else "o" for w in order},
                    size="who", size_order=order, sizes={w: 160 if w == THIS else 22 for w in order},
                    edgecolor="k", linewidth=0.3, alpha=0.9, height=3.4, aspect=4.2 / 3.4,
                    facet_kws={"sharex": False, "sharey": False})
    for prim, ax in g.axes_dict.items():
        sub = d[d["primitive"] == prim]
        xs = np.geomspace(sub["cpu_mips"].min(), sub["cpu_mips"].max(), 50)
        drawn, lines = set(), []
        for style, (_, f) in zip(FIT_STYLES, fits[fits["primitive"] == prim].iterrows()):
            if not np.isfinite(f["exponent"]) or (f["n"], f["exponent"]) in drawn:
                continue      # no fit, or the same points as a line already drawn
            drawn.add((f["n"], f["exponent"]))
            lines += ax.plot(xs, 10 ** (f["intercept"] + f["exponent"] * np.log10(xs)), style,
                             color="k", lw=1, label=f"{f['systems']}: b = {f['exponent']:.2f} "
                                                    f"[{f['ci_low']:.2f}, {f['ci_high']:.2f}]")
        ax.set_xscale("log")
        ax.set_yscale("log")
        _, unit = rate([1.0], *PRIMITIVES[prim][:2])
        _panel(ax, prim, "CPU speed (VAX-MIPS, VAX-11/780 = 1)", f"speed ({unit})")
        if lines:
            ax.legend(handles=lines, fontsize=6, loc="best")
    g.legend.set_title(None)
    g.figure.suptitle(title)
    g.tight_layout()
    return g.figure


def value_by_year(df: pd.DataFrame, this_host: str, title: str):
    """One panel per primitive (seaborn ``catplot`` of kind ``strip`` on
    the years' own scale, jittered): the figure (its standard unit, log
    axis) against the year of the figure, every paper's systems and
    today's, this machine a star."""
    prims = [p for p in PRIMITIVES if p in set(df["primitive"])]
    d = df[df["primitive"].isin(prims)].assign(who=_who(df, this_host))
    order = _order(d["who"])
    others = [w for w in order if w != THIS]
    g = sns.catplot(d[d["who"] != THIS], kind="strip", x="year", y="value_std", orient="x",
                    native_scale=True, jitter=0.25, col="primitive", col_order=prims,
                    col_wrap=min(4, len(prims)), hue="who", hue_order=others,
                    palette=_palette(others), size=4, alpha=0.7, sharex=False, sharey=False,
                    height=3.0, aspect=1.4, legend=False)
    for prim, ax in g.axes_dict.items():
        ours = d[(d["primitive"] == prim) & (d["who"] == THIS)]
        sns.scatterplot(ours, x="year", y="value_std", marker="*", s=160, color=HIGHLIGHT,
                        edgecolor="k", zorder=5, ax=ax)
        ax.set_yscale("log")
        ax.ticklabel_format(axis="x", useOffset=False)
        higher = PRIMITIVES[prim][1]
        _panel(ax, prim, "year of the figure",
               f"{PRIMITIVES[prim][0]} ({'higher' if higher else 'lower'} is better)")
    marks = {w: Line2D([], [], ls="", marker="o", color=c) for w, c in _palette(others).items()}
    if THIS in order:
        marks[THIS] = Line2D([], [], ls="", marker="*", ms=12, color=HIGHLIGHT, mec="k")
    g.add_legend(legend_data=marks)
    g.figure.suptitle(title)
    g.tight_layout()
    return g.figure
