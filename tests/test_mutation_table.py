"""The mutation check's table stays valid as the code changes (no mutant is
run here: `python bench/mutation_check.py` does that): every mutant's file
exists, its old snippet occurs exactly once there, its new snippet differs,
and the tests it names exist."""
import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutation_check", REPO / "bench" / "mutation_check.py")
mc = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("mutation_check", mc)   # its dataclass looks itself up there
_spec.loader.exec_module(mc)


def test_at_least_forty_mutants_with_distinct_names():
    names = [m.name for m in mc.MUTANTS]
    assert len(names) >= 40 and len(set(names)) == len(names)


@pytest.mark.parametrize("mutant", mc.MUTANTS, ids=lambda m: m.name)
def test_mutant_applies_to_today_s_code(mutant):
    assert mutant.tests, "a mutant names the tests that should kill it"
    assert not mc.problems(mutant, REPO)


def test_an_invalid_mutant_is_reported(tmp_path):
    (tmp_path / "f.py").write_text("x = 1\nx = 1\n")
    (tmp_path / "t.py").write_text("def test_a():\n    pass\n")
    twice = mc.Mutant("m", "f.py", "x = 1", "x = 2", ("t.py",))
    assert "occurs 2 times" in mc.problems(twice, tmp_path)[0]
    same = mc.Mutant("m", "f.py", "x = 1\nx", "x = 1\nx", ("t.py::test_a", "t.py::test_b[1]"))
    assert mc.problems(same, tmp_path) == ["the new snippet is the old one", "no test test_b in t.py"]
    assert mc.problems(mc.Mutant("m", "g.py", "a", "b", ()), tmp_path) == ["g.py does not exist"]
