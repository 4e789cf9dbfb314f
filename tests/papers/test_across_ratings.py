"""Every system on one axis: the 1995-96 systems' CPU ratings
(data/papers/across/cpu_ratings_1995_96.csv) checked against their sources'
words, the structure of the dataset (every mcvoy1996 and laibaker1996
system rated or unrated with a reason), and the per-era fits and verdicts on
simulated data with a known exponent."""
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from benchlib.errors import BenchlibError
from benchlib.papers import PAPERS, across, data_dir
from benchlib.papers.laibaker1996 import paper as lb
from benchlib.papers.verdict import read_verdicts
from conftest import SHARED, needs_shared

LMBENCH_SEED = SHARED / "seeds" / "004_5ba21df995770832.txt"
LB_SEED = SHARED / "seeds" / "002_88ef87013b5cb00d.txt"


@pytest.fixture(scope="module")
def df():
    return across.dataset()


@pytest.fixture(scope="module")
def ratings():
    return across.ratings().set_index(["paper", "system"])


# ------------------------------------------------------------ against the sources' words

def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)]


def test_the_estimate_is_the_quoted_figure_at_the_quoted_clock(ratings):
    r = ratings.loc[("mcvoy1996", "SunOS-5.5 sun4u@167")]
    assert r.status == "estimate" and r.specint92 == 250 and r.cpu_mhz == 167
    assert "167MHz" in r.quote and "250 SPECint92" in r.quote    # the source's own words
    assert "@167" in "SunOS-5.5 sun4u@167" and "projection" in r.basis
    assert r.source.startswith("Computergram") and "https://" in r.source


def test_a_candidate_not_applied_is_the_quoted_figure(ratings):
    r = ratings.loc[("mcvoy1996", "HP-UX 9000/735")]
    assert r.status == "unrated" and math.isnan(r.specint92)
    assert "HP 9000/735" in r.quote and "99MHz" in r.quote
    cited = [x for x in _numbers(r.reason) if x != int(x)]        # 80.5, not the row counts
    assert cited == [80.5] and "80.5" in r.quote.split()
    assert "not applied" in r.reason


# The CPU DB rows (Stanford CPU DB, table spec_int1992) the ratings quote:
# id, processor, availability, sponsor, model, SPECint_base92, SPECint92, the six
# benchmarks' ratios, and the link to the SPEC result.
CPUDB_FIELDS = ["spec_int1992_id", "processor_id", "hw_avail", "test_sponsor", "hw_model",
                "basemean", "peakmean"]


def _cpudb(quote: str) -> dict:
    return dict(zip(CPUDB_FIELDS, quote.split(",")[:len(CPUDB_FIELDS)]))


@needs_shared("seeds", "002_88ef87013b5cb00d.txt")
@pytest.mark.parametrize("os_", ["Linux", "FreeBSD", "Solaris"])
def test_lai_baker_is_the_median_published_figure_at_the_slides_clock(ratings, os_):
    r = ratings.loc[("laibaker1996", os_)]
    assert r.cpu_mhz == 100 and "100 MHZ Pentium" in LB_SEED.read_text()
    assert "100 MHZ Pentium" in lb.PLATFORM and "100 MHZ Pentium" in r.cpu_mhz_source
    row = _cpudb(r.quote)
    # the board is not named: a published figure for the CPU and clock, not for this machine
    assert r.status == "estimate" and "board" in r.basis
    assert float(row["peakmean"]) == r.specint92 == 118.1
    assert row["spec_int1992_id"] == "136" and "815\\100" in r.quote and "Pentium" in r.quote
    assert "spec.i815100.cint92.6_95" in r.quote and "spec.i815100.cint92.6_95" in r.source
    # the nine published 100 MHz figures the reason cites: 118.1 is their median
    nine = [96.2, 138.5, 118.1, 143.9, 150.8, 100.0, 118.1, 112.7, 121.9]
    assert sorted(nine)[4] == 118.1 and min(nine) == 96.2 and max(nine) == 150.8
    assert "96.2" in r.reason and "150.8" in r.reason and "median" in r.reason
    assert "140" in r.reason and "not scaled" in r.reason


