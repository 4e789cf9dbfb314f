"""Every notebook runs top to bottom under papermill (smoke profile by
default; BENCHLIB_NOTEBOOK_PROFILE=quick for the quick one), is committed
without outputs, and has the parameters cell the conventions ask for."""
import os

import nbformat
import pytest

from benchlib.notebooks import notebooks, run_notebook

NOTEBOOKS = notebooks()
PROFILE = os.environ.get("BENCHLIB_NOTEBOOK_PROFILE", "smoke")


def test_there_are_notebooks():
    assert any(nb.name == "00_quickstart.ipynb" for nb in NOTEBOOKS)


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[n.stem for n in NOTEBOOKS])
def test_committed_clean_with_parameters(nb):
    book = nbformat.read(nb, as_version=4)
    params = [c for c in book.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, "exactly one cell tagged 'parameters'"
    assert 'profile = "quick"' in params[0].source and "output_dir" in params[0].source
    for c in book.cells:
        if c.cell_type == "code":
            assert not c.outputs and c.execution_count is None, "commit notebooks without outputs"


@pytest.mark.notebook
@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[n.stem for n in NOTEBOOKS])
def test_runs_under_papermill(nb, tmp_path):
    executed = run_notebook(nb, tmp_path, PROFILE)
    book = nbformat.read(executed, as_version=4)
    errors = [o for c in book.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors
    figures = list((tmp_path / nb.stem).glob("*.png"))
    assert figures, "every notebook writes at least one figure to output_dir"
