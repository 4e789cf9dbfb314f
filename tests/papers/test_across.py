"""The cross-paper dataset: every row is a cell of a paper's CSV with the
same value, the counts are the CSVs' non-empty cells, the CPU figures
carry their basis, and the store reader picks the right results."""
import math

import pandas as pd
import pytest

from benchlib.errors import BenchlibError
from benchlib.papers import PAPERS, across, across_today, cell, data_dir


@pytest.fixture(scope="module")
def df():
    return across.dataset()


def _csv(paper, table):
    # located independently of across.read_table: the data folder named by the paper's id
    return pd.read_csv(data_dir() / "papers" / paper / f"{table}.csv")


def _untraced(df) -> list:
    """Rows that are not an existing cell of their paper's CSV with the same value."""
    tables, bad = {}, []
    for r in df.itertuples():
        key = (r.paper, r.table)
        if key not in tables:
            tables[key] = _csv(*key)
        t = tables[key]
        ok = (0 <= r.row_index < len(t) and str(t.iat[r.row_index, 0]) == r.row_label
              and all(c in t.columns for c in r.column.split("+")))
        if ok:
            cells = [t.at[r.row_index, c] for c in r.column.split("+")]
            ok = all(pd.notna(c) for c in cells) and math.isclose(
                sum(float(c) for c in cells), r.value, rel_tol=1e-12)
        if not ok:
            bad.append(r)
    return bad


def test_every_row_is_an_existing_cell_with_the_same_value(df):
    assert len(df) > 600
    assert _untraced(df) == []


@pytest.mark.parametrize("change", ["value", "row_index", "column", "row_label"])
def test_the_trace_check_catches_a_changed_row(df, change):
    bad = df.head(5).copy()
    bad.loc[bad.index[2], change] = {"value": bad["value"].iloc[2] * 1.01, "row_index": 10 ** 6,
                                     "column": "no_such_column", "row_label": "Nobody"}[change]
    assert len(_untraced(bad)) == 1


@pytest.mark.parametrize("paper,table,column,primitive", [
    ("ousterhout1990", "table02_getpid", "time_us", "kernel_entry"),
    ("ousterhout1990", "table05_bcopy", "uncached_mb_s", "memory_copy_uncached"),
    ("mcvoy1996", "table_null_syscall", "null_syscall_us", "kernel_entry"),
    ("mcvoy1996", "table_context_switch", "p2_0kb_us", "context_switch"),
    ("mcvoy1996", "table_memory_latency", "main_memory_ns", "main_memory_latency"),
    ("mcvoy1996", "table_tcp_bandwidth", "tcp_mb_s", "tcp_bandwidth_local"),
    ("laibaker1996", "table_system_call", "time_us", "kernel_entry"),
])
def test_counts_are_the_non_empty_cells(df, paper, table, column, primitive):
    expected = int(_csv(paper, table)[column].notna().sum())
    got = df[(df.paper == paper) & (df.table == table) & (df.primitive == primitive)]
    assert len(got) == expected


def test_counts_per_paper_and_primitive(df):
    per_paper, per_prim = across.counts(df)
    assert list(per_paper.index) == list(across.PAPERS)
    assert per_paper["chen1994"] == 0 and per_paper.sum() == len(df)
    # Ousterhout's Table 10 splits into local and remote rows: 27 rows in all
    t10 = len(_csv("ousterhout1990", "table10_create_delete"))
    assert (per_prim.loc["file_create_delete", "ousterhout1990"]
            + per_prim.loc["file_create_delete_remote", "ousterhout1990"]) == t10
    assert per_prim["all"].sum() == len(df)


def test_known_cells(df):
    def one(**kw):
        m = pd.Series(True, index=df.index)
        for k, v in kw.items():
            m &= df[k] == v
        assert m.sum() == 1, kw
        return df[m].iloc[0]

    r = one(paper="ousterhout1990", row_label="DS3100 Mach 2.5", primitive="kernel_entry")
    assert r.value == 23 and r.cpu_rating == 12 and "Table 1" in r.cpu_rating_basis
    assert r.cpu_rating_kind == "VAX-MIPS" and r.cpu_rating_status == "rated"
    r = one(paper="ousterhout1990", row_label="MVAX2 Ultrix 3.0", primitive="pipe_round_trip")
    assert r.value == 3.66 and r.unit == "ms" and r.value_std == pytest.approx(3660)
    r = one(paper="mach1989", table="ipc_tests_per_call", primitive="kernel_entry")
    assert r.value == 22 and r.cpu_rating == 12 and r.machine == "DECstation 3100"
    r = one(paper="mach1989", row_label="Cedar", primitive="rpc_round_trip_network")
    assert r.value_std == pytest.approx(1100) and r.cpu_rating == pytest.approx(5.4)
    r = one(paper="mcvoy1996", table="table_file_create_delete", row_index=0)
    assert r.column == "create_ms+delete_ms" and r.value == pytest.approx(1.5)
    r = one(paper="laibaker1996", row_label="FreeBSD", primitive="tcp_bandwidth_local")
    assert r.value == 65.95 and r.value_std == pytest.approx(65.95 / 8) and r.cpu_mhz == 100
    r = one(paper="mcvoy1996", table="table_remote_network", row_label="SunOS-5.5 sun4u@167")
    assert r.cpu_mhz == 167 and r.locality == "network" and "100baseT" in r.conditions


