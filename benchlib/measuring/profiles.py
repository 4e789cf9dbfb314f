"""What a profile means: how many samples, how long each, how long in all.
The one table of smoke/quick/full (and precise) for every benchmark; a
plain dataclass with no heavy imports, so the measuring worker can receive
it."""
from __future__ import annotations

from dataclasses import dataclass

from benchlib.errors import BenchlibError


@dataclass(frozen=True)
class Profile:
    """How hard to measure.  One sample lasts at least target_sample_ms
    (calibrated in C); a run stops taking samples after max_total_s.

    Adaptive sampling: with target_rel_ci set, more batches of n_samples
    (same iteration count, each timed in C) follow the first until the 95%
    bootstrap interval of the median is within target_rel_ci of it (half-width
    over median), or time_cap_s has passed, whichever comes first."""
    name: str
    n_samples: int
    n_warmup: int
    target_sample_ms: float
    max_total_s: float
    target_rel_ci: float | None = None
    time_cap_s: float | None = None


PROFILES: dict[str, Profile] = {
    "smoke": Profile("smoke", n_samples=5, n_warmup=1, target_sample_ms=0.2, max_total_s=0.25),
    "quick": Profile("quick", n_samples=15, n_warmup=2, target_sample_ms=2.0, max_total_s=2.0),
    "full": Profile("full", n_samples=41, n_warmup=3, target_sample_ms=10.0, max_total_s=20.0),
    # quick's samples, then more until the median is known within 3% (or 30 s)
    "precise": Profile("precise", n_samples=15, n_warmup=2, target_sample_ms=2.0, max_total_s=2.0,
                       target_rel_ci=0.03, time_cap_s=30.0),
}


def get_profile(profile: str | Profile) -> Profile:
    if isinstance(profile, Profile):
        return profile
    try:
        return PROFILES[profile]
    except KeyError:
        raise BenchlibError(
            f"unknown profile {profile!r}; valid profiles: {', '.join(PROFILES)}") from None
