"""The explorer's widgets (ipywidgets, in the notebook extras): every
benchmark as a form generated from its declaration (``explore.fields``), a
Run button with a progress bar, the result beside the papers' rows as it
arrives, a sweep mode, and the runs so far with a comparison of any two;
and, for the memory notebook, a level picker that questions the fitted
curve.  Everything shown is ``explore.show``'s, drawn inside an output
area; ``Explorer.run`` / ``Explorer.sweep`` / ``Explorer.compare`` do what
the buttons do, with arguments (papermill and the tests call them)."""
from __future__ import annotations

import html
import math
import time
import traceback

import ipywidgets as W
from IPython.display import HTML, display

from benchlib.errors import BenchlibError
from benchlib.explore.show import show_compare, show_level, show_papers, show_run, show_sweep
from benchlib.explore.fields import Field, form, parse_values, sweep_default, sweepable
from benchlib.explore.session import Session
from benchlib.measuring.registry import get_benchmark, list_benchmarks
from benchlib.profiles import PROFILES

WIDE = {"description_width": "14em"}


def field_widget(f: Field):
    """The widget of one field (``explore.fields``'s rule), with the CSS class
    ``benchlib-param-<name>``."""
    common = {"description": f.label, "style": WIDE, "layout": W.Layout(width="34em")}
    if f.widget == "dropdown":
        w = W.Dropdown(options=list(f.options), value=f.default, **common)
    elif f.widget in ("size_slider", "int_steps"):
        w = W.SelectionSlider(options=list(f.options), value=f.default, continuous_update=False,
                              **common)
    elif f.widget == "int_slider":
        w = W.IntSlider(value=f.default, min=int(f.low), max=int(f.high), continuous_update=False,
                        **common)
    elif f.widget == "int_text":
        w = W.IntText(value=f.default, **common)
    elif f.widget == "log_slider":
        w = W.FloatLogSlider(value=f.default, base=10, min=math.log10(f.low),
                             max=math.log10(f.high), step=0.05, continuous_update=False, **common)
    elif f.widget == "float_slider":
        w = W.FloatSlider(value=f.default, min=f.low, max=f.high, step=(f.high - f.low) / 100,
                          continuous_update=False, **common)
    elif f.widget == "float_text":
        w = W.FloatText(value=f.default, **common)
    else:
        w = W.Text(value=str(f.default), **common)
    w.add_class(f"benchlib-param-{f.name}")
    return w