@needs_shared("seeds", "004_5ba21df995770832.txt")
def test_linux_i686_is_the_published_166_mhz_pentium_pro(ratings):
    r = ratings.loc[("mcvoy1996", "Linux i686")]
    words = "linux intel uni linux pentium pro"       # Table 1's one Linux Pentium Pro system
    assert _table1().count(words) == 1 and words in r.cpu_mhz_source
    row = _cpudb(r.quote)
    assert r.status == "rated" and float(row["peakmean"]) == r.specint92 == 327.1
    assert row["hw_model"] == "Alder" and "(166MHz; 512KB L2) 166MHz Pentium Pro" in r.quote
    assert r.cpu_mhz == 167 and "i686@167Mhz" in r.cpu_mhz_source     # lmbench's measured clock
    assert "166 MHz" in r.reason and "2.5x" in r.reason               # the 166 MHz part
    assert "spec.inteli4.cint92.12_95" in r.source


# ------------------------------------------------------------ a board or model that fixes the clock

def test_the_power_indigo2_board_fixes_the_r8000_at_75_mhz(ratings):
    r = ratings.loc[("mcvoy1996", "IRIX64-601 IP26")]
    assert r.cpu_mhz == 75 and "'IP26 supports the R8000 CPU clocked at 75MHz'" in r.cpu_mhz_source
    assert "based on the IP26 system board and comes with the R8000" in r.cpu_mhz_source
    row = _cpudb(r.quote)
    # measured on another board (the POWER Challenge): an estimate, not a rating
    assert r.status == "estimate" and "POWER Challenge" in r.basis and "not on a POWER Indigo2" in r.basis
    assert float(row["peakmean"]) == r.specint92 == 111.7 and row["basemean"] == "102.6"
    assert row["spec_int1992_id"] == "198" and row["hw_model"] == "POWER CHALLENGE"
    assert r.quote.endswith("75 MHz R8000}") and "spec.sgipc.cint92.9_94" in r.source


def test_the_k200_model_string_fixes_the_pa7200_at_100_mhz(ratings):
    r = ratings.loc[("mcvoy1996", "HP-UX 9000/819")]
    assert r.cpu_mhz == 100 and "'9000/819/K200    Kittyhawk  100Mhz   PCXT''" in r.cpu_mhz_source
    row = _cpudb(r.quote)
    assert r.status == "estimate" and "K400" in r.basis and "not of a K200" in r.basis
    assert float(row["peakmean"]) == r.specint92 == 136.7 and row["hw_model"] == "K400"
    assert r.quote.endswith("K400 100 MHz PA-RISC 7200}") and "spec.hp9k4_1.cint92.6_95" in r.source
    # the other 100 MHz PA-7200 results the reason cites are within 7 % of the figure
    for other in (141.1, 141.0, 127.9):
        assert str(other) in r.reason and abs(other / r.specint92 - 1) < 0.07


@pytest.mark.parametrize("system", ["IRIX64 IP21", "IRIX IP21"])
def test_the_r8000_board_with_two_clocks_keeps_its_candidate_unapplied(ratings, system):
    r = ratings.loc[("mcvoy1996", system)]
    assert r.status == "unrated" and math.isnan(r.specint92) and math.isnan(r.cpu_mhz)
    assert "75 MHz" in r.reason and "90 MHz" in r.reason and "not applied" in r.reason
    assert float(_cpudb(r.quote)["peakmean"]) == 111.7 and "111.7" in r.reason


def test_a_known_clock_without_a_specint92_stays_unrated(ratings):
    r = ratings.loc[("mcvoy1996", "IRIX64 IP25")]
    assert r.status == "unrated" and r.cpu_mhz == 195 and "R10000 195" in r.cpu_mhz_source
    assert "no SPECint92 was found" in r.reason


def _table1() -> str:
    lines = LMBENCH_SEED.read_text().splitlines()
    return " ".join(lines[93:97])          # lines 94-97: Table 1 and its caption


# what each reason says the paper's Table 1 prints about the system (words the seed kept)
TABLE1 = {
    "IBM PowerPC": ["ibm powerpc ibm uni aix", "mpc"],
    "IBM Power2": ["ibm power ibm uni aix", "power"],
    "FreeBSD/i586": ["freebsd tp xe uni freebsd pentium"],
    "HP-UX 9000/819": ["hp hp mp hp ux pa"],
    "Linux alpha": ["linux alpha dec uni linux alpha"],
    "Linux i586": ["uni linux pentium"],
    "DEC Alpha": ["dec alpha dec uni osf alpha", "dec alpha dec mp osf alpha"],
    "Sun Ultra1": ["sun ultra sun ultra uni sunos ultrasparc"],
    "Sun SC1000": ["sun sc sun sc mp sunos"],
    "Unixware/i686": ["intel aurora uni pentium pro"],
}


