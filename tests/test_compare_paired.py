"""benchlib compare --paired: two sides measured interleaved, round by round.
Simulated rounds with known answers (a host drift common to both sides of a
round, a real shift, an order effect), a recorded interleaved A/A pair, and
the CLI's errors.  No live timing."""
import json
import lzma
import shutil

import numpy as np
import pytest

from benchlib.results import compare as bc
from benchlib.results import resultfile
from benchlib.cli import main
from benchlib.errors import BenchlibError

from test_compare import A, B, DATA


@pytest.fixture(scope="module")
def rounds_pair(tmp_path_factory):
    """The recorded A/A pair: the core set, 30 rounds, each benchmark measured
    for A and B back to back with the order drawn each time
    (`bench/core_suite.py rounds_a.json --twice rounds_b.json --rounds 30`,
    2-vCPU EPYC guest, 2026-11-24); xz-compressed, 4 MB each unpacked."""
    d = tmp_path_factory.mktemp("rounds")
    out = []
    for side in "ab":
        dst = d / f"rounds_{side}.json"
        with lzma.open(DATA / f"rounds_{side}.json.xz") as src, open(dst, "wb") as f:
            shutil.copyfileobj(src, f)
        out.append(dst)
    return out


def test_recorded_interleaved_pair_no_difference_for_90_percent(rounds_pair):
    a, b = rounds_pair
    df = bc.compare(a, b, paired=True)
    s = bc.summary(df)
    assert s["compared"] == 24 and s["paired_rows"] == 24 and (df["pairs"] == 30).all()
    assert s["no_difference_fraction"] >= 0.90
    assert s["faster"] + s["slower"] == 0
    # the one left is the cross-CPU wake-up, whose second run of a pair
    # finds the other vCPU awake: an order effect, drawn at random per round
    left = df[df["verdict"] != "no difference"]
    assert set(left["benchmark"]) <= {"pipe_latency", "mem_latency", "process_creation"}
    # pooled, the same runs count the rounds' drift as noise: wider intervals
    pooled = bc.compare(a, b)
    width = lambda x: (x["ratio_ci95_hi"] / x["ratio_ci95_lo"]).median()  # noqa: E731
    assert width(df) < width(pooled)
    assert bc.summary(pooled)["no_difference_fraction"] < s["no_difference_fraction"]


@pytest.mark.parametrize("spec_a, spec_b, verdict", [
    ("pipe_latency placement=same_cpu", "pipe_latency placement=different_cpus", "slower"),
    ("bcopy size_bytes=16k", "bcopy size_bytes=64M", "slower"),
])
def test_recorded_interleaved_pair_real_differences(rounds_pair, spec_a, spec_b, verdict):
    a, _ = rounds_pair
    row = bc.compare_pair(a, spec_a, a, spec_b).iloc[0]
    assert row["verdict"] == verdict and row["n_a"] == row["n_b"] == 30 * 15


def rounds(rng, n_rounds=20, drift=0.10, noise=0.01, factor=1.0, n=15):
    """Per round: a host speed drawn for the round (common to both sides),
    then each side's samples around it with small noise; B scaled by factor."""
    a, b = [], []
    for _ in range(n_rounds):
        host = np.exp(rng.normal(0, drift))
        a.append(list(host * np.exp(rng.normal(0, noise, n))))
        b.append(list(factor * host * np.exp(rng.normal(0, noise, n))))
    return a, b


def test_a_drift_common_to_both_sides_cancels_in_the_pairs():
    a, b = rounds(np.random.default_rng(1))
    paired = bc.compare_paired(a, b, margin=0.05)
    pooled = bc.compare_samples(a, b, margin=0.05)
    assert paired["verdict"] == "no difference" and paired["pairs"] == 20
    assert 0.98 < paired["ratio"] < 1.02
    # pooled, the rounds' drift is noise the two-level bootstrap must count
    assert pooled["verdict"] == "inconclusive"
    assert (pooled["ratio_ci95_hi"] - pooled["ratio_ci95_lo"]
            > 4 * (paired["ratio_ci95_hi"] - paired["ratio_ci95_lo"]))


@pytest.mark.parametrize("factor, hib, verdict", [(1.2, False, "slower"), (1.2, True, "faster"),
                                                   (1 / 1.2, False, "faster")])
