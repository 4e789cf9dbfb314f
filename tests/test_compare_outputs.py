"""bench/compare_outputs.py on made-up output folders with known answers."""
import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("compare_outputs", REPO / "bench" / "compare_outputs.py")
co = importlib.util.module_from_spec(spec)
spec.loader.exec_module(co)


def _folder(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


BEFORE = {"lmbench1996/lmbench1996_this_machine.csv": "system,pipe_us\nx,1\n",
          "lmbench1996/lmbench1996_pipe.png": "png", "q/quick.csv": "a,b\n1,2\n",
          "q/store/results.jsonl": "{}\n", "lmbench1996.ipynb": "{}"}


def test_the_same_files_and_columns_under_a_rename(tmp_path):
    a = _folder(tmp_path / "a", BEFORE)
    b = _folder(tmp_path / "b", {k.replace("lmbench1996", "mcvoy1996"): v for k, v in BEFORE.items()})
    assert co.compare(a, b, {"lmbench1996": "mcvoy1996"}) == []
    assert co.main([str(a), str(b), "--rename", "lmbench1996=mcvoy1996"]) == 0
    # without the rename the same folders differ, file by file
    assert len(co.compare(a, b)) == 4   # two files only before, the same two only after


def test_missing_files_changed_columns_and_failures_are_reported(tmp_path):
    a = _folder(tmp_path / "a", BEFORE)
    after = dict(BEFORE)
    del after["lmbench1996/lmbench1996_pipe.png"]
    after["q/quick.csv"] = "a,c\n1,2\n"
    after["q/extra.svg"] = "svg"
    after["mach1989.error.txt"] = "Traceback"
    b = _folder(tmp_path / "b", after)
    assert co.compare(a, b) == [
        "only before: figure lmbench1996/lmbench1996_pipe.png",
        "only after: figure q/extra.svg",
        "columns differ: q/quick.csv: lost ['b'] gained ['c']",
        "failed after: mach1989",
    ]
    assert co.main([str(a), str(b)]) == 1


@pytest.mark.parametrize("args", [["nowhere", "."], [".", ".", "--rename", "x"]])
def test_bad_input_is_a_clear_error(args, capsys):
    assert co.main(args) == 2
    assert "compare_outputs:" in capsys.readouterr().err