@needs_shared("seeds", "004_5ba21df995770832.txt")
@pytest.mark.parametrize("system", sorted(TABLE1))
def test_what_the_reasons_read_in_table_1_is_in_the_seed(ratings, system):
    text = _table1()
    assert text.startswith("benchmarking practice") and "system descriptions" in text
    assert "spec" in text and "int" in text and "mhz" in text     # the column heads survive
    for words in TABLE1[system]:
        assert words in text, (system, words)
    r = ratings.loc[("mcvoy1996", system)]
    assert "Table 1 (seed 004 lines 94-97)" in r.reason
    # unrated, unless the figure comes from elsewhere: a model string that fixes CPU and clock
    assert r.status == "unrated" or r.cpu_mhz_source.startswith("not printed by the paper")


@needs_shared("seeds", "004_5ba21df995770832.txt")
def test_table_1_lost_every_number():
    assert not re.search(r"\d", _table1())     # hence no SPECint92 read from it


@needs_shared("reference", "lmbench", "ctx.tbl")
def test_the_reference_data_has_no_table_1():
    assert not (SHARED / "reference" / "lmbench" / "systems.tbl").exists()


# ------------------------------------------------------------ structure of the dataset

def test_every_1995_96_system_has_a_rating_or_a_reason(df, ratings):
    for paper in across.RATED_PAPERS:
        systems = set(df.loc[df.paper == paper, "row_label"])
        assert systems == set(ratings.loc[paper].index), paper
    mc = df[df.paper == "mcvoy1996"]
    assert mc.row_label.nunique() == 30 and len(mc) == 605
    assert set(mc.cpu_rating_status) <= set(across.STATUSES)
    unrated = mc[mc.cpu_rating_status == "unrated"]
    assert unrated.cpu_rating.isna().all() and (unrated.cpu_unrated_reason.str.len() > 20).all()
    fitted = mc[mc.cpu_rating_status != "unrated"]
    assert fitted.cpu_rating.notna().all() and (fitted.cpu_rating_kind == "SPECint92").all()
    for r in fitted.itertuples():
        assert r.cpu_rating == ratings.loc[("mcvoy1996", r.row_label), "specint92"]


def test_every_figure_has_a_source_and_every_unrated_system_a_reason(ratings):
    figure = ratings.specint92.notna()
    assert (figure == (ratings.status != "unrated")).all()
    assert ratings.loc[figure, "source"].str.contains("https://").all()
    assert (ratings.loc[ratings.status == "estimate", "basis"].str.len() > 20).all()
    assert (ratings.loc[~figure, "reason"].str.len() > 20).all()
    assert (ratings.cpu.str.len() > 2).all()


def test_the_clock_a_rating_names_is_the_rows_clock(df):
    sun = df[df.row_label == "SunOS-5.5 sun4u@167"]
    assert (sun.cpu_mhz == 167).all() and (sun.cpu_rating == 250).all()
    lb_rows = df[df.paper == "laibaker1996"]
    assert (lb_rows.cpu_mhz == 100).all() and (lb_rows.cpu_rating == 118.1).all()
    for label, mhz, rating in [("IRIX64-601 IP26", 75, 111.7), ("HP-UX 9000/819", 100, 136.7)]:
        sel = df[df.row_label == label]
        assert len(sel) == 12 and (sel.cpu_mhz == mhz).all() and (sel.cpu_rating == rating).all()
        assert (sel.cpu_rating_status == "estimate").all()
    ip25 = df[df.row_label == "IRIX64 IP25"]
    assert (ip25.cpu_mhz == 195).all() and ip25.cpu_rating.isna().all()
    i686 = df[(df.paper == "mcvoy1996") & (df.row_label == "Linux i686")]
    assert len(i686) == 12 and (i686.cpu_mhz == 167).all() and (i686.cpu_rating == 327.1).all()


def _broken(monkeypatch, edit):
    good = across.ratings()
    monkeypatch.setattr(across, "ratings", lambda: edit(good.copy()))


def test_a_missing_system_is_an_error(monkeypatch):
    _broken(monkeypatch, lambda r: r[r.system != "Linux i486"])
    with pytest.raises(BenchlibError, match="no rating and no reason for mcvoy1996/Linux i486"):
        across.dataset()


