"""The Chen & Patterson 1994 transcription, checked against the source text."""
import re
from pathlib import Path

import pandas as pd
import pytest

from benchlib.papers import list_tables
from benchlib.papers import paper_table
from benchlib.papers.chen1994.measure import figure15_rows
from benchlib.papers.chen1994.paper import focal_points, load
from conftest import SHARED, needs_shared

SEED = SHARED / "seeds" / "001_7ba862160731df5d.txt"
needs_seed = needs_shared("seeds", "001_7ba862160731df5d.txt")


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_every_table_is_there():
    assert set(list_tables("chen1994")) == {
        "fig02_systems", "fig03_representativeness", "fig12_14_predictors",
        "fig15_prediction_errors", "fig24_border_zones", "focal_points", "method"}


def test_hand_read_cells():
    f15 = load("fig15").set_index("system")
    assert f15.loc["SPARCstation 1+"].tolist() == [10, 7, 2]
    assert f15.loc["Convex C240"].tolist() == [14, 8, 5]
    f3 = load("fig03").set_index("workload")
    assert f3.loc["TPC-B", "response_time_ms"] == 14.0
    assert f3.loc["Workload Model (sort)", "response_time_ms"] == 11.0
    fp = focal_points()
    dec = fp[fp.system == "DECstation 5000/200"]
    assert dec.unique_bytes_mb.tolist() == [2, 15, 36] and set(dec.size_mean_kb) == {40}
    first = focal_points("first try (75% points)")
    assert first.iloc[0][["unique_bytes_mb", "size_mean_kb", "read_frac", "seq_frac"]].tolist() \
        == [21, 10, 0, 0]
    pred = load("fig12_14").set_index("predictor")
    assert pred.loc["interpolation on an orthogonal sample", "median_error_pct"] == 22
    assert pred.loc["constant: Bonnie sequential block write", "throughput_mb_s"] == 0.32


@needs_seed
def test_figure15_rows_are_in_the_seed():
    text = SEED.read_text()
    for _, r in load("fig15").iterrows():
        row = f"{r.system} {r.median_error_pct}% {r.enhanced_error_pct}% " \
              f"{r.repeatability_error_pct}%"
        # the extraction wraps "DECstation" oddly and prefixes a stray rule
        assert row.replace("DECstation 5000/200", "DECstat.ion500Q/200") in text \
            or row in text, row


@needs_seed
def test_captions_and_text_in_the_seed():
    text = _flat(SEED.read_text())
    for phrase in ["sort 0.20 MB/s 11.7 ms", "TPC-B 0.13 MB/s 14.0 ms",
                   "Workload Model 0.13MB/s 12.3 ms",
                   "uniqueBytes = 21 MB, sizeMean = 10 KB",
                   "performance regions are 12 MB and 42 MB",
                   "at uniqueBytes 2 MB, 15 MB, and 36 MB",
                   "uniqueBytes is 1.8 MB in graphs", "unique Bytes is 450 MB in graphs",
                   "uniqueBytes is 180 MB in graphs", "and 1376 MB", "and 540 MB",
                   "sizeMean = 45 KB", "sizeMean = 120 KB", "sizeMean = 32 KB",
                   "sizeMean = 20 KB", "sizeMean =40 KB",
                   "yield performance of 1.25 MB/s", "performance of 0.32 MB/s",
                   "median prediction error of 657o", "requires the 84 points",
                   "requires 162 points", "Median error is 10%",
                   "uniqueBytes between 20 and 27 MB", "file cache is approximately 3 MB"]:
        assert phrase in text, phrase


def test_the_method_s_numbers_are_read_from_data():
    from benchlib.papers.chen1994.paper import first_try_points, method

    assert method("performance_point_fraction") == 0.75
    assert first_try_points().system.tolist() == ["SPARCstation 1+"]


@needs_seed
def test_the_method_s_numbers_are_in_the_seed():
    text = _flat(SEED.read_text())
    assert "the least restrictive workload value that yields at least 75% of the maximum performance" in text


def test_paper_table_adds_one_row():
    ours = pd.DataFrame([
        {"predictor": "product of single-parameter functions", "median_error_pct": 20.0,
         "enhanced_median_error_pct": 15.0},
        {"predictor": "repeatability (the same workloads run again)", "median_error_pct": 5.0,
         "enhanced_median_error_pct": 4.0}])
    t = paper_table(figure15_rows(ours, "vm"))
    assert len(t) == 5
    assert t.iloc[-1].tolist() == ["vm (this machine)", 20.0, 15.0, 5.0, "this machine"]
    assert (t.source.iloc[:4] == "paper").all()
