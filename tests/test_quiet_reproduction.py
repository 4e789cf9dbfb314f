"""reproduce.sh prints no warning that is not benchlib's own: papermill can
read every parameters cell, the kernel is reached over Unix sockets (no
"TCP without encryption"), and progress bars need no ipywidgets."""
import logging
from pathlib import Path

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


def test_kernels_use_ipc_transport_in_a_directory_of_their_own():
    with _kernel_config() as one, _kernel_config() as two:
        a, b = one.KernelManager, two.KernelManager
        assert a.transport == b.transport == "ipc"
        assert Path(a.ip).is_absolute() and Path(a.ip).parent.is_dir()
        assert Path(a.ip).parent != Path(b.ip).parent
        where = Path(a.ip).parent
    assert not where.exists(), "the socket directory is removed afterwards"


def test_two_kernels_started_at_once_in_one_directory_do_not_share_sockets(tmp_path):
    """The failure this guards against: with jupyter_client's default
    (sockets named kernel-ipc-N in the working directory) both kernels
    pick the same names."""
    from jupyter_client.manager import KernelManager

    from benchlib.notebooks import kernel_name

    with _kernel_config() as one, _kernel_config() as two:
        kms = [KernelManager(kernel_name=kernel_name(), config=c) for c in (one, two)]
        try:
            for km in kms:
                km.start_kernel(cwd=str(tmp_path))
            sockets = [{f"{km.ip}-{port}" for port in (km.shell_port, km.iopub_port,
                                                       km.stdin_port, km.hb_port,
                                                       km.control_port)} for km in kms]
            assert not sockets[0] & sockets[1]
            for km in kms:
                kc = km.client()
                kc.start_channels()
                try:
                    kc.wait_for_ready(timeout=60)
                finally:
                    kc.stop_channels()
        finally:
            for km in kms:
                km.shutdown_kernel(now=True)
    assert not list(tmp_path.iterdir()), "no socket left in the working directory"


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