def test_cpu_figures_carry_their_source(df):
    rated = df[df.cpu_rating.notna()]
    assert set(rated.paper) == {"ousterhout1990", "mach1989", "mcvoy1996", "laibaker1996"}
    assert (rated.cpu_rating_basis.str.len() > 10).all()
    assert set(rated.cpu_rating_status) <= {"rated", "estimate"}
    assert set(rated.cpu_rating_kind) == {"VAX-MIPS", "SPECint92"}
    assert (rated[rated.paper.isin(across.RATED_PAPERS)].cpu_rating_kind == "SPECint92").all()
    assert (df[df.cpu_rating.isna()].cpu_rating_basis == "").all()
    assert (df[df.cpu_rating.isna()].cpu_unrated_reason.str.len() > 20).all()
    assert (df[df.cpu_rating.notna()].cpu_unrated_reason == "").all()
    clocked = df[df.cpu_mhz.notna()]
    # the Sun remote row, Lai & Baker's 6, lmbench's 12 Linux i686 rows and the 12 rows each of
    # the three systems whose board or model string fixes the clock (IP26, IP25, 9000/819)
    assert len(clocked) == 55 and (clocked.cpu_mhz_source.str.len() > 10).all()
    by_board = clocked[clocked.cpu_mhz_source.str.startswith("not printed by the paper")]
    assert set(by_board.row_label) == {"IRIX64-601 IP26", "IRIX64 IP25", "HP-UX 9000/819"}
    ctx = clocked[clocked.table == "table_context_switch"].set_index("row_label").cpu_mhz
    assert ctx.to_dict() == {"Linux i686": 167, "IRIX64-601 IP26": 75, "IRIX64 IP25": 195,
                             "HP-UX 9000/819": 100}


def test_two_papers_on_one_machine_both_stay(df):
    d = across.disagreements(df)
    pair = d[(d.machine == "DECstation 3100") & (d.primitive == "kernel_entry")]
    assert sorted(pair.paper) == ["mach1989", "ousterhout1990"]
    assert sorted(pair.value_std) == [22, 23]


def test_paper_ids_and_data_folders_agree():
    folders = {p.name for p in (data_dir() / "papers").iterdir() if p.is_dir()} - {"across"}
    assert folders == set(PAPERS) and across.PAPERS is PAPERS   # one list of papers
    assert set(across.ROWS) <= set(PAPERS)
    assert set(across.provenance().paper) <= set(PAPERS)
    with pytest.raises(BenchlibError, match="unknown paper"):
        across.read_table("nosuch1999", "table01")


def test_a_provenance_line_that_matches_nothing_is_an_error(monkeypatch):
    bad = pd.DataFrame([{"paper": "mcvoy1996", "table": "table_pipe_latency",
                         "row_label": "No Such System", "row_index": pd.NA,
                         "field": "cpu_mhz", "value": 1.0, "source": "x"}])
    monkeypatch.setattr(across, "provenance", lambda: bad)
    with pytest.raises(BenchlibError, match="no row matches"):
        across.dataset()


def test_eras():
    assert across.era_of(1989) == "1989-90" and across.era_of(1996) == "1995-96"
    assert across.era_of(2026) == "today" and across.era_of(1993) == "other"


# ------------------------------------------------------------ today's rows from a store

def _rec(benchmark, median, params, host="h1", ts="2026-01-01T00:00:00", profile="quick",
         l3=32 << 20):
    return {"benchmark": benchmark, "median": median, "params": params, "profile": profile,
            "timestamp": ts, "machine": {"hostname": host, "cpu_model": "X", "kernel": "6.1",
                                         "l2_bytes": 1 << 20, "l3_bytes": l3}}


