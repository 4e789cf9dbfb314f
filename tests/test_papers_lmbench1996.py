"""The lmbench 1996 tables and context-switch figure, checked against the
troff sources in ../shared/reference/lmbench.

Expected numbers below were read by eye from the .tbl/.pic text, so these
tests run without ../shared; the fresh-parse comparison needs it."""
import math
from pathlib import Path

import pandas as pd
import pytest

from benchlib.errors import BenchlibError
from conftest import SHARED, needs_shared
from benchlib.papers import lmbench1996 as L

REPO = Path(__file__).resolve().parents[1]
SOURCE = SHARED / "reference" / "lmbench"
needs_source = needs_shared("reference", "lmbench")

NaN = math.nan

# table -> (row count, {row: (system, {column: value})}), read from the .tbl files.
HAND_READ = {
    "memory_bandwidth": (50, {  # bw_allmem.tbl
        0: ("DEC Alpha", {"bcopy_unrolled_mb_s": 41, "bcopy_libc_mb_s": 39,
                          "memory_read_mb_s": 76, "memory_write_mb_s": 78}),
        12: ("Sun Ultra1", {"bcopy_unrolled_mb_s": 85, "bcopy_libc_mb_s": 167,
                            "memory_read_mb_s": 129, "memory_write_mb_s": 152}),
        14: ("Linux i686", {"bcopy_unrolled_mb_s": 42, "memory_read_mb_s": 205,
                            "memory_write_mb_s": 56}),
        49: ("FreeBSD/i586", {"bcopy_libc_mb_s": 42, "memory_write_mb_s": 83}),
    }),
    "ipc_bandwidth": (44, {  # bw_ipc.tbl
        0: ("DEC Alpha", {"bcopy_libc_mb_s": 36, "pipe_mb_s": 32, "tcp_mb_s": 9}),
        6: ("Sun Ultra1", {"bcopy_libc_mb_s": 167, "pipe_mb_s": 61, "tcp_mb_s": 51}),
        20: ("Linux i686", {"bcopy_libc_mb_s": 57, "pipe_mb_s": 73, "tcp_mb_s": 15}),
        43: ("dgux mc88110", {"pipe_mb_s": 8, "tcp_mb_s": 5}),
    }),
    "file_reread_bandwidth": (50, {  # bw_reread2.tbl
        0: ("DEC Alpha", {"bcopy_libc_mb_s": 38, "file_read_mb_s": 37,
                          "memory_read_mb_s": 64, "file_mmap_mb_s": 12}),
        12: ("Sun Ultra1", {"file_read_mb_s": 85, "file_mmap_mb_s": 101}),
        17: ("Unixware/i686", {"bcopy_libc_mb_s": 55, "memory_read_mb_s": 214,
                               "file_mmap_mb_s": 198}),
        23: ("Linux i686", {"bcopy_libc_mb_s": 57, "file_read_mb_s": 46, "file_mmap_mb_s": 34}),
    }),
    "tcp_bandwidth": (51, {  # bw_tcp.tbl
        0: ("Linux alpha", {"tcp_mb_s": 8.9}),
        23: ("FreeBSD/i586", {"tcp_mb_s": 0.1}),
        25: ("Linux i686", {"tcp_mb_s": 14.7}),
        29: ("Sun Ultra1", {"tcp_mb_s": 51.3}),
        50: ("HP-UX 9000/735", {"tcp_mb_s": 19.6}),
    }),
    "context_switch": (52, {  # ctx.tbl
        0: ("Linux alpha", {"p2_0kb_us": 10, "p2_32kb_us": 17, "p8_0kb_us": 13, "p8_32kb_us": 41}),
        3: ("Linux i486", {"p2_0kb_us": NaN, "p2_32kb_us": 70, "p8_0kb_us": NaN,
                           "p8_32kb_us": 78, "failed": True}),                 # -1 entries
        14: ("Unixware/i686", {"p2_0kb_us": 21, "p2_32kb_us": NaN, "p8_0kb_us": 22,
                               "p8_32kb_us": NaN, "failed": False}),           # empty entries
        25: ("Linux i686", {"p2_0kb_us": 6, "p2_32kb_us": 22, "p8_0kb_us": 7, "p8_32kb_us": 107}),
        43: ("FreeBSD/i586", {"p2_0kb_us": 29, "p2_32kb_us": NaN, "p8_32kb_us": 78,
                              "failed": True}),                                # printed -13
        51: ("IRIX5.3 IP19", {"p2_0kb_us": 150, "p8_32kb_us": 167}),
    }),
    "memory_latency": (51, {  # lat_allmem.tbl
        0: ("Linux i586", {"l1_ns": 8, "l2_ns": 103, "main_memory_ns": 151}),
        8: ("SunOS-5.4 sun4m", {"l1_ns": 13, "l2_ns": NaN, "main_memory_ns": 180}),   # --
        13: ("IBM Power2", {"l1_ns": NaN, "l2_ns": 13, "main_memory_ns": 141}),       # --
        25: ("Linux i686", {"l1_ns": 12, "l2_ns": 90, "main_memory_ns": 194}),
        50: ("IRIX64-601 IP26", {"l1_ns": 13, "l2_ns": 120, "main_memory_ns": 1244}),
    }),
    "process_creation": (50, {  # lat_allproc.tbl
        0: ("DEC Alpha", {"fork_exit_ms": 4.6, "fork_exec_exit_ms": 13, "fork_exec_sh_exit_ms": 42}),
        6: ("Linux i686", {"fork_exit_ms": 0.5, "fork_exec_exit_ms": 5, "fork_exec_sh_exit_ms": 17}),
        11: ("Sun Ultra1", {"fork_exit_ms": 3.7, "fork_exec_exit_ms": 20,
                            "fork_exec_sh_exit_ms": 10}),
        49: ("dgux mc88110", {"fork_exit_ms": 8.8, "fork_exec_sh_exit_ms": 67}),
    }),
    "tcp_connect_latency": (38, {  # lat_connect.tbl
        0: ("DEC Alpha", {"tcp_connect_us": 976}),
        5: ("Sun SC1000", {"tcp_connect_us": 4594}),
        19: ("Linux i686", {"tcp_connect_us": 746}),
        37: ("FreeBSD/i586", {"tcp_connect_us": 481}),
    }),
    "disk_latency": (17, {  # lat_disk.tbl
        0: ("SunOS-5.4 sun4m", {"disk_latency_us": 2876}),
        11: ("DEC Alpha", {"disk_latency_us": 3729}),
        12: ("FreeBSD/i586", {"disk_latency_us": 297}),
        16: ("FreeBSD/i586", {"disk_latency_us": 310}),
    }),
    "file_create_delete": (47, {  # lat_fs.tbl
        0: ("Linux i586", {"create_ms": 1.4, "delete_ms": 0.1}),
        5: ("Linux i686", {"create_ms": 1.2, "delete_ms": 0.1}),
        7: ("SunOS-5.4 sun4d", {"create_ms": 18.2, "delete_ms": 8.3}),
        43: ("HP-UX 9000/897", {"create_ms": 58.8, "delete_ms": 17.2}),
    }),
    "remote_network": (7, {  # lat_ipc.tbl
        0: ("IRIX IP21", {"network": "hippi", "tcp_bw_mb_s": 62, "tcp_latency_us": 1068,
                          "udp_latency_us": 1099}),
        3: ("IRIX IP22", {"network": "10baseT", "tcp_bw_mb_s": 0.9, "tcp_latency_us": 543}),
        6: ("Linux", {"network": "10baseT", "tcp_bw_mb_s": 0.7, "tcp_latency_us": 2954,
                      "udp_latency_us": 1912}),
    }),
    "null_syscall": (52, {  # lat_nullsys.tbl
        0: ("SunOS-5.4 sun4m", {"null_syscall_us": 7}),
        25: ("Linux i686", {"null_syscall_us": 4}),
        45: ("HP-UX 9000/897", {"null_syscall_us": 92}),
    }),
    "pipe_latency": (52, {  # lat_pipe.tbl
        0: ("SunOS-5.4 sun4m", {"pipe_us": 194}),
        8: ("Sun Ultra1", {"pipe_us": 62}),
        18: ("dgux mc88110", {"pipe_us": 474}),
        25: ("Linux i686", {"pipe_us": 31}),
    }),
    "signal_latency": (39, {  # lat_signal.tbl
        0: ("DEC Alpha", {"sigaction_us": 20, "sig_handler_us": 30}),
        21: ("Linux i686", {"sigaction_us": 4, "sig_handler_us": 14}),
        36: ("IBM Power2", {"sigaction_us": 52, "sig_handler_us": 355}),
    }),
    "tcp_latency": (50, {  # lat_tcp.tbl
        0: ("DEC Alpha", {"tcp_us": 485, "rpc_tcp_us": 788}),
        8: ("Linux i686", {"tcp_us": 263, "rpc_tcp_us": 427}),
        11: ("Sun Ultra1", {"tcp_us": 162, "rpc_tcp_us": 346}),
        49: ("IRIX5.3 IP19", {"tcp_us": 815, "rpc_tcp_us": 1006}),
    }),
    "udp_latency": (47, {  # lat_udp.tbl
        0: ("DEC Alpha", {"udp_us": 404, "rpc_udp_us": 718}),
        4: ("Linux i686", {"udp_us": 112, "rpc_udp_us": 217}),
        11: ("Sun Ultra1", {"udp_us": 197, "rpc_udp_us": 267}),
        35: ("dgux mc88110", {"udp_us": 1373, "rpc_udp_us": 2175}),
    }),
}


