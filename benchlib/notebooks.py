"""Running the notebooks through papermill: used by reproduce.sh and by the
test suite, so both run them the same way.

    python -m benchlib.notebooks [--profile quick|full|smoke] [--out DIR] [NOTEBOOK ...]
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import json
import re
import shutil
import socket
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = REPO / "notebooks"
KERNEL = "benchlib"


def notebooks(directory: Path = NOTEBOOK_DIR) -> list[Path]:
    return sorted(p for p in directory.glob("*.ipynb") if not p.name.startswith("."))


def kernel_name() -> str:
    """The project's kernel if it is registered in this environment, else
    the interpreter's own python3 kernel."""
    from jupyter_client.kernelspec import KernelSpecManager

    return KERNEL if KERNEL in KernelSpecManager().find_kernel_specs() else "python3"


def declared_parameters(nb: Path) -> set[str]:
    """The names a notebook's cell tagged ``parameters`` assigns."""
    for cell in json.loads(Path(nb).read_text())["cells"]:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            return set(re.findall(r"^(\w+)\s*=", "".join(cell["source"]), flags=re.M))
    return set()


def run_notebook(nb: Path, out_dir: Path, profile: str, *, cell_timeout: float | None = None,
                 timeout_retries: int = 0, **parameters) -> Path:
    """Execute one notebook; the executed copy and its figures/CSVs go to
    out_dir.  A notebook that reads a results store (it declares
    ``results_dir``) is given out_dir, the run's own results, unless
    ``parameters`` say otherwise.  ``cell_timeout`` (seconds) fails a cell
    that runs longer instead of waiting for ever (the tests set it; a full
    reproduction has cells of many minutes).  ``timeout_retries``: a run
    whose cell timed out is run again from the start in a new kernel, this
    many times, with a warning (see :data:`LOST_REPLY`).  Raises papermill's
    PapermillExecutionError on failure (the executed copy, with the failing
    cell, is still written), nbclient's CellTimeoutError on a timeout the
    retries did not cure."""
    import warnings

    from nbclient.exceptions import CellTimeoutError

    for attempt in range(timeout_retries + 1):
        try:
            return _execute(nb, out_dir, profile, cell_timeout, parameters)
        except CellTimeoutError as exc:
            if attempt == timeout_retries:
                raise
            warnings.warn(f"{nb.name}: a cell timed out after {cell_timeout} s; running the "
                          f"notebook again in a new kernel ({LOST_REPLY}): "
                          f"{str(exc).splitlines()[0]}", RuntimeWarning, stacklevel=2)
    raise AssertionError("unreachable")


#: Why a timed-out run is worth one more: about once in seven runs of a
#: notebook on the Zen 4 guest (2026-11-28) papermill 2.7 / jupyter_client
#: 8.10 waited for ever for the reply to an execute request while the kernel
#: (ipykernel 7.4) sat idle, every thread in epoll (gdb py-bt of both): the
#: lost-reply fault of nteract/papermill#711 and #726 and
#: jupyter/jupyter_client#922, not the notebook's.
LOST_REPLY = "a kernel's reply can be lost between papermill and jupyter_client"


def _execute(nb: Path, out_dir: Path, profile: str, cell_timeout: float | None,
             parameters: dict) -> Path:
    import papermill as pm

    parameters = dict(parameters)
    if "results_dir" in declared_parameters(nb):
        parameters.setdefault("results_dir", str(out_dir))
    out_dir.mkdir(parents=True, exist_ok=True)
    executed = out_dir / nb.name
    with _kernel_config() as config:
        pm.execute_notebook(
            str(nb), str(executed), kernel_name=kernel_name(), cwd=str(nb.parent),
            parameters={"profile": profile, "output_dir": str(out_dir / nb.stem), **parameters},
            progress_bar=False, config=config, execution_timeout=cell_timeout,
        )
    return executed


@contextlib.contextmanager
def _kernel_config():
    """Talk to the kernel over Unix sockets in a directory of its own,
    removed afterwards.  Unix sockets because the kernel warns about every
    unencrypted TCP connection and a local run has no need of TCP; a
    directory of its own because jupyter_client's default socket name is
    ``kernel-ipc-1``, ``-2``, ... relative to the working directory, so two
    kernels started at once in one directory (two test workers running
    notebooks from notebooks/) bind the same sockets and take each other's
    messages: a kernel that never answers, or a cell that never ends."""
    from traitlets.config import Config

    where = tempfile.mkdtemp(prefix="benchlib-kernel-")
    try:
        yield Config({"KernelManager": {"transport": "ipc", "ip": str(Path(where) / "kernel")}})
    finally:
        shutil.rmtree(where, ignore_errors=True)


def _write_run_file(out: Path, record: dict) -> None:
    from benchlib.report.html import RUN_FILE

    out.mkdir(parents=True, exist_ok=True)
    (out / RUN_FILE).write_text(json.dumps(record, indent=1, default=str))


def default_out_dir() -> Path:
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return REPO / "results" / f"{socket.gethostname()}-{stamp}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run benchlib's notebooks through papermill.")
    ap.add_argument("--profile", default="quick", choices=("smoke", "quick", "full"))
    ap.add_argument("--out", type=Path, default=None, help="default: results/<host>-<timestamp>")
    ap.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook in notebooks/")
    args = ap.parse_args(argv)
    out = args.out or default_out_dir()
    todo = args.notebooks or notebooks()
    if not todo:
        print("no notebooks found", file=sys.stderr)
        return 1
    print(f"running {len(todo)} notebook(s), profile {args.profile}, results in {out}", flush=True)
    from benchlib.measuring.metadata import machine_info

    run = {"profile": args.profile, "started": _dt.datetime.now().isoformat(timespec="seconds"),
           "machine": machine_info(), "notebooks": []}
    _write_run_file(out, run)
    status = []
    for nb in todo:
        t0 = time.monotonic()
        print(f"  {nb.name} ...", end="", flush=True)
        try:
            run_notebook(nb, out, args.profile)
            ok, note = True, ""
        except KeyboardInterrupt:
            print(" interrupted")
            return 130
        except Exception as exc:  # keep going: one failing notebook must not hide the rest
            ok, note = False, str(exc).strip().splitlines()[-1] if str(exc).strip() else repr(exc)
            (out / f"{nb.stem}.error.txt").write_text(traceback.format_exc())
        dt = time.monotonic() - t0
        print(f" {'ok' if ok else 'FAILED'} ({dt:.0f} s) {note}", flush=True)
        status.append((nb.name, ok, dt, note))
        run["notebooks"].append({"name": nb.name, "ok": ok, "seconds": dt, "note": note})
        _write_run_file(out, run)
    failed = [s for s in status if not s[1]]
    print(f"\n{len(status) - len(failed)} of {len(status)} notebooks ran; results in {out}")
    for name, _, _, note in failed:
        print(f"  FAILED {name}: {note}")
    from benchlib.report.html import write_report

    try:
        print(f"report: {write_report(out)}")
    except Exception as exc:  # the notebooks' results stand; say why there is no page
        print(f"report FAILED: {type(exc).__name__}: {exc}")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
