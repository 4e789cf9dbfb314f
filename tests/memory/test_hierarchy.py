"""The immutable result (benchlib.memory.hierarchy): plain JSON types, and
the revisit rule read against the passes' own spread."""
import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from benchlib.memory.dataset import MemoryData
from benchlib.memory.hierarchy import Level, MemoryFit, MemoryResult, Revisit, read_revisit
from known_curves import K, M


def test_level_dataclass_to_dict_plain_types():
    lv = Level("L1", np.float64(32768.0), np.float64(30000.0), np.float64(36000.0),
               np.float64(1.4), np.float64(float("nan")), None, np.int64(12))
    d = lv.to_dict()
    assert d["latency_ns_err"] is None and d["n_points"] == 12
    json.dumps(d, allow_nan=False)


@pytest.mark.parametrize("passes,slow,words,kind,loses", [
    ([16 * M, 9 * M], 12 * M, "inconclusive: the passes alone differ by x1.8", "inconclusive", None),
    ([16 * M, 9 * M], 28 * M, "more at the slower revisit", "more when slow", False),
    ([8 * M, 8.2 * M], 4 * M, "time-dependent: something else evicts it", "time-dependent", True),
    ([8 * M, 8.2 * M], 8.1 * M, "no loss to time", "no loss", False),
    ([8 * M, 8.2 * M], 12 * M, "more at the slower revisit", "more when slow", False),
])
def test_the_slow_revisit_is_read_against_the_passes_own_spread(passes, slow, words, kind, loses):
    levels = [Level("L1", 32 * K, 30 * K, 34 * K, 1.0, 0.0, None, 5),
              Level("L2", 8 * M, 7.5 * M, 8.5 * M, 10.0, 0.1, None, 5),
              Level("memory", None, None, None, 80.0, 1.0, None, 5)]
    fit = MemoryFit(levels=levels, line_size_bytes=64, tlb=[], stride_bytes_used=64,
                    passes_sizes=passes,
                    revisit=Revisit(spin_adds=200, normal_bytes=8 * M, slow_bytes=slow,
                                    normal_ns_per_load=30.0, slow_ns_per_load=80.0))
    machine = {"caches": [{"level": 1, "type": "Data", "size_bytes": 32 * K},
                          {"level": 2, "type": "Unified", "size_bytes": 32 * M,
                           "shared_cpu_list": "0-1"}], "virtualized": True}
    m = MemoryResult(MemoryData(latency=pd.DataFrame(), machine=machine, profile="quick",
                                elapsed_s=1.0), fit)
    reason = m.shared_last_level()["reason"]
    assert words in reason, reason
    # the one rule, as words and as data (what the notebook states)
    reading = m.revisit_reading()
    assert reading == read_revisit(fit.revisit, passes)
    assert (reading.kind, reading.loses_capacity) == (kind, loses)
    assert reading.words in reason


def test_no_revisit_reading_without_both_capacities():
    rv = Revisit(spin_adds=200, normal_bytes=8 * M, slow_bytes=None, normal_ns_per_load=30.0,
                 slow_ns_per_load=80.0)
    assert read_revisit(rv, [8 * M, 8 * M]) is None and read_revisit(None, []) is None


def test_the_fit_cannot_be_changed_after_it_is_returned():
    lv = Level("L1", 32 * K, 30 * K, 34 * K, 1.0, 0.0, None, 5)
    notes, tlb = ["a note"], [{"level": 1, "entries": 64}]
    fit = MemoryFit(levels=[lv, Level("memory", None, None, None, 80.0, 1.0, None, 5)],
                    line_size_bytes=64, tlb=tlb, stride_bytes_used=64, notes=notes)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.line_size_bytes = 128
    with pytest.raises(dataclasses.FrozenInstanceError):
        lv.size_bytes = 1.0
    with pytest.raises(AttributeError):
        fit.levels.append(lv)                       # a tuple
    notes.append("later"), tlb[0].update(entries=1)  # the caller's lists are not the fit's
    assert fit.notes == ("a note",) and fit.tlb[0]["entries"] == 64
