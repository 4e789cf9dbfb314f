"""Figures shared by the notebooks: units on the axes, the machine named in
the title, this machine's rows highlighted, PNG (and SVG) written.  The
statistical ones are drawn with seaborn (a paper table's bars with this
machine's intervals, facets of a sample); the intervals drawn are those
``benchlib.stats`` computed, never seaborn's own.  Every figure with
intervals goes through ``interval_plot`` (bars or points, one per row, with
the interval columns given): ``bars``/``table_bars``, ``compare_figure``
(``benchlib compare``'s ratios) and the papers' own figures
(``benchlib.papers.<id>.figures``)."""
from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.ticker import FuncFormatter

from benchlib.stats import intervals as iv

HIGHLIGHT = "#d62728"
PAPER = "#7f7f7f"


def machine_label(info: dict) -> str:
    """A short name for the machine a figure was measured on."""
    cpu = (info.get("cpu_model") or "unknown CPU").replace("(R)", "").replace("(TM)", "")
    cpu = " ".join(cpu.split())
    vm = ", VM" if info.get("virtualized") else ""
    return f"{cpu}, {info.get('cpus_online')} CPUs, Linux {info.get('kernel', '?').split('-')[0]}{vm}"


def interval_plot(ax, df: pd.DataFrame, value: str, at: str, lo: str | None = None,
                  hi: str | None = None, *, kind: str = "point", orient: str = "h",
                  hue: str | None = None, palette: dict | None = None, log: bool = True,
                  join: bool = False, legend: bool = False):
    """The one plot of figures with intervals: each row of ``df`` one mark
    (a bar, ``kind="bar"``, or a point), drawn by seaborn with no estimate of
    its own, and its interval ``lo``-``hi`` (column names; by default the 95%
    interval columns of ``value``, ``benchlib.stats.intervals``) wherever
    both ends are given.  ``orient="h"``: one row per label of ``at``, in
    ``df``'s order from the top, ``value`` along x; ``orient="v"``: ``at``
    a number along x, ``value`` along y, each ``hue``'s points joined into
    a curve with ``join``.  ``hue`` colours the rows by ``palette`` (value
    -> colour); without it every mark is ``HIGHLIGHT``.  Bars carry black
    intervals, points intervals of their own colour.  Axis labels and the
    title are the caller's (units in the labels)."""
    lo, hi = lo or value + iv.LO, hi or value + iv.HI
    v = df[value].to_numpy(dtype=float)
    pos = np.arange(len(df)) if orient == "h" else df[at].to_numpy(dtype=float)
    who = df[hue].to_numpy() if hue else np.full(len(df), "")
    palette = palette or {"": HIGHLIGHT}
    xy = {"x": v, "y": pos} if orient == "h" else {"x": pos, "y": v}
    common = {"hue": who, "hue_order": [k for k in palette if k in set(who)], "palette": palette,
              "legend": legend, "ax": ax}
    if kind == "bar":
        sns.barplot(**xy, **common, order=pos, orient=orient, dodge=False, errorbar=None,
                    saturation=1)
    elif join:
        sns.lineplot(**xy, **common, estimator=None, marker="o", sort=True)
    else:
        sns.scatterplot(**xy, **common, zorder=3)
    if lo in df.columns and hi in df.columns:
        # seaborn draws only intervals it estimates itself from the data it is
        # given, never ones passed in (mwaskom/seaborn#3740, #3345): the
        # intervals benchlib.stats computed go through matplotlib's errorbar
        a, b = df[lo].to_numpy(dtype=float), df[hi].to_numpy(dtype=float)
        ok = np.isfinite(v) & np.isfinite(a) & np.isfinite(b)
        for k in dict.fromkeys(who[ok]):
            m = ok & (who == k)
            err = {"xerr" if orient == "h" else "yerr": [v[m] - a[m], b[m] - v[m]]}
            ax.errorbar(*((v[m], pos[m]) if orient == "h" else (pos[m], v[m])), **err, fmt="none",
                        ecolor="black" if kind == "bar" else palette[k], capsize=3, lw=1)
    if orient == "h":
        ax.set_yticks(pos, df[at].fillna("(configuration lost)"))
        ax.set_ylim(len(df) - 0.5, -0.5)   # the first row on top
    if log:
        (ax.set_xscale if orient == "h" else ax.set_yscale)("log")
    ax.grid(axis="x" if orient == "h" else "both", which="both", alpha=0.3)
    return ax


