"""The Ousterhout 1990 transcription, checked against the source text."""
from pathlib import Path

import pandas as pd
import pytest

from benchlib.errors import BenchlibError
from benchlib.papers import list_tables, load_table
from benchlib.papers.ousterhout1990.paper import (implied_mips, mips_of, mips_relative,
                                            transcribe)
from conftest import SHARED, needs_shared

SEED = SHARED / "seeds" / "000_58a604c5add5d59b.txt"
needs_seed = needs_shared("seeds", "000_58a604c5add5d59b.txt")


def test_hand_read_cells():
    hw = load_table("ousterhout1990", "table01")
    assert hw.set_index("abbrev").loc["DS5000", "mips"] == 18
    assert hw.set_index("abbrev").loc["MVAX2", "mips"] == 0.9
    assert hw.set_index("abbrev").loc["8800", "type"] == "CISC"
    t2 = load_table("ousterhout1990", "table02").set_index("configuration")
    assert t2.loc["DS5000 Ultrix 3.1D", "time_us"] == 11
    assert t2.loc["MVAX2 Ultrix 3.0", "time_us"] == 207
    assert t2.loc["HP835 HP-UX", "mips_relative_speed"] == 0.30
    assert t2.loc["RT-APC Mach 2.5", "time_us"] == 148
    t3 = load_table("ousterhout1990", "table03").set_index("configuration")
    assert t3.loc["DS5000 Ultrix 3.1D", "time_ms"] == 0.18
    assert t3.loc["Sun3 Sprite", "time_ms"] == 2.41
    assert t3.loc["MVAX2 Ultrix 3.0", "time_ms"] == 3.66
    assert t3.loc["SS1 Sprite", "mips_relative_speed"] == 0.28
    assert len(hw) == 10 and len(t2) == 16 and len(t3) == 16


@needs_seed
def test_csvs_equal_a_fresh_parse_of_the_seed():
    fresh = transcribe(SEED.read_text())
    for stem, df in fresh.items():
        pd.testing.assert_frame_equal(load_table("ousterhout1990", stem), df,
                                      check_dtype=False, obj=stem)


@pytest.mark.parametrize("table,column", [("table02", "time_us"), ("table03", "time_ms")])
def test_printed_mips_relative_column_is_reproduced(table, column):
    df = load_table("ousterhout1990", table)
    ref = df.loc[df.configuration == "MVAX2 Ultrix 3.0", column].item()
    for conf, value, printed in zip(df.configuration, df[column], df.mips_relative_speed):
        ours = mips_relative(value, mips_of(conf), ref)
        assert ours == pytest.approx(printed, rel=0.035), conf


def test_mips_relative_worked_example_and_rates():
    # The paper's own example: DS5000 getpid, (207/11)/(18/0.9) = 0.94
    assert mips_relative(11, 18, 207) == pytest.approx(0.941, abs=1e-3)
    # A rate (higher is better) twice the reference on a 2x-MIPS machine is 1.0
    assert mips_relative(2.0, 1.8, 1.0, higher_is_better=True) == pytest.approx(1.0)
    # Implied MIPS gives exactly 1.0 back
    m = implied_mips(0.1, 207)
    assert mips_relative(0.1, m, 207) == pytest.approx(1.0)


def test_unknown_table_and_paper_are_clear_errors():
    with pytest.raises(BenchlibError, match="tables:"):
        load_table("ousterhout1990", "table99")
    with pytest.raises(BenchlibError, match="unknown paper"):
        list_tables("nosuchpaper1999")


def test_table05_bcopy_cells_and_mbytes_per_mips():
    t5 = load_table("ousterhout1990", "table05").set_index("configuration")
    assert len(t5) == 15
    assert t5.loc["DS5000 Ultrix 3.1D", "cached_mb_s"] == 40
    assert t5.loc["HP835 HP-UX", "cached_mb_s"] == 17.4
    assert t5.loc["8800 Ultrix 3.0", "uncached_mb_s"] == 16
    assert t5.loc["MVAX2 Ultrix 3.0", "mbytes_per_mips"] == 3.7
    # The paper's rule, Uncached / MIPS, holds within rounding except for the
    # Sun4 and DS3100 rows, which are printed 5-14% low (see the data README).
    for conf, row in t5.iterrows():
        ours = row.uncached_mb_s / mips_of(conf)
        off = abs(ours / row.mbytes_per_mips - 1)
        if conf.startswith(("Sun4 Sprite", "Sun4 SunOS", "DS3100")):
            assert 0.04 < off < 0.15, conf
        else:
            assert off < 0.03, conf


