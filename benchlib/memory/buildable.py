"""Which capacities a cache can be built with: a small cache's capacity is
its ways times a power of two (its sets, indexed by address bits, times
its line).  The stride fit (:mod:`.stride_model`) offers a small level
only those capacities, and the ring's fit (:mod:`.cache_model`) offers a
small level on randomly placed pages only those (a size, count of page
colours or shape no cache has is not a reading of one).

Pure: a function of arrays."""
from __future__ import annotations

import numpy as np

#: A first-level cache's capacity is its ways times a power of two (its
#: sets, indexed by address bits, times its line) on every machine we know:
#: 8 KiB direct mapped, 16 KiB of 4, 32 KiB of 8, 48 KiB of 12, 64 KiB of 4.
#: A level's profile offers only the grid points nearest such a capacity
#: (within half the grid's step) up to this size; a cache of any level that
#: small is an L1.  Above it a level's capacity as a chase sees it may be
#: anything: a share of a shared cache, a victim cache with the level above,
#: or an onset that other causes move (tried up to 1 MiB, 2026-11-28: the
#: Zen 3 folder's 512 KiB L2, whose curves put its onset near 430 KiB, was
#: then read as 3 ways of 128 KiB, with a spurious level past the L3).
BUILT_MAX = 64 << 10


def _built(grid, ways: int) -> np.ndarray:
    """Which of ``grid``'s capacities a cache of ``ways`` ways can have
    (every one above BUILT_MAX)."""
    g = np.asarray(grid, float)
    x = np.log2(g / ways)
    step = float(np.median(np.diff(np.log2(g)))) if len(g) > 1 else 1.0
    return (np.abs(x - np.round(x)) <= step / 2 + 1e-9) | (g > BUILT_MAX)


def built_points(lo: float, hi: float, ways_list) -> np.ndarray:
    """The capacities up to BUILT_MAX, between ``lo`` and ``hi``, that a
    cache of any of ``ways_list`` ways can be built with, exactly (a grid
    that does not hold them offers only its nearest point)."""
    pts = [w * 2.0 ** k for w in ways_list for k in range(0, 20)]
    return np.array(sorted({p for p in pts if lo <= p <= min(hi, BUILT_MAX)}))


__all__ = ["BUILT_MAX", "_built", "built_points"]
