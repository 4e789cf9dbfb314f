"""Which of LEBench's causes, and of today's, are in force on this kernel:
each read from what the kernel states about itself, "cannot tell" where
nothing says.

Sources (``benchlib.measuring.metadata``'s readers, each with a ``root``
so tests run on a fake file system): /sys/devices/system/cpu/vulnerabilities,
/proc/cmdline, the kernel's configuration (/proc/config.gz or
/boot/config-<release>), transparent huge pages in sysfs, fault_around_bytes
in debugfs, the measuring process's memory cgroup, its seccomp and
speculation status (/proc/<pid>/status), the idle driver's states.

``causes_in_force()`` gives one row per cause: ``cause``, ``lebench`` (one
of the paper's eleven, named as its repository names them), ``state`` (in
force / not in force / cannot tell), ``evidence`` (what was read),
``source`` (where), ``switchable`` (how it could be changed) and
``switch`` (the ``benchlib.measuring.switches`` switch that changes it at
run time, "" for none)."""
from __future__ import annotations

import platform
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from benchlib.measuring import metadata as md
from benchlib.papers.ren2019 import paper

IN, OUT, UNKNOWN = "in force", "not in force", "cannot tell"
STATES = (IN, OUT, UNKNOWN)
VULN = "/sys/devices/system/cpu/vulnerabilities"


@dataclass
class Facts:
    """Everything the rules read, gathered once (``gather``)."""
    vulnerabilities: dict = field(default_factory=dict)
    cmdline: list | None = None
    config: dict = field(default_factory=dict)
    config_source: str | None = None
    thp: dict = field(default_factory=dict)
    fault_around: int | None = None
    debugfs: str | None = None
    memcg: dict | None = None
    security: dict = field(default_factory=dict)
    cpuidle: dict = field(default_factory=dict)
    cpu_model: str | None = None

    def option(self, *names: str) -> str | None:
        """The first of ``names`` the configuration sets ("y", "n", ...)."""
        for n in names:
            if n in self.config:
                return self.config[n]
        return None

    def boot(self, word: str) -> str | None:
        """The command line's word equal to ``word`` or starting ``word=``."""
        for w in self.cmdline or []:
            if w == word or w.startswith(word + "="):
                return w
        return None


def gather(root="/", pid: int | str = "self") -> Facts:
    """The facts of the kernel at ``root`` and of the process ``pid`` (the
    measuring worker's, when the notebook asks)."""
    config, source = md.kernel_config(root)
    return Facts(vulnerabilities=md.cpu_vulnerabilities(root), cmdline=md.kernel_cmdline(root),
                 config=config, config_source=source, thp=md.thp_settings(root),
                 fault_around=md.fault_around_bytes(root),
                 debugfs=md.mount_point("debugfs", root), memcg=md.memory_cgroup(pid, root),
                 security=md.process_security(pid, root), cpuidle=md.cpuidle(root),
                 cpu_model=(md._cpuinfo().get("model name") if str(root) == "/" else None))


Rule = Callable[[Facts], tuple[str, str, str]]   # -> (state, evidence, source)


def _from_config(f: Facts, names: tuple[str, ...], what: str, off_word: str | None = None,
                 default_on: tuple[str, ...] = ()) -> tuple[str, str, str]:
    v = f.option(*names)
    src = f.config_source or "kernel configuration (not readable)"
    if v is None:
        return UNKNOWN, f"the configuration does not say ({' or '.join(names)})", src
    if v == "n":
        return OUT, f"{names[0]} is not set: {what} not built", src
    off = f.boot(off_word) if off_word else None
    if off and off.endswith(("=off", "=0", "=n")):
        return OUT, f"{names[0]}={v}, but the command line says {off}", "/proc/cmdline"
    if default_on and f.option(*default_on) == "n" and not off:
        return OUT, f"{names[0]}={v}, but off by default ({default_on[0]} not set)", src
    return IN, f"{names[0]}={v}" + (f"; command line: {off}" if off else ""), src


def _vuln(f: Facts, name: str, mitigation_word: str, config: tuple[str, ...],
          boot: str) -> tuple[str, str, str]:
    line = f.vulnerabilities.get(name)
    src = f"{VULN}/{name}"
    if line:
        if mitigation_word.lower() in line.lower():
            return IN, line, src
        if line.startswith("Not affected"):
            return OUT, f"{line}: the CPU needs no such defence", src
        return OUT, line, src
    st, ev, s = _from_config(f, config, "the defence", boot)
    return (UNKNOWN if st == IN else st), ev + " (sysfs does not say whether it is active)", s


def pti(f):
    return _vuln(f, "meltdown", "PTI", ("CONFIG_PAGE_TABLE_ISOLATION",
                                        "CONFIG_MITIGATION_PAGE_TABLE_ISOLATION"), "pti")