# --- Tables 4, 6-10 -------------------------------------------------------

def _remote(conf):
    return any(w in conf.split() for w in ("NFS", "AFS", "Diskless", "Remote"))


def _rounds_to(ours, printed):
    """ours, rounded to the printed value's last decimal place, gives the
    printed value (the CSV loses trailing zeros, so "0.50" counts as 0.5)."""
    decimals = len(repr(float(printed)).split(".")[1])
    return abs(ours - printed) <= 0.5 * 10 ** -decimals + 1e-9


def test_every_csv_is_generated_by_transcribe():
    from benchlib.papers.ousterhout1990.paper import TABLES
    stems = {stem for stem, _ in TABLES.values()}
    assert stems == set(list_tables("ousterhout1990"))
    assert {4, 6, 7, 8, 9, 10} <= set(TABLES)


def test_rounding_helper():
    assert _rounds_to(1.145, 1.1) and _rounds_to(0.0938, 0.09)
    assert not _rounds_to(0.136, 0.12) and not _rounds_to(1.491, 1.4)


def test_table04_select_cells():
    t4 = load_table("ousterhout1990", "table04").set_index("configuration")
    assert len(t4) == 16
    assert list(t4.columns) == ["one_pipe_us", "ten_empty_us", "ten_full_us", "mips_relative_speed"]
    assert t4.loc["DS5000 Ultrix 3.1D", "one_pipe_us"] == 44
    assert t4.loc["M2000 RISC/os 4.0", "ten_empty_us"] == 10000
    assert t4.loc["M2000 RISC/os 4.0", "ten_full_us"] == 108
    assert t4.loc["8800 Ultrix 3.0", "ten_full_us"] == 310
    assert t4.loc["Sun3 SunOS 3.5", "ten_full_us"] == 1012
    assert t4.loc["MVAX2 Ultrix 3.0", "ten_full_us"] == 1820
    assert t4.loc["SS1 Sprite", "mips_relative_speed"] == 0.48


def test_table06_read_cells():
    t6 = load_table("ousterhout1990", "table06").set_index("configuration")
    assert len(t6) == 16
    assert t6.loc["M2000 RISC/os 4.0", "mb_s"] == 15.6
    assert t6.loc["DS5000 Ultrix 3.1D", "mb_s"] == 6.1
    assert t6.loc["DS5000 Ultrix 3.1D", "mips_relative_speed"] == 0.13
    assert t6.loc["MVAX2 Ultrix 3.0", "mb_s"] == 2.3
    assert t6.loc["Sun3 Sprite", "mips_relative_speed"] == 0.80
    # sorted by throughput, highest first
    assert t6.mb_s.is_monotonic_decreasing


def test_table08_andrew_relative_cells():
    t8 = load_table("ousterhout1990", "table08")
    assert len(t8) == 14
    # printed with the letter O ("4.O"), kept as printed
    assert t8.configuration.iloc[0] == "M2000 RISC/os 4.O Local"
    t8 = t8.set_index("configuration")
    assert t8.loc["8800 Ultrix", "mips_relative_local"] == 0.93
    assert pd.isna(t8.loc["Sun-4 Mach 2.5", "mips_relative_remote"])
    assert pd.isna(t8.loc["M2000 RISC/os 4.O Local", "remote_penalty_pct"])
    assert t8.loc["Sun3 Sprite", "mips_relative_remote"] == 1.9
    assert t8.loc["DS3100 Ultrix 3.1 NFS", "mips_relative_local"] == 0.50
    assert t8.loc["Sun4 SunOS 4.0.3 NFS", "remote_penalty_pct"] == 63
    assert t8.remote_penalty_pct.dropna().is_monotonic_increasing


def test_table09_open_close_cells():
    t9 = load_table("ousterhout1990", "table09").set_index("configuration")
    assert len(t9) == 27
    assert t9.loc["DS5000 Ultrix 3.1D Local", "foo_ms"] == 0.16
    assert t9.loc["M2000 RISC/os 4.0 Local", "abc_foo_ms"] == 0.83
    assert t9.loc["RT-APC Mach 2.5 AFS", "mips_relative_speed"] == 7.6
    assert t9.loc["Sun3 Sprite Diskless", "abc_foo_ms"] == 16.3
    assert t9.loc["MVAX2 Ultrix 3.0 NFS", "foo_ms"] == 36.0


