"""Abstract latency staircases with known answers, for tests and notebooks
(not the physical shape: see :mod:`.cache_model` and tests/cachesim.py)."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from benchlib.errors import BenchlibError


def synthetic_curve(sizes_bytes: Sequence[float], latencies_ns: Sequence[float], sizes=None,
                    points_per_octave: int = 4, min_size: float = 512,
                    max_size: float | None = None, sharpness: float | Sequence[float] = 4.0,
                    noise: float = 0.02, rise_per_octave: float = 0.0, seed: int = 0,
                    stride_bytes: int = 256) -> pd.DataFrame:
    """A synthetic staircase for tests and notebooks.

    ``sizes_bytes``: cache sizes C_1 < ... < C_k; ``latencies_ns``: k + 1
    plateau latencies (the last is main memory).  The fraction of accesses
    served by levels 1..i at working set S is F_i = min(1, (C_i/S)**a_i)
    (``sharpness`` a: 1 = random replacement, large = LRU), so past C_i the
    hit fraction is (C_i/S)**a and latency = h*L_i + (1-h)*L_next.  With
    ``rise_per_octave`` each plateau rises by that factor per octave about its
    middle (so its median stays L_i).  Multiplicative log-normal noise.
    Default sizes: ``points_per_octave`` from ``min_size`` to ``max_size``
    (default: far enough past the last cache for its plateau to settle)."""
    C = np.asarray(sizes_bytes, float)
    L = np.asarray(latencies_ns, float)
    if len(L) != len(C) + 1:
        raise BenchlibError("latencies_ns needs one more entry (main memory) than sizes_bytes")
    a = np.broadcast_to(np.asarray(sharpness, float), C.shape).astype(float)
    if sizes is None:
        if max_size is None:
            max_size = C[-1] * max(16.0, 4.0 * 100.0 ** (1.0 / a[-1])) if len(C) else 1 << 30
        n = int(math.floor(math.log2(max_size / min_size) * points_per_octave + 1e-9)) + 1
        sizes = min_size * 2.0 ** (np.arange(n) / points_per_octave)
    S = np.asarray(sizes, float)
    lo_edges = np.log2(np.concatenate([[S.min()], C]))
    hi_edges = np.log2(np.concatenate([C, [S.max()]]))
    mids = 0.5 * (lo_edges + hi_edges)
    xs = np.log2(S)
    F_prev = np.zeros_like(S)
    lat = np.zeros_like(S)
    for i in range(len(L)):
        F = np.minimum(1.0, (C[i] / S) ** a[i]) if i < len(C) else np.ones_like(S)
        F = np.maximum(F, F_prev)
        Li = L[i] * (1.0 + rise_per_octave) ** (xs - mids[i])
        lat += Li * (F - F_prev)
        F_prev = F
    rng = np.random.default_rng(seed)
    lat = lat * np.exp(noise * rng.standard_normal(len(S)))
    return pd.DataFrame({"size_bytes": S, "stride_bytes": int(stride_bytes), "latency_ns": lat})
