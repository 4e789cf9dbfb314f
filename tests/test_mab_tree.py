"""The Modified Andrew Benchmark source tree (benchlib/mab/tree) is complete and consistent.

No compilation here: these tests check the manifest (FILES), the compile script (BUILD) and the
Makefile against the files on disk, so that a driver can run phases I-V from them alone.
"""
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TREE = REPO / "benchlib" / "mab" / "tree"

# The range benchlib/mab/README.md states for the tree.
MIN_BYTES, MAX_BYTES = 200 * 1024, 400 * 1024
MIN_FILES, MAX_FILES = 30, 45
COMPILE_FLAGS = ["-O1", "-std=c99", "-Iinclude"]
LINK_FLAGS = ["-O1", "-std=c99"]


def manifest():
    return (TREE / "FILES").read_text().splitlines()


def files_on_disk():
    return sorted(p.relative_to(TREE).as_posix() for p in TREE.rglob("*") if p.is_file())


def build_lines():
    return [shlex.split(l) for l in (TREE / "BUILD").read_text().splitlines()]


def compile_lines():
    return build_lines()[:-1]


def link_line():
    return build_lines()[-1]


def c_sources():
    return [f for f in manifest() if f.endswith(".c")]


def test_manifest_matches_disk_exactly():
    listed = manifest()
    assert all(l and l == l.strip() for l in listed), "blank or padded line in FILES"
    assert len(listed) == len(set(listed)), "duplicate entries in FILES"
    assert listed == sorted(listed), "FILES is not sorted"
    on_disk = files_on_disk()
    extra = sorted(set(on_disk) - set(listed))
    missing = sorted(set(listed) - set(on_disk))
    assert not extra, f"files on disk but not in FILES (build products left in the tree?): {extra}"
    assert not missing, f"files in FILES but not on disk: {missing}"
    assert "FILES" in listed and "BUILD" in listed and "Makefile" in listed


def test_no_empty_directories():
    # Phase I creates the parents of the FILES entries; an empty directory would be missed.
    dirs = {p.relative_to(TREE).as_posix() for p in TREE.rglob("*") if p.is_dir()}
    parents = {str(Path(f).parent) for f in manifest()} - {"."}
    assert dirs == parents


def test_size_and_count_within_stated_range():
    listed = manifest()
    total = sum((TREE / f).stat().st_size for f in listed)
    assert MIN_BYTES <= total <= MAX_BYTES, total
    assert MIN_FILES <= len(listed) <= MAX_FILES, len(listed)
    # a real program: most of the bytes are C source, spread over several directories
    c_bytes = sum((TREE / f).stat().st_size for f in listed if f.endswith((".c", ".h")))
    assert c_bytes >= total / 2
    assert len({Path(f).parent for f in c_sources()}) >= 3


def test_all_files_are_text():
    for f in manifest():
        data = (TREE / f).read_bytes()
        assert b"\0" not in data, f
        data.decode("utf-8")
        assert b"\r\n" not in data, f
        assert data.endswith(b"\n"), f


def test_every_c_file_compiled_once_in_build():
    lines = compile_lines()
    for argv in lines:
        assert argv[0] == "cc", argv
        assert argv[1:4] == COMPILE_FLAGS, argv
        assert argv[4] == "-c" and argv[6] == "-o" and len(argv) == 8, argv
        src, obj = argv[5], argv[7]
        assert obj == src[:-2] + ".o", argv
    compiled = [argv[5] for argv in lines]
    assert len(compiled) == len(set(compiled))
    assert sorted(compiled) == sorted(c_sources())


def test_every_build_object_is_linked():
    objects = [argv[7] for argv in compile_lines()]
    link = link_line()
    assert link[0] == "cc"
    assert link[1:3] == LINK_FLAGS
    assert link[3:5] == ["-o", "quill"]
    assert link[5:-1] == objects, "the link line must list every object, in BUILD order"
    assert link[-1] == "-lm"


def _make_list(text, name):
    m = re.search(rf"^{name} = \\\n((?:\t.*\n)+)", text, re.M)
    assert m, name
    return [l.strip().rstrip("\\").strip() for l in m.group(1).splitlines()]


def test_makefile_builds_what_build_lists():
    text = (TREE / "Makefile").read_text()
    for src in c_sources():
        assert src in text, f"Makefile does not mention {src}"
    assert re.search(r"^CC \?= cc$", text, re.M)
    assert re.search(r"^CFLAGS \?= -O1 -std=c99$", text, re.M)
    assert re.search(r"^CPPFLAGS = -Iinclude$", text, re.M)
    assert re.search(r"^clean:", text, re.M)
    srcs = _make_list(text, "LIB_SRCS") + _make_list(text, "LANG_SRCS") + _make_list(text, "PROG_SRCS")
    assert srcs == [argv[5] for argv in compile_lines()], "BUILD order differs from the Makefile"
    headers = _make_list(text, "HEADERS")
    assert sorted(headers) == sorted(f for f in manifest() if f.endswith(".h"))


def test_local_includes_resolve():
    # every #include "x.h" names a header of the tree (same directory first, then include/)
    for f in manifest():
        if not f.endswith((".c", ".h")):
            continue
        for name in re.findall(r'^#include "([^"]+)"', (TREE / f).read_text(), re.M):
            here = TREE / Path(f).parent / name
            assert here.is_file() or (TREE / "include" / name).is_file(), (f, name)


def test_sources_use_only_standard_c_headers():
    c99 = {"assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h",
           "iso646.h", "limits.h", "locale.h", "math.h", "setjmp.h", "signal.h", "stdarg.h",
           "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h", "tgmath.h",
           "time.h", "wchar.h", "wctype.h"}
    for f in manifest():
        if f.endswith((".c", ".h")):
            for name in re.findall(r"^#include <([^>]+)>", (TREE / f).read_text(), re.M):
                assert name in c99, (f, name)


def test_main_is_defined_once():
    defs = [f for f in c_sources() if re.search(r"^int main\(", (TREE / f).read_text(), re.M)]
    assert defs == ["src/main.c"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_no_tree_file_is_git_ignored():
    # e.g. a rule like "build/" or "*.txt" would silently drop files from commits
    paths = [str((TREE / f).relative_to(REPO)) for f in manifest()]
    r = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=REPO,
                       capture_output=True, text=True)
    if r.returncode == 128:
        pytest.skip("not a git work tree")
    assert r.returncode == 1 and not r.stdout.strip(), r.stdout