def test_table10_create_delete_cells():
    t10 = load_table("ousterhout1990", "table10").set_index("configuration")
    assert len(t10) == 27
    assert t10.loc["DS3100 Sprite Local", "no_data_ms"] == 17
    assert t10.loc["DS3100 Sprite Remote", "kb100_ms"] == 68
    assert t10.loc["Sun3 Sprite Remote", "mips_relative_speed"] == 2.42
    # SunOS 4.0.3's 10-kbyte anomaly, as printed (prose: 67 ms vs 842 ms)
    assert t10.loc["Sun4 SunOS 4.0.3 Local", "no_data_ms"] == 67
    assert t10.loc["Sun4 SunOS 4.0.3 Local", "kb10_ms"] == 842
    assert t10.loc["SS1 SunOS 4.0.3 Local", "kb10_ms"] == 824
    assert t10.loc["SS1 SunOS 4.0.3 Local", "kb100_ms"] == 503
    assert t10.loc["DS3100 Ultrix 3.1 NFS", "kb100_ms"] == 3028
    assert t10.loc["MVAX2 Ultrix 3.0 NFS", "no_data_ms"] == 295
    # prose: 100 kbytes on DS3100-Ultrix-NFS is 45x DS3100-Sprite-Diskless
    ratio = t10.loc["DS3100 Ultrix 3.1 NFS", "kb100_ms"] / t10.loc["DS3100 Sprite Remote", "kb100_ms"]
    assert ratio == pytest.approx(45, abs=0.6)  # 3028/68 = 44.5
    # prose: empty file 60% slower on DS3100-Ultrix-Local than 8800-Ultrix-Local
    assert t10.loc["DS3100 Ultrix 3.1 Local", "no_data_ms"] / t10.loc["8800 Ultrix 3.0 Local", "no_data_ms"] == pytest.approx(1.6, abs=0.05)
    assert t10.no_data_ms.is_monotonic_increasing


# Printed MIPS-relative columns recomputed with the paper's rule.  A row
# passes if the recomputed value rounds to the printed one; the rows named
# here do not, and are checked to stay off (see the data README).
MIPS_RELATIVE_EXCEPTIONS = {
    "table04": set(),
    "table06": set(),
    "table09": {"Sun4 Sprite Diskless"},      # 0.664 printed 0.67
    "table10": {"M2000 RISC/os 4.0 Local",    # 0.136 printed 0.12
                "DS5000 Ultrix 3.1D Local"},  # 0.100 printed 0.09
}


@pytest.mark.parametrize("table,column,higher_is_better,split_remote", [
    ("table04", "ten_full_us", False, False),
    ("table06", "mb_s", True, False),
    ("table09", "foo_ms", False, True),
    ("table10", "no_data_ms", False, True),
])
def test_printed_mips_relative_tables_4_6_9_10(table, column, higher_is_better, split_remote):
    df = load_table("ousterhout1990", table)
    by = df.set_index("configuration")[column]
    if split_remote:
        ref_local, ref_remote = by["MVAX2 Ultrix 3.0 Local"], by["MVAX2 Ultrix 3.0 NFS"]
    else:
        ref_local = ref_remote = by["MVAX2 Ultrix 3.0"]
    off = set()
    for conf, value, printed in zip(df.configuration, df[column], df.mips_relative_speed):
        ref = ref_remote if _remote(conf) else ref_local
        ours = mips_relative(value, mips_of(conf), ref, higher_is_better=higher_is_better)
        assert ours == pytest.approx(printed, rel=0.15), conf  # never wildly off
        if not _rounds_to(ours, printed):
            off.add(conf)
    assert off == MIPS_RELATIVE_EXCEPTIONS[table]


# --- Table 7 (garbled) and Table 8 ---------------------------------------

T7_TOTALS = [72, 120, 120, 124, 127, 136, 159, 172, 184, 186, 187, 193, 205, 213,
             229, 244, 269, 305, 427, 433, 439, 475, 525, 635, 1416, 1707]

