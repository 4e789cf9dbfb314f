"""The Mach 1989 thread's tables, checked against the source text, and the
CPU-speed normalisation."""
from pathlib import Path

import math

import pandas as pd
import pytest

from benchlib.papers import list_tables
from benchlib.papers import mach1989 as m
from conftest import SHARED, needs_shared

SEED = SHARED / "seeds" / "003_0d54e09e956e0acf.txt"
needs_seed = needs_shared("seeds", "003_0d54e09e956e0acf.txt")


def test_every_table_is_there():
    assert set(list_tables("mach1989")) == set(m.TABLES)


def test_hand_read_cells():
    ipc = m.load("ipc_tests").set_index("test")
    assert len(ipc) == 12 and (ipc.iterations == 10000).all()
    assert tuple(ipc.loc["syscall", ["elapsed_ms", "user_ms", "system_ms"]]) == (228, 31, 197)
    assert tuple(ipc.loc["remoteNull", ["elapsed_ms", "user_ms", "system_ms"]]) == (1985, 15, 1125)
    assert ipc.loc["localBigInOut", "elapsed_ms"] == 390
    assert ipc.loc["remoteBigIn", "system_ms"] == 1234
    per = m.load("ipc_tests_per_call").set_index("test")
    assert tuple(per.loc["remoteNull"]) == (198, 1, 112)
    assert tuple(per.loc["localBigIn"]) == (20, 20, 0)
    net = m.load("network_ipc_per_call").set_index("test")
    assert tuple(net.loc["remoteNull"]) == (6563, 15, 203)
    assert net.loc["remoteBigIn", "elapsed_us"] == 7172 and len(net) == 5
    calls = m.load("unix_calls").set_index("test")
    assert calls.loc["touch", "ultrix_ms"] == 0.566 and calls.loc["touch", "mach_right_now_ms"] == 0.440
    assert calls.loc["fork", "mach_ms"] == 4.218 and math.isnan(calls.loc["exec", "mach_right_now_ms"])
    progs = m.load("unix_programs").set_index("test")
    assert progs.loc["getpid", "mach_right_now_s"] == 1.9 and progs.loc["pgtest", "mach_s"] == 1.3
    kernel = m.load("compile_kernel").set_index("configuration")
    assert kernel.loc["Mach", "user_s"] == 1471.6 and kernel.loc["Mach-nbc", "block_inputs"] == 291
    small = m.load("compile_small").set_index("row")
    assert small.loc["Elapsed", "ultrix_s"] == 17.9 and small.loc["Breakdown 8", "mach_s"] == 2.4
    andrew = m.load("andrew").set_index("phase")
    assert andrew.loc["Phase IV", "ultrix_s"] == 18 and andrew.loc["Phase V", "what"] == "Compilation"
    rpc = m.load("rpc_systems")
    assert list(rpc.system) == ["Cedar", "Amoeba", "V", "Topaz", "Sprite", "Topaz"]
    assert rpc.time_ms.tolist() == [1.1, 1.4, 2.5, 2.7, 2.8, 4.8]
    assert rpc.hardware.iloc[3] == "Firefly (5-way multi)"


def test_per_call_table_is_the_totals_over_10000_truncated():
    totals = m.load("ipc_tests").set_index("test")
    per = m.load("ipc_tests_per_call").set_index("test")
    assert list(totals.index) == list(per.index) == list(m.IPC_TESTS)
    for col in ("elapsed", "user", "system"):
        for test in totals.index:
            assert m.per_call_us(totals.loc[test, f"{col}_ms"]) == per.loc[test, f"{col}_us"], (test, col)


def test_1989_times_were_counted_in_clock_ticks():
    t = m.load("ipc_tests").set_index("test")
    off = {(test, c): abs(m.ticks(t.loc[test, c]) - round(m.ticks(t.loc[test, c])))
           for test in t.index for c in ("elapsed_ms", "user_ms", "system_ms")}
    exceptions = {k for k, v in off.items() if v > 0.05}
    assert exceptions == {("syscall", "elapsed_ms"), ("syscall", "system_ms")}
    assert t.loc["syscall", "elapsed_ms"] == t.loc["syscall", "user_ms"] + t.loc["syscall", "system_ms"]
    # the network table: whole ticks when read as ms totals over 1000 calls
    net = m.load("network_ipc_per_call")
    for c in ("elapsed_us", "user_us", "system_us"):
        for v in net[c]:
            assert abs(m.ticks(v) - round(m.ticks(v))) < 0.07, (c, v)


