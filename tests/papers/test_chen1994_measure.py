"""The self-scaling I/O benchmark: the analysis on synthetic curves, the C
workload generator's accounting, bad input, and clean-up."""
import itertools
import os
import time

import numpy as np
import pandas as pd
import pytest

import benchlib
from benchlib.measuring.benchmarks import iowork as W
from benchlib.papers.chen1994 import measure as S
from benchlib.analysis import self_scaling_model as A
from benchlib.errors import BenchlibError
from conftest import interrupt_run, kill_children, processes_named, subreaper

MiB = 1 << 20


# ---------------------------------------------------------------- analysis

def _two_plateaus(noise=0.0, seed=0):
    x = np.geomspace(1 * MiB, 1024 * MiB, 11)
    y = np.where(x <= 64 * MiB, 4000.0, 300.0)
    y[7] = 900.0  # one point in the thrashing zone (128 MiB)
    rng = np.random.default_rng(seed)
    return x, y * (1 + noise * rng.standard_normal(len(x)))


def test_two_plateaus_give_two_regions_and_a_border():
    x, y = _two_plateaus()
    regs = A.find_regions(x, y)
    assert len(regs) == 2
    assert regs[0].lo_bytes == pytest.approx(1 * MiB)
    assert regs[0].hi_bytes == pytest.approx(64 * MiB)
    assert regs[1].lo_bytes == pytest.approx(256 * MiB)
    assert regs[1].hi_bytes == pytest.approx(1024 * MiB)
    assert regs[0].focal_unique_bytes == pytest.approx(8 * MiB)
    assert regs[1].focal_unique_bytes == pytest.approx(512 * MiB)


@pytest.mark.parametrize("seed", range(5))
def test_noise_on_the_plateaus_makes_no_extra_region(seed):
    x, y = _two_plateaus(noise=0.05, seed=seed)
    assert len(A.find_regions(x, y)) == 2


def test_flat_curve_is_one_region():
    x = np.geomspace(MiB, 256 * MiB, 9)
    assert len(A.find_regions(x, np.full(9, 100.0))) == 1


def test_halfway_and_performance_points():
    assert A.halfway_point([1, 2, 3, 4], [0, 10, 20, 30]) == pytest.approx(2.5)
    # in log x: the crossing between 1 KiB (0) and 4 KiB (20) is at 2 KiB
    assert A.halfway_point([1024, 4096, 16384], [0, 20, 20], log=True) == pytest.approx(2048)
    assert A.halfway_point([1, 2, 3], [5, 5, 5]) == pytest.approx(2)
    assert A.performance_point([1, 2, 4, 8], [10, 70, 80, 100], 0.75, "smallest") == 4
    assert A.performance_point([1, 2, 4, 8], [100, 90, 80, 10], 0.75, "largest") == 4
    assert A.well_range([1, 2, 4, 8], [10, 80, 100, 76]) == (2, 8)


def _separable(w):
    """A throughput that really is a product of single-parameter functions."""
    return (5000 / (1 + w["unique_bytes"] / (64 * MiB)) * np.log2(w["size_mean_bytes"]) / 10
            * (1 + w["read_frac"]) * (2 - w["seq_frac"]) * (1 + 0.1 * w["process_num"]))


def _fitted_model():
    ux = np.geomspace(MiB, 1024 * MiB, 11)
    focal0 = {"unique_bytes": 8 * MiB, "size_mean_bytes": 32768, "read_frac": 0.5,
              "seq_frac": 0.5, "process_num": 1}
    ucurve = pd.DataFrame({"unique_bytes": ux,
                           "mb_s": [_separable({**focal0, "unique_bytes": u}) for u in ux]})
    regs = A.find_regions(ucurve.unique_bytes, ucurve.mb_s, min_drop=10)  # one region
    values = {"size_mean_bytes": [1024, 4096, 16384, 65536, 262144, 1 << 20],
              "read_frac": [0, .25, .5, .75, 1], "seq_frac": [0, .25, .5, .75, 1],
              "process_num": [1, 2, 4]}
    fam = {p: pd.DataFrame({p: v, "mb_s": [_separable({**focal0, p: x}) for x in v]})
           for p, v in values.items()}
    return A.ProductModel.fit(ucurve, regs, {0: focal0}, {0: fam}), values


