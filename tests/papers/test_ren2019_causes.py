"""Which causes are in force: the metadata readers and the rules, on fake
kernels whose answers are known (tests/fake_kernel.py), and once on this
machine for structure only."""
import pytest

from benchlib.measuring import metadata as md
from benchlib.papers.ren2019 import causes, paper
from fake_kernel import make


@pytest.fixture
def root(tmp_path):
    return make(tmp_path)


def test_readers_on_a_fake_kernel(root):
    cfg, src = md.kernel_config(root)
    assert src == "/proc/config.gz"
    assert cfg["CONFIG_MEMCG"] == "y" and cfg["CONFIG_CONTEXT_TRACKING_USER_FORCE"] == "n"
    assert md.kernel_cmdline(root) == ["quiet", "console=ttyS0"]
    assert md.mount_point("debugfs", root) == "/sys/kernel/debug"
    assert md.fault_around_bytes(root) == 65536
    assert md.memory_cgroup("self", root) == {"version": 1, "path": "/box", "root": False,
                                              "directory": "/sys/fs/cgroup/memory/box"}
    sec = md.process_security("self", root)
    assert sec["seccomp_mode"] == 0 and sec["no_new_privs"] is False and sec["thp_enabled"]
    assert md.cpuidle(root) == {"driver": "intel_idle", "states": ["POLL", "C1", "C1E", "C6"]}
    assert md.thp_settings(root) == {"enabled": "madvise", "defrag": "madvise"}
    assert md.cpu_vulnerabilities(root)["meltdown"] == "Mitigation: PTI"


def test_readers_where_nothing_says(tmp_path):
    assert md.kernel_config(tmp_path) == ({}, None)
    assert md.kernel_cmdline(tmp_path) is None and md.fault_around_bytes(tmp_path) is None
    assert md.memory_cgroup("self", tmp_path) is None
    assert md.process_security("self", tmp_path)["seccomp_mode"] is None
    assert md.cpuidle(tmp_path) == {"driver": None, "states": None}


def _state(df, cause):
    return df.set_index("cause").loc[cause, "state"]


def test_every_lebench_cause_has_a_row_in_the_papers_order(root):
    df = causes.causes_in_force(root=root)
    lebench = df[df.lebench]
    assert list(lebench.cause) == list(paper.load("root_causes").cause)
    assert set(df.state) <= set(causes.STATES)
    assert (df.source.str.len() > 3).all() and (df.evidence.str.len() > 3).all()


def test_the_rules_on_a_kernel_with_everything_on(root):
    df = causes.causes_in_force(root=root)
    assert _state(df, "Kernel page-table isolation (Meltdown patch)") == causes.IN
    assert _state(df, "Avoid indirect branch speculation (Spectre patch)") == causes.IN
    assert _state(df, "SLAB freelist randomization") == causes.IN
    assert _state(df, "Hardened usercopy") == causes.IN
    assert _state(df, "Fault around") == causes.IN                 # 65536 > one page
    assert _state(df, "Control group memory controller") == causes.IN
    assert _state(df, "Disabling transparent huge pages") == causes.IN   # madvise
    assert _state(df, "Forced context tracking") == causes.OUT
    assert _state(df, "TLB layout specification") == causes.UNKNOWN
    assert _state(df, "Missing CPU power-saving states") == causes.OUT   # intel_idle, 4 states
    assert _state(df, "Seccomp filter (a container's system-call filter)") == causes.OUT
    assert _state(df, "Zeroing of every allocation (init_on_alloc)") == causes.OUT
    assert "CPU defence: spectre_v1" in set(df.cause)
    assert "CPU defence: mds" not in set(df.cause)                  # not affected: no defence
    assert causes.tally(df) == {causes.IN: 8, causes.OUT: 2, causes.UNKNOWN: 1}


def test_the_rules_on_a_kernel_with_them_off(tmp_path):
    root = make(tmp_path, debugfs=False, memcg_path="/", thp="always",
                cmdline="hardened_usercopy=off nohz_full=1-3 init_on_alloc=1",
                vulnerabilities={"meltdown": "Not affected",
                                 "spectre_v2": "Mitigation: Enhanced / Automatic IBRS"})
    df = causes.causes_in_force(root=root)
    assert _state(df, "Kernel page-table isolation (Meltdown patch)") == causes.OUT
    assert _state(df, "Avoid indirect branch speculation (Spectre patch)") == causes.OUT
    assert _state(df, "Hardened usercopy") == causes.OUT
    assert _state(df, "Fault around") == causes.UNKNOWN            # no debugfs
    assert _state(df, "Control group memory controller") == causes.OUT   # the root cgroup
    assert _state(df, "Disabling transparent huge pages") == causes.OUT   # always
    assert _state(df, "Forced context tracking") == causes.IN     # nohz_full
    assert _state(df, "Zeroing of every allocation (init_on_alloc)") == causes.IN


def test_without_a_readable_configuration_the_build_options_cannot_be_told(tmp_path):
    root = make(tmp_path, config=None, vulnerabilities={})
    df = causes.causes_in_force(root=root)
    for cause in ("SLAB freelist randomization", "Userspace page fault handling",
                  "Forced context tracking", "Kernel page-table isolation (Meltdown patch)"):
        assert _state(df, cause) == causes.UNKNOWN, cause


def test_on_this_machine_every_row_is_decided_or_says_why():
    df = causes.causes_in_force()
    assert len(df[df.lebench]) == 11
    assert set(df.state) <= set(causes.STATES)
    assert df.switch.isin(["", "fault_around_bytes", "memory_cgroup", "thp_enabled thp_prctl",
                           "seccomp", "spec_store_bypass", "spec_indirect_branch"]).all()