def test_a_real_shift_is_found_through_the_drift(factor, hib, verdict):
    a, b = rounds(np.random.default_rng(2), factor=factor)
    r = bc.compare_paired(a, b, margin=0.05, higher_is_better=hib)
    assert r["verdict"] == verdict and r["p_value"] < 0.001
    assert r["ratio_ci95_lo"] < factor < r["ratio_ci95_hi"] or abs(r["ratio"] / factor - 1) < 0.01


def test_an_order_effect_drawn_at_random_is_not_a_difference():
    """The second of two back-to-back runs 25 % faster (the other CPU awake):
    with the order drawn every round the effect lands on both sides."""
    rng = np.random.default_rng(3)
    a, b = rounds(rng, n_rounds=30, drift=0.03)
    for k in range(30):
        second = b if rng.random() < 0.5 else a
        second[k] = [x * 0.75 for x in second[k]]
    r = bc.compare_paired(a, b, margin=0.05)
    assert r["verdict"] in ("inconclusive", "no difference")
    assert r["ratio_ci95_lo"] < 1 < r["ratio_ci95_hi"]


def test_the_interval_covers_the_true_ratio():
    rng = np.random.default_rng(4)
    hits = 0
    for _ in range(60):
        a, b = rounds(rng, n_rounds=15, factor=1.1)
        r = bc.compare_paired(a, b)
        hits += r["ratio_ci95_lo"] <= 1.1 <= r["ratio_ci95_hi"]
    assert hits >= 0.85 * 60


def test_unequal_or_too_few_rounds():
    a, b = rounds(np.random.default_rng(5), n_rounds=8)
    with pytest.raises(BenchlibError, match="equally many rounds"):
        bc.compare_paired(a, b[:-1])
    with pytest.raises(BenchlibError, match="positive"):
        bc.compare_paired(a, [[0.0]] * 8)


def test_the_intervals_and_the_test_are_over_the_rounds_log_ratios():
    """Known ratios per round, symmetric on a log scale: no direction (the
    signed-rank test on the logs gives p near 1; on the ratios themselves, all
    above 0, it would give p = 0.008); the 90 % interval (the equivalence
    test's) is the bootstrap's 90 % interval of the rounds' ratios."""
    from benchlib.stats.summary import bootstrap_median_ci

    ratios = [1.1, 1 / 1.1, 1.2, 1 / 1.2, 1.05, 1 / 1.05, 1.3, 1 / 1.3]
    a = [[1.0, 1.0, 1.0]] * len(ratios)
    b = [[x] * 3 for x in ratios]
    r = bc.compare_paired(a, b, margin=0.05)
    assert r["p_value"] > 0.9 and r["verdict"] == "inconclusive"
    assert (r["ratio_ci90_lo"], r["ratio_ci90_hi"]) == bootstrap_median_ci(ratios, 0.90)
    assert (r["ratio_ci95_lo"], r["ratio_ci95_hi"]) == bootstrap_median_ci(ratios, 0.95)


def test_five_rounds_are_too_few_to_pair():
    """With 5 rounds a two-sided signed-rank p-value is at least 2/32: never
    below 0.05, so they are compared unpaired; with 6 they are paired."""
    rec = json.loads(json.dumps(resultfile.read_records(A)[0]))

    def runs(k, side):
        return [{**rec, "timestamp": f"{side}{i}", "samples": [1.0 + i / 100, 1.1, 1.2]}
                for i in range(k)]
    five = bc.compare(runs(5, "a"), runs(5, "b"), paired=True)
    assert five["pairs"].isna().all() and "not paired: 5 runs" in five["note"].iloc[0]
    assert bc.compare(runs(6, "a"), runs(6, "b"), paired=True)["pairs"].iloc[0] == 6


def test_single_runs_are_compared_unpaired_with_a_note():
    df = bc.compare(A, B, paired=True)
    assert df["pairs"].isna().all()
    assert df["note"].str.contains("not paired: 1 runs in A, 1 in B").all()
    assert df.attrs["paired"] is True
    assert bc.summary(df)["paired_rows"] == 0


def test_cli_paired(capsys):
    assert main(["compare", str(A), str(B), "--paired"]) == 0
    assert "24 compared unpaired" in capsys.readouterr().out
    assert main(["compare", str(A), "--pair", "syscall op=getpid", "syscall op=getppid",
                 "--paired"]) == 2
    err = capsys.readouterr().err
    assert "does not combine" in err and "Traceback" not in err