def test_every_table_has_hand_read_cells():
    assert sorted(HAND_READ) == sorted(s.name for s in L.TABLES.values())
    assert L.tables() == [s.name for s in L.TABLES.values()] + ["ctx_linux_i686"]


@pytest.mark.parametrize("name", sorted(HAND_READ))
def test_hand_read_cells(name):
    nrows, cells = HAND_READ[name]
    df = L.load(name)
    spec = next(s for s in L.TABLES.values() if s.name == name)
    assert list(df.columns) == ["system", "row", *spec.columns, "failed"]
    assert len(df) == nrows
    assert df["row"].tolist() == list(range(nrows))
    assert len(cells) >= 3
    for row, (system, values) in cells.items():
        line = df.iloc[row]
        assert line["system"] == system, (name, row)
        values = {"failed": False, **values}
        for column, expected in values.items():
            got = line[column]
            if isinstance(expected, float) and math.isnan(expected):
                assert pd.isna(got), (name, row, column, got)
            else:
                assert got == expected, (name, row, column, got)


def test_duplicate_system_names_are_kept_in_file_order():
    mb = L.load("memory_bandwidth")
    alphas = mb[mb.system == "DEC Alpha"]
    assert alphas["row"].tolist() == [0, 1, 2, 3, 5, 6, 22]
    assert alphas["bcopy_unrolled_mb_s"].tolist() == [41, 46, 46, 38, 36, 38, 15]


