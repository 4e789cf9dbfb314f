"""Fits and models: pure functions of DataFrames, no C calls, so they can
be tested on synthetic or published data."""
from .stats import ratio_summary, relative_spread  # noqa: F401
