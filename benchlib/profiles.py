"""What a profile means, in one place: for every benchmark, how many
samples, how long each, how long in all (``PROFILES``); and for every
benchmark and analysis whose work grows with the profile, what smoke, quick
and full measure (``SETTINGS``: grids, passes, sweep points, plans).  The
bottom layer: plain data with no heavy imports, so the measuring worker
and the pure analysis modules can both read it.

    setting("memory.passes", "quick")   # -> 2
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchlib.errors import BenchlibError


@dataclass(frozen=True)
class Profile:
    """How hard to measure.  One sample lasts at least target_sample_ms
    (calibrated in C); a run stops taking samples after max_total_s.

    Adaptive sampling: with target_rel_ci set, more batches of n_samples
    (same iteration count, each timed in C) follow the first until the
    median's 95% interval (``benchlib.stats.summary.median_ci``) is within
    target_rel_ci of it (half-width over median), or time_cap_s has passed,
    whichever comes first; the C core stops a batch as soon as it is
    (``bl_opts.stop_rel_ci``: no sooner than six samples, the fewest with a
    95% interval).  Its
    samples last TARGETED_SAMPLE_MS (or the profile's, if shorter): where
    the interval decides how many samples are taken, a long sample only
    costs time (see TARGETED_SAMPLE_MS)."""
    name: str
    n_samples: int
    n_warmup: int
    target_sample_ms: float
    max_total_s: float
    target_rel_ci: float | None = None
    time_cap_s: float | None = None


#: The sample length of an adaptive run (a target interval): the median of
#: short samples is the median of long ones where each sample holds
#: thousands of clock steps and a tick (4 ms at 250 Hz) lands in few of
#: them, and 15 samples of 0.5 ms reach a latency's +-3 % in a quarter of
#: the time 2 ms samples take (bench/adaptive_sampling.py --rounds: the
#: medians and the times, docs/measuring.md).
TARGETED_SAMPLE_MS = 0.5

PROFILES: dict[str, Profile] = {
    "smoke": Profile("smoke", n_samples=5, n_warmup=1, target_sample_ms=0.2, max_total_s=0.25),
    "quick": Profile("quick", n_samples=15, n_warmup=2, target_sample_ms=2.0, max_total_s=2.0),
    "full": Profile("full", n_samples=41, n_warmup=3, target_sample_ms=10.0, max_total_s=20.0),
    # quick's sample count, then more until the median is known within 3% (or 30 s)
    "precise": Profile("precise", n_samples=15, n_warmup=2, target_sample_ms=TARGETED_SAMPLE_MS,
                       max_total_s=2.0,
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


# What each profile means beyond one run's samples: one row per setting,
# one column per profile ("precise" reads quick's row).  Who reads a row is
# in its name: <benchmark or package>.<what>.
KiB, MiB = 1 << 10, 1 << 20
SETTINGS: dict[str, dict[str, Any]] = {
    # benchmarks whose one sample is a whole run
    "io_workload.samples": {"smoke": 2, "quick": 5, "full": 11},
    "andrew_benchmark.samples": {"smoke": 1, "quick": 3, "full": 5},
    # benchlib.memory: points per octave of size (random curve, each stride
    # curve) and the strides of the paper-style figure
    "memory.grid": {"smoke": (2, 1, [64, 4096]), "quick": (6, 1, [64, 4096]),
                    "full": (8, 2, [16, 64, 256, 1024, 4096])},
    # the fitted curves' passes, each in random order, each point its best
    "memory.passes": {"smoke": 1, "quick": 2, "full": 2},
    # the random walk's passes, spread over the run (smoke measures no walk)
    "memory.walk_passes": {"smoke": 0, "quick": 3, "full": 4},
    # sampling of each grid point (many points, each short) and of the few
    # points whose single values decide a step (line pairs, TLB chain)
    "memory.grid_sampling": {
        "smoke": Profile("smoke", n_samples=3, n_warmup=0, target_sample_ms=0.05, max_total_s=0.05),
        "quick": Profile("quick", n_samples=3, n_warmup=1, target_sample_ms=0.2, max_total_s=0.06),
        "full": Profile("full", n_samples=5, n_warmup=1, target_sample_ms=0.4, max_total_s=0.2)},
    "memory.point_sampling": {
        "smoke": Profile("smoke", n_samples=3, n_warmup=0, target_sample_ms=0.05, max_total_s=0.05),
        "quick": Profile("quick", n_samples=9, n_warmup=1, target_sample_ms=0.5, max_total_s=0.2),
        "full": Profile("full", n_samples=15, n_warmup=1, target_sample_ms=1.0, max_total_s=0.5)},
    # the random walk's points: many short samples, each point read at its
    # fastest (a neighbour on the core slows a walk for a millisecond at a
    # time, so more, shorter samples catch more of the cache alone)
    "memory.walk_sampling": {
        "smoke": Profile("smoke", n_samples=3, n_warmup=0, target_sample_ms=0.05, max_total_s=0.05),
        "quick": Profile("quick", n_samples=21, n_warmup=1, target_sample_ms=0.2, max_total_s=0.2),
        "full": Profile("full", n_samples=31, n_warmup=1, target_sample_ms=0.4, max_total_s=0.5)},
    # the bandwidth mountain: points per octave and strides
    "memory.mountain": {"smoke": (0.5, [8, 64]), "quick": (1, [8, 16, 32, 64, 128, 256, 512]),
                        "full": (2, [8, 16, 32, 64, 128, 256, 512])},
    # papers: a cache-dependent size is capped at smoke (None: not capped)
    "papers.max_sized_bytes": {"smoke": 16 * MiB, "quick": None, "full": None},
    # Chen & Patterson's self-scaling run (chen1994.measure.Plan's fields)
    "chen1994.plan": {
        "smoke": dict(duration_s=0.04, cache_bytes=16 * MiB, unique_points=5,
                      min_unique_bytes=1 * MiB, sizes=(4096, 65536, 1 * MiB), fracs=(0.0, 1.0),
                      processes=(1, 2), n_random=6, grid_values=2, first_try_passes=1),
        "quick": dict(duration_s=0.2, cache_bytes=128 * MiB, unique_points=11,
                      min_unique_bytes=1 * MiB, sizes=(1024, 4096, 16384, 65536, 262144, 1 * MiB),
                      fracs=(0.0, 0.25, 0.5, 0.75, 1.0), processes=(1, 2, 4), n_random=20,
                      grid_values=2, first_try_passes=1),
        "full": dict(duration_s=0.8, cache_bytes=256 * MiB, unique_points=17,
                     min_unique_bytes=1 * MiB,
                     sizes=(1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288,
                            1 * MiB),
                     fracs=(0.0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 1.0),
                     processes=(1, 2, 3, 4, 6, 8), n_random=100, grid_values=3, first_try_passes=2)},
    # Lai & Baker's curves: ring sizes, small-file sizes and files per batch,
    # bytes per write or datagram
    "laibaker1996.ctx_processes": {"smoke": [2, 8], "quick": [2, 4, 8, 16, 32, 64],
                                   "full": [2, 4, 6, 8, 12, 16, 24, 32, 48, 64]},
    "laibaker1996.small_file": {
        "smoke": ([0, 4 * KiB], 20),
        "quick": ([0, 1 * KiB, 2 * KiB, 4 * KiB, 8 * KiB, 16 * KiB, 32 * KiB, 64 * KiB], 100),
        "full": ([0, 512, 1 * KiB, 2 * KiB, 4 * KiB, 8 * KiB, 12 * KiB, 16 * KiB, 24 * KiB, 32 * KiB,
                  48 * KiB, 64 * KiB, 128 * KiB], 300)},
    "laibaker1996.net_sizes": {"smoke": [8 * KiB],
                               "quick": [4 * KiB, 8 * KiB, 16 * KiB, 32 * KiB, 60 * KiB],
                               "full": [4 * KiB, 8 * KiB, 16 * KiB, 32 * KiB, 60 * KiB]},
    # the lmbench paper's context-switch figure: processes, and process sizes
    # in KB (a size beyond L2 is added from the machine)
    "mcvoy1996.ctx_grid": {"smoke": ([2, 8], [0, 32]),
                           "quick": ([2, 4, 8, 16, 24, 32], [0, 4, 16, 32, 64]),
                           "full": ([2, 4, 6, 8, 12, 16, 20, 24, 32, 48, 64], [0, 4, 16, 32, 64])},
    # LEBench's switch experiment (ren2019.measure.switch_rounds): the tests
    # measured in every switch state, the interleaved rounds, and each run's
    # sampling (short runs, many of them: the pairing, not one run, decides)
    "ren2019.switch_tests": {
        "smoke": ["getpid", "small mmap"],
        "quick": ["getpid", "context siwtch", "send", "recv", "fork", "thr create",
                  "small read", "small write", "small mmap", "small munmap", "small page fault",
                  "big page fault", "select", "epoll"],
        "full": ["getpid", "context siwtch", "send", "recv", "big send", "big recv", "fork",
                 "thr create", "big fork", "small read", "small write", "big read", "big write",
                 "small mmap", "big mmap", "small munmap", "big munmap", "small page fault",
                 "big page fault", "select", "poll", "epoll", "select big", "poll big",
                 "epoll big"]},
    "ren2019.switch_rounds": {"smoke": 2, "quick": 10, "full": 16},
    "ren2019.switch_sampling": {
        "smoke": Profile("smoke", n_samples=3, n_warmup=0, target_sample_ms=0.1, max_total_s=0.05),
        "quick": Profile("quick", n_samples=5, n_warmup=1, target_sample_ms=0.3, max_total_s=0.1),
        "full": Profile("full", n_samples=9, n_warmup=1, target_sample_ms=1.0, max_total_s=0.5)},
    # LEBench's tests in the notebook's main table: every one, except at smoke
    "ren2019.tests": {"smoke": ["getpid", "send", "fork", "thr create", "small mmap",
                                "small munmap", "small page fault", "small read", "select"],
                      "quick": None, "full": None},
}
_READS_AS = {"precise": "quick"}


def setting(name: str, profile: "str | Profile") -> Any:
    """What ``profile`` (a name or a Profile) means for ``name`` (a row of
    SETTINGS); a BenchlibError naming the valid ones otherwise."""
    prof = getattr(profile, "name", profile)
    try:
        row = SETTINGS[name]
    except KeyError:
        raise BenchlibError(f"no profile setting {name!r}; known: {', '.join(SETTINGS)}") from None
    try:
        return row[_READS_AS.get(prof, prof)]
    except KeyError:
        raise BenchlibError(f"unknown profile {prof!r}; valid profiles: {', '.join(PROFILES)}") from None
