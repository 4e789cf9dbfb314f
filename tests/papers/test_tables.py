"""The machinery every paper shares: a paper's table with this machine's
rows beside it, on made-up tables with known answers."""
import pandas as pd

from benchlib.papers import beside_paper


def test_this_machine_s_rows_go_in_sorted_position():
    paper = pd.DataFrame({"system": ["A", "B", "C"], "us": [30.0, 10.0, 20.0]})
    ours = pd.DataFrame({"system": ["here"], "us": [15.0]})
    t = beside_paper(paper, ours, "us")
    assert list(t.system) == ["B", "here", "C", "A"]
    assert list(t.source) == ["paper", "this machine", "paper", "paper"]
    # descending (higher is better): the same rows, the other way round
    t = beside_paper(paper, ours, "us", ascending=False)
    assert list(t.system) == ["A", "C", "here", "B"]
    # nothing of either input is lost or changed
    assert len(t) == 4 and sorted(t.us) == [10.0, 15.0, 20.0, 30.0]
    assert list(paper.columns) == ["system", "us"]


# ------------------------------------------------------------ every paper's declaration of its cells

import pytest  # noqa: E402

from benchlib.errors import BenchlibError  # noqa: E402
from benchlib.papers import PAPERS, Column, Table, TableRows, cells, column_params, load_table, paper_table  # noqa: E402
from benchlib.papers.tables import matches, sized_bytes, unit_of  # noqa: E402
from benchlib.measuring.registry import get_benchmark  # noqa: E402

# benchmark unit -> column unit: the factor a Column's scale must be
FACTORS = {("us", "us"): 1.0, ("us", "ms"): 1e-3, ("ms", "ms"): 1.0, ("ms", "us"): 1e3, ("ns", "ns"): 1.0,
           ("s", "s"): 1.0, ("MB/s", "MB/s"): 1.0, ("MB/s", "Mbit/s"): 8.0}
# the thread's tables list tests as rows: this machine's figures are named by test, not CSV column
TRANSPOSED = {("mach1989", "unix_calls"), ("mach1989", "andrew")}
MACHINE = {"l2_bytes": 2 << 20, "l3_bytes": 32 << 20}


@pytest.mark.parametrize("pid", PAPERS)
def test_every_declared_cell_is_a_paper_column_a_benchmark_and_a_unit(pid):
    for name, spec in cells(pid).items():
        assert spec.name == name and spec.paper == pid
        csv = load_table(pid, spec.csv)
        assert spec.label_column == csv.columns[0], name
        assert spec.sort_by is None or spec.sort_by in csv.columns, name
        assert set(spec.drop) <= set(csv.columns), name
        for row, cols in spec.rows.items():
            for column, col in cols.items():
                if (pid, name) not in TRANSPOSED:
                    assert column in csv.columns, (name, column)
                b = get_benchmark(col.benchmark)
                b.resolve(column_params(col, "/tmp", MACHINE))   # the parameters are valid
                assert col.scale == FACTORS[(b.unit, unit_of(column))], (name, column)


def test_a_size_from_the_caches_is_read_or_an_error_never_a_default():
    col = Column("bcopy", {}, sized={"size_bytes": "uncached"})
    assert column_params(col, machine=MACHINE)["size_bytes"] == 128 << 20   # 4 x 32 MiB
    assert column_params(col, machine=MACHINE, profile="smoke")["size_bytes"] == 16 << 20
    assert sized_bytes("cached", MACHINE) == 512 << 10
    with pytest.raises(BenchlibError, match="cache sizes are unknown"):
        column_params(col, machine={})
    with pytest.raises(BenchlibError, match="unknown size rule"):
        sized_bytes("big", MACHINE)


def test_a_stored_result_matches_its_declared_cell():
    cached = Column("bcopy", {}, sized={"size_bytes": "cached"})
    uncached = Column("bcopy", {}, sized={"size_bytes": "uncached"})
    pair = Column("pipe_latency", {}, pin="placement")
    assert matches(cached, {"size_bytes": 4096, "cpu": 0}, MACHINE)
    assert not matches(cached, {"size_bytes": 8 << 20}, MACHINE)
    assert matches(uncached, {"size_bytes": 256 << 20}, MACHINE)
    assert not matches(uncached, {"size_bytes": 8 << 20}, MACHINE)
    assert not matches(uncached, {"size_bytes": 256 << 20}, {})     # caches unknown: no match
    assert matches(pair, {"placement": "same_cpu"}, {})
    assert not matches(pair, {"placement": "unpinned"}, {})
    op = Column("syscall", {"op": "getpid"})
    assert matches(op, {"op": "getpid", "cpu": 3}, {}) and not matches(op, {"op": "getppid"}, {})


def test_unit_of_reads_the_column_name():
    assert [unit_of(c) for c in ("time_us", "time_ms", "main_memory_ns", "tcp_mb_s",
                                 "bandwidth_mbit_s", "total_s")] == \
        ["us", "ms", "ns", "MB/s", "Mbit/s", "s"]
    with pytest.raises(BenchlibError):
        unit_of("mips")


def test_paper_table_joins_by_the_declaration(tmp_path, monkeypatch):
    (tmp_path / "papers" / "ousterhout1990").mkdir(parents=True)
    (tmp_path / "papers" / "ousterhout1990" / "t_x.csv").write_text(
        "system,us,row\nA,30,0\nB,10,1\n")
    monkeypatch.setenv("BENCHLIB_DATA_DIR", str(tmp_path))
    spec = Table("t", "ousterhout1990", "t_x", {}, sort_by="us", drop=("row",))
    t = paper_table(TableRows("t", pd.DataFrame({"system": ["here"], "us": [20.0]}), spec=spec))
    assert list(t.system) == ["B", "here", "A"] and "row" not in t.columns
    with pytest.raises(BenchlibError, match="name no paper table"):
        paper_table(TableRows("t", pd.DataFrame()))