def retpoline(f):
    return _vuln(f, "spectre_v2", "Retpoline", ("CONFIG_RETPOLINE", "CONFIG_MITIGATION_RETPOLINE"),
                 "spectre_v2")


def freelist(f):
    return _from_config(f, ("CONFIG_SLAB_FREELIST_RANDOM",), "SLAB freelist randomisation")


def usercopy(f):
    return _from_config(f, ("CONFIG_HARDENED_USERCOPY",), "hardened usercopy",
                        "hardened_usercopy", ("CONFIG_HARDENED_USERCOPY_DEFAULT_ON",))


def fault_around(f):
    if f.fault_around is None:
        why = "debugfs is not mounted" if f.debugfs is None else "debugfs has no fault_around_bytes"
        return UNKNOWN, f"{why}; the kernel's default window is 64 KiB", "debugfs"
    state = IN if f.fault_around > 4096 else OUT
    return state, f"fault_around_bytes = {f.fault_around}", f"{f.debugfs}/fault_around_bytes"


def memcg(f):
    st, ev, src = _from_config(f, ("CONFIG_MEMCG",), "the memory controller")
    if st == OUT:
        return st, ev, src
    off = f.boot("cgroup_disable")
    if off and "memory" in off:
        return OUT, f"command line: {off}", "/proc/cmdline"
    if f.memcg is None:
        return OUT, "no memory controller mounted: every page in the root (uncharged)", \
            "/proc/self/mounts"
    if f.memcg["root"]:
        return OUT, "the measuring process is in the root memory cgroup (not charged)", \
            "/proc/<pid>/cgroup"
    return IN, f"the measuring process is in memory cgroup {f.memcg['path']} " \
        f"(cgroup v{f.memcg['version']}): its pages are charged", "/proc/<pid>/cgroup"


def thp_disabled(f):
    mode = f.thp.get("enabled")
    src = "/sys/kernel/mm/transparent_hugepage/enabled"
    if mode is None:
        if f.option("CONFIG_TRANSPARENT_HUGEPAGE") == "n":
            return IN, "CONFIG_TRANSPARENT_HUGEPAGE is not set: no huge pages", f.config_source
        return UNKNOWN, "sysfs has no transparent_hugepage/enabled", src
    if mode == "always":
        return OUT, "enabled = always", src
    return IN, f"enabled = {mode}: huge pages only where a program asks" if mode == "madvise" \
        else f"enabled = {mode}", src


def userfaultfd(f):
    return _from_config(f, ("CONFIG_USERFAULTFD",), "userfaultfd")


def context_tracking(f):
    nohz = f.boot("nohz_full")
    if nohz:
        return IN, f"command line: {nohz} (context tracking on those CPUs)", "/proc/cmdline"
    forced = f.option("CONFIG_CONTEXT_TRACKING_FORCE", "CONFIG_CONTEXT_TRACKING_USER_FORCE")
    if forced == "y":
        return IN, "CONFIG_CONTEXT_TRACKING_(USER_)FORCE=y", f.config_source
    if f.config:
        return OUT, "no forced context tracking in the configuration, no nohz_full", \
            f.config_source
    return UNKNOWN, "the configuration is not readable", "kernel configuration (not readable)"


def tlb_layout(f):
    return UNKNOWN, (f"the kernel's table of TLB layouts for the CPU ({f.cpu_model or 'unknown'}) "
                     "is compiled in; nothing outside the kernel's source shows it"), "kernel source"


def idle_states(f):
    drv, states = f.cpuidle.get("driver"), f.cpuidle.get("states")
    src = "/sys/devices/system/cpu/cpu0/cpuidle"
    if drv is None and not states:
        return UNKNOWN, "sysfs shows no idle driver", src
    text = f"idle driver {drv}; states: {', '.join(s or '?' for s in states or [])}"
    if drv in ("intel_idle", "acpi_idle") and states and len(states) > 2:
        return OUT, text, src
    return UNKNOWN, text + " (whether deeper states are missing cannot be read from here)", src


def kstack_offset(f):
    return _from_config(f, ("CONFIG_RANDOMIZE_KSTACK_OFFSET",), "kernel stack offset randomisation",
                        "randomize_kstack_offset", ("CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT",))


def init_on_alloc(f):
    on = f.boot("init_on_alloc")
    if on:
        return (IN if on.endswith(("=1", "=on", "=y")) else OUT), f"command line: {on}", \
            "/proc/cmdline"
    v = f.option("CONFIG_INIT_ON_ALLOC_DEFAULT_ON")
    if v is None:
        return UNKNOWN, "the configuration does not say", f.config_source or "kernel configuration"
    return (IN if v == "y" else OUT), f"CONFIG_INIT_ON_ALLOC_DEFAULT_ON={v}", f.config_source


