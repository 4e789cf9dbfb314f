"""Which access model a latency table needs, and how its tool placed its
array on the machine's pages: from what the table says (its ``pattern``
and ``placement`` columns).  ``benchlib.memory.fit`` chooses the ring or
the stride-chase model by it; ``benchlib.memory.stride`` reads the
placement.  Pure: a function of DataFrames."""
from __future__ import annotations

import pandas as pd

from benchlib.errors import BenchlibError
#: How a tool places its array on the machine's pages, as a table's
#: ``placement`` column says (absent: "size").
PLACEMENTS_OF_ARRAY = ("size", "curve", "run")
PLACEMENT_NOTES = {
    "size": ("page placement: a new array for every size (lmbench3's lat_mem_rd times each "
             "size in a freshly forked child that allocates its own), so "
             "each point is its own random placement: a random-page level keeps the typical "
             "placement's lines (placement=curve if the sizes were prefixes of one array per "
             "stride, placement=run if of one array for every stride, as lmbench 1.x and 2.x's "
             "lat_mem_rd)"),
    "curve": ("page placement: one array for the whole curve, each size a prefix of it, so a "
              "random-page level keeps the mean over placements' lines, and the last board on "
              "random pages is read again under that placement's page-colour occupancy chain"),
    "run": ("page placement: one array for the whole run, every stride's every size a prefix "
            "of it (lmbench 1.x and 2.x's lat_mem_rd allocates once), so a random-page level "
            "keeps the mean over placements' lines, the last board on random pages is read "
            "again under the page-colour occupancy chain, and its interval is drawn from one "
            "placement shared by every stride: the strides are not independent runs"),
}


def placement_of(df: pd.DataFrame) -> str:
    """How the table's tool placed its array: its ``placement`` column
    ("size": a new array, and so a new random placement of its pages, for
    every size, as lmbench3's lat_mem_rd and benchlib's own chases do;
    "curve": one array whose prefixes are the sizes, as a single-process
    chase over one allocation does; "run": one array for every stride
    too, as lmbench 1.x and 2.x's lat_mem_rd), "size" where it has none."""
    if "placement" not in df.columns:
        return "size"
    vals = set(df["placement"].dropna().astype(str).str.lower())
    if not vals:
        return "size"
    if len(vals) > 1 or not vals <= set(PLACEMENTS_OF_ARRAY):
        raise BenchlibError(f"placement must be one of {', '.join(PLACEMENTS_OF_ARRAY)} for "
                            f"the whole table; got {', '.join(sorted(vals))}")
    return vals.pop()


def access_model(df: pd.DataFrame) -> tuple[str, str]:
    """Which access model describes a latency table, from what the table
    says: ("stride", why) when every row is a sequential stride chase
    (``pattern`` "stride": lat_mem_rd's text is read so, one curve or
    many); ("ring", why) otherwise: benchlib's own runs (random-order rows
    beside their stride curves) and bare tables with no ``pattern`` column
    (a multichase-style CSV is a random chase), as before."""
    if "pattern" in df.columns:
        pat = df["pattern"].astype(str).str.lower()
        if (pat == "stride").all():
            n = df["stride_bytes"].nunique() if "stride_bytes" in df.columns else 1
            return "stride", (f"the table says pattern=stride, {n} stride curve"
                              f"{'s' if n > 1 else ''}: a sequential stride chase, as "
                              "lat_mem_rd's output is read")
        if (pat == "random").any():
            return "ring", ("the table has random-order rows (benchlib's random chase): ring "
                            "model")
    return "ring", ("no pattern column: read as a random chase (ring model); a sequential "
                    "stride chase's table says pattern=stride")


__all__ = ["PLACEMENTS_OF_ARRAY", "PLACEMENT_NOTES", "access_model", "placement_of"]