def bars(ax, df: pd.DataFrame, label: str, value: str, source: str = "source",
         highlight: str = "this machine", colour: str = HIGHLIGHT, log: bool = True):
    """One horizontal bar per row of ``df`` in its order (``interval_plot``),
    the rows whose ``source`` is ``highlight`` in ``colour`` and the others
    grey, with the 95% intervals the table carries (this machine's)."""
    who = df.assign(_who=np.where(df[source] == highlight, highlight, "other"))
    return interval_plot(ax, who, value, label, kind="bar", hue="_who", log=log,
                         palette={highlight: colour, "other": PAPER})


def bar_table(ax, df: pd.DataFrame, label: str, value: str, unit: str, title: str,
              log: bool = True, source: str = "source"):
    """Horizontal bars of a paper table, this machine's rows in red (with
    their 95% intervals where the table carries them)."""
    bars(ax, df, label, value, source, log=log)
    ax.set_xlabel(f"{value} ({unit})")
    ax.set_title(title)
    return ax


#: The colour of each verdict of ``benchlib.results.compare`` (B against A).
VERDICT_COLOURS = {"faster": "tab:green", "slower": "tab:red", "no difference": "tab:blue",
                   "inconclusive": "tab:grey"}


def _sides(df: pd.DataFrame) -> str:
    """The machines a comparison's sides ran on (``compare``'s attrs), in words."""
    a, b = df.attrs.get("machines_a"), df.attrs.get("machines_b")
    if not a or not b:
        return ""
    name = lambda ms: "; ".join(machine_label(m) for m in ms)  # noqa: E731
    return f"both on {name(a)}" if a == b else f"A on {name(a)}, B on {name(b)}"


def compare_figure(df: pd.DataFrame, ax=None, title: str | None = None, max_rows: int = 60):
    """``benchlib.results.compare``'s rows as ratios of medians (B/A) with
    their 95% intervals (``interval_plot``), one row per benchmark coloured
    by its verdict, on a log axis; the margin shaded; each row labelled with
    both medians and the unit; the machines named under the title.  Beyond
    ``max_rows`` rows only the largest differences are drawn (the title
    says so).  Returns the figure."""
    from matplotlib.ticker import FixedLocator, NullFormatter

    from benchlib.stats.summary import equivalence_bounds

    shown = df
    if len(df) > max_rows:
        shown = df.loc[np.abs(np.log(df["ratio"])).sort_values(ascending=False).index[:max_rows]]
    n = len(shown)
    if ax is None:
        _, ax = plt.subplots(figsize=(11, 0.3 * n + 2))
    shown = shown.assign(row=[f"{r.benchmark} {r.params}: {r.median_a:.4g} -> {r.median_b:.4g} {r.unit}"
                              for r in shown.itertuples()])
    interval_plot(ax, shown, "ratio", "row", "ratio_ci95_lo", "ratio_ci95_hi", hue="verdict",
                  palette=VERDICT_COLOURS)
    ax.tick_params(axis="y", labelsize=7)
    margin = df.attrs.get("margin", df["margin"].iloc[0] if len(df) else 0.05)
    lo, hi = equivalence_bounds(margin)
    ax.axvspan(lo, hi, color="tab:blue", alpha=0.12, label=f"no difference zone (margin {100 * margin:g}%)")
    ax.axvline(1, color="k", lw=0.8)
    lo_x = min(shown["ratio_ci95_lo"].min(), lo) if n else lo
    hi_x = max(shown["ratio_ci95_hi"].max(), hi) if n else hi
    ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 5, 10,
                         20, 50, 100) if lo_x / 1.1 <= t <= hi_x * 1.1]
    ax.set_xlim(lo_x / 1.1, hi_x * 1.1)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("ratio of medians B / A (unitless, log scale; bars: 95% bootstrap interval)")
    for v, c in VERDICT_COLOURS.items():
        ax.plot([], [], "o", color=c, label=v)
    fig = ax.figure
    fig.legend(*ax.get_legend_handles_labels(), fontsize=7, loc="lower center", ncol=5,
               frameon=False)
    more = f" ({n} largest of {len(df)})" if n < len(df) else ""
    where = _sides(df)
    ax.set_title(title or f"B against A, per benchmark{more}" + (f"\n{where}" if where else ""),
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.5 / fig.get_figheight(), 1, 1))
    return fig


