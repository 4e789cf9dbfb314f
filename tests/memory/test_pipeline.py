"""The memory pipeline end to end, on simulated machines (no live timing):
plan -> measure -> one fit -> result, and a measurement saved by
``benchlib memory --save`` fitted again by ``benchlib fit-memory``: the
same levels and line, since both call the one fit on the same data."""
import json

import pandas as pd
import pytest

import cachesim as cs
from benchlib.errors import BenchlibError
from benchlib.memory import plan as planning
from benchlib.memory.curve_readers import read_input
from benchlib.memory.dataset import MemoryData
from benchlib.memory.fit import fit_memory
from benchlib.memory.hierarchy import Level, MemoryFit
from benchlib.profiles import setting
from simulated import SIM, K, M, simulated_memory, simulated_quick  # noqa: F401  (fixtures)


# ------------------------------------------------------------------ plan

def test_the_plan_assumes_no_cache_size():
    # no cache reported: the widest scan, never an invented size
    unknown = planning.plan("quick", {}, available_bytes=64 << 30)
    assert unknown.ring_sizes[-1] == planning.UNKNOWN_CACHE_SCAN_BYTES
    assert unknown.repeat_below == planning.MAX_REPEAT_BYTES
    known = planning.plan("quick", {"l2_bytes": 1 << 20, "l3_bytes": 3 << 20}, 64 << 30)
    assert 11 << 20 < known.ring_sizes[-1] <= 12 << 20 and known.repeat_below == 6 << 20
    # little memory available: the scan shrinks to a quarter of it
    assert planning.plan("quick", {}, 256 << 20).ring_sizes[-1] == 64 << 20
    assert planning.plan("smoke", {}, None).adaptive is False
    assert known.line_sizes == known.ring_sizes[-2:]
    with pytest.raises(BenchlibError, match="unknown profile 'fast'.*smoke, quick, full"):
        planning.plan("fast", {}, None)


def _look(*caches, tlb=()):
    levels = [Level(f"L{i + 1}", c, 0.9 * c, 1.1 * c, 1.0 + i, 0.0, None, 5)
              for i, c in enumerate(caches)]
    return MemoryFit(levels=levels + [Level("memory", None, None, None, 90.0, 1.0, None, 5)],
                     line_size_bytes=64, tlb=list(tlb), stride_bytes_used=64)


def test_the_walk_and_the_revisit_are_placed_by_a_first_look():
    look = _look(32 * K, 1 * M, 16 * M, tlb=[{"reach_bytes": 256 * K}, {"reach_bytes": 8 * M}])
    sizes = planning.walk_sizes(look, 8)
    # around the L2 (the L3 is beyond half the second TLB level's reach), not the L1
    assert min(sizes) >= 256 * K and max(sizes) <= 4 * M
    assert sizes == sorted(set(sizes)) and len(sizes) >= 2 * 8
    assert planning.walk_sizes(_look(32 * K), 8) == []
    rv = planning.revisit_sizes(look)
    assert min(rv) >= 4 * M and max(rv) <= 64 * M
    assert planning.revisit_sizes(_look()) == []


def test_the_walks_passes_are_spread_over_the_run(monkeypatch):
    """Each pass of the walk is one sweep of every walk size; other chases
    run between them (a neighbour's stretch on the core should not cover
    them all), and each point is its fastest pass."""
    import benchlib.memory.measure as mem
    from simulated import simulate

    simulate(monkeypatch)
    inner, calls = mem.sweep, []

    def logged(name, grid, **kw):
        calls.append("walk" if kw.get("pattern") == "walk" else name)
        return inner(name, grid, **kw)

    monkeypatch.setattr(mem, "sweep", logged)
    data = mem.measure("quick", progress=False)
    walks = [i for i, c in enumerate(calls) if c == "walk"]
    assert len(walks) == setting("memory.walk_passes", "quick") == 3
    assert walks[1] - walks[0] > 1 and "mem_revisit_latency" in calls[walks[1]:walks[2]]
    assert set(data.walk["passes"]) == {3} and data.walk["size_bytes"].is_unique
    assert set(data.walk["pass_index"]) <= {0, 1, 2}
    every = data.walk_passes
    assert len(every) == 3 * len(data.walk) and set(every["pass_index"]) == {0, 1, 2}
    assert (every.groupby("size_bytes")["latency_cycles"].min().to_numpy()
            == data.walk.sort_values("size_bytes")["latency_cycles"].to_numpy()).all()


# ---------------------------------------------------- a slower revisit

def test_a_slow_revisit_shows_a_neighbour_taking_the_shared_level(monkeypatch):
    # simulated: the neighbour takes a quarter of an 8 MiB last level while
    # the chase runs flat out and half of it when each line waits longer
    import benchlib.memory.measure as mem

    levels = (cs.Level(32 * K, 8, 1.2), cs.Level(512 * K, 8, 4.0))

    def machine(neighbour):
        return cs.Machine(levels + (cs.Level(8 * M, 16, 14.0, neighbour=neighbour),), 95.0)

    spin_ns = 70.0

    def fake_sweep(name, grid, spin_adds=0, **kw):
        m = machine(0.5 if spin_adds else 0.25)
        df = cs.chase_curve(m, grid["size_bytes"], page=2 * M, noise=0.005, seed=spin_adds)
        ns = df["latency_ns"] + (spin_ns if spin_adds else 0.0)
        return pd.DataFrame({"size_bytes": df["size_bytes"], "value": ns,
                             "median_cycles": ns * 3.0, "median_clock_ghz": 3.0})

    monkeypatch.setattr(mem, "sweep", fake_sweep)
    d = cs.measure(machine(0.25), "random2m", seed=1)
    look = fit_memory(d["df"], pairs=d["pairs"])
    assert look.levels[2].size_bytes == pytest.approx(6 * M, rel=0.10)
    table = mem.measure_revisit(planning.revisit_sizes(look), "quick", progress=False)
    fit = fit_memory(MemoryData(latency=d["df"], pairs=d["pairs"], revisit=table))
    rv = fit.revisit
    assert rv.normal_bytes == pytest.approx(6 * M, rel=0.10)
    assert rv.slow_bytes == pytest.approx(4 * M, rel=0.10)
    assert rv.slow_ns_per_load > rv.normal_ns_per_load
    assert fit.levels == look.levels     # the revisit reads the levels; it does not move them


