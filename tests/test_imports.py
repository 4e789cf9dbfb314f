"""The import graph: import-linter's contracts (.importlinter at the root:
analysis is pure, the measuring worker loads no numerical library, results
sit below papers) and no cycle between any two benchlib modules, function-
level imports included.  By hand: `lint-imports` at the repository root."""
import re
import subprocess
import sys
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[1]


def test_import_linter_contracts_are_kept():
    p = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command;"
                        "lint_imports_command()"], cwd=REPO, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert "BROKEN" not in p.stdout and p.stdout.count("KEPT") >= 3


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for m in sorted(graph.modules):
        if m not in index:
            visit(m)
    return out


def test_no_import_cycle_between_benchlib_modules():
    assert _cycles(grimp.build_graph("benchlib")) == []


def test_the_cycle_finder_finds_a_cycle():
    class Graph:
        modules = {"a", "b", "c"}
        edges = {"a": {"b"}, "b": {"a"}, "c": {"a"}}

        def find_modules_directly_imported_by(self, m):
            return self.edges[m]

    assert _cycles(Graph()) == [["a", "b"]]


class _CGraph:
    """The C library's call graph between files: csrc/a.c -> csrc/b.c when a
    calls or names a function defined (not static) in b."""

    DEF = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b(bl_\w+)\s*\((?:[^;]*$|[^;{]*\)\s*\{)", re.M)
    CALL = re.compile(r"\b(bl_\w+)\b")  # a call or a function passed by name

    def __init__(self, files: dict[str, str]):
        self.modules = set(files)
        defined = {name: f for f, text in files.items() for name in self.DEF.findall(text)}
        self.edges = {f: {defined[c] for c in self.CALL.findall(text) if defined.get(c, f) != f}
                      for f, text in files.items()}

    def find_modules_directly_imported_by(self, m):
        return self.edges[m]


def test_no_call_cycle_between_c_files():
    files = {p.name: p.read_text() for p in (REPO / "benchlib" / "csrc").glob("*.c")}
    graph = _CGraph(files)
    assert "add_chain.c" in graph.edges["timing.c"] and "add_chain.c" in graph.edges["cpu.c"]
    assert _cycles(graph) == []


def test_the_c_graph_sees_a_cycle():
    files = {"a.c": "int bl_a(void)\n{\n    return bl_b();\n}\n",
             "b.c": "static int helper(void) { return 0; }\nint bl_b(void)\n{\n    return bl_a();\n}\n"}
    assert _cycles(_CGraph(files)) == [["a.c", "b.c"]]
