"""The machinery every paper shares: a paper's table with this machine's
rows beside it, on made-up tables with known answers."""
import pandas as pd

from benchlib.papers import with_rows


def test_this_machine_s_rows_go_in_sorted_position():
    paper = pd.DataFrame({"system": ["A", "B", "C"], "us": [30.0, 10.0, 20.0]})
    ours = pd.DataFrame({"system": ["here"], "us": [15.0]})
    t = with_rows(paper, ours, "us")
    assert list(t.system) == ["B", "here", "C", "A"]
    assert list(t.source) == ["paper", "this machine", "paper", "paper"]
    # descending (higher is better): the same rows, the other way round
    t = with_rows(paper, ours, "us", ascending=False)
    assert list(t.system) == ["A", "C", "here", "B"]
    # nothing of either input is lost or changed
    assert len(t) == 4 and sorted(t.us) == [10.0, 15.0, 20.0, 30.0]
    assert list(paper.columns) == ["system", "us"]