def with_interval_text(df: pd.DataFrame, fmt, na_rep: str = "", formats: dict | None = None):
    """``df`` with every column that has interval columns turned into text
    (``fmt(value)`` where a cell has no interval, the paper's rows;
    ``value [lo, hi]`` and the marks where it has, this machine's) and the
    interval columns dropped; and the cells flagged unstable, for a caption.
    ``formats`` (column -> "{:.2f}") formats a column's three numbers alike."""
    cols = iv.interval_columns(df)
    if not cols:
        return df, []
    shown, flagged = iv.strip(df), {}
    for c in cols:
        texts = []
        own = (formats or {}).get(c)
        for i in df.index:
            m = iv.get(df, c, i)
            v = iv.value(m)
            if isinstance(m, iv.Measured):
                texts.append(m.text(own.format) if isinstance(own, str) else iv.short(m))
                for why in m.unstable:
                    flagged.setdefault(str(df.loc[i, df.columns[0]]), {})[why] = None
            else:
                texts.append(na_rep if v != v else own.format(v) if isinstance(own, str) else fmt(v))
        shown[c] = texts
    return shown, [f"{row} ({', '.join(why)})" for row, why in flagged.items()]


def highlight_machine(df: pd.DataFrame, source: str = "source", significant: int | None = None,
                      na_rep: str = ""):
    """A pandas Styler that shades this machine's rows (``source`` column,
    written by ``papers.beside_paper``), for display: numbers to 3 decimals,
    or to ``significant`` significant figures; empty cells as ``na_rep``.
    A column with interval columns beside it (``benchlib.stats.intervals``)
    shows this machine's figures as ``1.23 [1.20, 1.26]``: the 95% interval
    of the median, marked where propagated or unstable (the caption says)."""
    def shade(row):
        on = row[source] == "this machine"
        return ["background-color: #fde0dd; font-weight: bold" if on else ""] * len(row)
    fmt = (lambda v: f"{v:.3f}") if significant is None else (lambda v: f"{v:,.{significant}g}")
    shown, flagged = with_interval_text(df, fmt, na_rep)
    styler = _legend(shown.style.apply(shade, axis=1), shown is not df, flagged)
    if significant is None:
        return styler.format(precision=3, na_rep=na_rep)
    nums = [c for c in shown.columns if pd.api.types.is_numeric_dtype(shown[c])]
    return styler.format({c: f"{{:,.{significant}g}}" for c in nums}, na_rep=na_rep)


def _legend(styler, has_intervals: bool, flagged: list[str], caption: str = ""):
    """The caption: ``caption``, then what the brackets and marks mean."""
    words = [caption] if caption else []
    if has_intervals:
        words.append(iv.LEGEND + ".")
        if flagged:
            words.append("Resting on a result flagged unstable: " + "; ".join(flagged) + ".")
    return styler.set_caption(" ".join(words)) if words else styler


def interval_styler(df: pd.DataFrame, formats: dict | None = None, precision: int = 3,
                    na_rep: str = "", caption: str = ""):
    """A Styler for a table of this machine's figures: each column with
    interval columns beside it shown as ``value [lo, hi]`` (``formats``
    applies to all three numbers; otherwise as many significant digits as
    tell them apart), the other columns formatted as ``df.style.format``
    would (``formats``, ``precision``), and ``caption`` followed by the
    legend as the caption."""
    formats = dict(formats or {})
    shown, flagged = with_interval_text(df, lambda v: f"{v:.{precision}f}", na_rep, formats)
    styler = _legend(shown.style, shown is not df, flagged, caption)
    rest = {c: f for c, f in formats.items() if c in shown.columns and c not in iv.interval_columns(df)}
    return styler.format(rest or None, precision=precision, na_rep=na_rep)


def plain_log_axis(ax, axis: str = "y"):
    """A log axis labelled 2, 5, 10, 20 ... rather than in powers of ten
    (minor ticks labelled at 2 and 5 of each decade only)."""
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    minor = FuncFormatter(lambda v, _: f"{v:g}" if v > 0 and
                          round(v / 10 ** np.floor(np.log10(v))) in (2, 5) else "")
    a = ax.yaxis if axis == "y" else ax.xaxis
    a.set_major_formatter(plain)
    a.set_minor_formatter(minor)
    ax.tick_params(axis=axis, which="minor", labelsize=7)


