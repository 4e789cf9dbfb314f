"""Small statistics shared by notebooks and benchmark scripts."""
from __future__ import annotations

from typing import Sequence

import numpy as np


def relative_spread(values: Sequence[float]) -> float:
    """(max - min) / median: how far apart repeated medians are."""
    v = np.asarray(values, dtype=float)
    return float((v.max() - v.min()) / np.median(v))


def ratio_summary(ours: float, theirs: float) -> dict:
    """ours / theirs, and whether it lies within the usual 0.85-1.15 band."""
    ratio = ours / theirs
    return {"ours": ours, "theirs": theirs, "ratio": ratio, "within_15pct": 0.85 <= ratio <= 1.15}