def test_a_line_that_matches_nothing_is_an_error(monkeypatch):
    def add(r):
        extra = r.iloc[[0]].assign(system="No Such System")
        return pd.concat([r, extra], ignore_index=True)
    _broken(monkeypatch, add)
    with pytest.raises(BenchlibError, match="no row matches mcvoy1996/No Such System"):
        across.dataset()


def test_a_clock_that_contradicts_a_row_is_an_error(monkeypatch):
    def clash(r):
        r.loc[r.system == "SunOS-5.5 sun4u@167", "cpu_mhz"] = 200.0
        return r
    _broken(monkeypatch, clash)
    with pytest.raises(BenchlibError, match="at 200 MHz, but a row of it says 167"):
        across.dataset()


@pytest.mark.parametrize("edit,match", [
    (lambda r: r.assign(status=r.status.replace("unrated", "guessed")), "status must be"),
    (lambda r: r.assign(specint92=r.specint92.fillna(99.0)), "needs a positive"),
    (lambda r: r.assign(reason=""), "its reason"),
    (lambda r: pd.concat([r, r.iloc[[0]]]), "appears twice"),
])
def test_the_ratings_file_is_checked(tmp_path, monkeypatch, edit, match):
    good = across.ratings()
    bad = edit(good.copy())
    (tmp_path / "papers" / "across").mkdir(parents=True)
    bad.to_csv(tmp_path / "papers" / across.RATINGS, index=False)
    monkeypatch.setattr(across, "data_dir", lambda: tmp_path)
    with pytest.raises(BenchlibError, match=match):
        across.ratings()


def test_the_lmbench_paper_is_named_by_its_id_only(df):
    assert set(df.paper) <= set(PAPERS) and "mcvoy1996" in set(df.paper)
    for path in (data_dir() / "papers").rglob("*"):
        if path.is_file() and path.suffix in (".csv", ".md"):
            assert "lmbench1996" not in path.read_text(), path
    assert "mcvoy1996" in (data_dir() / "papers" / "mcvoy1996" / "README.md").read_text()


def test_rating_table_one_line_per_system(df):
    t = across.rating_table(df)
    assert len(t) == len(df.groupby(["paper", "row_label"])) and t.rows.sum() == len(df)
    sun = t[t.row_label == "SunOS-5.5 sun4u@167"].iloc[0]
    assert (sun.era, sun.status, sun.cpu_rating, sun.kind) == ("1995-96", "estimate", 250,
                                                               "SPECint92")
    alpha = t[t.row_label == "DEC Alpha"].iloc[0]
    assert alpha.status == "unrated" and "Table 1" in alpha.basis_or_reason


# ------------------------------------------------------------ per-era fits on simulated data

B = {"1989-90": 0.5, "1995-96": 1.2, "today": 0.9}
YEAR = {"1989-90": 1990, "1995-96": 1996, "today": 2026}


def _simulated(rng, n=12, sd=0.08, common=None):
    """Per era, n systems over a decade of ratings with speed = a * rating^b
    (b per era, or ``common`` for all), log-normal scatter, plus unrated
    systems with wild figures that must take no part."""
    rows = []
    for era, (lo, hi) in {"1989-90": (1, 20), "1995-96": (50, 400), "today": (1e3, 5e4)}.items():
        b = common if common is not None else B[era]
        r = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
        speed = 1e4 * r ** b * 10 ** rng.normal(0, sd, n)           # operations/s
        rows += [{"primitive": "kernel_entry", "year": YEAR[era], "cpu_rating": x,
                  "value_std": 1e6 / v, "unit_std": "us", "higher_is_better": False}
                 for x, v in zip(r, speed)]
        rows += [{"primitive": "kernel_entry", "year": YEAR[era], "cpu_rating": math.nan,
                  "value_std": 1e-3, "unit_std": "us", "higher_is_better": False}] * 3
    return pd.DataFrame(rows)


def test_each_era_recovers_its_exponent_and_the_unrated_take_no_part():
    fits = across.fit_eras(_simulated(np.random.default_rng(7)), n_boot=300).set_index("systems")
    for era, b in B.items():
        f = fits.loc[era]
        assert f.n == 12 and f.ci_low < b < f.ci_high and f.exponent == pytest.approx(b, abs=0.1)
        assert f.boot_low < b < f.boot_high
    assert fits.loc["all eras", "n"] == 36
    assert list(fits.index) == ["1989-90", "1995-96", "today", "all eras"]


