"""What the explorer shows, as plain IPython display calls: a run (its
summary, its samples beside the earlier runs of the same benchmark, the
papers' rows), a sweep, a comparison, a memory level and the line size.
The widgets (``explore.widgets``) call these inside their output areas; a
notebook run by papermill calls them directly, with the same arguments.
``save_to``: a folder the figures are also written to (PNG and SVG)."""
from __future__ import annotations

import html
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import HTML, display

from benchlib.explore.charts import distribution_figure, level_figure, line_size_figure, sweep_figure
from benchlib.explore.memory import level_view, line_readings
from benchlib.explore.session import Run, Session
from benchlib.papers import cells
from benchlib.papers.data import PAPERS
from benchlib.report.figures import highlight_machine, machine_label, save_figure

#: At most this many earlier runs of the same benchmark beside a new one.
EARLIER_SHOWN = 5


def _num(v: float) -> str:
    return f"{v:.4g}"


def summary_html(run: Run) -> str:
    """The run in one sentence: median, its 95 % interval, samples, stability."""
    s = run.summary()
    ci = (f"95 % interval {_num(s['ci95_lo'])} to {_num(s['ci95_hi'])}"
          if s["ci95_lo"] == s["ci95_lo"] else "no interval")
    if s["stable"] is False:
        flag = (f'<span style="color:#b00;font-weight:bold">UNSTABLE</span> '
                f"({html.escape(s['why_unstable'])})")
    elif s["stable"]:
        flag = '<span style="color:#070;font-weight:bold">stable</span>'
    else:
        flag = "stability not assessed"
    return (f'<div class="benchlib-explore-summary"><b>{html.escape(run.label)}</b>: '
            f"median <b>{_num(s['median'])} {html.escape(s['unit'])}</b> ({ci}; "
            f"{s['samples']} samples, spread {100 * s['rel_iqr']:.1f} %, profile "
            f"{s['profile']}); {flag}</div>")


def declared_cells(benchmark: str) -> list[str]:
    """Every paper cell declared for ``benchmark``, in words (what to choose
    to see a paper's rows)."""
    out = []
    for paper in PAPERS:
        for name, spec in cells(paper).items():
            for row, cols in spec.rows.items():
                for column, col in cols.items():
                    if col.benchmark == benchmark:
                        text = f"{paper} {spec.title or name} ({column}): {col.describe()}"
                        if text not in out:
                            out.append(text)
    return out


def show_papers(run: Run) -> None:
    """The paper tables the run stands in, its row highlighted; or, where no
    paper has a cell for it, the cells declared for its benchmark."""
    if not run.papers:
        decl = declared_cells(run.result.benchmark)
        text = ("<p><i>No paper has a cell for this measurement.</i>"
                + (" The papers' cells for this benchmark: <ul>"
                   + "".join(f"<li>{html.escape(d)}</li>" for d in decl) + "</ul>" if decl
                   else " No paper declares a cell for this benchmark.") + "</p>")
        display(HTML(f'<div class="benchlib-explore-nopaper">{text}</div>'))
        return
    for p in run.papers:
        display(HTML(f'<div class="benchlib-explore-paper"><b>{html.escape(p.caption)}</b></div>'))
        display(highlight_machine(p.frame, significant=4))


def show_run(session: Session, run: Run, save_to: str | Path | None = None,
             papers: bool = True) -> None:
    """A run: its summary, its samples beside up to ``EARLIER_SHOWN``
    earlier runs of the same benchmark and unit, and (``papers``) the
    papers' rows."""
    display(HTML(summary_html(run)))
    same = [r for r in session.runs[:run.number] if r.result.benchmark == run.result.benchmark
            and r.result.unit == run.result.unit][-EARLIER_SHOWN:]
    fig = distribution_figure(same + [run])
    if save_to is not None:
        save_figure(fig, save_to, f"run{run.number}_{run.result.benchmark}")
    display(fig)
    plt.close(fig)
    if papers:
        show_papers(run)


def show_sweep(frame: pd.DataFrame, param: str, save_to: str | Path | None = None,
               machine: dict | None = None) -> None:
    """A sweep: the medians against the swept parameter, and the points."""
    bench = frame["benchmark"].iloc[0]
    title = f"{bench}: median against {param}" + (f"\n{machine_label(machine)}" if machine else "")
    fig = sweep_figure(frame, param, title)
    if save_to is not None:
        save_figure(fig, save_to, f"sweep_{bench}_{param}")
    display(fig)
    plt.close(fig)
    display(frame[[param, "run", "median", "ci95_lo", "ci95_hi", "unit", "stable",
                   "why_unstable"]])


def show_compare(df: pd.DataFrame) -> None:
    """A comparison (``Session.compare``): the verdict and the ratio B/A
    with its 95 % interval, in words and as the row ``compare`` gives."""
    r = df.iloc[0]
    better = "higher" if r["higher_is_better"] else "lower"
    words = (f"B/A = {r['ratio']:.4g}, 95 % interval {r['ratio_ci95_lo']:.4g} to "
             f"{r['ratio_ci95_hi']:.4g} ({better} is better; medians {r['median_a']:.4g} and "
             f"{r['median_b']:.4g} {r['unit']}): <b>B is {r['verdict']}</b>"
             if r["verdict"] in ("faster", "slower") else
             f"B/A = {r['ratio']:.4g}, 95 % interval {r['ratio_ci95_lo']:.4g} to "
             f"{r['ratio_ci95_hi']:.4g}: <b>{r['verdict']}</b> (margin {100 * r['margin']:g} %)")
    note = f"; {html.escape(r['note'])}" if r["note"] else ""
    display(HTML(f'<div class="benchlib-explore-verdict">{html.escape(r["runs"])}: '
                 f"{words}{note}</div>"))
    display(df[["runs", "median_a", "median_b", "unit", "ratio", "ratio_ci95_lo",
                "ratio_ci95_hi", "p_value", "verdict", "note"]])


def show_level(m, level: str, save_to: str | Path | None = None) -> None:
    """One cache level questioned (``explore.memory.level_view``)."""
    v = level_view(m, level)
    fig = level_figure(v, f"{level}: the fitted model, the other shapes, and the points\n"
                          f"{machine_label(m.machine)}")
    if save_to is not None:
        save_figure(fig, save_to, f"level_{level}")
    display(fig)
    plt.close(fig)
    display(HTML("<ul>" + "".join(f"<li>{html.escape(w)}</li>" for w in v.why) + "</ul>"))
    if len(v.shapes):
        display(v.shapes.round(2))


def show_line_readings(m, save_to: str | Path | None = None) -> None:
    """The line size's two readings side by side, and what the fit kept."""
    lr = line_readings(m)
    agree = {True: "they agree", False: "they disagree", None: "only one reading"}[lr.agree]
    fig = line_size_figure(lr, f"The line size, read two ways: {agree}; the fit keeps "
                               f"{lr.line or 'none'} B\n{machine_label(m.machine)}")
    if save_to is not None:
        save_figure(fig, save_to, "line_size_two_readings")
    display(fig)
    plt.close(fig)
    display(lr.table())
    for n in lr.notes:
        print("note:", n)


__all__ = ["show_run", "show_sweep", "show_compare", "show_papers", "show_level",
           "show_line_readings", "summary_html", "declared_cells"]
