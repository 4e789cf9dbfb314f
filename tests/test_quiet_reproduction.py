"""reproduce.sh prints no warning that is not benchlib's own: papermill can
read every parameters cell, the kernel is reached over Unix sockets (no
"TCP without encryption"), and progress bars need no ipywidgets."""
import logging

import nbformat
import pytest

from benchlib.notebooks import _kernel_config, notebooks

NOTEBOOKS = notebooks()


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[n.stem for n in NOTEBOOKS])
def test_papermill_parses_the_parameters_cell_silently(nb, caplog):
    from papermill.translators import PythonTranslator

    book = nbformat.read(nb, as_version=4)
    cell = next(c for c in book.cells if "parameters" in c.metadata.get("tags", []))
    with caplog.at_level(logging.WARNING, logger="papermill"):
        params = PythonTranslator.inspect(cell)
    assert not caplog.records, [r.getMessage() for r in caplog.records]
    names = {p.name for p in params}
    assert {"profile", "output_dir"} <= names


def test_a_comment_with_an_equals_sign_is_what_papermill_warns_about(caplog):
    from papermill.translators import PythonTranslator

    cell = nbformat.v4.new_code_cell('profile = "quick"\nx = None  # (a = 1)')
    with caplog.at_level(logging.WARNING, logger="papermill"):
        PythonTranslator.inspect(cell)
    assert any("Unable to parse line 2" in r.getMessage() for r in caplog.records)


def test_kernels_use_ipc_transport():
    assert _kernel_config().KernelManager.transport == "ipc"


def test_progress_bar_is_plain_text_without_ipywidgets(monkeypatch):
    import importlib
    import importlib.util
    import sys

    import tqdm.std

    import benchlib.progress as progress

    real = importlib.util.find_spec
    monkeypatch.setitem(sys.modules, "ipykernel", sys.modules.get("ipykernel") or object())
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ipywidgets" else real(name, *a))
    try:
        assert importlib.reload(progress).tqdm is tqdm.std.tqdm
    finally:
        monkeypatch.undo()
        importlib.reload(progress)
