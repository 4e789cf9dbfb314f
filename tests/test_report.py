"""The HTML report of a reproduction (benchlib.report.html): built from a
synthetic run folder with known contents, checked as text and opened in
headless Chromium (every link resolves, every image loads, no console error)."""
import json
import os
import shutil
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pytest

from benchlib.report import html as report
from benchlib.papers.verdict import verdict

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
MACHINE = {"hostname": "box", "cpu_model": "Test CPU", "cpus_online": 2,
           "caches": [{"level": 1, "type": "Data", "size_bytes": 49152, "line_bytes": 64,
                       "shared_cpu_list": "0"}],
           "cpu_mitigations": {"spectre_v1": "Mitigation"}, "loadavg": [0.5, 0.25, 0.125]}


def _executed_notebook(path: Path, title: str) -> None:
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("x = 1\nx")
    code.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "1"}, execution_count=1)]
    code.execution_count = 1
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {title}\n\nSome words."), code]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def _png(path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([1, 2, 3], [3, 1, 2])
    ax.set_xlabel("size (bytes)")
    fig.savefig(path, dpi=50)
    plt.close(fig)


def make_run(parent: Path, name: str) -> Path:
    """A run folder as benchlib.notebooks writes it: paper_a with two
    verdicts, a figure in a subfolder and a CSV; paper_b with no verdict;
    paper_c failed."""
    run = parent / name
    run.mkdir(parents=True)
    _executed_notebook(run / "paper_a.ipynb", "Paper A (1990)")
    (run / "paper_a" / "figs").mkdir(parents=True)
    _png(run / "paper_a" / "figs" / "latency vs size.png")
    _png(run / "paper_a" / "bandwidth.png")
    (run / "paper_a" / "table.csv").write_text("size_bytes,us\n1,2.5\n2,3.5\n4,4.5\n")
    (run / "paper_a" / "results.json").write_text("{}")
    verdict(run / "paper_a", "paper_a", "caches matter", holds=True, evidence="3.5 us vs 2.5 us",
            if_true="They matter here.")
    verdict(run / "paper_a", "paper_a", "disks keep up", holds=False, evidence="ratio 0.2",
            if_false="They do not keep up here.")
    _executed_notebook(run / "paper_b.ipynb", "Paper B <1994>")
    (run / "paper_b").mkdir()
    _png(run / "paper_b" / "only.png")
    _executed_notebook(run / "paper_c.ipynb", "Paper C")
    (run / "paper_c.error.txt").write_text("Traceback ...\nRuntimeError: deliberate\n")
    (run / report.RUN_FILE).write_text(json.dumps({
        "profile": "smoke", "started": "2026-01-02T03:04:05", "machine": MACHINE,
        "notebooks": [{"name": "paper_a.ipynb", "ok": True, "seconds": 3.0, "note": ""},
                      {"name": "paper_b.ipynb", "ok": True, "seconds": 1.0, "note": ""},
                      {"name": "paper_c.ipynb", "ok": False, "seconds": 2.0,
                       "note": "RuntimeError: deliberate"}]}))
    return run


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    older = make_run(results, "box-20260101-000000")
    prev = make_run(results, "box-20260102-000000")
    make_run(results, "otherbox-20260103-000000")
    this = make_run(results, "box-20260104-000000")
    make_run(results, "box-20260105-000000")  # later: never "previous"
    return {"older": older, "prev": prev, "this": this}


def test_previous_run_is_the_latest_earlier_one_of_the_same_host(runs):
    assert report.previous_run(runs["this"]) == runs["prev"]
    assert report.previous_run(runs["older"]) is None
    assert report.previous_run(runs["this"].parent / "not-a-run") is None


def test_page_lists_verdicts_figures_csvs_and_failures(runs, monkeypatch):
    monkeypatch.setitem(sys.modules, "benchlib.results.compare", None)  # as before the compare module
    page = report.write_report(runs["this"]).read_text()
    assert "Paper A (1990)" in page and "Paper B &lt;1994&gt;" in page  # titles, escaped
    assert "2 verdict(s): 1 hold, 1 do not hold, 0 cannot tell" in page
    assert "They matter here." in page and "They do not keep up here." in page
    assert page.count("recorded no verdict") == 2  # paper_b and paper_c
    assert 'src="paper_a/figs/latency%20vs%20size.png"' in page
    assert 'href="paper_a/table.csv"' in page and "(3 rows)" in page
    assert 'href="paper_a/results.json"' in page and 'href="paper_a/verdicts.json"' not in page
    assert "This notebook failed" in page and "RuntimeError: deliberate" in page
    assert "Test CPU; 2 CPUs online (? allowed); caches L1 48 KiB; host box." in page
    assert "L1 Data 48 KiB (line 64 B, CPUs 0)" in page  # the full table
    assert "<td>1 / 1 / 0</td>" in page  # paper_a in the summary table
    assert "box-20260102-000000" in page and "Comparison is unavailable" in page
    assert (runs["this"] / "paper_a.html").stat().st_size > 1000  # nbconvert's rendering