def test_product_model_is_exact_on_a_separable_function():
    m, values = _fitted_model()
    for w in [{"unique_bytes": 2 * MiB, "size_mean_bytes": 4096, "read_frac": 1.0,
               "seq_frac": 0.0, "process_num": 4},
              {"unique_bytes": 512 * MiB, "size_mean_bytes": 65536, "read_frac": 0.25,
               "seq_frac": 0.75, "process_num": 2}]:
        assert m.predict(w) == pytest.approx(_separable(w), rel=1e-9)


def test_product_model_picks_the_region_by_unique_bytes():
    x, y = _two_plateaus()
    regs = A.find_regions(x, y)
    focal = {k: {"unique_bytes": r.focal_unique_bytes, "size_mean_bytes": 4096,
                 "read_frac": .5, "seq_frac": .5, "process_num": 1} for k, r in enumerate(regs)}
    fam = {k: {"read_frac": pd.DataFrame({"read_frac": [0, 1], "mb_s": [k + 1, 2 * (k + 1)]})}
           for k in (0, 1)}
    m = A.ProductModel.fit(pd.DataFrame({"unique_bytes": x, "mb_s": y}), regs, focal, fam)
    assert m.region_of(2 * MiB) == 0 and m.region_of(1024 * MiB) == 1
    assert m.in_border(128 * MiB) and not m.in_border(8 * MiB)
    w = {**focal[1], "read_frac": 1.0}
    # region 1's read curve goes 2 -> 4 over [0, 1]: 3 at the focal 0.5, 4 at 1.0
    assert m.throughput[1] == pytest.approx(3)
    assert m.predict(w) == pytest.approx(4)


def test_interpolation_is_exact_on_a_multilinear_function():
    axes = {"unique_bytes": [MiB, 16 * MiB, 256 * MiB], "size_mean_bytes": [1024, 32768],
            "read_frac": [0, 1], "seq_frac": [0, 1], "process_num": [1, 4]}

    def f(u, s, r, q, p):
        return 10 + np.log(u) + 2 * np.log(s) + 3 * r - q + 0.5 * p

    ortho = pd.DataFrame({"mb_s": [f(*c) for c in itertools.product(*axes.values())]})
    targets = pd.DataFrame([{"unique_bytes": 4 * MiB, "size_mean_bytes": 4096, "read_frac": .3,
                             "seq_frac": .9, "process_num": 2}])
    got = A.interpolate_orthogonal(axes, ortho, targets)
    assert got[0] == pytest.approx(f(4 * MiB, 4096, .3, .9, 2))


def test_accuracy_table():
    df = pd.DataFrame({"mb_s": [100.0, 200, 400], "mb_s_again": [110.0, 200, 400],
                       "predicted_mb_s": [100.0, 220, 400], "interpolated_mb_s": [50.0, 200, 800],
                       "in_border": [False, True, False]})
    t = A.accuracy_table(df, {"one point": 200.0}, n_model=30, n_orthogonal=60).set_index(
        "predictor")
    assert t.loc["product of single-parameter functions", "median_error_pct"] == 0
    assert t.loc["product of single-parameter functions", "q3_error_pct"] == pytest.approx(5)
    assert t.loc["interpolation on an orthogonal sample", "median_error_pct"] == 50
    assert t.loc["constant: one point", "median_error_pct"] == 50
    assert t.loc["repeatability (the same workloads run again)", "median_error_pct"] == 0
    assert t.loc["interpolation on an orthogonal sample", "workloads_measured"] == 60


# ---------------------------------------------------------------- the generator

@pytest.fixture(scope="module")
def space(tmp_path_factory):
    d = tmp_path_factory.mktemp("io")
    with W.IOSpace(str(d), disk_budget_bytes=16 * MiB, cache_bytes=16 * MiB,
                   duration_s=0.03) as sp:
        yield sp
    assert os.listdir(d) == []


