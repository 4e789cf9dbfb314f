"""`benchlib memory` and `benchlib fit-memory`: the JSON contract and bad input."""
import json

import pandas as pd
import pytest


def _staircase_csv(path):
    # three caches and memory, sharp edges, 4 points per octave
    sizes = [int(512 * 2 ** (i / 4)) for i in range(4 * 18)]
    edges = [(48 << 10, 1.5), (1280 << 10, 5.0), (24 << 20, 20.0)]
    rows = []
    for s in sizes:
        lat = 100.0
        for edge, l in reversed(edges):
            if s <= edge:
                lat = l
        rows.append({"size_bytes": s, "stride_bytes": 64, "latency_ns": lat})
    pd.DataFrame(rows).to_csv(path, index=False)


def test_fit_memory_json_contract(cli, tmp_path):
    csv = tmp_path / "lat.csv"
    _staircase_csv(csv)
    r = cli("fit-memory", str(csv), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    sizes = [lev["size_bytes"] for lev in d["levels"]]
    assert sizes[-1] is None and len(sizes) == 4
    for got, want in zip(sizes[:-1], [48 << 10, 1280 << 10, 24 << 20]):
        assert got == pytest.approx(want, rel=0.15)
    assert [lev["latency_ns"] for lev in d["levels"]] == pytest.approx([1.5, 5, 20, 100], rel=0.05)
    assert "line_size_bytes" in d and "tlb" in d


@pytest.mark.parametrize("content,needle", [
    ("size_bytes,stride_bytes\n1024,64\n2048,64\n", "missing columns"),
    ("a,b\n", "missing columns"),
    ("", "cannot read"),
])
def test_fit_memory_bad_csv(cli, tmp_path, content, needle):
    f = tmp_path / "bad.csv"
    f.write_text(content)
    r = cli("fit-memory", str(f))
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr


def test_fit_memory_missing_file(cli, tmp_path):
    r = cli("fit-memory", str(tmp_path / "nope.csv"))
    assert r.returncode == 2 and "cannot read" in r.stderr


def test_memory_smoke_json(cli):
    r = cli("memory", "--profile", "smoke", "--json", timeout=120)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["levels"][-1]["size_bytes"] is None and d["levels"][-1]["name"] == "memory"
    assert all(lev["latency_ns"] > 0 for lev in d["levels"])
    sizes = [lev["size_bytes"] for lev in d["levels"][:-1]]
    assert sizes == sorted(sizes)
    assert d["elapsed_s"] > 0 and d["reported_caches"]


# ------------------------------------------- curves from other tools

import cachesim as cs  # noqa: E402  (tests/ is on sys.path under pytest)
from simulated import K, M, SIM, simulated_memory  # noqa: E402,F401  (a fixture)


def _write_lat_mem_rd(path, strides=(16, 32, 64, 128, 256)):
    """The classic text output: a '"stride=N' line, then 'size_in_MB ns'
    lines (MB = 2^20 bytes, 5 decimals), a blank line between curves."""
    out = []
    for st in strides:
        df = cs.chase_curve(SIM, cs.size_grid(SIM, 6, top_factor=4.0), stride=st,
                            pattern="stride", seed=st)
        out.append(f'"stride={st}')
        out += [f"{s / M:.5f} {v:.3f}" for s, v in zip(df.size_bytes, df.latency_ns)]
        out.append("")
    path.write_text("\n".join(out))


def _write_multichase_csv(path):
    """A multichase-style table: arena sizes with k/m suffixes, ns per load."""
    df = cs.chase_curve(SIM, cs.size_grid(SIM, 6), stride=64, pattern="random", page=2 * M,
                        seed=5)
    rows = ["arena,stride,ns"]
    for s, v in zip(df.size_bytes, df.latency_ns):
        size = f"{s // K}k" if s % K == 0 else str(s)
        rows.append(f"{size},64,{v:.3f}")
    path.write_text("\n".join(rows) + "\n")


@pytest.mark.parametrize("writer", [_write_lat_mem_rd, _write_multichase_csv])
def test_fit_memory_reads_other_tools_files(cli, tmp_path, writer):
    f = tmp_path / ("lat.txt" if writer is _write_lat_mem_rd else "chase.csv")
    writer(f)
    r = cli("fit-memory", str(f), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    sizes = [lev["size_bytes"] for lev in d["levels"]]
    assert sizes[-1] is None and len(sizes) == 4, sizes
    for got, want in zip(sizes[:-1], SIM.truth_sizes()):
        assert got == pytest.approx(want, rel=0.10)
    if writer is _write_lat_mem_rd:
        assert d["line_size_bytes"] == 64          # from the stride curves


def test_fit_memory_offers_every_placement_the_fit_knows():
    # the parser lists them itself (building it imports no pandas)
    from benchlib.cli import build_parser
    from benchlib.memory.access import PLACEMENTS_OF_ARRAY
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    opt = next(a for a in sub.choices["fit-memory"]._actions if a.dest == "placement")
    assert tuple(opt.choices) == PLACEMENTS_OF_ARRAY


def test_fit_memory_says_how_the_array_was_placed(cli, tmp_path):
    # a board on random pages: the note says which placement the fit took
    # (lmbench3's new array per size by default, or --placement curve, or
    # run: one array for every stride, lmbench 1.x and 2.x's),
    # and a table that names an unknown placement is refused clearly
    m = next(x for x in cs.NINETIES if x.name == "pentium_512k")
    f = tmp_path / "lat.txt"
    f.write_text(cs.to_lat_mem_rd_text(cs.stride_figure(m, (32, 64, 128), seed=100)))
    notes = {}
    for extra in ([], ["--placement", "curve"], ["--placement", "run"]):
        r = cli("fit-memory", str(f), "--json", *extra)
        assert r.returncode == 0, r.stderr
        notes[tuple(extra)] = [n for n in json.loads(r.stdout)["notes"] if "page placement" in n]
    assert len(notes[()]) == 1 and "a new array for every size" in notes[()][0]
    assert "one array for the whole curve" in notes[("--placement", "curve")][0]
    assert "one array for the whole run" in notes[("--placement", "run")][0]
    bad = tmp_path / "bad.csv"
    bad.write_text("size_bytes,stride_bytes,latency_ns,pattern,placement\n"
                   + "".join(f"{s},64,{v},stride,twice\n" for s, v in
                             ((2 ** i * 1024, 1.0 + i) for i in range(8))))
    r = cli("fit-memory", str(bad))
    assert r.returncode == 2 and "placement must be one of" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("content,needle", [
    ('"stride=64\n0.5 1.2\nfast 3\n', "line 3"),
    ("0.5 1.2\n", "missing columns"),
    ("arena,ns\n12q,1.0\n", "as a size"),
])
def test_fit_memory_bad_other_formats(cli, tmp_path, content, needle):
    f = tmp_path / "bad.txt"
    f.write_text(content)
    r = cli("fit-memory", str(f))
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr


def test_measure_hierarchy_on_a_simulated_machine_keeps_the_json_contract(simulated_memory):
    # levels, line, TLB entries beside what the CPU reports, the shared last
    # level's evidence
    m = simulated_memory.measure_hierarchy("quick", progress=False)
    d = json.loads(json.dumps(m.to_dict(), default=float))
    sizes = [lev["size_bytes"] for lev in d["levels"]]
    assert sizes[-1] is None and len(sizes) == 4
    for got, want in zip(sizes[:-1], SIM.truth_sizes()):
        assert got == pytest.approx(want, rel=0.10)
    assert all(lev["latency_ns"] > 0 for lev in d["levels"])
    assert d["line_size_bytes"] == 64
    assert d["line"]["pairs"] == 64 and d["line"]["strides"] == 64 and d["line"]["agree"]
    assert [t["level"] for t in d["tlb"]] == [1, 2]
    assert d["tlb"][0]["entries"] == pytest.approx(64, rel=0.25)
    assert d["tlb"][0]["reported_entries"] == 64 and d["tlb"][1]["reported_entries"] is None
    sh = d["shared_last_level"]
    assert sh["sysfs_bytes"] == 32 * M and sh["shared_cpu_list"] == "0-7"
    assert sh["effective_bytes"] == pytest.approx(8 * M, rel=0.10)
    assert "share it" in sh["reason"] and len(sh["passes_sizes"]) == 2
    assert sh["revisit"]["normal_bytes"] == pytest.approx(8 * M, rel=0.10)
    assert d["huge_page_fraction"] == pytest.approx(1.0)


def test_memory_text_output_names_each_finding(simulated_memory, capsys):
    from benchlib.cli import main

    assert main(["memory", "--profile", "quick"]) == 0
    out = capsys.readouterr().out
    assert "line size: 64 bytes" in out
    assert "TLB level 1:" in out and "the CPU reports 64" in out
    assert "TLB level 2:" in out and "the CPU reports nothing" in out
    assert "last level L3: effective" in out and "shared by CPUs 0-7" in out
    assert "fitted against sysfs" in out and "measured and fitted in" in out