def test_printed_sums_and_the_utilization_that_disagrees():
    andrew = m.load("andrew").set_index("phase")
    for col in ("ultrix_s", "mach_s"):
        assert andrew[col].drop("Total elapsed").sum() == andrew.loc["Total elapsed", col]
    small = m.load("compile_small").set_index("row")
    gap = small.loc["Elapsed"] - small.drop("Elapsed").sum()
    assert gap.ultrix_s == pytest.approx(0.9) and gap.mach_s == pytest.approx(1.0)
    k = m.load("compile_kernel").set_index("configuration")
    recomputed = ((k.user_s + k.system_s) / k.elapsed_s * 100).apply(math.floor)
    assert recomputed["Ultrix"] == k.loc["Ultrix", "utilization_pct"]
    assert recomputed["Mach"] == k.loc["Mach", "utilization_pct"]
    assert recomputed["Mach-nbc"] == 79 != k.loc["Mach-nbc", "utilization_pct"]  # printed 77


@needs_seed
def test_csvs_equal_a_fresh_parse_and_the_quotes_agree():
    text = SEED.read_text()
    fresh = m.transcribe(text)
    assert set(fresh) == set(m.TABLES)
    for stem, df in fresh.items():
        pd.testing.assert_frame_equal(m.load(stem), df, check_dtype=False, obj=stem)
    quoted = m.quoted_copies(text)
    pd.testing.assert_frame_equal(quoted["ipc_tests"], fresh["ipc_tests"], check_dtype=False)
    pd.testing.assert_frame_equal(quoted["rpc_systems"], fresh["rpc_systems"], check_dtype=False)


def test_every_hardware_has_a_rating_within_its_range():
    for hw in m.load("rpc_systems").hardware:
        g = m.rating(hw)
        assert 0 < g.low <= g.mips <= g.high and g.basis
    assert m.rating("pmax").mips == 12.0
    with pytest.raises(KeyError, match="known"):
        m.rating("Cray-3")


def test_normalisation_and_tanenbaums_reading():
    # time x MIPS: the same work on a 3x faster CPU takes a third of the time
    assert m.vax780_ms(1.0, 3.0) == pytest.approx(m.vax780_ms(3.0, 1.0))
    ranking = m.rpc_ranking()
    paper = ranking.set_index(["system", "hardware"])
    # raw, Cedar (1.1 ms) beats Amoeba (1.4 ms); per unit of CPU speed Amoeba beats
    # Cedar, as Tanenbaum said, and every other network RPC on one CPU
    assert paper.loc[("Cedar", "Dorado"), "rank_by_time"] < paper.loc[("Amoeba", "Tadpole (68020)"), "rank_by_time"]
    network = ranking[ranking.path.str.startswith("between") & (ranking.hardware != "Firefly (5-way multi)")]
    assert network.iloc[0].system == "Amoeba" and network.iloc[-1].system == "Mach 2.5"
    assert ranking.vax780_ms.is_monotonic_increasing
    assert (ranking.vax780_ms_low <= ranking.vax780_ms).all() and (ranking.vax780_ms <= ranking.vax780_ms_high).all()
    mach = ranking[ranking.system == "Mach 2.5"].set_index("path")
    assert mach.loc["between two machines (Ethernet)", "time_ms"] == pytest.approx(6.563)
    assert mach.loc["one machine, two processes", "vax780_ms"] == pytest.approx(0.198 * 12)


def test_ranking_takes_this_machines_rows():
    extra = pd.DataFrame([{"system": "x", "hardware": "here", "path": "one machine, two processes",
                           "time_ms": 0.005, "mips": 7000.0, "mips_low": 5000.0, "mips_high": 9000.0}])
    r = m.rpc_ranking(extra)
    row = r[r.source == "this machine"].iloc[0]
    assert row.vax780_ms == pytest.approx(35.0) and row.vax780_ms_low == pytest.approx(25.0)
    assert row.rank_by_time == 1  # the fastest in raw time ...
    assert row.rank_normalised > 1  # ... but not per unit of CPU speed


def test_remote_over_local_ratios():
    r = m.rpc_to_local_ratios(m.load("ipc_tests_per_call")).set_index("operation")
    assert r.loc["BigOut", "remote_over_local"] == pytest.approx(201 / 20)
    assert math.isinf(r.loc["Null", "remote_over_local"])  # local null below the clock's tick


def test_cross_check_with_ousterhout():
    c = m.ousterhout_cross_check().set_index("quantity")
    assert c.loc["system call (us)", "forin_1989"] == 22 and c.loc["system call (us)", "ousterhout_1990"] == 23
    assert c.loc["Andrew phases I-IV (s)", "forin_1989"] == c.loc["Andrew phases I-IV (s)", "ousterhout_1990"] == 29
