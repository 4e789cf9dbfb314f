"""The documentation: the site under docs/ builds with `mkdocs build
--strict` (a broken link, anchor or API reference fails it), every page is
in the site's navigation, each notebook's page lists that notebook's
parameters, and README.md stays a guide of at most 300 lines that links
into the site."""
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README_MAX_LINES = 300


def _nav_pages(nav) -> list[str]:
    """Every page file the mkdocs.yml navigation names, at any depth."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [p for item in nav for p in _nav_pages(item)]
    if isinstance(nav, dict):
        return [p for value in nav.values() for p in _nav_pages(value)]
    return []


def _config() -> dict:
    return yaml.safe_load((REPO / "mkdocs.yml").read_text())


def test_readme_is_a_short_guide():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= README_MAX_LINES
    # the two commands, exactly as .ci/run and the users call them
    assert "./reproduce.sh          # set up, then run every notebook" in text
    assert "./reproduce.sh --test   # set up, then run the test suite" in text
    # its links into docs/ point at pages that exist
    links = re.findall(r"\]\((docs/[^)#\s]+)", text)
    assert links, "the README links into docs/"
    for link in links:
        assert (REPO / link).is_file(), f"README links to a missing page: {link}"


def test_every_page_is_in_the_nav():
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    nav = _nav_pages(_config()["nav"])
    assert len(nav) == len(set(nav)), "a page is listed twice in the nav"
    assert pages - set(nav) == set(), "pages missing from mkdocs.yml's nav"
    assert set(nav) - pages == set(), "nav entries without a page"


def test_every_notebook_has_a_page_listing_its_parameters():
    for nb in sorted((REPO / "notebooks").glob("*.ipynb")):
        name = {"00_quickstart": "quickstart"}.get(nb.stem, nb.stem)
        page = DOCS / "papers" / f"{name}.md"
        assert page.is_file(), f"{nb.name} has no page in docs/papers/"
        cells = json.loads(nb.read_text())["cells"]
        (params,) = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
        names = re.findall(r"^(\w+)\s*=", "".join(params["source"]), re.M)
        listed = re.findall(r"^\| `(\w+)` \|", page.read_text(), re.M)
        assert listed == names, f"{page.name}: parameters {listed}, notebook has {names}"


def test_the_site_builds_strictly(tmp_path):
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[test]' installs it)")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
         "--config-file", str(REPO / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "index.html").is_file()