def test_reads_writes_and_sequential_are_what_was_asked(space):
    w = W.Workload(8 * MiB, 16384, 1.0, 1.0, 1)
    r = space.measure(w)
    assert r["requests"] > 0 and r["read_realised"] == 1 and r["seq_realised"] == 1
    assert r["bytes"] == pytest.approx(r["requests"] * r["size_realised_bytes"])
    r = space.measure(w.with_(read_frac=0.0, seq_frac=0.0))
    assert r["read_realised"] == 0 and r["seq_realised"] == 0
    # a fixed amount of I/O with a fixed seed: the draws, and so the
    # realised fractions, do not depend on how fast the host ran (about 200
    # requests per process: a binomial spread of 0.035 around 0.5)
    r = space.measure(w.with_(read_frac=0.5, seq_frac=0.5, process_num=2), seed=7,
                      total_bytes=8 * MiB)
    assert 0.35 < r["read_realised"] < 0.65 and 0.35 < r["seq_realised"] < 0.65
    assert r["mb_s"] > 0 and r["response_ms"] > 0 and r["cpu_s"] >= 0


def test_a_fixed_amount_of_io(space):
    w = W.Workload(8 * MiB, 16384, 0.5, 0.5, 2)
    r = space.measure(w, total_bytes=4 * MiB)
    # each process stops at its share; the last request may overshoot by one (<= 8 x mean)
    assert 4 * MiB <= r["bytes"] <= 4 * MiB + 2 * 8 * 16384
    with pytest.raises(BenchlibError, match="total_bytes"):
        space.measure(w, total_bytes=-1)


def test_sizes_follow_the_truncated_normal(space):
    # Normal(mean, sd=mean) with draws <= 0 redrawn: the realised mean is
    # mean * (1 + phi(1)/Phi(1)) = 1.288 x mean (the cap at 8 x mean is negligible)
    # 16 MiB at a mean of 5.3 KiB: about 3000 draws whatever the host's speed
    # (a standard error of 1.4% on the mean), from a fixed seed
    r = space.measure(W.Workload(8 * MiB, 4096, 1.0, 0.5, 1), seed=3, total_bytes=16 * MiB)
    assert r["requests"] > 2000
    assert r["size_realised_bytes"] / 4096 == pytest.approx(1.288, rel=0.05)


def test_the_method_is_stated(space):
    # the note names the mechanism that bounds the cache
    needle = {"cgroup": "memory cgroup", "direct": "O_DIRECT", "buffered": "whole file cache"}
    assert needle[space.method] in space.method_note


@pytest.mark.parametrize("bad,msg", [
    (dict(read_frac=1.5), "read_frac must be between 0 and 1"),
    (dict(seq_frac=-0.1), "seq_frac must be between 0 and 1"),
    (dict(size_mean_bytes=0), "size_mean_bytes must be at least 1"),
    (dict(process_num=0), "process_num must be between 1 and 64"),
    (dict(unique_bytes=64 * MiB), "beyond the data file"),
])
def test_bad_workloads_are_refused(space, bad, msg):
    with pytest.raises(BenchlibError, match=msg):
        space.measure(W.Workload(8 * MiB, 4096, 0.5, 0.5, 1).with_(**bad))


def test_bad_spaces_are_refused(tmp_path):
    with pytest.raises(BenchlibError, match="does not exist"):
        W.IOSpace(str(tmp_path / "nope"))
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    with pytest.raises(BenchlibError, match="more than half the free space"):
        W.IOSpace(str(tmp_path), disk_budget_bytes=free)
    with pytest.raises(BenchlibError, match="unknown cache method"):
        W.IOSpace(str(tmp_path), cache="ramdisk")
    if os.path.isdir("/dev/shm"):
        with pytest.raises(BenchlibError, match="not a disk"):
            with W.IOSpace("/dev/shm", disk_budget_bytes=4 * MiB):
                pass
    assert os.listdir(tmp_path) == []


def test_registered_benchmark_and_its_errors(tmp_path):
    r = benchlib.run("io_workload", unique_bytes="4M", size_mean_bytes=8192, duration_s=0.02,
                     directory=str(tmp_path), profile="smoke")
    assert r.unit == "MB/s" and len(r.samples) == 2 and r.median > 0
    assert len(r.extras["response_ms"]) == 2 and r.extras["cache_method"]
    with pytest.raises(BenchlibError):
        benchlib.run("io_workload", read_frac=2, directory=str(tmp_path), profile="smoke")
    with pytest.raises(BenchlibError):
        benchlib.run("io_workload", size_mean_bytes=0, directory=str(tmp_path), profile="smoke")
    assert os.listdir(tmp_path) == []


