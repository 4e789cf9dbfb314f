"""Where a measurement runs: the CPUs this process may use and the one a
pinned measurement takes.  The one definition every benchmark family, paper
and notebook uses (the pinning itself happens in C, ``csrc/timing.c``, for
the measuring thread only).  No numerical imports: the measuring worker
loads it."""
from __future__ import annotations

import os

from benchlib.errors import BenchlibError


def allowed_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity mask), in order."""
    return sorted(os.sched_getaffinity(0))


def pinned_cpu(cpu: int = -1) -> int:
    """The CPU a pinned measurement runs on: ``cpu`` if given (>= 0) and
    allowed, else the first allowed CPU."""
    allowed = allowed_cpus()
    if cpu < 0:
        return allowed[0]
    if cpu not in allowed:
        raise BenchlibError(f"cpu={cpu} is not available to this process; allowed CPUs: "
                            f"{', '.join(map(str, allowed))}")
    return cpu


def can_use_two_cpus() -> bool:
    """Whether a measurement across two CPUs is possible here."""
    return len(allowed_cpus()) >= 2
