"""LEBench's switch experiment: the interleaved rounds, every switch back
after the run and after a failure injected mid-run (on a fake kernel's
files: no root needed, nothing of the machine changed), and the paired
analysis on simulated runs with known answers."""
import os
import signal
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from benchlib.measuring import switches as sw
from benchlib.papers.ren2019 import measure as m
from fake_kernel import make, thp_mode


class FakeMeasure:
    """Stands for the harness's run: a Result-like object whose samples are
    ``base`` us, times ``factor[condition]``; fails as told at call ``fail_at``."""

    def __init__(self, root, factors=None, fail_at=None, fail=RuntimeError("injected")):
        self.root, self.calls, self.seen = root, 0, []
        self.factors = factors or {}
        self.fail_at, self.fail = fail_at, fail
        self.rng = np.random.default_rng(1)

    def __call__(self, benchmark, params, profile=None, setup=None):
        self.calls += 1
        mode = thp_mode(self.root)
        fa = (self.root / "sys/kernel/debug/fault_around_bytes").read_text().strip()
        self.seen.append((benchmark, mode, fa, dict(setup or {})))
        if self.fail_at == self.calls:
            if self.fail == "sigterm":
                os.kill(os.getpid(), signal.SIGTERM)
            raise self.fail
        key = ("thp=" + mode if mode != "madvise" else "") or \
              ("fa=" + fa if fa != "65536" else "") or \
              ",".join(f"{k}={v}" for k, v in (setup or {}).items() if k != "cgroup_procs")
        f = self.factors.get(key, 1.0)
        s = list(2.0 * f * (1 + 0.01 * self.rng.standard_normal(5)))
        return SimpleNamespace(samples=s, median=float(np.median(s)), extras={})


@pytest.fixture
def root(tmp_path):
    return make(tmp_path)


def _switches(root):
    return [sw.thp_enabled(root), sw.FaultAround(root), sw.Seccomp(root), sw.MemoryCgroup(root)]


def test_each_round_measures_every_condition_once_per_test(root):
    fake = FakeMeasure(root)
    runs = m.switch_rounds("smoke", tests=["getpid", "small mmap"], switches=_switches(root),
                           rounds=3, measure=fake, seed=0, progress=False)
    conds = ["as found", "thp_enabled=always", "thp_enabled=never", "fault_around_bytes=4096",
             "seccomp=0 rules", "seccomp=1 rule", "seccomp=10 rules", "memory_cgroup=child"]
    assert set(runs.runs.condition) == set(conds)
    counts = runs.runs.groupby(["round", "test", "condition"]).size()
    assert (counts == 1).all() and len(counts) == 3 * 2 * len(conds)
    # the order differs between rounds (random), and a system switch is set only for its run
    orders = [tuple(g.condition) for _, g in runs.runs.groupby(["round", "test"])]
    assert len(set(orders)) > 1
    for bench, mode, fa, setup in fake.seen:
        assert mode == "madvise" or (fa == "65536" and not setup)
    assert thp_mode(root) == "madvise"
    assert (root / "sys/kernel/debug/fault_around_bytes").read_text() == "65536"
    assert not list((root / "sys/fs/cgroup/memory/box").iterdir())    # the child cgroup removed
    assert runs.restored == {s.name: s.as_found() for s in _switches(root)}


@pytest.mark.parametrize("fail", [RuntimeError("injected"), KeyboardInterrupt(), "sigterm"])
def test_every_switch_is_back_after_a_failure_mid_run(root, fail):
    # fails at the 11th run: by then thp and fault-around have each been set
    fake = FakeMeasure(root, fail_at=11, fail=fail)
    expected = {RuntimeError: RuntimeError, KeyboardInterrupt: KeyboardInterrupt}.get(
        type(fail), sw.SwitchesInterrupted)
    # fail inside a system switch's run: make the 11th run one with thp set
    with pytest.raises(expected):
        m.switch_rounds("smoke", tests=["getpid"], switches=_switches(root), rounds=3,
                        measure=fake, seed=3, progress=False)
    assert any(mode != "madvise" for _, mode, _, _ in fake.seen)   # a switch had been set
    assert thp_mode(root) == "madvise"
    assert (root / "sys/kernel/debug/fault_around_bytes").read_text() == "65536"
    assert not list((root / "sys/fs/cgroup/memory/box").iterdir())


