"""Statistics: one place for how far a figure can be trusted.

Owns the bootstrap (one resampling, ``summary.resample_indices``, and one
percentile interval, ``summary.percentile_interval``: a median's interval
here, a fit's slope in ``analysis.scaling``) and the ratio summaries
(``summary``), the
interval type and the interval rule that every relation and verdict uses
(``intervals``), paired interleaved ratios (``paired``) and the noise
assessment of one result (``noise``: the ``stable`` flag and its reasons).

Pure: imports numpy, scipy, pandas and ``benchlib.errors`` only; never a
measuring, results, memory, paper, report or CLI module."""