class Explorer:
    """Pick a benchmark, set its parameters, press Run.  ``session`` keeps
    the runs (a new one at ``profile`` if not given); ``save_to``: a folder
    the figures are written to as well."""

    def __init__(self, session: Session | None = None, profile: str = "quick",
                 benchmark: str = "syscall", save_to=None):
        self.session = session or Session(profile)
        self.save_to = save_to
        names = [b.name for b in list_benchmarks()]
        self.benchmark = W.Dropdown(options=names, value=get_benchmark(benchmark).name,
                                    description="benchmark", style=WIDE,
                                    layout=W.Layout(width="34em"))
        self.benchmark.add_class("benchlib-explore-benchmark")
        self.about = W.HTML()
        self.profile = W.ToggleButtons(options=list(PROFILES),
                                       value=self.session.profile, description="profile",
                                       style={"button_width": "6em"})
        self.params = W.VBox()
        self.fields: dict[str, tuple[Field, W.Widget]] = {}
        self.mode = W.ToggleButtons(options=["one run", "sweep"], value="one run",
                                    description="mode", style={"button_width": "6em"})
        self.mode.add_class("benchlib-explore-mode")
        self.sweep_param = W.Dropdown(description="sweep", style=WIDE, layout=W.Layout(width="34em"))
        self.sweep_param.add_class("benchlib-explore-sweep-param")
        self.sweep_values = W.Text(description="values (commas)", style=WIDE,
                                   layout=W.Layout(width="34em"))
        self.sweep_values.add_class("benchlib-explore-sweep-values")
        self.sweep_box = W.VBox([self.sweep_param, self.sweep_values],
                                layout=W.Layout(display="none"))
        self.run_button = W.Button(description="Run", button_style="primary", icon="play")
        self.run_button.add_class("benchlib-explore-run")
        self.progress = W.IntProgress(value=0, min=0, max=1, layout=W.Layout(width="20em"))
        self.progress.add_class("benchlib-explore-progress")
        self.status = W.HTML()
        self.status.add_class("benchlib-explore-status")
        self.result = W.Output()
        self.result.add_class("benchlib-explore-result")
        self.papers = W.Output()
        self.papers.add_class("benchlib-explore-papers")
        self.run_a = W.Dropdown(description="A", layout=W.Layout(width="30em"))
        self.run_b = W.Dropdown(description="B", layout=W.Layout(width="30em"))
        self.run_a.add_class("benchlib-explore-run-a")
        self.run_b.add_class("benchlib-explore-run-b")
        self.compare_button = W.Button(description="Compare B with A", icon="balance-scale")
        self.compare_button.add_class("benchlib-explore-compare")
        self.runs = W.Output()
        self.runs.add_class("benchlib-explore-runs")
        self.comparison = W.Output()
        self.comparison.add_class("benchlib-explore-comparison")
        self.widget = W.VBox([
            W.HBox([self.benchmark, self.profile]), self.about, self.params, self.mode,
            self.sweep_box, W.HBox([self.run_button, self.progress, self.status]),
            W.HTML("<b>Result</b>"), self.result, W.HTML("<b>Beside the papers</b>"), self.papers,
            W.HTML("<b>Runs so far</b>"), self.runs,
            W.HBox([self.run_a, self.run_b, self.compare_button]), self.comparison])
        self.widget.add_class("benchlib-explorer")
        self.benchmark.observe(lambda _: self._build_form(), names="value")
        self.mode.observe(self._mode_changed, names="value")
        self.sweep_param.observe(self._sweep_param_changed, names="value")
        self.run_button.on_click(lambda _: self._pressed_run())
        self.compare_button.on_click(lambda _: self._pressed_compare())
        self.session.listeners.append(lambda _: self._list_runs())
        self._build_form()
        self._list_runs()

    def _ipython_display_(self):
        display(self.widget)

    # ----------------------------------------------------------------- the form
    def _build_form(self) -> None:
        bench = get_benchmark(self.benchmark.value)
        self.fields = {}
        rows = []
        for f in form(bench):
            w = field_widget(f)
            self.fields[f.name] = (f, w)
            rows.append(W.HBox([w, W.HTML(f'<span style="color:#555;font-size:90%">'
                                          f"{html.escape(f.help)}</span>")]))
        self.params.children = rows
        self.about.value = (f"<i>{html.escape(bench.description)}</i> Unit: {bench.unit} "
                            f"({'higher' if bench.higher_is_better else 'lower'} is better).")
        names = [n for n, (f, _) in self.fields.items() if sweepable(f)]
        self.sweep_param.options = names
        self.sweep_param.value = names[0] if names else None
        self._sweep_param_changed()

    def _mode_changed(self, _=None) -> None:
        self.sweep_box.layout.display = "" if self.mode.value == "sweep" else "none"

    def _sweep_param_changed(self, _=None) -> None:
        name = self.sweep_param.value
        if name in self.fields:
            self.sweep_values.value = ",".join(str(v) for v in sweep_default(self.fields[name][0]))

    def values(self) -> dict:
        """The parameters as the form has them."""
        return {n: w.value for n, (_, w) in self.fields.items()}

    def set_values(self, params: dict) -> None:
        """Put ``params`` in the form where a widget can show them."""
        for k, v in params.items():
            if k in self.fields:
                _, w = self.fields[k]
                try:
                    w.value = get_benchmark(self.benchmark.value).param(k).parse(v)
                except Exception:    # a value the widget cannot show: it is still run
                    pass

    # ------------------------------------------------------------- the actions
    def _busy(self, total: int) -> float:
        self.run_button.disabled = True
        self.progress.max, self.progress.value, self.progress.bar_style = total, 0, "info"
        self.status.value = "measuring..."
        return time.monotonic()

    def _done(self, t0: float, error: str | None = None) -> None:
        self.run_button.disabled = False
        if error is None:
            self.progress.value, self.progress.bar_style = self.progress.max, "success"
            self.status.value = f"done in {time.monotonic() - t0:.1f} s"
        else:
            self.progress.bar_style = "danger"
            self.status.value = f'<span style="color:#b00">{html.escape(error)}</span>'

    def _prepare(self, benchmark: str, params: dict | None, profile: str | None) -> dict:
        """The form set as a call asks (what a widget can show of it)."""
        if benchmark != self.benchmark.value:
            self.benchmark.value = get_benchmark(benchmark).name
        self.set_values(params or {})
        if profile:
            self.profile.value = profile
        return dict(params or {})

    def _show(self, result, papers) -> None:
        """Fill the result and the papers' areas (each a function that displays)."""
        for area, fill in ((self.result, result), (self.papers, papers)):
            area.clear_output()
            with area:
                fill()

    def run(self, benchmark: str, params: dict | None = None, profile: str | None = None):
        """Run ``benchmark`` with ``params`` as the Run button does; returns the Run."""
        return self._measure(benchmark, self._prepare(benchmark, params, profile))

    def _measure(self, benchmark: str, params: dict):
        t0 = self._busy(1)
        try:
            run = self.session.run(benchmark, params, self.profile.value)
        except BenchlibError as e:
            self._done(t0, str(e))
            return None
        self._show(lambda: show_run(self.session, run, self.save_to, papers=False),
                   lambda: show_papers(run))
        self._done(t0)
        return run

    def sweep(self, benchmark: str, param: str, values, params: dict | None = None,
              profile: str | None = None):
        """A sweep as the Run button does in sweep mode; returns its frame."""
        return self._sweep(benchmark, param, values, self._prepare(benchmark, params, profile))

    def _sweep(self, benchmark: str, param: str, values, params: dict):
        try:
            values = parse_values(benchmark, param, values)
        except BenchlibError as e:
            self._done(self._busy(1), str(e))
            return None
        t0 = self._busy(len(values))

        def point(_):
            self.progress.value += 1

        try:
            frame = self.session.sweep(benchmark, param, values, params, self.profile.value,
                                       on_point=point)
        except BenchlibError as e:
            self._done(t0, str(e))
            return None
        self._show(lambda: show_sweep(frame, param, self.save_to,
                                      self.session.runs[-1].result.machine),
                   lambda: display(HTML("<i>Each point of the sweep is a run below; the "
                                        "papers' rows of a point are shown when it is run "
                                        "alone.</i>")))
        self._done(t0)
        return frame

    def _pressed_run(self) -> None:
        try:
            if self.mode.value == "sweep":
                self._sweep(self.benchmark.value, self.sweep_param.value, self.sweep_values.value,
                            self.values())
            else:
                self._measure(self.benchmark.value, self.values())
        except Exception as e:       # shown where the user looks, not only in the log
            self._done(time.monotonic(), f"{type(e).__name__}: {e}")
            with self.result:
                print(traceback.format_exc())

    # ------------------------------------------------------------ runs, compare
    def _list_runs(self) -> None:
        options = [(r.label, r.number) for r in self.session.runs]
        self.run_a.options = options
        self.run_b.options = options
        if len(options) >= 2:
            self.run_a.value, self.run_b.value = options[-2][1], options[-1][1]
        self.runs.clear_output()
        if self.session.runs:
            with self.runs:
                t = self.session.table()
                display(t[["run", "median", "ci95_lo", "ci95_hi", "unit", "stable", "profile"]])

    def compare(self, a: int, b: int, margin: float = 0.05):
        """Run ``b`` against run ``a``, as the Compare button does."""
        self.comparison.clear_output()
        try:
            df = self.session.compare(a, b, margin)
        except BenchlibError as e:
            with self.comparison:
                display(HTML(f'<span style="color:#b00">{html.escape(str(e))}</span>'))
            return None
        with self.comparison:
            show_compare(df)
        return df

    def _pressed_compare(self) -> None:
        if self.run_a.value is None or self.run_b.value is None:
            self.comparison.clear_output()
            with self.comparison:
                display(HTML("<i>Take two runs first.</i>"))
            return
        self.compare(self.run_a.value, self.run_b.value)


class MemoryExplorer:
    """Pick a cache level of a ``MemoryResult`` and see the fitted model
    against the points, the other shapes and why the fit chose its own
    (``explore.show.show_level``)."""

    def __init__(self, m, save_to=None):
        from benchlib.explore.memory import level_names

        self.m = m
        self.save_to = save_to
        names = level_names(m)
        self.level = W.ToggleButtons(options=names, value=names[0] if names else None,
                                     description="level")
        self.level.add_class("benchlib-memory-level")
        self.out = W.Output()
        self.out.add_class("benchlib-memory-view")
        self.widget = W.VBox([self.level, self.out])
        self.level.observe(lambda _: self.show(self.level.value), names="value")
        if names:
            self.show(names[0])

    def show(self, level: str) -> None:
        """Show ``level`` as picking it does."""
        if self.level.value != level:
            self.level.value = level          # the observer shows it
            return
        self.out.clear_output(wait=True)
        with self.out:
            show_level(self.m, level, self.save_to)

    def _ipython_display_(self):
        display(self.widget)
