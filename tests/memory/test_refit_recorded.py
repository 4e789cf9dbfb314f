"""bench/memory_refit_recorded.py on recorded live runs: its table against
sysfs (the live criterion's items, the line among them) and its --walk
summary; a folder that is not a saved run is refused."""
import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("memory_refit_recorded",
                                              REPO / "bench" / "memory_refit_recorded.py")
rr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rr)
ZEN4 = Path(__file__).parent / "data" / "live_zen4"


def test_the_table_has_each_runs_line_against_sysfs(capsys):
    runs = [ZEN4 / r for r in ("q1", "s20full", "s26full")]
    assert rr.main(["--md", "--walk", *map(str, runs)]) == 0
    out = capsys.readouterr().out
    rows = [ln for ln in out.splitlines() if ln.startswith("| live_zen4/")]
    assert len(rows) == 3
    head = next(ln for ln in out.splitlines() if ln.startswith("| run "))
    line_col = head.strip("|").split("|").index(" line ")
    assert [r.strip("|").split("|")[line_col].strip() for r in rows] == ["64"] * 3
    assert "the line sysfs's in 3/3" in out
    walk = next(ln for ln in out.splitlines() if "upper latency" in ln)
    assert "3 runs: r = " in walk


def test_a_folder_that_is_no_saved_run_is_refused(tmp_path, capsys):
    assert rr.main([str(tmp_path)]) == 2
    assert "not a saved run" in capsys.readouterr().err
