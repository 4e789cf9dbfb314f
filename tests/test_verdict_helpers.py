"""The helpers that turn a notebook's numbers into a verdict: made-up inputs, known answers."""
import math

import pytest

from benchlib.papers.laibaker1996 import measure as lb
from benchlib.papers.mach1989 import measure as mm
from benchlib.papers.mcvoy1996 import measure as lm
from benchlib.papers.ousterhout1990 import measure as ous
from benchlib.papers.verdict import read_verdicts, verdict


def test_keeps_pace_three_ways():
    assert ous.keeps_pace(0.2, 0.6) is False
    assert ous.keeps_pace(1.5, 1.0) is True
    assert ous.keeps_pace(0.7, 1.3) is None
    assert ous.keeps_pace(1.3, 0.7) is None  # either order


def test_orders_of_magnitude():
    assert ous.orders_of_magnitude(207, 0.1) == pytest.approx(3.316, abs=1e-3)
    assert ous.orders_of_magnitude(1e6, 1) == pytest.approx(6)
    with pytest.raises(ValueError):
        ous.orders_of_magnitude(0, 1)


def test_creation_waits_for_disk():
    assert ous.creation_waits_for_disk(0.02, 1.5) is False     # fsync 75x dearer: default does not wait
    assert ous.creation_waits_for_disk(0.02, 0.03) is None     # fsync nearly free, or default waits
    with pytest.raises(ValueError):
        ous.creation_waits_for_disk(0, 1)


def test_lookup_share():
    # MVAX2: "foo" 2.9 ms, "a/b/c/foo" 4.7 ms -> 0.6 ms per component, 0.207 of the call
    assert ous.lookup_share(2.9, 4.7) == pytest.approx(0.6 / 2.9)
    assert ous.lookup_share(1.0, 1.0) == 0


def test_kept_pace_and_within_factor():
    assert mm.kept_pace([0.9, 1.2]) is True
    assert mm.kept_pace([0.9, 0.1]) is False
    assert mm.kept_pace(0.8) is True
    with pytest.raises(ValueError):
        mm.kept_pace([math.nan])
    assert mm.within_factor(12, 10) and mm.within_factor(5, 10)
    assert not mm.within_factor(60, 10) and not mm.within_factor(4.9, 10)


def test_differences_within_noise():
    assert lb.differences_within_noise([1.1, 1.3, 2.6], [1.05, 1.4]) is True
    assert lb.differences_within_noise([1.1, 1.3, 2.6], [1.05, 1.2]) is False
    with pytest.raises(ValueError):
        lb.differences_within_noise([], [1.2])


def test_each_step_multiplies():
    assert lm.each_step_multiplies([0.1, 0.3, 0.9]) is True
    assert lm.each_step_multiplies([0.1, 0.3, 0.35]) is False
    with pytest.raises(ValueError):
        lm.each_step_multiplies([1.0])


def test_paper_handler_over_syscall_is_from_the_tables():
    r = lm.paper_handler_over_syscall()
    assert len(r) > 0 and (r > 0).all()
    assert r.index.is_unique or len(r) >= 1


def test_verdict_words_follow_holds(tmp_path):
    v = verdict(tmp_path, "p", "c", holds=False, evidence="e", if_true="yes", if_false="no")
    assert v.text == "no"
    verdict(tmp_path, "p", "c", holds=True, evidence="e", if_true="yes", if_false="no")
    recs = read_verdicts(tmp_path)
    assert [r["holds"] for r in recs] == [True]


@pytest.mark.parametrize("holds, words", [(True, "holds here"), (False, "does not hold here"),
                                          (None, "cannot tell here")],
                         ids=["holds", "does-not-hold", "cannot-tell"])
def test_the_printed_verdict_says_what_holds_is(holds, words):
    v = verdict(None, "p", "the claim", holds=holds, evidence="e")
    assert str(v).startswith(f"the claim: {words}.")


def test_all_hold_combines_checks_three_ways():
    from benchlib.papers.verdict import all_hold

    assert all_hold([True, True]) is True
    assert all_hold([True, None]) is None          # none fails, one cannot tell
    assert all_hold([None, False, True]) is False  # one fails: the whole fails
    assert all_hold([]) is None                    # nothing checked
    import numpy as np
    assert all_hold(np.array([True, True])) is True
