"""The cells of Chen and Patterson's figures (ACM TOCS 1994) this project
puts this machine beside, declared once.  None is one benchmark's
measurement: the self-scaling run measures workloads it chooses itself
(``measure``), and Figure 15's errors are computed from that run's
predictions (``self_scaling_model.accuracy_table``), so the table declares
no measured rows; ``measure.figure15_rows`` fills them."""
from __future__ import annotations

from benchlib.papers.tables import Table, by_name

PAPER = "chen1994"

CELLS: dict[str, Table] = by_name(
    Table("fig15", PAPER, "fig15_prediction_errors", {},
          "Figure 15: median, enhanced and repeatability errors of the predictions"),
)
# accuracy_table's predictors behind Figure 15's columns
MODEL = "product of single-parameter functions"
INTERPOLATION = "interpolation on an orthogonal sample"
REPEATABILITY = "repeatability (the same workloads run again)"
