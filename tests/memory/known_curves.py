"""Tables with known answers for the memory tests: abstract staircases
(``benchlib.memory.synthetic.synthetic_curve``), load pairs and TLB chases
built from a declared truth, and the check that a fit recovered it."""
import numpy as np
import pandas as pd

from benchlib.memory.fit import fit_memory


def fit_memory_t(*a, **kw):
    """fit_memory on abstract staircases: threshold sizes (see the docstring)."""
    kw.setdefault("model", False)
    return fit_memory(*a, **kw)


K = 1024
M = 1024 * K

INTEL = ([32 * K, 1 * M, 36 * M], [1.4, 4.0, 14.0, 100.0])
AMD = ([32 * K, 512 * K, 16.5 * M], [1.2, 3.5, 12.0, 95.0])   # L3 exclusive: 512K + 16M


def assert_levels(levels, sizes, latencies, size_tol=0.15, lat_tol=0.10):
    """Every level found, sizes and latencies within tolerance, bounds around
    the size, memory last with no size."""
    got = [(lv.name, lv.size_bytes, round(lv.latency_ns, 3)) for lv in levels]
    assert len(levels) == len(latencies), f"expected {len(latencies)} levels, got {got}"
    for i, lv in enumerate(levels):
        assert abs(lv.latency_ns / latencies[i] - 1) <= lat_tol, \
            f"{lv.name} latency {lv.latency_ns:.3g} vs {latencies[i]} ({got})"
        assert lv.latency_ns_err >= 0 and lv.n_points >= 2
        if i < len(sizes):
            assert lv.name == f"L{i + 1}"
            assert abs(lv.size_bytes / sizes[i] - 1) <= size_tol, \
                f"{lv.name} size {lv.size_bytes / K:.1f} KiB vs {sizes[i] / K:.1f} KiB ({got})"
            assert lv.size_bytes_low <= lv.size_bytes <= lv.size_bytes_high
        else:
            assert lv.name == "memory" and lv.size_bytes is None
            assert lv.size_bytes_low is None and lv.size_bytes_high is None


TRUTH = {
    "2 levels, 48K": ([48 * K], [1.5, 80.0]),
    "3 levels, 1.25M": ([32 * K, 1.25 * M], [1.4, 4.5, 90.0]),
    "4 levels, 24K/320K/6M": ([24 * K, 320 * K, 6 * M], [1.0, 2.5, 8.0, 70.0]),
    "4 levels, Intel-like": INTEL,
    "5 levels, 48K/1.25M/30M/96M": ([48 * K, 1.25 * M, 30 * M, 96 * M],
                                    [1.3, 4.0, 12.0, 30.0, 110.0]),
}


def _recovered(levels, sizes, latencies, size_tol=0.15, lat_tol=0.10) -> bool:
    try:
        assert_levels(levels, sizes, latencies, size_tol, lat_tol)
        return True
    except AssertionError:
        return False


def pairs_table(line, noise=0.03, seed=0, distances=None):
    rng = np.random.default_rng(seed)
    if distances is None:
        distances = [4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512, 1024, 4096]
    d = np.repeat(np.asarray(distances, float), 3)
    lat = np.where(d < line, 90.0 + 1.4, 180.0) * np.exp(noise * rng.standard_normal(len(d)))
    return pd.DataFrame({"distance_bytes": d, "latency_ns": lat})


def tlb_table(entries=(64, 1536), penalties=(2.0, 25.0), sharpness=6.0, noise=0.02, seed=0):
    """Penalty 0 while the pages fit the first TLB, penalties[0] while they
    fit the second, penalties[1] beyond; control latency with cache steps."""
    rng = np.random.default_rng(seed)
    P = np.unique(np.round(2.0 ** np.arange(0, 15.01, 0.25)))
    F = [np.minimum(1.0, (e / P) ** sharpness) for e in entries]
    pen = penalties[0] * (F[1] - F[0]) + penalties[1] * (1 - F[1])
    ctl = np.where(P * 64 <= 32 * K, 1.4, np.where(P * 64 <= 1 * M, 4.0, 14.0))
    lat = (ctl + pen) * np.exp(noise * rng.standard_normal(len(P)))
    ctl = ctl * np.exp(noise * rng.standard_normal(len(P)))
    return pd.DataFrame({"pages": P, "latency_ns": lat, "control_ns": ctl})
