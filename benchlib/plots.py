"""Figures shared by the notebooks: units on the axes, the machine named in
the title, this machine's rows highlighted, PNG (and SVG) written."""
from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

HIGHLIGHT = "#d62728"
PAPER = "#7f7f7f"


def machine_label(info: dict) -> str:
    """A short name for the machine a figure was measured on."""
    cpu = (info.get("cpu_model") or "unknown CPU").replace("(R)", "").replace("(TM)", "")
    cpu = " ".join(cpu.split())
    vm = ", VM" if info.get("virtualized") else ""
    return f"{cpu}, {info.get('cpus_online')} CPUs, Linux {info.get('kernel', '?').split('-')[0]}{vm}"


def bar_table(ax, df: pd.DataFrame, label: str, value: str, unit: str, title: str,
              log: bool = True, source: str = "source"):
    """Horizontal bars of a paper table, this machine's rows in red."""
    colors = [HIGHLIGHT if s == "this machine" else PAPER for s in df[source]]
    ax.barh(df[label], df[value], color=colors)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(f"{value} ({unit})")
    ax.set_title(title)
    ax.grid(axis="x", which="both", alpha=0.3)
    return ax


def highlight_machine(df: pd.DataFrame, source: str = "source"):
    """A pandas Styler that shades this machine's rows, for display."""
    def shade(row):
        on = row[source] == "this machine"
        return ["background-color: #fde0dd; font-weight: bold" if on else ""] * len(row)
    return df.style.apply(shade, axis=1).format(precision=3, na_rep="")


def save_figure(fig, output_dir: str | Path, stem: str, svg: bool = True) -> list[Path]:
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.png"]
    fig.savefig(paths[0], dpi=120, bbox_inches="tight")
    if svg:
        paths.append(out / f"{stem}.svg")
        fig.savefig(paths[1], bbox_inches="tight")
    return paths