def test_a_failure_while_a_system_switch_is_set(root):
    # the failing run is the one with thp=never, whichever call that is
    class FailOnNever(FakeMeasure):
        def __call__(self, *a, **k):
            if thp_mode(self.root) == "never":
                raise RuntimeError("injected while thp=never")
            return super().__call__(*a, **k)

    with pytest.raises(RuntimeError, match="thp=never"):
        m.switch_rounds("smoke", tests=["getpid"], switches=_switches(root), rounds=2,
                        measure=FailOnNever(root), progress=False)
    assert thp_mode(root) == "madvise"


def test_skipped_switches_say_why(tmp_path):
    root = make(tmp_path, debugfs=False)
    conds, skipped = m.conditions(_switches(root))
    assert "debugfs is not mounted" in skipped["fault_around_bytes"]
    assert all(c.switch is None or c.switch.name != "fault_around_bytes" for c in conds)


def test_costs_and_shares_from_known_answers(root):
    factors = {"thp=always": 0.8, "thp=never": 1.0, "seccomp_rules=10": 1.3,
               "seccomp_rules=0": 1.0, "seccomp_rules=1": 1.0}
    runs = m.switch_rounds("smoke", tests=["getpid"], switches=_switches(root)[:3], rounds=8,
                           measure=FakeMeasure(root, factors), seed=0, progress=False)
    costs = m.switch_costs(runs).set_index("condition")
    assert costs.loc["seccomp=10 rules", "ratio"] == pytest.approx(1.3, rel=0.02)
    assert costs.loc["seccomp=10 rules", "verdict"] == "slower"
    assert costs.loc["seccomp=10 rules", "cost_pct"] == pytest.approx(30, abs=2)
    assert costs.loc["seccomp=0 rules", "verdict"] == "no difference"
    assert costs.loc["thp_enabled=always", "verdict"] == "faster"
    assert costs.loc["thp_enabled=always", "removes_cause"]
    assert not costs.loc["seccomp=10 rules", "removes_cause"]
    assert (costs.pairs == 8).all()
    lo, hi = costs.loc["seccomp=10 rules", ["ratio_ci95_lo", "ratio_ci95_hi"]]
    assert lo < 1.3 < hi or lo == pytest.approx(1.3, rel=0.02)
    shares = m.cost_shares(costs.reset_index()).set_index("test")
    # t(always) = 0.8 t(as found): a fifth of the time comes from huge pages being off
    assert shares.loc["getpid", "share_pct"] == pytest.approx(20, abs=2)
    assert shares.loc["getpid", "share_pct_ci95_lo"] <= shares.loc["getpid", "share_pct"] \
        <= shares.loc["getpid", "share_pct_ci95_hi"]
    assert set(shares.loc["getpid", "switches"].split(", ")) == {"thp_enabled=always",
                                                                "fault_around_bytes=4096"}


def test_a_test_without_a_removable_switch_has_no_share():
    costs = pd.DataFrame([{"test": "fork", "condition": "seccomp=1 rule", "removes_cause": False,
                           "ratio": 1.1, "ratio_ci95_lo": 1.0, "ratio_ci95_hi": 1.2}])
    shares = m.cost_shares(costs)
    assert np.isnan(shares.share_pct.iloc[0]) and shares.switches.iloc[0] == ""
    assert m.above(1.0, 2.0, 0.5) is True and m.above(1.0, 2.0, 1.5) is None
    assert m.above(float("nan"), 2.0, 0.5) is None