def test_the_per_era_interval_covers_the_exponent_about_95_times_in_100():
    rng = np.random.default_rng(11)
    hits = {name: 0 for name in [*across.ERAS, across.ALL_ERAS]}
    reps = 120
    for _ in range(reps):
        fits = across.fit_eras(_simulated(rng, n=8, sd=0.3, common=0.7), n_boot=20)
        for f in fits.itertuples():
            hits[f.systems] += f.ci_low < 0.7 < f.ci_high
    for name, h in hits.items():
        assert 0.88 <= h / reps <= 0.995, (name, h)


def test_era_verdicts_follow_the_intervals(tmp_path):
    fits = across.fit_eras(_simulated(np.random.default_rng(3)), n_boot=50)
    fits = fits[fits.systems != "today"]               # an era with no fit at all
    vs = across.era_verdicts(tmp_path, fits)
    by = {v.claim.rsplit("(", 1)[1].rstrip(")"): v for v in vs}
    assert list(by) == ["1989-90", "1995-96", "today", "all eras"]
    assert by["1989-90"].holds is False and "kernel entry" in by["1989-90"].text   # b = 0.5
    assert by["1995-96"].holds is True                                              # b = 1.2
    assert by["today"].holds is None and by["today"].figures == []
    assert [f["name"] for f in by["1989-90"].figures] == ["kernel_entry"]
    assert by["1989-90"].figures[0]["ci95"][1] < 1
    recorded = read_verdicts(tmp_path)
    assert len(recorded) == 4 and {r["paper"] for r in recorded} == {"then_and_now"}
    assert json.loads((tmp_path / "verdicts.json").read_text()) == recorded


def test_an_era_whose_interval_holds_1_kept_pace_even_below_it(tmp_path):
    """The verdict follows the interval, not the slope: 0.9 [0.7, 1.1]
    kept pace; 0.9 [0.85, 0.95] fell behind."""
    row = {"primitive": "kernel_entry", "n": 10, "intercept": 0.0, "note": ""}
    fits = pd.DataFrame([{**row, "systems": "1989-90", "exponent": 0.9, "ci_low": 0.7,
                          "ci_high": 1.1},
                         {**row, "systems": "all eras", "exponent": 0.9, "ci_low": 0.85,
                          "ci_high": 0.95}])
    by = {v.claim.rsplit("(", 1)[1].rstrip(")"): v for v in across.era_verdicts(tmp_path, fits)}
    assert by["1989-90"].holds is True and by["all eras"].holds is False
    assert by["1995-96"].holds is None and "No primitive has a fit" in by["1995-96"].text


def test_an_era_whose_intervals_reach_0_or_2_cannot_tell(tmp_path):
    """Three scattered points give b = 0.3 [-3.0, 3.5]: no verdict, not
    'kept pace'; beside one told primitive the era's verdict rests on it."""
    row = {"primitive": "kernel_entry", "n": 3, "intercept": 0.0, "note": ""}
    wide = {**row, "exponent": 0.3, "ci_low": -3.0, "ci_high": 3.5}
    fits = pd.DataFrame([{**wide, "systems": "1995-96"},
                         {**wide, "systems": "1989-90"},
                         {**row, "primitive": "pipe_round_trip", "systems": "1989-90",
                          "exponent": 0.95, "ci_low": 0.8, "ci_high": 1.1}])
    by = {v.claim.rsplit("(", 1)[1].rstrip(")"): v for v in across.era_verdicts(tmp_path, fits)}
    assert by["1995-96"].holds is None and "reaches 0 or 2" in by["1995-96"].text
    assert by["1989-90"].holds is True and "1 cannot tell" in by["1989-90"].text


def test_the_docs_say_what_the_data_give(df, ratings):
    """docs/papers/then_and_now.md's counts and its 1995-96 kernel-entry
    interval are the data's (the fit of the papers' rows alone: no machine
    of today enters the 1995-96 era)."""
    import re

    from conftest import REPO

    text = " ".join((REPO / "docs" / "papers" / "then_and_now.md").read_text().split())
    carried = int((ratings["status"] != "unrated").sum())
    assert f"carry a figure ({carried} of {len(ratings)})" in text
    fits = across.fit_eras(df, n_boot=20)
    k = fits[(fits.primitive == "kernel_entry") & (fits.systems == "1995-96")].iloc[0]
    m = re.search(r"b = (-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\] for kernel entry", text)
    assert m and [float(x) for x in m.groups()] == [round(k.exponent, 2), round(k.ci_low, 2),
                                                    round(k.ci_high, 2)]
