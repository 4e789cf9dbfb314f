"""The progress bar benchlib's long loops use.

``tqdm.auto`` picks a widget bar inside Jupyter, but without ipywidgets it
warns "IProgress not found" into every notebook that runs a sweep (and
papermill runs have no one to watch a widget anyway).  This picks the
widget bar only when ipywidgets is installed, and the plain text bar
otherwise, with no warning."""
from __future__ import annotations

import importlib.util
import sys


def _widgets_usable() -> bool:
    return ("ipykernel" in sys.modules
            and importlib.util.find_spec("ipywidgets") is not None)


if _widgets_usable():
    from tqdm.auto import tqdm  # noqa: F401
else:
    from tqdm.std import tqdm  # noqa: F401

__all__ = ["tqdm"]