def seccomp(f):
    mode = f.security.get("seccomp_mode")
    if mode is None:
        return UNKNOWN, "the process status shows no Seccomp line", "/proc/<pid>/status"
    if mode == 0:
        return OUT, "Seccomp: 0 (no filter)", "/proc/<pid>/status"
    return IN, f"Seccomp: {mode}, filters: {f.security.get('seccomp_filters')}", "/proc/<pid>/status"


def _spec(key: str):
    def rule(f):
        v = f.security.get(key)
        if v is None:
            return UNKNOWN, "the process status does not say", "/proc/<pid>/status"
        state = IN if ("mitigated" in v or "disabled" in v) else OUT
        return state, v, "/proc/<pid>/status"
    return rule


# cause -> (rule, how it could be changed, the run-time switch)
LEBENCH_RULES: dict[str, tuple[Rule, str, str]] = {
    "Kernel page-table isolation (Meltdown patch)": (pti, "no: boot option pti=off", ""),
    "Avoid indirect branch speculation (Spectre patch)":
        (retpoline, "no: boot option spectre_v2=off", ""),
    "SLAB freelist randomization": (freelist, "no: kernel build", ""),
    "Hardened usercopy": (usercopy, "no: boot option hardened_usercopy=off", ""),
    "Fault around": (fault_around, "yes, system-wide: debugfs fault_around_bytes (root)",
                     "fault_around_bytes"),
    "Control group memory controller":
        (memcg, "yes, per process: memory cgroup membership (root)", "memory_cgroup"),
    "Disabling transparent huge pages":
        (thp_disabled, "yes, system-wide: sysfs transparent_hugepage/enabled (root); per "
         "process, off only: prctl", "thp_enabled thp_prctl"),
    "Userspace page fault handling": (userfaultfd, "no: kernel build", ""),
    "Forced context tracking": (context_tracking, "no: kernel build or boot option nohz_full", ""),
    "TLB layout specification": (tlb_layout, "no: kernel source", ""),
    "Missing CPU power-saving states": (idle_states, "no: idle driver and boot options", ""),
}

TODAY_RULES: dict[str, tuple[Rule, str, str]] = {
    "Seccomp filter (a container's system-call filter)":
        (seccomp, "yes, per process: installed in a throw-away worker (cannot be removed)",
         "seccomp"),
    "Speculative store bypass disabled (SSBD)":
        (_spec("speculation_store_bypass"), "per process where the kernel leaves it to prctl",
         "spec_store_bypass"),
    "Indirect branch speculation restricted":
        (_spec("indirect_branch_speculation"), "per process where the kernel leaves it to prctl",
         "spec_indirect_branch"),
    "Kernel stack offset randomisation":
        (kstack_offset, "no: boot option randomize_kstack_offset=off", ""),
    "Zeroing of every allocation (init_on_alloc)": (init_on_alloc, "no: boot option", ""),
}


def _other_mitigations(f: Facts) -> list[dict]:
    """Every CPU defence sysfs reports as active, beyond Meltdown's and
    Spectre v2's (which LEBench's rows cover)."""
    out = []
    for name, line in sorted(f.vulnerabilities.items()):
        if name in ("meltdown", "spectre_v2") or not line or not line.startswith("Mitigation"):
            continue
        out.append({"cause": f"CPU defence: {name}", "lebench": False, "state": IN,
                    "evidence": line, "source": f"{VULN}/{name}",
                    "switchable": "no: boot option (mitigations=off or its own)", "switch": ""})
    return out


def causes_in_force(facts: Facts | None = None, root="/", pid: int | str = "self") -> pd.DataFrame:
    """One row per cause (LEBench's eleven first, in the paper's order, then
    today's); see the module's docstring for the columns."""
    f = facts or gather(root, pid)
    names = list(paper.load("root_causes")["cause"])
    missing = set(names) ^ set(LEBENCH_RULES)
    if missing:
        raise ValueError(f"root_causes.csv and the rules disagree on {sorted(missing)}")
    rows = []
    for table, lebench in ((LEBENCH_RULES, True), (TODAY_RULES, False)):
        for cause in (names if lebench else table):
            rule, switchable, switch = table[cause]
            state, evidence, source = rule(f)
            rows.append({"cause": cause, "lebench": lebench, "state": state,
                         "evidence": evidence, "source": source, "switchable": switchable,
                         "switch": switch})
    rows += _other_mitigations(f)
    return pd.DataFrame(rows, columns=["cause", "lebench", "state", "evidence", "source",
                                       "switchable", "switch"])


def tally(causes: pd.DataFrame, lebench_only: bool = True) -> dict[str, int]:
    """How many causes are in force, not, or cannot be told."""
    df = causes[causes["lebench"]] if lebench_only else causes
    return {s: int((df["state"] == s).sum()) for s in STATES}


def kernel_release() -> str:
    return platform.release()
