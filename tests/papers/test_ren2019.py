"""LEBench's published numbers as transcribed (data/papers/ren2019/), checked
cell by cell against their sources, and the package's rules."""
import math

import pytest

from benchlib.papers import cells, load_table
from benchlib.papers.ren2019 import cells as ren_cells
from benchlib.papers.ren2019 import paper

# The paper's Figure 1 as its text layer gives it (a copy of the PDF's text,
# 3.0 to 4.20), for rows of the repository's heatmap: the two agree from 3.7
# to 4.14; at 4.15 they differ (README: the repository's figure was drawn
# from another run of 4.15).
FIG1_TEXT = {
    "small-read": "28 29 27 25 24 23 18 21 20 -3 146 -4 153 151 132 132 3 -1 -1 -1 0 -6 -3 -1 -3 "
                  "0 6 0 6 11 12 11 11 10 77 98 109 103 103 103 99",
    "big-munmap": "74 74 68 66 70 65 62 61 79 46 46 57 56 52 51 44 35 7 2 0 0 1 -5 -3 -6 -1 -2 -3 "
                  "0 4 0 0 -1 -1 0 -7 -12 -17 -15 -16 -14",
    "thrcreate": "72 69 65 52 46 47 51 26 28 6 38 11 27 33 38 64 -3 1 0 3 0 -1 -5 -2 9 -6 13 -2 "
                 "-5 5 17 6 3 7 31 46 49 102 94 85 83",
}


def test_heatmap_cells_as_printed():
    h = paper.load("heatmap_e5_2630v3").set_index("test")
    assert len(h) == 24 and len(h.columns) == 29
    assert paper.kernels()[0] == "3.7" and paper.kernels()[-1] == "4.15"
    assert (h[paper.column_of(paper.BASELINE_KERNEL)] == 0).all()      # every row against 4.0
    # corners and extremes read off the repository's PNG
    assert h.loc["contextswitch", "linux_3_7_pct"] == 22
    assert h.loc["small-read", "linux_3_12_pct"] == 153
    assert h.loc["poll", "linux_4_15_pct"] == 152
    assert h.loc["big-pagefault", "linux_3_11_pct"] == -60
    assert h.loc["big-epoll", "linux_4_15_pct"] == 126
    assert h.loc["med-pagefault", "linux_3_15_pct"] == 17


@pytest.mark.parametrize("row", sorted(FIG1_TEXT))
def test_heatmap_agrees_with_the_papers_figure_1_text(row):
    text = [int(v) for v in FIG1_TEXT[row].split()]
    h = paper.load("heatmap_e5_2630v3").set_index("test")
    fig1 = paper.load("fig01_linux_3_0_to_4_20").set_index("test")
    assert list(fig1.loc[row]) == text
    ks = paper.kernels()
    assert [h.loc[row, paper.column_of(k)] for k in ks[:-1]] == \
        [fig1.loc[row, paper.column_of(k)] for k in ks[:-1]]


def test_figure_1_text_rows_agree_with_the_heatmap_up_to_4_14():
    h = paper.load("heatmap_e5_2630v3").set_index("test")
    fig1 = paper.load("fig01_linux_3_0_to_4_20").set_index("test")
    assert len(fig1) == 15 and len(fig1.columns) == 41
    common = [paper.column_of(k) for k in paper.kernels()[:-1]]
    assert (h.loc[fig1.index, common] == fig1[common]).all().all()
    assert (fig1[paper.column_of("4.15")] != h.loc[fig1.index, paper.column_of("4.15")]).any()


def test_tests_as_defined_in_os_eval():
    t = paper.load("tests").set_index("test")
    assert len(t) == 36
    assert t.loc["big fork", "mapped_pages"] == 6000 and t.loc["huge fork", "mapped_pages"] == 12000
    assert t.loc["big send", "message_bytes"] == 96000 and t.loc["send", "message_bytes"] == 1
    assert t.loc["huge munmap", "file_bytes"] == 40960000 and t.loc["mid read", "file_bytes"] == 40960
    assert t.loc["epoll big", "descriptors"] == 1000 and t.loc["getpid", "iterations"] == 1000000
    assert "context siwtch" in t.index        # the test's name as OS_Eval.c prints it


def test_root_causes_as_in_experiments_md():
    rc = paper.load("root_causes")
    assert len(rc) == 11
    r = rc.set_index("cause")
    assert r.loc["Kernel page-table isolation (Meltdown patch)", "config_option"] == \
        "CONFIG_PAGE_TABLE_ISOLATION"
    assert r.loc["Disabling transparent huge pages", "config_value_without_cause"] == "y"
    assert r.loc["Fault around", "patch"] == "root_causes/fault_around"
    assert load_table("ren2019", "setup").processor.iloc[0] == "Intel Xeon E5-2630 v3"


def test_every_test_has_one_declared_cell_and_every_figure_row_its_tests():
    spec = cells("ren2019")["tests"]
    assert list(spec.rows) == list(paper.load("tests").test)
    assert spec.cell("latency_us", "huge fork").params["mapped_pages"] == 12000
    assert spec.cell("latency_us", "fork").scale == ren_cells.US_FROM_MS
    mapped = {t for ts in paper.FIGURE_TESTS.values() for t in ts}
    assert mapped <= set(spec.rows)
    assert set(paper.FIGURE_TESTS) == set(paper.load("heatmap_e5_2630v3").test)
    assert paper.figure_row_of("huge mmap") == "mmap *" and paper.figure_row_of("getpid") is None


def test_rules():
    assert paper.kernel_of("linux_4_15_pct") == "4.15" and paper.column_of("3.7") == "linux_3_7_pct"
    with pytest.raises(ValueError):
        paper.kernel_of("latency_us")
    assert paper.as_ratio(40) == pytest.approx(1.4)
    assert paper.latest_jump("small-read", "4.13", "4.14") == pytest.approx(1.77 / 1.10)
    assert paper.share_of_cost(0.8) == pytest.approx(0.2)
    assert paper.extra_cost(1.25) == pytest.approx(0.25)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError):
            paper.share_of_cost(bad)
    long = paper.slowdowns()
    assert len(long) == 24 * 29 and long.kernel_index.max() == 28