def test_failed_only_where_the_source_printed_a_negative_number():
    ctx = L.load("context_switch")
    assert ctx.loc[ctx.failed, "row"].tolist() == [3, 43]
    for name in L.tables()[:-1]:
        if name != "context_switch":
            assert not L.load(name)["failed"].any(), name


def test_units_are_in_the_column_names():
    units = ("_us", "_ms", "_ns", "_mb_s")
    for spec in L.TABLES.values():
        for column in spec.columns:
            assert column in L.TEXT_COLUMNS or column.endswith(units), (spec.name, column)


def test_load_takes_stems_and_csv_names_and_rejects_unknowns():
    pd.testing.assert_frame_equal(L.load("lat_allmem"), L.load("memory_latency"))
    pd.testing.assert_frame_equal(L.load("table_memory_latency.csv"), L.load("memory_latency"))
    with pytest.raises(BenchlibError, match="memory_latency"):
        L.load("no_such_table")


def test_load_honours_benchlib_data_dir(tmp_path, monkeypatch):
    d = tmp_path / "papers" / "lmbench1996"
    d.mkdir(parents=True)
    (d / "table_pipe_latency.csv").write_text("system,row,pipe_us,failed\nNA,0,5,False\n")
    monkeypatch.setenv("BENCHLIB_DATA_DIR", str(tmp_path))
    df = L.load("pipe_latency")
    assert df["system"].tolist() == ["NA"]       # a system name is text, never NaN
    assert df["pipe_us"].tolist() == [5]


# --------------------------------------------------------------------------
# the parser on constructed input (features the lmbench files do not all use)

def test_parse_tbl_markup_missing_failed_and_spans():
    text = "\n".join([
        ".TS",
        "center box tab(:);",
        "c|c s|c",
        "l|r r|r.",
        ":Group:Solo",
        "Name:\\fBa\\fP:\\fIb\\fP:c",
        "=",
        "Sys\\ One:1:--:2.5\\ ",
        "Sys\\ Two:4:-1:\\-1",
        ".sp",
        "_",
        ".T&",
        "l r r r.",
        "Other:\\^:3:.5",
        ".TE",
    ])
    df = L.parse_tbl(text)
    # header labels: the span label heads both spanned columns, rows joined top to bottom
    assert list(df.columns) == ["system", "row", "group_a", "group_b", "solo_c", "failed"]
    assert df["system"].tolist() == ["Sys One", "Sys Two", "Other"]
    assert df["row"].tolist() == [0, 1, 2]
    assert df["group_a"].tolist() == [1, 4, 4]         # \\^ repeats the entry above
    assert df["group_a"].dtype == "int64"
    assert pd.isna(df["group_b"][0]) and pd.isna(df["group_b"][1]) and df["group_b"][2] == 3
    assert df["solo_c"][0] == 2.5 and pd.isna(df["solo_c"][1]) and df["solo_c"][2] == 0.5
    assert df["failed"].tolist() == [False, True, False]