def size_ticks(ax, sizes, zero_at=None):
    """x ticks at the sizes measured (bytes; the axis is in KiB), labelled
    0, 512, 1k, 64k ...; a size 0 is drawn at ``zero_at`` bytes."""
    pos = [(s if s else zero_at) / 1024 for s in sizes]
    ax.set_xticks(pos, ["0" if s == 0 else f"{s // 1024}k" if s % 1024 == 0 else str(s)
                        for s in sizes])
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def show_saved(fig, output_dir: str | Path, stem: str, svg: bool = True) -> list[Path]:
    """:func:`save_figure`, then show in the notebook the PNG it wrote and
    close the figure: drawn once, not a second time by the inline backend
    (a large figure takes seconds to draw)."""
    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    paths = save_figure(fig, output_dir, stem, svg=svg)
    plt.close(fig)
    display(Image(filename=str(paths[0])))
    return paths


def save_figure(fig, output_dir: str | Path, stem: str, svg: bool = True) -> list[Path]:
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.png"]
    fig.savefig(paths[0], dpi=120, bbox_inches="tight")
    if svg:
        paths.append(out / f"{stem}.svg")
        fig.savefig(paths[1], bbox_inches="tight")
    return paths


def _size_axis(ax, sizes):
    """log2 size axis labelled in B/KiB/MiB."""
    ax.set_xscale("log", base=2)
    lo, hi = math.floor(math.log2(min(sizes))), math.ceil(math.log2(max(sizes)))
    ticks = [2 ** k for k in range(lo, hi + 1, 2)]
    ax.set_xticks(ticks, [_fmt_bytes(t) for t in ticks], rotation=45)


def _fmt_bytes(n: float) -> str:
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f:
            v = n / f
            return f"{v:.0f} {unit}" if v >= 10 or v == int(v) else f"{v:.1f} {unit}"
    return f"{n:.0f} B"


def memory_latency_figure(latency: pd.DataFrame, fit=None, caches: list | None = None,
                          title: str = "", ax=None):
    """The lmbench paper's figure: latency against log size, one curve per
    stride, plus the random (prefetch-proof) curve; fitted levels drawn as
    plateaus ending at their fitted size, sysfs sizes as dotted lines."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(11, 6.5))
    stride = latency[latency.get("pattern", "stride") == "stride"] if "pattern" in latency else latency
    cmap = plt.get_cmap("viridis")
    strides = sorted(stride["stride_bytes"].unique())
    for i, s in enumerate(strides):
        d = stride[stride.stride_bytes == s].sort_values("size_bytes")
        ax.plot(d.size_bytes, d.latency_ns, ".-", lw=1, ms=3, color=cmap(i / max(1, len(strides) - 1)),
                label=f"stride {_fmt_bytes(s)}")
    if "pattern" in latency:
        r = latency[latency.pattern == "random"].sort_values("size_bytes")
        if not r.empty:
            ax.plot(r.size_bytes, r.latency_ns, "o-", color="black", lw=2, ms=3,
                    label="random, 64 B slots, huge pages")
    if fit is not None:
        prev = latency.size_bytes.min()
        for lev in fit.levels:
            end = lev.size_bytes or latency.size_bytes.max()
            ax.hlines(lev.latency_ns, prev, end, colors=HIGHLIGHT, lw=3, alpha=0.7)
            name = f"{lev.name}: {lev.latency_ns:.3g} ns"
            if lev.size_bytes:
                ax.axvline(lev.size_bytes, color=HIGHLIGHT, ls="--", lw=1)
                name = f"{lev.name} {_fmt_bytes(lev.size_bytes)}: {lev.latency_ns:.3g} ns"
            ax.annotate(name, (prev, lev.latency_ns), textcoords="offset points", xytext=(3, 4),
                        color=HIGHLIGHT, fontsize=9)
            prev = end
    for c in caches or []:
        if c.get("type") in ("Data", "Unified") and c.get("size_bytes"):
            ax.axvline(c["size_bytes"], color="grey", ls=":", lw=1)
            ax.annotate(f"sysfs L{c['level']}", (c["size_bytes"], ax.get_ylim()[1]), rotation=90,
                        va="top", ha="right", fontsize=8, color="grey")
    ax.set_yscale("log")
    _size_axis(ax, latency.size_bytes)
    ax.set_xlabel("array size (bytes, log scale)")
    ax.set_ylabel("latency per dependent load (ns, log scale)")
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    return ax


def memory_mountain(bw: pd.DataFrame, title: str = "", ax=None):
    """Read bandwidth over working-set size and stride, as a heat map (the
    'memory mountain' seen from above): columns sizes, rows strides."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(11, 4.5))
    grid = bw.pivot_table(index="stride_bytes", columns="size_bytes", values="value")
    im = ax.imshow(grid.values / 1000, aspect="auto", origin="lower", cmap="magma")
    ax.set_xticks(range(len(grid.columns)), [_fmt_bytes(s) for s in grid.columns], rotation=60, fontsize=8)
    ax.set_yticks(range(len(grid.index)), [_fmt_bytes(s) for s in grid.index])
    ax.set_xlabel("working-set size")
    ax.set_ylabel("stride between 8-byte reads")
    ax.set_title(title)
    plt.colorbar(im, ax=ax, label="read bandwidth (GB/s, 10^9 bytes)")
    return ax