def test_interrupt_leaves_no_file_process_or_cgroup(tmp_path):
    # Workers and cgroups are looked for system-wide, so only those that
    # appear during this test count: a notebook running beside the tests
    # has its own.
    found = W._memory_cgroup_dir()

    def cgroups():
        return {d for d in os.listdir(found[0]) if d.startswith("benchlib-io-")} if found else set()

    cgroups_before = cgroups()
    with subreaper():  # an orphaned worker would be ours to see
        rc, err = interrupt_run("io_workload", [f"directory={tmp_path}", "unique_bytes=64M",
                                                "process_num=2", "duration_s=5"],
                                started=lambda pid: processes_named("bl-io-worker"),
                                settle_s=0.3, wait_s=30)
        assert rc == 130 and "Traceback" not in err
        assert os.listdir(tmp_path) == []
        time.sleep(0.2)
        assert not processes_named("bl-io-worker")
        assert kill_children() == []
    assert not cgroups() - cgroups_before


def test_plans_and_random_workloads_stay_in_range():
    plan = S.plan_for("quick")
    grid = S.unique_grid(plan, 2 << 30)
    assert grid[0] == plan.min_unique_bytes and grid[-1] <= 8 * plan.cache_bytes
    ws = S.random_workloads(50, plan, 2 << 30, seed=3)
    for w in ws:
        W.check_workload(w, grid[-1])
        assert grid[0] <= w.unique_bytes <= grid[-1] and w.size_mean_bytes <= w.unique_bytes / 2
    axes, ortho = S.orthogonal_workloads(plan, 2 << 30)
    assert len(ortho) == plan.grid_values ** 4 * 2 and len(axes["process_num"]) == 2
    with pytest.raises(BenchlibError, match="unknown profile"):
        S.plan_for("huge")


def test_the_o_direct_fallback(tmp_path):
    from benchlib.measuring.registry import filesystem_of
    if filesystem_of(str(tmp_path)).get("fs_type") in ("tmpfs", "ramfs"):
        pytest.skip("no disk under the temporary directory")
    with W.IOSpace(str(tmp_path), disk_budget_bytes=8 * MiB, cache="direct",
                   duration_s=0.03) as sp:
        assert sp.method == "direct" and "O_DIRECT" in sp.method_note
        r = sp.measure(W.Workload(8 * MiB, 10000, 0.5, 0.0, 1))
        # O_DIRECT requests are whole 4 KiB blocks, and nothing warms a cache
        assert r["bytes"] % 4096 == 0 and r["warm_s"] == 0 and r["mb_s"] > 0
    assert os.listdir(tmp_path) == []


def test_the_model_beats_a_baseline_only_by_the_intervals():
    from benchlib.stats import intervals as iv
    from benchlib.stats.intervals import Measured

    summary = pd.DataFrame({"predictor": [S.MODEL, S.INTERPOLATION, "constant: one", "constant: two",
                                          S.REPEATABILITY]})
    iv.put(summary, "median_error_pct", [Measured(10.0, 8.0, 12.0), Measured(20.0, 18.0, 22.0),
                                         Measured(11.0, 9.0, 13.0), Measured(5.0, 4.0, 6.0),
                                         Measured(2.0, 1.0, 3.0)])
    b = S.beats_baselines(summary).set_index("baseline")
    assert list(b.index) == [S.INTERPOLATION, "constant: one", "constant: two"]   # not itself, not repeatability
    assert b.beats.tolist() == [True, None, False]
    d = iv.get(b, "error_above_model_pct", S.INTERPOLATION)
    assert (d.value, d.lo, d.hi) == pytest.approx((10.0, 6.0, 14.0))


def test_the_size_draw_s_mean_is_the_truncated_normal_s():
    rng = np.random.default_rng(1)
    x = rng.normal(1.0, 1.0, 400_000)
    assert S.SIZE_DRAW_MEAN == pytest.approx(x[x > 0].mean(), rel=5e-3)