# Table 8 label -> (Table 7 Local row, Table 7 remote row); None where Table 8
# gives no value or (DS3100 Sprite Local) Table 7 cannot say which row it is.
T8_TO_T7 = {
    "M2000 RISC/os 4.O Local": ("M2000 RISC/os 4.0 Local", None),
    "8800 Ultrix": ("8800 Ultrix 3.0 Local", None),
    "Sun-4 Mach 2.5": ("Sun4 Mach 2.5 Local", None),
    "Sun3 Sprite": ("Sun3 Sprite Local", "Sun3 Sprite Diskless"),
    "DS3100 Sprite": (None, "DS3100 Sprite Diskless"),
    "Sun4 Sprite": ("Sun4 Sprite Local", "Sun4 Sprite Diskless"),
    "MVAX2 Ultrix 3.0 NFS": ("MVAX2 Ultrix 3.0 Local", "MVAX2 Ultrix 3.0 NFS"),
    "RT-APC Mach 2.5 AFS": ("RT-APC Mach 2.5 Local", "RT-APC Mach 2.5 AFS"),
    "DS3100 Ultrix 3.1 NFS": ("DS3100 Ultrix 3.1 Local", "DS3100 Ultrix 3.1 NFS"),
    "SS1 SunOS 4.0.3 NFS": ("SS1 SunOS 4.0.3 Local", "SS1 SunOS 4.0.3 NFS"),
    "Sun3 SunOS 3.5 NFS": ("Sun3 SunOS 3.5 Local", "Sun3 SunOS 3.5 NFS"),
    "DS3100 Mach 2.5 NFS": ("DS3100 Mach 2.5 Local", "DS3100 Mach 2.5 NFS"),
    "DS5000 Ultrix 3.1D NFS": ("DS5000 Ultrix 3.1D Local", "DS5000 Ultrix 3.1D NFS"),
    "Sun4 SunOS 4.0.3 NFS": ("Sun4 SunOS 4.0.3 Local", "Sun4 SunOS 4.0.3 NFS"),
}
# Printed Table 8 values the recovered Table 7 does not reproduce by rounding.
T8_LOCAL_OFF = {"Sun3 SunOS 3.5 NFS"}     # 1416/475/2 = 1.49, printed 1.4
T8_PENALTY_OFF = {"DS3100 Mach 2.5 NFS"}  # 205/136 = +50.7%, printed 50


def _t7_total(label):
    t7 = load_table("ousterhout1990", "table07")
    if label is None:
        return 120.0  # DS3100 Sprite Local: total 120 s, row ambiguous
    return t7.loc[t7.configuration == label, "total_s"].item()


def test_table07_andrew_recovered_cells():
    t7 = load_table("ousterhout1990", "table07")
    assert list(t7.columns) == ["configuration", "copy_s", "compile_s", "total_s", "recovered"]
    assert t7.total_s.tolist() == T7_TOTALS
    known = t7.dropna(subset=["copy_s"])
    assert len(known) == 25
    assert (known.copy_s + known.compile_s == known.total_s).all()
    assert t7.recovered.notna().all()
    by = t7.dropna(subset=["configuration"]).set_index("configuration")
    assert len(by) == 24 and by.index.is_unique
    assert by.loc["M2000 RISC/os 4.0 Local", ["copy_s", "compile_s", "total_s"]].tolist() == [13, 59, 72]
    assert by.loc["DS3100 Mach 2.5 Local", ["copy_s", "compile_s"]].tolist() == [29, 107]
    assert by.loc["DS5000 Ultrix 3.1D NFS", ["copy_s", "compile_s"]].tolist() == [68, 118]
    assert by.loc["Sun3 SunOS 3.5 NFS", ["copy_s", "compile_s"]].tolist() == [157, 478]
    assert by.loc["MVAX2 Ultrix 3.0 Local", ["copy_s", "compile_s"]].tolist() == [214, 1202]
    assert by.loc["MVAX2 Ultrix 3.0 NFS", ["copy_s", "compile_s"]].tolist() == [298, 1409]
    # the two 120 s rows: neither is named; one lost its copy/compile split
    r120 = t7[t7.total_s == 120]
    assert r120.configuration.isna().all()
    assert r120.copy_s.tolist()[0] == 22 and r120.compile_s.tolist()[0] == 98
    assert r120.copy_s.isna().tolist() == [False, True]
    assert all("unknown" in s for s in r120.recovered)
    assert "1.4" in by.loc["Sun3 SunOS 3.5 Local", "recovered"]


def test_table07_prose_claims():
    # "the Sprite-DS3100 combination ran the benchmark remotely 45% faster
    # than Ultrix-DS5000"; "DS3100-Ultrix-Local ... 78% slower than
    # DS3100-Sprite-Local"; remote penalties "MVAX2 21%, Sun3 34%, Sun4 63%"
    # (186/127 = 1.46: "45%" is the author's rounding or unrounded times)
    assert _t7_total("DS5000 Ultrix 3.1D NFS") / _t7_total("DS3100 Sprite Diskless") == pytest.approx(1.45, abs=0.02)
    assert _t7_total("DS3100 Ultrix 3.1 Local") / _t7_total(None) == pytest.approx(1.78, abs=0.01)
    for local, remote, pct in [("MVAX2 Ultrix 3.0 Local", "MVAX2 Ultrix 3.0 NFS", 21),
                               ("Sun3 SunOS 3.5 Local", "Sun3 SunOS 3.5 NFS", 34),
                               ("Sun4 SunOS 4.0.3 Local", "Sun4 SunOS 4.0.3 NFS", 63)]:
        assert round(100 * (_t7_total(remote) / _t7_total(local) - 1)) == pct
    # "... about 24% slower than DS3100-Mach-Local" is NOT reproduced: Table 8's
    # 0.78 and 0.50 put DS3100 Mach Local at 136 s and DS3100 Ultrix Local at 213 s.
    ratio = _t7_total("DS3100 Ultrix 3.1 Local") / _t7_total("DS3100 Mach 2.5 Local")
    assert ratio == pytest.approx(1.57, abs=0.01)