def test_parse_tbl_rejects_a_header_that_does_not_match_the_spec():
    text = ".TS\nl c c\nl r r.\nSystem\tUDP\tRPC/TCP\n=\nX\t1\t2\n.TE\n"
    with pytest.raises(ValueError, match="header"):
        L.parse_tbl(text, "lat_udp")
    assert L.parse_tbl(text.replace("RPC/TCP", "RPC/UDP"), "lat_udp")["rpc_udp_us"].tolist() == [2]


# --------------------------------------------------------------------------
# the committed CSVs are exactly what the parser makes of the sources

@needs_source
@pytest.mark.parametrize("stem", sorted(L.TABLES))
def test_table_csv_equals_a_fresh_parse(stem):
    fresh = L.parse_tbl((SOURCE / f"{stem}.tbl").read_text(), stem)
    pd.testing.assert_frame_equal(L.load(stem), fresh, obj=stem)


@needs_source
def test_figure_csv_equals_a_fresh_parse():
    fresh = L.parse_ctx_pic((SOURCE / "ctx.pic").read_text())
    pd.testing.assert_frame_equal(L.load("ctx_linux_i686"), fresh)


@needs_source
def test_every_source_table_has_a_spec():
    assert sorted(p.stem for p in SOURCE.glob("*.tbl")) == sorted(L.TABLES)


# --------------------------------------------------------------------------
# the context-switch figure

def test_ctx_figure_points_read_by_hand():
    fig = L.load("ctx_linux_i686")
    assert list(fig.columns) == ["process_size_kb", "processes", "time_us", "overhead_us"]
    assert len(fig) == 25
    assert sorted(fig.process_size_kb.unique()) == [0, 4, 16, 32, 64]
    at = fig.set_index(["process_size_kb", "processes"])["time_us"]
    assert at[(0, 2)] == 6
    assert at[(4, 20)] == 12
    assert at[(16, 16)] == 46
    assert at[(32, 8)] == 107
    assert at[(64, 8)] == 363
    assert at[(64, 20)] == 367
    overhead = fig.groupby("process_size_kb")["overhead_us"].unique()
    assert overhead[0].tolist() == [10] and overhead[64].tolist() == [255]


def test_ctx_figure_processes_increase_within_each_dataset():
    fig = L.load("ctx_linux_i686")
    for size, points in fig.groupby("process_size_kb"):
        assert points["processes"].tolist() == [2, 4, 8, 16, 20], size
        assert points["processes"].is_monotonic_increasing


def test_ctx_figure_agrees_with_the_linux_i686_row_of_the_table():
    # The paper picked the table's values off this graph.
    fig = L.load("ctx_linux_i686").set_index(["process_size_kb", "processes"])["time_us"]
    row = L.load("context_switch").iloc[25]
    assert row["system"] == "Linux i686"
    assert (fig[(0, 2)], fig[(32, 2)], fig[(0, 8)], fig[(32, 8)]) == (
        row.p2_0kb_us, row.p2_32kb_us, row.p8_0kb_us, row.p8_32kb_us)


def test_parse_ctx_pic_inverts_the_transform_and_skips_labels():
    # Scales other than 1 and non-zero lower bounds; the second point is given
    # as plain offsets, so only a real inversion of the transform recovers it.
    # The ".5M" label is not a point, nor is anything after the data blocks.
    text = "\n".join([
        "\txlower = 1.0\t# where the xtick start",
        "\txupper = 5.0",
        "\tylower = 100.0",
        "\tyupper = 300.0",
        "\txsize = 2.0",
        "\tysize = 4.0",
        "\tyscale = ysize / (yupper - ylower)",
        "\txscale = xsize / (xupper - xlower)",
        "# DATASET: Process size=8\toverhead=3, MARK 0",
        '[ "\\(ci" ] at O.sw + \\',
        "\t(xscale * (2 - xlower), yscale * (150 - ylower))",
        '".5M" at O.sw + \\',
        "\t(xscale * (2 - xlower), .12 + yscale * (150 - ylower))",
        '[ "\\(ci" ] at O.sw + \\',
        "\t(1.5, 0.5)",
        "# Xaxis title.",
        '[ "\\(ci" ] at O.sw + \\',
        "\t(0, 0)",
    ])
    fig = L.parse_ctx_pic(text)
    assert fig.to_dict("records") == [
        {"process_size_kb": 8, "processes": 2, "time_us": 150.0, "overhead_us": 3},
        {"process_size_kb": 8, "processes": 4, "time_us": 125.0, "overhead_us": 3},
    ]
