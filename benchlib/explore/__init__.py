"""Interactive exploration: every registered benchmark as a form in
JupyterLab (``notebooks/explore.ipynb``), its result beside the papers'
rows as it arrives, and the memory curve questioned level by level
(``notebooks/memory_hierarchy.ipynb``).

- ``fields``: the fields of a benchmark's form, from the registry's
  declaration of its parameters (no widget toolkit: tested alone);
- ``session``: measure, summarise, put beside the papers
  (``papers.cells_matching``, ``papers.beside_paper``), sweep, compare
  (``results.compare.compare_pair``), with no widgets: ``Session``;
- ``memory``: one fitted cache level questioned, and the line size's two
  readings, from a ``memory.hierarchy.MemoryResult`` (the fit unchanged);
- ``charts``: the explorer's figures; ``show``: what is displayed;
- ``widgets``: the ipywidgets front (``Explorer``, ``MemoryExplorer``),
  imported only when used, so that everything else runs in a plain
  ``python`` or under papermill without ipywidgets.

At the top layer with the CLI and the notebook runner (``.importlinter``):
may import every layer below (papers, report figures, memory, results,
measuring, stats); nothing below imports it."""
from __future__ import annotations

from benchlib.explore.fields import Field, coverage, form, parse_values  # noqa: F401
from benchlib.explore.session import PaperRows, Run, Session, compare_results, paper_rows, summary  # noqa: F401

_WIDGETS = ("Explorer", "MemoryExplorer")


def __getattr__(name: str):
    if name in _WIDGETS:
        from benchlib.explore import widgets
        return getattr(widgets, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Field", "form", "coverage", "parse_values", "Session", "Run", "PaperRows",
           "paper_rows", "summary", "compare_results", *_WIDGETS]