# ------------------------------------------- saved, then fitted again

def _levels(d):
    return [(lv["name"], lv["size_bytes"]) for lv in d["levels"]]


def test_a_saved_measurement_fits_to_the_same_levels(simulated_quick, tmp_path):
    data = simulated_quick
    assert set(data.inputs) == {"latency", "ring_passes", "line_strides", "pairs", "tlb",
                                "walk", "revisit", "walk_passes"}
    fit = fit_memory(data)
    back = read_input(data.save(tmp_path / "saved").parent)
    assert back.inputs == data.inputs and back.clock_ghz == data.clock_ghz
    assert back.machine["caches"] == data.machine["caches"]
    again = fit_memory(back)
    assert [lv.name for lv in again.levels] == [lv.name for lv in fit.levels]
    for a, b in zip(fit.caches, again.caches):
        assert b.size_bytes == pytest.approx(a.size_bytes, rel=0.01)
        assert (b.ring_size_bytes is None) == (a.ring_size_bytes is None)
    assert again.line_size_bytes == fit.line_size_bytes == 64
    assert again.passes_sizes == pytest.approx(fit.passes_sizes, rel=0.01)
    assert again.revisit.normal_bytes == pytest.approx(fit.revisit.normal_bytes, rel=0.01)
    # the walk sized the L2 (the L2 from the walk is what fit-memory once lost)
    assert fit.caches[1].walk is not None
    for got, want in zip(fit.caches, SIM.truth_sizes()):
        assert got.size_bytes == pytest.approx(want, rel=0.10)


def test_memory_save_then_fit_memory_on_the_directory(simulated_memory, tmp_path, capsys):
    from benchlib.cli import main

    out = tmp_path / "memsave"
    assert main(["memory", "--profile", "quick", "--save", str(out), "--json"]) == 0
    measured = json.loads(capsys.readouterr().out)
    assert json.loads((out / "result.json").read_text())["levels"] == measured["levels"]
    assert main(["fit-memory", str(out), "--json"]) == 0
    refitted = json.loads(capsys.readouterr().out)
    assert [n for n, _ in _levels(refitted)] == [n for n, _ in _levels(measured)]
    for (_, a), (_, b) in zip(_levels(measured), _levels(refitted)):
        assert (a is None and b is None) or b == pytest.approx(a, rel=0.01)
    assert refitted["line_size_bytes"] == measured["line_size_bytes"] == 64
    assert refitted["shared_last_level"]["passes_sizes"] == \
        pytest.approx(measured["shared_last_level"]["passes_sizes"], rel=0.01)
    assert refitted["comparison"] == measured["comparison"]
    # the manifest names the same directory's files: fit-memory DIR/memory.json too
    assert main(["fit-memory", str(out / "memory.json"), "--json"]) == 0
    assert _levels(json.loads(capsys.readouterr().out)) == _levels(refitted)


def test_a_bare_curve_says_what_it_could_not_determine(simulated_quick, tmp_path, capsys):
    # the saved latency table alone, as another tool would give it
    from benchlib.cli import main

    data = simulated_quick
    data.save(tmp_path)
    assert main(["fit-memory", str(tmp_path / "latency.csv"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    (note,) = [n for n in d["notes"] if n.startswith("not in the input")]
    for lacking in ("random walk", "load pairs", "TLB chase", "slow revisit", "separate passes"):
        assert lacking in note
    assert "cycles and the clock" not in note       # the CSV carries cycles and the clock
    assert d["inputs"] == ["latency"] and d["shared_last_level"] is None
    full = fit_memory(data).to_dict()
    assert not any(n.startswith("not in the input") for n in full["notes"])


def test_a_saved_directory_that_is_not_one_says_so(tmp_path):
    (tmp_path / "memory.json").write_text(json.dumps({"format": "something else"}))
    with pytest.raises(BenchlibError, match="not a saved benchlib memory measurement"):
        read_input(tmp_path)
    (tmp_path / "memory.json").write_text(json.dumps({"format": "benchlib-memory", "version": 1,
                                                      "tables": {"latency": "gone.csv"}}))
    with pytest.raises(BenchlibError, match="cannot read .*gone.csv"):
        read_input(tmp_path / "memory.json")
    with pytest.raises(BenchlibError, match="cannot read"):
        read_input(tmp_path / "empty")
    with pytest.raises(BenchlibError, match="not both"):
        fit_memory(MemoryData(latency=pd.DataFrame({"size_bytes": [1]})), pairs=pd.DataFrame())
    curve = cs.chase_curve(SIM, cs.size_grid(SIM, 6), page=2 * M, seed=2)
    with pytest.raises(BenchlibError, match="missing columns: latency_ns"):
        fit_memory(MemoryData(latency=curve, walk=pd.DataFrame({"size_bytes": [4096.0]})))
    with pytest.raises(BenchlibError, match="expected a pandas DataFrame, got list"):
        MemoryData(latency=curve, pairs=[1, 2])
    with pytest.raises(BenchlibError, match="clock_ghz must be > 0"):
        MemoryData(latency=curve, clock_ghz=0.0)