def table_bars(df: pd.DataFrame, columns: dict[str, str], title: str, label: str = "configuration",
               log: bool = True, width: float = 5.5):
    """One horizontal bar panel per column of a paper table (``columns``
    maps column -> axis label with unit), this machine's rows in red, with
    their 95% intervals where the table carries them."""
    fig, axes = plt.subplots(1, len(columns), figsize=(width * len(columns), 0.32 * len(df) + 1.6),
                             squeeze=False)
    for ax, (col, axis_label) in zip(axes[0], columns.items()):
        bars(ax, df, label, col, log=log)
        ax.set_xlabel(axis_label)
    for ax in axes[0][1:]:
        ax.tick_params(labelleft=False)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------- Chen & Patterson 1994

_PARAM_LABEL = {"unique_bytes": "uniqueBytes", "size_mean_bytes": "sizeMean",
                "read_frac": "readFrac", "seq_frac": "seqFrac", "process_num": "processNum"}
_LOG_AXES = ("unique_bytes", "size_mean_bytes")


def _io_axis(ax, param: str):
    ax.set_xlabel(_PARAM_LABEL[param] + (" (bytes, log scale)" if param in _LOG_AXES else ""))
    if param in _LOG_AXES:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _fmt_bytes(v)))
    ax.set_ylabel("throughput (MB/s)")
    ax.grid(alpha=0.3, which="both")


def unique_bytes_figure(curve: pd.DataFrame, regions: list, slopes=None, title: str = ""):
    """The uniqueBytes curve with its regions shaded and focal points marked
    (the paper's Figures 7(e)/8(a)), and beside it the slope per step
    against the average slope (its Figure 6)."""
    fig, axes = plt.subplots(1, 2 if slopes is not None else 1, figsize=(12, 4), squeeze=False)
    ax = axes[0][0]
    ax.plot(curve["unique_bytes"], curve["mb_s"], "o-", color=HIGHLIGHT)
    for k, r in enumerate(regions):
        ax.axvspan(r.lo_bytes / 1.15, r.hi_bytes * 1.15, alpha=0.12, color=f"C{k}")
        ax.axvline(r.focal_unique_bytes, ls="--", color=f"C{k}",
                   label=f"region {k + 1} focal point: {_fmt_bytes(r.focal_unique_bytes)}")
    _io_axis(ax, "unique_bytes")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.set_title(title or "throughput against uniqueBytes; regions shaded")
    if slopes is not None:
        s, avg = slopes
        mids = [float((a * b) ** 0.5) for a, b in zip(curve["unique_bytes"],
                                                      curve["unique_bytes"][1:])]
        ax2 = axes[0][1]
        ax2.plot(mids, s, "o-", color=HIGHLIGHT, label="slope of each step")
        ax2.axhline(avg, ls="--", color=PAPER, label=f"average slope ({avg:.0f})")
        _io_axis(ax2, "unique_bytes")
        ax2.set_ylabel("slope (MB/s per doubling of uniqueBytes)")
        ax2.set_title("slope of the uniqueBytes curve (borders fall below the average)")
        ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig


def single_parameter_graphs(families: dict, focal: dict, title: str = "",
                            well: float | None = None):
    """One row of single-parameter graphs per region (the paper's Figures
    7 and 8); with `well`, the first try's "performs well" range shaded."""
    params = ("size_mean_bytes", "read_frac", "process_num", "seq_frac")
    rows = list(families)
    fig, axes = plt.subplots(len(rows), 4, figsize=(14, 3.2 * len(rows)), squeeze=False)
    for i, r in enumerate(rows):
        for j, p in enumerate(params):
            ax = axes[i][j]
            df = families[r].get(p)
            if df is None:
                ax.set_visible(False)
                continue
            df = df.sort_values(p)
            ax.plot(df[p], df["mb_s"], "o-", color=f"C{i}")
            f = focal[r]  # a benchmarks.iowork.Workload
            ax.axvline(getattr(f, p), ls="--", color=PAPER, lw=1)
            if well is not None:
                ok = df[df["mb_s"] >= well * df["mb_s"].max()][p]
                ax.axvspan(ok.min(), ok.max(), color="C2", alpha=0.15)
            _io_axis(ax, p)
            ax.set_ylim(bottom=0)
            ax.set_title(f"{_PARAM_LABEL[p]} (uniqueBytes {_fmt_bytes(f.unique_bytes)})",
                         fontsize=9)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def prediction_scatter(df: pd.DataFrame, constants: dict, title: str = ""):
    """Predicted against measured throughput for the random workloads: the
    product model (the paper's Figure 12, single-point benchmarks as dashed
    lines) and interpolation on an orthogonal sample (its Figure 14)."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    lo = min(df["mb_s"].min(), df["predicted_mb_s"].min(), df["interpolated_mb_s"].min()) / 1.5
    hi = max(df["mb_s"].max(), df["predicted_mb_s"].max(), df["interpolated_mb_s"].max()) * 1.5
    for ax, col, name in ((axes[0], "predicted_mb_s", "product of single-parameter functions"),
                          (axes[1], "interpolated_mb_s", "interpolation on an orthogonal sample")):
        border = df["in_border"].astype(bool)
        ax.scatter(df.loc[~border, "mb_s"], df.loc[~border, col], color=HIGHLIGHT, s=18,
                   label="workload")
        ax.scatter(df.loc[border, "mb_s"], df.loc[border, col], facecolors="none",
                   edgecolors=HIGHLIGHT, s=18, label="workload in a thrashing zone")
        ax.plot([lo, hi], [lo, hi], color="k", lw=1)
        if col == "predicted_mb_s":
            for k, (cname, v) in enumerate(constants.items()):
                ax.axhline(v, ls="--", color=f"C{k}", lw=1, label=f"{cname}: {v:,.0f} MB/s")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel("measured throughput (MB/s)")
        ax.set_ylabel("predicted throughput (MB/s)")
        err = (100 * (df[col] - df["mb_s"]).abs() / df["mb_s"]).median()
        ax.set_title(f"{name}\nmedian error {err:.0f}%", fontsize=10)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3, which="both")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def error_by_parameter(df: pd.DataFrame, title: str = ""):
    """Prediction error of each random workload against each parameter
    (the paper's Figure 13): one seaborn ``relplot`` panel per parameter."""
    from benchlib.analysis.self_scaling_model import PARAMS, relative_error
    err = 100 * relative_error(df["predicted_mb_s"], df["mb_s"])
    long = df[list(PARAMS)].assign(error=err).melt(id_vars="error", var_name="parameter")
    g = sns.relplot(long, x="value", y="error", col="parameter", col_order=PARAMS, color=HIGHLIGHT,
                    s=14, height=3.2, aspect=16 / 5 / 3.2, facet_kws={"sharex": False})
    g.set_titles("")
    for p, ax in g.axes_dict.items():
        _io_axis(ax, p)
        ax.set_ylabel("prediction error (%)" if p == PARAMS[0] else "")
    if title:
        g.figure.suptitle(title)
    g.tight_layout()
    return g.figure


# ------------------------------------------------ the memory hierarchy's models

def memory_model_curve(fit, sizes) -> pd.DataFrame:
    """The fitted hierarchy's latency over ``sizes`` (the transition model
    with each level's fitted capacity, ways and page size), for drawing over
    the measured points."""
    from benchlib.memory.cache_model import HUGE_PAGE, staircase

    # the ring's own capacity where a random walk has replaced the level's size
    trans = [(lv.ring_size_bytes[0] if lv.ring_size_bytes else lv.size_bytes,
              lv.transition.ways if lv.transition else 8,
              lv.transition.page_bytes if lv.transition else HUGE_PAGE)
             for lv in fit.levels if lv.size_bytes]
    s = np.asarray(sizes, float)
    return pd.DataFrame({"size_bytes": s,
                         "latency_ns": staircase(s, [lv.latency_ns for lv in fit.levels], trans)})


def draw_memory_model(ax, m, label: str = "fitted model"):
    """The model's curve over the measured random-chase points on ``ax``."""
    r = m.latency[m.latency.pattern == "random"].sort_values("size_bytes")
    sizes = np.geomspace(r.size_bytes.min(), r.size_bytes.max(), 400)
    mc = memory_model_curve(m.fit, sizes)
    ax.plot(mc.size_bytes, mc.latency_ns, "-", color="#d62728", lw=1.5, label=label)
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    return ax


def draw_memory_walk(ax, m):
    """Each level sized by the random walk: the walk's points and its fitted
    model (policy-free: a set keeps ways/n of its lines), beside the ring
    chase's points over the same sizes and the ring's LRU model; dashed
    lines at the two fitted capacities and at sysfs's size.  Returns False
    (nothing drawn) when no level was sized by the walk."""
    from benchlib.memory.cache_model import kept_fraction
    from benchlib.memory.fit import tlb_penalty_ns

    caches = [lv for lv in m.fit.levels if lv.size_bytes]
    done = False
    for k, lv in enumerate(caches):
        t = lv.walk
        if t is None or m.walk is None or k == 0:
            continue
        w = m.walk[(m.walk.size_bytes >= lv.size_bytes / 4) & (m.walk.size_bytes <= 4 * lv.size_bytes)]
        r = m.latency[(m.latency.pattern == "random") & (m.latency.size_bytes >= w.size_bytes.min())
                      & (m.latency.size_bytes <= w.size_bytes.max())]
        ax.plot(w.size_bytes / 1024, w.latency_ns, "o", color="#1f77b4", ms=4,
                label="random walk (mem_latency pattern=walk)")
        ax.plot(r.size_bytes / 1024, r.latency_ns, "s", color="#7f7f7f", ms=4, mfc="none",
                label="ring chase (pattern=random)")
        sizes = np.geomspace(w.size_bytes.min(), w.size_bytes.max(), 300)
        low = caches[k - 1]
        h1 = np.minimum(1.0, low.size_bytes / sizes)
        h = np.maximum(kept_fraction(sizes, t.size_bytes, t.ways, t.page_bytes, "walk"), h1)
        l_here, l_next = t.latencies_ns
        pen = tlb_penalty_ns(sizes, m.fit.tlb) if m.fit.tlb_removed else 0.0
        ax.plot(sizes / 1024, low.latency_ns * h1 + l_here * (h - h1) + l_next * (1 - h) + pen,
                "-", color="#1f77b4", lw=1.2, label="walk model (any replacement policy)")
        mc = memory_model_curve(m.fit, sizes)
        ax.plot(mc.size_bytes / 1024, mc.latency_ns, "-", color="#7f7f7f", lw=1.2,
                label="ring model (LRU sets)")
        ax.axvline(lv.size_bytes / 1024, color="#1f77b4", ls="--", lw=1,
                   label=f"{lv.name} from the walk: {lv.size_bytes / 1024:.0f} KiB")
        ax.axvline(lv.ring_size_bytes[0] / 1024, color="#7f7f7f", ls="--", lw=1,
                   label=f"{lv.name} from the ring: {lv.ring_size_bytes[0] / 1024:.0f} KiB")
        rep = {c["level"]: c for c in m.machine.get("caches", []) if c["type"] in ("Data", "Unified")}
        if rep.get(k + 1, {}).get("size_bytes"):
            ax.axvline(rep[k + 1]["size_bytes"] / 1024, color="k", ls=":", lw=1,
                       label=f"sysfs L{k + 1}: {rep[k + 1]['size_bytes'] / 1024:.0f} KiB")
        done = True
    if done:
        ax.set_xscale("log", base=2)
        ax.set_xlabel("working set (KiB, log scale)")
        ax.set_ylabel("time per load (ns)")
        ax.legend(fontsize=8)
    return done
