"""Figures of the cross-paper dataset, drawn with seaborn: each primitive's
speed against the CPU rating on log-log axes, the three eras on one axis
with their fitted exponents, and each primitive's figure by year, every
paper's systems beside today's machines."""
from __future__ import annotations

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D
from matplotlib.ticker import LogLocator

from benchlib.analysis.scaling import rate
from benchlib.report.figures import HIGHLIGHT
from benchlib.papers.across import ALL_ERAS, ERAS, PAPERS, PRIMITIVES, era_of

PAPER_COLOURS = {**dict(zip(PAPERS, ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf",
                                     "#e377c2"])), "today": "#ff7f0e"}
ERA_COLOURS = dict(zip(ERAS, ["#1f77b4", "#2ca02c", "#9467bd"]))
ERA_MARKERS = dict(zip(ERAS, ["o", "s", "^"]))
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
    # a log axis over many decades gets at most seven labelled decades and
    # ticks at 2 and 5 between them: matplotlib's default (every decade,
    # eight minor ticks in each) made drawing these panels take most of the
    # notebook's time (26 s of the figure's 31 s on 16 panels)
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log":
            axis.set_major_locator(LogLocator(numticks=7))
            axis.set_minor_locator(LogLocator(subs=(2.0, 5.0), numticks=7))
    ax.grid(which="major", alpha=0.3)
    ax.grid(which="minor", alpha=0.12)


def _grid_legend(g, marks: dict) -> None:
    """The grid's legend right of its panels.  Not seaborn's ``add_legend``,
    which draws the whole figure twice to make room for it (5.5 s of the
    speed figure's 12 s on 16 panels); ``bbox_inches="tight"`` at saving
    takes the legend in."""
    g.figure.legend(list(marks.values()), list(marks), loc="center left",
                    bbox_to_anchor=(1.0, 0.5), frameon=False)


def _eras(df: pd.DataFrame, this_host: str) -> pd.Series:
    """Each row's group on the CPU axis: its era, or this machine."""
    return df["year"].map(era_of).where(df["machine"] != this_host, THIS)


def _in_group(eras: pd.Series, name: str) -> pd.Series:
    return eras.isin(list(ERAS)) if name == ALL_ERAS else eras == name


def speed_vs_cpu(df: pd.DataFrame, fits: pd.DataFrame, this_host: str, title: str):
    """Every era on one axis: one panel per primitive with a CPU rating
    (seaborn ``relplot``), speed (operations/s or MB/s) against the CPU
    rating (a ratio to the VAX-11/780: VAX-MIPS or SPECint92), log-log, each
    era its colour and marker, this machine a star.  The systems of a
    primitive without a rating stand in a strip at the panel's left at their
    speed (ranked, not fitted), so no panel shows one machine alone where
    the papers have rows.  A line per fit of ``fits`` (``systems``: an era
    or all eras; drawn from its exponent and intercept over its own systems'
    range, not refitted), exponent and 95% interval in the panel's legend."""
    d = df[df["primitive"].isin(PRIMITIVES)].copy()
    d["group"] = _eras(d, this_host)
    d["era"] = d["year"].map(era_of)
    d["speed"] = np.nan
    for prim, g in d.groupby("primitive"):
        d.loc[g.index, "speed"] = rate(g["value_std"], *PRIMITIVES[prim][:2])[0]
    rated_mask = d["cpu_rating"].notna() & (d["cpu_rating"] > 0)
    prims = [p for p in PRIMITIVES if p in set(d.loc[rated_mask, "primitive"])]
    d = d[d["primitive"].isin(prims)]
    rated, unrated = d[rated_mask.reindex(d.index)], d[~rated_mask.reindex(d.index)]
    order = [w for w in [*ERAS, THIS] if w in set(d["group"])]
    palette = {w: HIGHLIGHT if w == THIS else ERA_COLOURS.get(w, "k") for w in order}
    g = sns.relplot(rated, kind="scatter", x="cpu_rating", y="speed", col="primitive",
                    col_order=prims, col_wrap=min(4, len(prims)), hue="group", hue_order=order,
                    palette=palette, style="group", style_order=order,
                    markers={w: ERA_MARKERS.get(w, "*" if w == THIS else "o") for w in order},
                    size="group", size_order=order,
                    sizes={w: 160 if w == THIS else 26 for w in order}, edgecolor="k",
                    linewidth=0.3, alpha=0.9, height=3.4, aspect=4.2 / 3.4, legend=False,
                    facet_kws={"sharex": False, "sharey": False})
    # one CPU axis for every panel; the unrated strip left of every rating
    lo_x, hi_x = rated["cpu_rating"].min(), rated["cpu_rating"].max()
    x_strip = lo_x / 6
    for prim, ax in g.axes_dict.items():
        sub = rated[rated["primitive"] == prim]
        strip = unrated[unrated["primitive"] == prim]
        if len(strip):
            ax.scatter(np.full(len(strip), x_strip), strip["speed"], marker="_", s=90,
                       linewidths=1.2, alpha=0.7, zorder=3,
                       c=[palette.get(w, "k") for w in strip["group"]])
            ax.axvline(lo_x / 2.5, color="0.6", lw=0.8, ls=":")
            ax.text(x_strip, 1.0, f"unrated\n({len(strip)})", transform=ax.get_xaxis_transform(),
                    ha="center", va="top", fontsize=6, color="0.3")
        lines, drawn = [], {}
        for _, f in fits[fits["primitive"] == prim].iterrows():
            if not np.isfinite(f["exponent"]):
                continue
            key = (int(f["n"]), round(float(f["exponent"]), 9))
            if key in drawn:                    # the same points as a line already drawn
                line = drawn[key]
                line.set_label(f"{f['systems']} = {line.get_label()}")
                continue
            xs_g = sub.loc[_in_group(sub["group"].where(sub["group"] != THIS, "today"),
                                     f["systems"]), "cpu_rating"]
            xs = np.geomspace(xs_g.min(), xs_g.max(), 50)
            colour = "k" if f["systems"] == ALL_ERAS else ERA_COLOURS.get(f["systems"], "0.4")
            (line,) = ax.plot(xs, 10 ** (f["intercept"] + f["exponent"] * np.log10(xs)),
                              "--" if f["systems"] == ALL_ERAS else "-", color=colour, lw=1,
                              label=f"{f['systems']}: b = {f['exponent']:.2f} "
                                    f"[{f['ci_low']:.2f}, {f['ci_high']:.2f}]")
            drawn[key] = line
            lines.append(line)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(x_strip / 2.5, hi_x * 2.5)
        _, unit = rate([1.0], *PRIMITIVES[prim][:2])
        _panel(ax, prim, "CPU rating (VAX-11/780 = 1: VAX-MIPS, SPECint92)", f"speed ({unit})")
        if lines:
            ax.legend(handles=lines, fontsize=6, loc="best")
    marks = {w: Line2D([], [], ls="", marker=ERA_MARKERS.get(w, "o"), color=palette[w],
                       mec="k", mew=0.3) for w in order if w != THIS}
    if THIS in order:
        marks[THIS] = Line2D([], [], ls="", marker="*", ms=12, color=HIGHLIGHT, mec="k")
    if len(unrated):
        marks["unrated: ranked, not fitted"] = Line2D([], [], ls="", marker="_", ms=10,
                                                      color="0.3", mew=1.2)
    _grid_legend(g, marks)
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
    _grid_legend(g, marks)
    g.figure.suptitle(title)
    g.tight_layout()
    return g.figure
