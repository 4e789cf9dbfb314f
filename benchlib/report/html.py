"""An HTML page for one reproduction: ``results/<run>/index.html``.

``reproduce.sh`` (through ``benchlib.notebooks``) writes it at the end of
every run; it can be rewritten at any time with

    python -m benchlib.report RUN_DIR

The page shows the machine, then one section per executed notebook: the
verdicts it recorded (``benchlib.papers.verdict``), a link to the notebook rendered
as HTML by nbconvert, its figures inline and links to its CSVs; last, this
run against the previous run of the same machine (same host name under the
same results folder) through ``benchlib.results.compare`` when that module is
installed.  Every link is relative, so the folder can be moved or served.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import re
import sys
from pathlib import Path
from urllib.parse import quote

from benchlib.papers.verdict import VERDICT_FILE, read_verdicts
from benchlib.units import format_size

RUN_FILE = "run.json"          # written by benchlib.notebooks: profile, machine, per-notebook status
INDEX = "index.html"
TEMPLATES = Path(__file__).with_name("templates")
_RUN_NAME = re.compile(r"^(?P<host>.+)-(?P<stamp>\d{8}-\d{6})$")
_MATH = re.compile(r"(?<!\\)\$|\\\(|\\\[|\\begin\{")  # $, \(, \[, \begin{ (not \$)
_MARKS = {True: ("holds", "holds"), False: ("does not hold", "fails"), None: ("cannot tell", "unknown")}


def _rel(path: Path, run_dir: Path) -> str:
    """A relative link from index.html to ``path``, URL-quoted."""
    return quote(path.relative_to(run_dir).as_posix())


def notebook_title(executed: Path) -> str:
    """The first Markdown heading of a notebook, else its file name."""
    try:
        cells = json.loads(executed.read_text()).get("cells", [])
    except (OSError, ValueError):
        return executed.stem
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        src = "".join(cell.get("source", ""))
        for line in src.splitlines():
            if line.startswith("#"):
                return line.lstrip("#").strip() or executed.stem
    return executed.stem


def notebook_to_html(executed: Path) -> Path:
    """Render an executed notebook next to it as <stem>.html (nbconvert)."""
    import nbformat
    from nbconvert import HTMLExporter

    book = nbformat.read(executed, as_version=4)
    has_math = any(c.cell_type == "markdown" and _MATH.search(c.source) for c in book.cells)
    exporter = HTMLExporter(extra_template_paths=[str(TEMPLATES)],
                            template_file="notebook.html.j2")
    body, _ = exporter.from_notebook_node(book, resources={"benchlib_has_math": has_math})
    out = executed.with_suffix(".html")
    out.write_text(body, encoding="utf-8")
    return out


def _csv_rows(path: Path) -> int:
    with path.open("rb") as f:
        return max(sum(1 for _ in f) - 1, 0)


def notebook_section(run_dir: Path, stem: str, status: dict | None = None,
                     render: bool = True) -> dict:
    """Everything the page shows about one notebook of the run."""
    executed = run_dir / f"{stem}.ipynb"
    out = run_dir / stem
    error_file = run_dir / f"{stem}.error.txt"
    status = status or {}
    html_path, render_error = None, None
    if executed.exists():
        html_path = executed.with_suffix(".html")
        if render or not html_path.exists():
            try:
                html_path = notebook_to_html(executed)
            except Exception as exc:  # the page still shows everything else
                html_path = None
                render_error = f"nbconvert could not render it: {type(exc).__name__}: {exc}"
    error = status.get("note") if status.get("ok") is False else None
    if error is None and error_file.exists():
        lines = error_file.read_text().strip().splitlines()
        error = lines[-1] if lines else "failed"
    verdicts = []
    for v in read_verdicts(out) if out.is_dir() else []:
        mark, css = _MARKS[v.get("holds")]
        verdicts.append({**v, "mark": mark, "css": css})
    files = sorted(p for p in out.rglob("*") if p.is_file()) if out.is_dir() else []
    holds = [v["holds"] for v in verdicts]
    return {
        "stem": stem,
        "notebook": f"{stem}.ipynb",
        "title": notebook_title(executed) if executed.exists() else stem,
        "html": _rel(html_path, run_dir) if html_path else None,
        "render_error": render_error,
        "seconds": status.get("seconds"),
        "error": error,
        "error_file": _rel(error_file, run_dir) if error_file.exists() else None,
        "verdicts": verdicts, "n_hold": holds.count(True), "n_fail": holds.count(False),
        "n_unknown": holds.count(None),
        "figures": [{"href": _rel(p, run_dir), "name": p.relative_to(out).as_posix()}
                    for p in files if p.suffix.lower() == ".png"],
        "csvs": [{"href": _rel(p, run_dir), "name": p.relative_to(out).as_posix(),
                  "rows": _csv_rows(p)} for p in files if p.suffix.lower() == ".csv"],
        "other_data": [{"href": _rel(p, run_dir), "name": p.relative_to(out).as_posix()}
                       for p in files if p.suffix.lower() in (".json", ".jsonl", ".svg")
                       and p.name != VERDICT_FILE],
    }


def previous_run(run_dir: Path) -> Path | None:
    """The latest earlier run of the same host beside ``run_dir`` (run
    folders are named <host>-<YYYYmmdd-HHMMSS>, as benchlib.notebooks names
    them), or None."""
    m = _RUN_NAME.match(run_dir.name)
    if not m or not run_dir.parent.is_dir():
        return None
    earlier = []
    for d in run_dir.parent.iterdir():
        o = _RUN_NAME.match(d.name)
        if (d.is_dir() and o and o["host"] == m["host"] and o["stamp"] < m["stamp"]
                and any(d.glob("*.ipynb"))):
            earlier.append((o["stamp"], d))
    return max(earlier)[1] if earlier else None


def comparison(run_dir: Path, previous: Path | None, margin: float = 0.05) -> dict:
    """This run against ``previous`` via benchlib.results.compare, or why not."""
    m = _RUN_NAME.match(run_dir.name)
    info = {"host": m["host"] if m else run_dir.name, "parent": str(run_dir.parent),
            "previous": previous.name if previous else None,
            "previous_href": f"../{previous.name}/{INDEX}" if previous else None,
            "available": False, "margin_pct": f"{100 * margin:g}"}
    if previous is None:
        return info
    if not (previous / INDEX).exists():
        info["previous_href"] = f"../{previous.name}/"
    try:
        from benchlib.results.compare import compare
    except ImportError:
        info["reason"] = "this version of benchlib has no benchlib.results.compare module."
        return info
    try:
        df = compare(previous, run_dir, margin=margin)
    except Exception as exc:  # the page must still be written; say what went wrong
        info["reason"] = f"benchlib.results.compare failed: {type(exc).__name__}: {exc}"
        return info
    if df is None or len(df) == 0:
        info["reason"] = "no result in common between the two runs."
        return info
    if "verdict" in df.columns:
        info["counts"] = [(str(k), int(v)) for k, v in df["verdict"].value_counts().items()]
    else:
        info["counts"] = [("results", len(df))]
    info["table"] = df.to_html(index=False, float_format=lambda x: f"{x:.4g}", border=0,
                               na_rep="", escape=True)
    info["available"] = True
    return info


def machine_summary(machine: dict) -> str:
    """One sentence: the CPU, its CPUs and caches, memory, kernel, VM or not."""
    caches = [c for c in machine.get("caches") or [] if c.get("type") != "Instruction"]
    cache_text = ", ".join(f"L{c.get('level')} {_size(c.get('size_bytes'))}" for c in caches)
    mem = machine.get("memory_total_bytes")
    parts = [str(machine.get("cpu_model") or "unknown CPU"),
             f"{machine.get('cpus_online', '?')} CPUs online ({machine.get('cpus_allowed', '?')} allowed)",
             cache_text and f"caches {cache_text}",
             mem and f"{mem / 2**30:.1f} GiB of memory",
             f"{machine.get('os', '')} {machine.get('kernel', '')}".strip(),
             machine.get("virtualized") and f"virtualized ({machine.get('hypervisor_hint') or 'hypervisor unknown'})",
             machine.get("hostname") and f"host {machine['hostname']}"]
    return "; ".join(p for p in parts if p) + "."


def _size(n) -> str:
    return format_size(int(n), iec=True) if n else "?"


def _machine_rows(machine: dict) -> list[tuple[str, str]]:
    rows = []
    for key, value in machine.items():
        if key == "caches" and isinstance(value, list):
            value = "; ".join(f"L{c.get('level')} {c.get('type', '')} {c.get('size_bytes', 0) // 1024} KiB"
                              f" (line {c.get('line_bytes')} B, CPUs {c.get('shared_cpu_list')})"
                              for c in value)
        elif isinstance(value, dict):
            value = "; ".join(f"{k}: {v}" for k, v in value.items())
        elif isinstance(value, list):
            value = ", ".join(f"{v:.2f}" if isinstance(v, float) else str(v) for v in value)
        rows.append((key, str(value)))
    return rows


def write_report(run_dir: str | Path, previous: Path | None | str = "auto",
                 render_notebooks: bool = True) -> Path:
    """Write ``run_dir/index.html`` and return its path."""
    import jinja2

    from benchlib._version import __version__

    run_dir = Path(run_dir).resolve()
    if not run_dir.is_dir():
        raise FileNotFoundError(f"no such run folder: {run_dir}")
    run = {}
    if (run_dir / RUN_FILE).exists():
        run = json.loads((run_dir / RUN_FILE).read_text())
    status = {s["name"]: s for s in run.get("notebooks", [])}
    stems = sorted({p.stem for p in run_dir.glob("*.ipynb")}
                   | {p.name[:-len(".error.txt")] for p in run_dir.glob("*.error.txt")}
                   | {Path(n).stem for n in status})
    sections = [notebook_section(run_dir, s, status.get(f"{s}.ipynb"), render_notebooks)
                for s in stems]
    machine, machine_note = run.get("machine"), None
    if not machine:
        from benchlib.measuring.metadata import machine_info
        machine = machine_info()
        machine_note = ("This run recorded no machine description; this one was read when the "
                        "report was written.")
    if previous == "auto":
        previous = previous_run(run_dir)
    elif previous is not None:
        previous = Path(previous).resolve()
    verdicts = [v for s in sections for v in s["verdicts"]]
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined)
    page = env.get_template("report.html.j2").render(
        run={"name": run_dir.name, "profile": run.get("profile", "unknown"),
             "started": run.get("started")},
        sections=sections, machine=_machine_rows(machine), machine_note=machine_note,
        machine_summary=machine_summary(machine),
        n_failed=sum(1 for s in sections if s["error"]),
        n_verdicts=len(verdicts), n_hold=sum(v["holds"] is True for v in verdicts),
        n_fail=sum(v["holds"] is False for v in verdicts),
        n_unknown=sum(v["holds"] is None for v in verdicts),
        comparison=comparison(run_dir, previous), verdict_file=VERDICT_FILE,
        version=__version__, written=_dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S"))
    index = run_dir / INDEX
    tmp = index.with_suffix(".html.tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(index)
    return index


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchlib.report",
                                 description="Write RUN_DIR/index.html for a reproduction.")
    ap.add_argument("run_dir", type=Path, help="a folder written by reproduce.sh (results/<host>-<time>)")
    ap.add_argument("--previous", type=Path, default=None,
                    help="the run to compare with (default: the latest earlier run of the same host)")
    args = ap.parse_args(argv)
    if not args.run_dir.is_dir():
        print(f"benchlib.report.html: no such run folder: {args.run_dir}", file=sys.stderr)
        return 2
    if not any(args.run_dir.glob("*.ipynb")) and not any(args.run_dir.glob("*.error.txt")):
        print(f"benchlib.report.html: {args.run_dir} holds no executed notebook", file=sys.stderr)
        return 2
    if args.previous is not None and not args.previous.is_dir():
        print(f"benchlib.report.html: no such run folder: {args.previous}", file=sys.stderr)
        return 2
    path = write_report(args.run_dir, previous=args.previous or "auto")
    print(f"written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
