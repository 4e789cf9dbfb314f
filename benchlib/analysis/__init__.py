"""Fits and models: pure functions of DataFrames, no C calls, so they can
be tested on synthetic or published data."""
from .memory_fit import (Level, MemoryFit, compare_with_reported, fit_levels,  # noqa: F401
                         fit_memory, fit_tlb, line_size_from_pairs, synthetic_curve)
from .stats import ratio_summary, relative_spread  # noqa: F401
