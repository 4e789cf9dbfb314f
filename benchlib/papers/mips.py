"""The MIPS rating every paper package uses to normalise by CPU speed:
Ousterhout's (1990) "MIPS where a VAX-11/780 is approximately 1.0", made
from this machine's measured integer speed (``integer_speed``), with the
range the samples and the conversion allow.  ``mach1989`` normalises the
1989 RPC list with it too."""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from benchlib.measuring.harness import Result, run
from benchlib.papers.tables import pinned_cpu

# The paper rates each machine in MIPS "where a VAX-11/780 is approximately
# 1.0" (Table 1): VAX-relative integer speed.  A machine that executes
# IPS native instructions per second, for a program that needs N_native
# instructions where a VAX needs N_vax, is rated
#     (N_vax / N_native) * IPS / IPS_vax.
# The two constants, and why:
#  * IPS_vax: the VAX-11/780's microcycle is 200 ns and its average
#    instruction took about 10.6 cycles on timesharing workloads (Emer and
#    Clark, "A Characterization of Processor Performance in the
#    VAX-11/780", ISCA 1984): about 0.47 million native instructions/s.
#  * N_native / N_vax: a load/store machine executes "somewhat more
#    instructions per program" than a VAX; for the MIPS M/2000 against the
#    VAX 8700 on SPEC89 about twice as many (Bhandarkar and Clark,
#    "Performance from Architecture: Comparing a RISC and a CISC with
#    Similar Hardware Organization", ASPLOS 1991).  x86-64 compiled code
#    executes roughly as many instructions as a load/store machine's, so we
#    take 2.0 and show the conclusions for 1.0 to 3.0.
# With these, a 1990 RISC's native MIPS and its VAX MIPS nearly coincide
# (2.0 x 0.47 = 0.94), as the vendors' ratings of the day assumed.
VAX780_NATIVE_MIPS = 0.47
INSTRUCTIONS_PER_VAX_INSTRUCTION = 2.0
INSTRUCTION_RATIO_RANGE = (1.0, 3.0)


def vax_mips(native_mips: float, instruction_ratio: float = INSTRUCTIONS_PER_VAX_INSTRUCTION,
             vax_native_mips: float = VAX780_NATIVE_MIPS) -> float:
    """A MIPS rating in the paper's sense (VAX-11/780 = 1) from a measured
    native instruction rate (see the constants above for the convention)."""
    if native_mips <= 0 or instruction_ratio <= 0 or vax_native_mips <= 0:
        raise ValueError("native_mips, instruction_ratio and vax_native_mips must be positive")
    return native_mips / (instruction_ratio * vax_native_mips)


def rating_range(native_low: float, native_high: float,
                 ratios: tuple[float, float] = INSTRUCTION_RATIO_RANGE) -> tuple[float, float]:
    """The lowest and highest VAX-MIPS rating the measurement supports:
    slowest native rate with the largest instruction ratio, fastest with
    the smallest."""
    return vax_mips(native_low, max(ratios)), vax_mips(native_high, min(ratios))


@dataclass
class MipsRating:
    """This machine's integer speed and the VAX-MIPS rating made from it."""
    result: Result
    native_mips: float          # median native instructions per microsecond
    rating: float               # VAX MIPS at the central conversion
    low: float                  # lowest rating the samples and conversion allow
    high: float                 # highest

    def table(self) -> pd.DataFrame:
        r = self.result
        return pd.DataFrame([
            {"quantity": "instructions per repetition (counted by single-stepping)",
             "value": r.extras["instructions_per_repetition"]},
            {"quantity": "native MIPS, median of samples", "value": self.native_mips},
            {"quantity": "native MIPS, slowest / fastest sample",
             "value": f"{r.min:,.0f} / {r.max:,.0f}"},
            {"quantity": "instructions per cycle (median)",
             "value": r.extras["instructions_per_repetition"] / r.median_cycles
             if r.median_cycles else math.nan},
            {"quantity": f"VAX MIPS (x{INSTRUCTIONS_PER_VAX_INSTRUCTION:g} instructions "
                         f"per VAX instruction, VAX {VAX780_NATIVE_MIPS} native MIPS)",
             "value": self.rating},
            {"quantity": "VAX MIPS, lowest to highest supported",
             "value": f"{self.low:,.0f} to {self.high:,.0f}"},
        ])


def mips_rating(profile: str = "quick", cpu: int | None = None) -> MipsRating:
    """Measure integer speed pinned and convert it to a VAX-MIPS rating."""
    r = run("integer_speed", cpu=pinned_cpu() if cpu is None else cpu, profile=profile)
    low, high = rating_range(r.min, r.max)
    return MipsRating(r, r.median, vax_mips(r.median), low, high)