def test_table08_recomputed_from_recovered_table07():
    t8 = load_table("ousterhout1990", "table08")
    ref_l, ref_r = _t7_total("MVAX2 Ultrix 3.0 Local"), _t7_total("MVAX2 Ultrix 3.0 NFS")
    local_off, penalty_off = set(), set()
    for _, row in t8.iterrows():
        local, remote = T8_TO_T7[row.configuration]
        mips = mips_of(row.configuration)
        tl = _t7_total(local)
        ours = mips_relative(tl, mips, ref_l)
        assert ours == pytest.approx(row.mips_relative_local, rel=0.07), row.configuration
        if not _rounds_to(ours, row.mips_relative_local):
            local_off.add(row.configuration)
        if remote is None:
            assert pd.isna(row.mips_relative_remote) and pd.isna(row.remote_penalty_pct)
            continue
        tr = _t7_total(remote)
        assert _rounds_to(mips_relative(tr, mips, ref_r), row.mips_relative_remote), row.configuration
        penalty = 100 * (tr / tl - 1)
        assert penalty == pytest.approx(row.remote_penalty_pct, abs=1.0), row.configuration
        if round(penalty) != row.remote_penalty_pct:  # printed as whole percent
            penalty_off.add(row.configuration)
    assert local_off == T8_LOCAL_OFF
    assert penalty_off == T8_PENALTY_OFF


def test_table07_configurations_are_the_only_fit():
    """Each Table 8 configuration fits exactly one (local, remote) pair of
    Table 7 totals -- the one the CSV names -- when its printed MIPS-relative
    speeds and remote penalty must be reproduced (the named exceptions
    relaxed: Sun3 SunOS local speed not used, DS3100 Mach penalty within 1)."""
    t8 = load_table("ousterhout1990", "table08")
    ref_l, ref_r = _t7_total("MVAX2 Ultrix 3.0 Local"), _t7_total("MVAX2 Ultrix 3.0 NFS")
    totals = sorted(set(T7_TOTALS))
    for _, row in t8.iterrows():
        conf, mips = row.configuration, mips_of(row.configuration)
        local, remote = T8_TO_T7[conf]
        fits_l = [t for t in totals if conf in T8_LOCAL_OFF
                  or _rounds_to(mips_relative(t, mips, ref_l), row.mips_relative_local)]
        if remote is None:
            assert fits_l == [_t7_total(local)], conf
            continue
        slack = 1.0 if conf in T8_PENALTY_OFF else 0.5
        fits = [(tl, tr) for tl in fits_l for tr in totals
                if _rounds_to(mips_relative(tr, mips, ref_r), row.mips_relative_remote)
                and abs(100 * (tr / tl - 1) - row.remote_penalty_pct) <= slack]
        assert fits == [(_t7_total(local), _t7_total(remote))], conf


@needs_seed
def test_table07_recovery_rejects_a_pair_list_that_does_not_fit():
    text = SEED.read_text()
    assert "(seconds) (seconds) 13 59 22 98" in text
    with pytest.raises(ValueError, match="Table 7"):
        transcribe(text.replace("(seconds) (seconds) 13 59 22 98", "(seconds) (seconds) 13 59 22 99"))


def test_by_type_reads_the_ranges_the_prose_summarises():
    from benchlib.papers.ousterhout1990.paper import by_type

    risc = by_type("table02", "mips_relative_speed", "RISC")
    assert (risc.min(), risc.max()) == (0.3, 0.94) and "DS5000 Ultrix 3.1D" in risc.index
    cisc = by_type("table05", "mbytes_per_mips", "CISC")
    assert cisc.max() == 3.7 and "MVAX2 Ultrix 3.0" in cisc.index
    assert not set(risc.index) & set(by_type("table02", "mips_relative_speed", "CISC").index)
