"""The fit on live runs recorded on real machines (tests/memory/data/live_xeon,
live_epyc and live_zen4, their READMEs say how): the simulated machines cannot show a
guest's page placement, its host's neighbours or its socket-wide last level."""
from pathlib import Path

import pytest

from benchlib.memory.curve_readers import read_input
from benchlib.memory.fit import fit_memory

DATA = Path(__file__).parent / "data"
KiB = 1024
# sysfs on the machines that recorded them: L1d and L2 (size, ways), line
SYSFS = {"live_xeon": {"L1": (48 * KiB, 12), "L2": (2048 * KiB, 16), "line": 64},
         "live_epyc": {"L1": (32 * KiB, 8), "L2": (512 * KiB, 8), "line": 64},
         "live_zen4": {"L1": (32 * KiB, 8), "L2": (1024 * KiB, 8), "line": 64}}
RUNS = [("live_xeon", r) for r in ("q2", "q4", "full1")] + \
       [("live_epyc", r) for r in ("q1", "q2", "q3", "q4", "q5", "full1",
                                   "r1", "r2", "r3", "r4", "r5", "rfull", "t4", "m4q3", "m4q4")] + \
       [("live_zen4", r) for r in ("q1", "q2", "full", "r5", "s20q4", "s21q2", "s25q4",
                                   "s20full", "s26full")]


@pytest.fixture(scope="module", params=RUNS, ids=[f"{m}-{r}" for m, r in RUNS])
def fitted(request):
    machine, run = request.param
    return machine, run, fit_memory(read_input(DATA / machine / run))


def test_three_caches_and_memory(fitted):
    """L1, L2, one last level (a guest's shared L3 is one level, not two), then memory."""
    machine, run, fit = fitted
    caches = [lv for lv in fit.levels if lv.size_bytes]
    assert [lv.name for lv in caches] == ["L1", "L2", "L3"], (machine, run)
    assert fit.levels[-1].size_bytes is None


def test_the_first_level_within_5_percent(fitted):
    machine, run, fit = fitted
    size, _ = SYSFS[machine]["L1"]
    assert abs(fit.levels[0].size_bytes / size - 1) <= 0.05, (machine, run,
                                                              fit.levels[0].size_bytes / KiB)


#: Runs whose L2 the walk reads off sysfs's by more than 5 %, each held to
#: the fraction it read (live_epyc/README.md): r1's walk saw a smaller L2 all
#: through (as a co-runner on the host's other hyperthread would make it), q1's
#: walk is slowed at every size.  q1 and r2 read 29 % and 15 % low while the
#: walk kept the TLB's misses whenever the ring's fit did (the walk now takes
#: them out on a guest: 21 % and 6 %).  q3, full1 and t4 read 15 %, 8 % and
#: 29 % off while the walk's points whose samples ran at both of the vCPU's
#: speeds had that speed taken out twice (fit._fastest_on_cycles: 5 %, 7 %,
#: 18 %).  m4q3 and m4q4: half their walk's points round the L2 slowed at
#: every sample (their README); m4q4 read 9.4 % low until the walk merged
#: levels closer than cache_model.CLOSEST_LEVELS (5.4 %).
L2_OFF = {("live_epyc", "q1"): 0.21, ("live_epyc", "r1"): 0.20, ("live_epyc", "r2"): 0.07,
          ("live_epyc", "q3"): 0.06, ("live_epyc", "full1"): 0.07, ("live_epyc", "t4"): 0.19,
          ("live_epyc", "m4q3"): 0.15, ("live_epyc", "m4q4"): 0.06}
#: Runs whose L2 interval does not hold sysfs's size: their walks' rise sits
#: earlier than a 512 KiB L2's at every size (r1 from 430 KiB on; m4q4's
#: interval ended at 506 KiB until the walk merged the levels closer than
#: CLOSEST_LEVELS: [444, 520] since).
L2_NOT_COVERED = {("live_epyc", "r1")}


def test_the_second_level_within_5_percent(fitted):
    """Every run within 5 % but those in L2_OFF, each within its own bound."""
    machine, run, fit = fitted
    size, _ = SYSFS[machine]["L2"]
    l2 = fit.levels[1].size_bytes
    tol = L2_OFF.get((machine, run), 0.05)
    assert abs(l2 / size - 1) <= tol, (machine, run, l2 / KiB)


def test_intervals_cover_sysfs(fitted):
    """Each of L1 and L2's 95 % intervals holds sysfs's size (the L2 of the
    runs in L2_NOT_COVERED excepted)."""
    machine, run, fit = fitted
    for lv in fit.levels[:2]:
        if lv.name == "L2" and (machine, run) in L2_NOT_COVERED:
            continue
        size, _ = SYSFS[machine][lv.name]
        assert lv.size_bytes_low <= size <= lv.size_bytes_high, (
            machine, run, lv.name, lv.size_bytes_low / KiB, lv.size_bytes_high / KiB)


def test_ways_within_one_or_not_identified(fitted):
    """A level's ways, where the fit identifies them, within one of sysfs's and
    inside their interval; where not, a reason."""
    machine, run, fit = fitted
    for lv in fit.levels[:2]:
        _, ways = SYSFS[machine][lv.name]
        a = lv.associativity
        if a.ways is None:
            assert a.reason, (machine, run, lv.name)
        else:
            assert abs(a.ways - ways) <= 1, (machine, run, lv.name, a)
            assert a.low <= ways <= a.high, (machine, run, lv.name, a)


#: Runs whose load pairs read no line (the older layout, 8 MiB of pairs at
#: the edge of the guest's effective L3 and TLB: plan.PAIR_PAGES).
NO_PAIRS = {("live_epyc", r) for r in ("q1", "q2", "q3", "full1")}


def test_the_line(fitted):
    """64 by the load pairs.  The stride curves are served by the stream
    prefetchers on both guests (a few cycles a load where memory takes
    hundreds): marked unusable with the reason, never said to agree; the
    runs whose pairs read nothing then have no line, and say why."""
    machine, run, fit = fitted
    info = fit.line
    assert info["strides_prefetch_served"] and info["strides"] is None, (machine, run, info)
    assert info["agree"] is None and not any("agree" in n for n in fit.notes if "line size" in n)
    assert any("unusable here" in n and "prefetcher" in n for n in fit.notes), (machine, run)
    if (machine, run) in NO_PAIRS:
        assert fit.line_size_bytes is None and info["pairs"] is None, (machine, run)
        return
    assert fit.line_size_bytes == SYSFS[machine]["line"] == info["pairs"], (machine, run)
