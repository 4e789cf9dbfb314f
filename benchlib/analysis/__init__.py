"""Fits that are not the memory hierarchy's: speed against CPU speed across
eras (``scaling``) and Chen & Patterson's self-scaling I/O model
(``self_scaling_model``).  Pure functions of numbers and DataFrames: they
import only ``benchlib.errors`` and ``benchlib.stats``, never a measuring,
results, paper, report or CLI module, so they are tested on simulated and
published data with known answers."""
