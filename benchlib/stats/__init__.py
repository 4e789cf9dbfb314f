"""Statistics: one place for how far a figure can be trusted.

Owns the median's interval (``summary.median_ci``: two order statistics,
distribution-free: a result's samples, an adaptive run's stopping rule, a
figure's interval), the bootstrap (one resampling,
``summary.resample_indices``, and one percentile interval,
``summary.percentile_interval``: ratios over rounds and pooled runs here, a
fit's slope in ``analysis.scaling``) and the ratio summaries
(``summary``), the
interval type and the interval rule that every relation and verdict uses
(``intervals``), paired interleaved ratios (``paired``) and the noise
assessment of one result (``noise``: the ``stable`` flag and its reasons).

Pure: imports numpy, scipy, pandas and ``benchlib.errors`` only; never a
measuring, results, memory, paper, report or CLI module."""
