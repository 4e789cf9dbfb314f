"""`benchlib memory` on a simulated machine: the C chases replaced by
tests/cachesim.py (no live timing), and sysfs by a declared machine."""
import numpy as np
import pandas as pd
import pytest

import cachesim as cs

K, M = 1 << 10, 1 << 20
SIM = cs.Machine((cs.Level(32 * K, 8, 1.3), cs.Level(512 * K, 8, 4.0),
                  cs.Level(8 * M, 16, 14.0)), 95.0)


@pytest.fixture
def simulated_memory(monkeypatch):
    """`benchlib memory` with the simulator in place of the C chases (and a
    sysfs that reports an 8-CPU shared 32 MiB L3)."""
    return simulate(monkeypatch)


@pytest.fixture(scope="module")
def simulated_quick():
    """One quick measurement of the simulated machine (MemoryData), shared
    by a module's tests."""
    with pytest.MonkeyPatch.context() as mp:
        return simulate(mp).measure("quick", progress=False)


def simulate(monkeypatch):
    """Patch benchlib.memory.measure through ``monkeypatch``; returns it."""
    import benchlib.memory.measure as mem
    from benchlib.measuring.metadata import machine_info

    rng = np.random.default_rng(0)
    pair_m = cs.Machine(SIM.levels, SIM.memory_ns, line_bytes=64)

    def fake_sweep(name, grid, profile=None, progress=False, shuffle=False, **fixed):
        if name in ("mem_latency", "mem_revisit_latency"):
            page = 2 * M if fixed.get("huge_pages") == "on" else 4096
            pattern = fixed.get("pattern", "random" if name != "mem_latency" else "stride")
            df = pd.concat([cs.chase_curve(SIM, grid["size_bytes"], stride=st, pattern=pattern,
                                           page=page, noise=0.005, seed=int(rng.integers(1000)))
                            for st in grid.get("stride_bytes", [fixed.get("stride_bytes", 64)])],
                           ignore_index=True)
            ns = df["latency_ns"] + (70.0 if fixed.get("spin_adds") else 0.0)
            out = pd.DataFrame({"size_bytes": df["size_bytes"], "stride_bytes": df["stride_bytes"]})
            out["huge_page_bytes"] = df["size_bytes"] if page > 4096 else 0
        elif name == "line_pair_latency":
            p = cs.pair_table(pair_m, distances=grid["distance_bytes"], noise=0.005)
            p = p.groupby("distance_bytes", as_index=False).median()
            out, ns = pd.DataFrame({"distance_bytes": p["distance_bytes"]}), p["latency_ns"]
        else:                                          # tlb_latency: 64 and 1536 entries
            pages = np.asarray(grid["pages"], float)
            pen = 2.0 * (pages > 64) + 20.0 * (pages > 1536)
            out = pd.DataFrame({"pages": pages})
            # the dense control is a ring of contiguous lines on small pages;
            # the spread layout has the same cache footprint, plus the TLB
            ctl = cs.chase_curve(SIM, [int(n) * 64 for n in pages], page=4096, noise=0.005,
                                 seed=int(rng.integers(1000)))["latency_ns"].to_numpy()
            ns = ctl + (pen if fixed.get("layout") == "spread" else 0.0 * pen)
        for k, v in fixed.items():
            out[k] = v
        out["value"] = np.asarray(ns, float)
        out["median_cycles"] = out["value"] * 3.0
        out["median_clock_ghz"] = 3.0
        return out

    monkeypatch.setattr(mem, "sweep", fake_sweep)
    info = dict(machine_info())
    info.update(l2_bytes=512 * K, l3_bytes=32 * M, caches=[
        {"level": 1, "type": "Data", "size_bytes": 32 * K, "line_bytes": 64, "ways": 8,
         "shared_cpu_list": "0"},
        {"level": 2, "type": "Unified", "size_bytes": 512 * K, "line_bytes": 64, "ways": 8,
         "shared_cpu_list": "0"},
        {"level": 3, "type": "Unified", "size_bytes": 32 * M, "line_bytes": 64, "ways": 16,
         "shared_cpu_list": "0-7"}])
    monkeypatch.setattr(mem, "machine_info", lambda: info)
    monkeypatch.setattr(mem, "available_memory_bytes", lambda: 16 << 30)
    monkeypatch.setattr(mem, "reported_tlb",
                        lambda: {"levels": {1: 64}, "source": "test", "note": "test"})
    return mem