def test_from_store_takes_the_latest_matching_result_and_the_rating():
    recs = [
        _rec("syscall", 0.20, {"op": "getpid"}, ts="2026-01-01T00:00:00"),
        _rec("syscall", 0.10, {"op": "getpid"}, ts="2026-02-01T00:00:00"),
        _rec("syscall", 0.05, {"op": "getpid"}, ts="2026-03-01T00:00:00", profile="smoke"),
        _rec("syscall", 9.00, {"op": "write"}, ts="2026-04-01T00:00:00"),
        _rec("bcopy", 5000.0, {"size_bytes": 128 << 20}),          # 4x a 32 MiB L3: uncached
        _rec("bcopy", 9999.0, {"size_bytes": 8 << 20}),            # neither cached nor beyond
        _rec("integer_speed", 9400.0, {}),
        _rec("pipe_latency", 3.0, {"placement": "same_cpu"}, host="h2"),
    ]
    rows = across_today.from_store(pd.DataFrame({"record": recs}))
    h1 = rows[rows.machine == "h1"].set_index("primitive")
    assert h1.loc["kernel_entry", "value"] == 0.10            # latest non-smoke getpid
    assert h1.loc["memory_copy_uncached", "value"] == 5000.0
    assert "memory_copy_cached" not in h1.index
    assert h1.loc["kernel_entry", "cpu_rating"] == pytest.approx(across_today.vax_mips(9400.0))
    assert h1.loc["kernel_entry", "cpu_rating_kind"] == "VAX-MIPS (measured)"     # today's own
    assert h1.loc["kernel_entry", "year"] == 2026
    h2 = rows[rows.machine == "h2"]
    assert list(h2.primitive) == ["pipe_round_trip"] and math.isnan(h2.cpu_rating.iloc[0])
    assert h2.cpu_rating_status.iloc[0] == "unrated" and "integer_speed" in h2.cpu_unrated_reason.iloc[0]
    assert across_today.missing(rows, "h2") == [p for p in across_today.CELLS
                                                 if p != "pipe_round_trip"]


def test_from_store_can_skip_smoke_results():
    recs = [_rec("syscall", 0.05, {"op": "getpid"}, profile="smoke"),
            _rec("integer_speed", 9400.0, {}, profile="smoke")]
    assert across_today.from_store(pd.DataFrame({"record": recs}), skip_profiles=("smoke",)).empty
    kept = across_today.from_store(pd.DataFrame({"record": recs}))
    assert kept["value"].tolist() == [0.05]


def test_from_store_of_nothing_is_empty():
    assert across_today.from_store(pd.DataFrame()).empty


def test_every_measure_is_a_primitive_and_a_declared_cell():
    assert set(across_today.CELLS) <= set(across.PRIMITIVES)
    for prim, where in across_today.CELLS.items():
        assert across_today.column_of(prim) is cell(*where)      # read, not re-declared
        assert across_today.PRIMITIVES[prim][0] == across_today.unit(prim)


def test_a_size_the_caches_do_not_give_stops_the_measurement(monkeypatch):
    monkeypatch.setattr(across_today, "machine_info", lambda: {"hostname": "h"})
    monkeypatch.setattr(across_today, "run", lambda *a, **k: pytest.fail("nothing is measured"))
    with pytest.raises(BenchlibError, match="cache sizes are unknown"):
        across_today.measure_this_machine("quick", only=["memory_copy_uncached"], rating=1.0,
                                          progress=False)


def test_the_store_read_is_the_one_given_and_a_foreign_file_is_named(tmp_path):
    """A recorded result file and a foreign JSON file under the folder given:
    the first is read, the second skipped with one line naming it."""
    import shutil

    good = sorted((data_dir() / "class").glob("recorded-here_*.results.json"))[0]
    (tmp_path / "run" / "quickstart").mkdir(parents=True)
    shutil.copy(good, tmp_path / "run" / "quickstart" / good.name)
    (tmp_path / "fixture").mkdir()
    foreign = tmp_path / "fixture" / "results.json"
    foreign.write_text('{"not": "a result file"}')
    said = []
    stored = across_today.read_store(tmp_path / "run", say=said.append)
    assert said == []                     # the folder given, not its parent
    stored = across_today.read_store(tmp_path, say=said.append)
    assert len(stored) == len(across_today.load_results(good)) > 0
    assert set(stored["benchmark"]) == {"syscall", "pipe_latency", "process_creation", "bcopy"}
    assert len(said) == 1 and str(foreign) in said[0]
    with pytest.raises(BenchlibError, match="not a benchlib result file"):
        across_today.load_results(tmp_path)   # without on_error a foreign file still stops

