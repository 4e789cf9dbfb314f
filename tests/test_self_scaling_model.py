"""benchlib.analysis.self_scaling_model at the edges of its rules: made-up
curves and workloads with known answers (the regions' ends and merging,
the half-way crossing of a curve that does not start at 0, the thrashing
zone's bounds, the enhanced error).  No I/O, no timing."""
import numpy as np
import pandas as pd
import pytest

from benchlib.analysis import self_scaling_model as A

MiB = 1 << 20


def test_a_lone_point_at_the_end_of_the_sweep_is_a_region():
    # flat, then the last point falls: the sweep ended inside the next level
    x = np.geomspace(MiB, 128 * MiB, 8)
    regs = A.find_regions(x, [100.0] * 7 + [10.0])
    assert [(r.lo_bytes, r.hi_bytes) for r in regs] == [pytest.approx((MiB, 64 * MiB)),
                                                         pytest.approx((128 * MiB, 128 * MiB))]
    assert regs[1].mean_mb_s == 10.0


def test_neighbouring_regions_closer_than_min_step_of_the_larger_are_one():
    # a 25 % step is a border (min_drop 0.2), but 100 and 75 differ by less than
    # 0.3 x 100 (they would not by 0.3 x 75): one region
    x = np.geomspace(MiB, 128 * MiB, 8)
    regs = A.find_regions(x, [100.0] * 4 + [75.0] * 4)
    assert len(regs) == 1 and regs[0].mean_mb_s == pytest.approx(87.5)
    assert len(A.find_regions(x, [100.0] * 4 + [60.0] * 4)) == 2


def test_halfway_point_of_a_curve_that_does_not_start_at_zero():
    # half-way between 10 and 30 is 20, reached at x = 2 (half the maximum, 15, at 1.5)
    assert A.halfway_point([1, 2, 3], [10, 20, 30]) == pytest.approx(2.0)
    assert A.halfway_point([1, 2, 3], [30, 10, 10]) == pytest.approx(1.5)


def test_the_thrashing_zone_lies_strictly_between_two_regions():
    regs = [A.Region(MiB, 4 * MiB, 2 * MiB, 100.0), A.Region(16 * MiB, 64 * MiB, 32 * MiB, 10.0)]
    m = A.ProductModel(regs, {}, {}, None, {})
    assert m.in_border(8 * MiB)
    # each region's own measured ends are not in the zone
    assert not m.in_border(4 * MiB) and not m.in_border(16 * MiB)
    assert m.boundaries() == [pytest.approx(8 * MiB)]


def test_the_enhanced_error_leaves_out_the_thrashing_zone():
    df = pd.DataFrame({"mb_s": [100.0, 200, 400], "mb_s_again": [100.0, 200, 400],
                       "predicted_mb_s": [150.0, 200, 800], "interpolated_mb_s": [100.0, 200, 400],
                       "in_border": [False, True, False]})
    t = A.accuracy_table(df, {}, n_model=3, n_orthogonal=3).set_index("predictor")
    model = t.loc["product of single-parameter functions"]
    # errors 50 %, 0 % (in the zone) and 100 %: median 50 over all, 75 outside the zone
    assert model["median_error_pct"] == 50 and model["enhanced_median_error_pct"] == 75
    assert model["q1_error_pct"] == 25 and model["q3_error_pct"] == 75