def test_comparison_table_when_compare_exists(runs, monkeypatch):
    import types

    import pandas as pd

    calls = []

    def compare(a, b, margin=0.05):
        calls.append((Path(a).name, Path(b).name, margin))
        return pd.DataFrame({"benchmark": ["syscall", "bcopy"], "params": ["op=getpid", "size=16"],
                             "ratio": [1.01, 0.5], "ci_low": [0.97, 0.45], "ci_high": [1.05, 0.55],
                             "p_value": [0.6, 0.001],
                             "verdict": ["no difference", "faster"]})

    monkeypatch.setitem(sys.modules, "benchlib.results.compare", types.SimpleNamespace(compare=compare))
    page = report.write_report(runs["this"], render_notebooks=False).read_text()
    assert calls == [("box-20260102-000000", "box-20260104-000000", 0.05)]
    assert "1 no difference, 1 faster" in page and "<td>op=getpid</td>" in page
    assert "Comparison is unavailable" not in page


def test_first_run_of_a_machine_has_nothing_to_compare(runs):
    page = report.write_report(runs["older"], render_notebooks=False).read_text()
    assert "No earlier run of this machine (box)" in page


def test_cli_rejects_a_missing_folder(tmp_path, capsys):
    assert report.main([str(tmp_path / "nope")]) == 2
    assert "no such run folder" in capsys.readouterr().err
    assert report.main([str(tmp_path)]) == 2
    assert "no executed notebook" in capsys.readouterr().err
    assert not (tmp_path / "index.html").exists()


def _chromium():
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("needs Debian's chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (the test extra)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,2000", "--allow-file-access-from-files"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)


def check_page_in_chromium(index: Path, screenshot: Path | None = None,
                           follow_pages: bool = False) -> dict:
    """Open ``index`` in headless Chromium; return what is broken on it."""
    driver = _chromium()
    try:
        driver.get(index.resolve().as_uri())
        hrefs = driver.execute_script(
            "return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
        images = driver.execute_script(
            "return Array.from(document.images).map(i => [i.src, i.complete, i.naturalWidth])")
        ids = set(driver.execute_script(
            "return Array.from(document.querySelectorAll('[id]')).map(e => e.id)"))
        log = driver.get_log("browser")
        if screenshot is not None:
            driver.save_screenshot(str(screenshot))
        pages = sorted({h.split("#")[0] for h in hrefs if h.split("#")[0].endswith(".html")
                        and Path(unquote(urlparse(h).path)).exists()
                        and Path(unquote(urlparse(h).path)) != index.resolve()})
        if follow_pages:  # the notebooks rendered by nbconvert: nothing fetched, no error
            for page in pages:
                driver.get(page)
                log += [{**e, "page": page} for e in driver.get_log("browser")]
    finally:
        driver.quit()
    broken_links = []
    for href in hrefs:
        url = urlparse(href)
        if url.scheme != "file":
            broken_links.append(href)  # the report links nothing outside its folder
            continue
        target = Path(unquote(url.path))
        if not target.exists():
            broken_links.append(href)
        elif url.fragment and target == index.resolve() and url.fragment not in ids:
            broken_links.append(href)
    return {"links": hrefs, "images": images, "pages": pages, "broken_links": broken_links,
            "broken_images": [src for src, complete, width in images if not (complete and width > 0)],
            "console_errors": [e for e in log if e.get("level") == "SEVERE"]}


@pytest.mark.slow
def test_report_opens_in_chromium_without_broken_link_image_or_error(runs, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "benchlib.results.compare", None)
    index = report.write_report(runs["this"])
    seen = check_page_in_chromium(index, tmp_path / "report.png", follow_pages=True)
    assert len(seen["pages"]) == 3  # the three notebooks as HTML
    assert len(seen["images"]) == 3  # paper_a's two figures and paper_b's one
    assert len(seen["links"]) >= 12  # nav, notebooks, figures, CSV, traceback, previous run
    assert seen["broken_links"] == []
    assert seen["broken_images"] == []
    assert seen["console_errors"] == []
    assert (tmp_path / "report.png").stat().st_size > 10_000


@pytest.mark.slow
def test_the_chromium_check_can_fail(runs, tmp_path):
    """A missing figure and a dead link are caught (the check is not vacuous)."""
    bad = tmp_path / "box-20260109-000000"
    shutil.copytree(runs["this"], bad)
    report.write_report(bad, render_notebooks=False)
    (bad / "paper_a" / "bandwidth.png").unlink()
    (bad / "paper_b.html").unlink()
    seen = check_page_in_chromium(bad / "index.html")
    assert [Path(unquote(urlparse(s).path)).name for s in seen["broken_images"]] == ["bandwidth.png"]
    assert {Path(unquote(urlparse(h).path)).name for h in seen["broken_links"]} == {
        "bandwidth.png", "paper_b.html"}
    assert seen["console_errors"]  # the failed image load is logged


def test_notebook_pages_fetch_mathjax_only_for_math(tmp_path):
    plain, math = tmp_path / "plain.ipynb", tmp_path / "math.ipynb"
    _executed_notebook(plain, "Costs \\$5000")
    _executed_notebook(math, "Speed")
    book = nbformat.read(math, as_version=4)
    book.cells.append(nbformat.v4.new_markdown_cell("$$t = \\frac{a}{b}$$"))
    nbformat.write(book, math)
    plain_html = report.notebook_to_html(plain).read_text()
    math_html = report.notebook_to_html(math).read_text()
    assert "require.min.js" not in plain_html and "require.min.js" not in math_html
    assert "mathjax" not in plain_html.lower()
    assert "mathjax/2.7.7" in math_html.lower()
