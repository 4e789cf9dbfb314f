"""The machine's description that goes with every result, so that results
from different machines (or the same machine on different days) can be
compared honestly."""
from __future__ import annotations

import datetime as _dt
import functools
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from benchlib._version import __version__
from benchlib.errors import BenchlibError
from benchlib.units import parse_size

_SYS_CPU = Path("/sys/devices/system/cpu")


def _read(path: Path | str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _cpuinfo() -> dict[str, str]:
    info: dict[str, str] = {}
    text = _read("/proc/cpuinfo") or ""
    for line in text.splitlines():
        if ":" in line:
            k, v = (s.strip() for s in line.split(":", 1))
            info.setdefault(k, v)  # first CPU's values
    return info


def cpu_flags() -> set[str]:
    """The first CPU's feature flags from /proc/cpuinfo (``flags`` on x86,
    ``Features`` on ARM); empty where it cannot be read."""
    ci = _cpuinfo()
    return set(ci.get("flags", ci.get("Features", "")).split())


def _size_to_bytes(text: str) -> int | None:
    """sysfs's cache size (``48K``), or None where it says nothing."""
    try:
        return parse_size(text, "a sysfs cache size") if text else None
    except BenchlibError:
        return None


def cpu_caches(cpu: int = 0) -> list[dict]:
    """The caches sysfs reports for one CPU, smallest level first."""
    caches = []
    for d in sorted((_SYS_CPU / f"cpu{cpu}" / "cache").glob("index*")):
        caches.append({
            "level": int(_read(d / "level") or 0),
            "type": _read(d / "type"),
            "size_bytes": _size_to_bytes(_read(d / "size") or ""),
            "line_bytes": int(_read(d / "coherency_line_size") or 0) or None,
            "ways": int(_read(d / "ways_of_associativity") or 0) or None,
            "shared_cpu_list": _read(d / "shared_cpu_list"),
        })
    return sorted(caches, key=lambda c: (c["level"], c["type"] or ""))


def cache_summary(caches: list[dict]) -> dict[str, int | None]:
    """L1d, L2, L3 sizes in bytes (data and unified caches only)."""
    out: dict[str, int | None] = {"l1d_bytes": None, "l2_bytes": None, "l3_bytes": None}
    for c in caches:
        if c["type"] in ("Data", "Unified"):
            key = {1: "l1d_bytes", 2: "l2_bytes", 3: "l3_bytes"}.get(c["level"])
            if key:
                out[key] = c["size_bytes"]
    return out


def _virtualization(flags: set[str]) -> tuple[bool, str | None]:
    hint = None
    if shutil.which("systemd-detect-virt"):
        try:
            r = subprocess.run(["systemd-detect-virt", "--vm"], capture_output=True,
                               text=True, timeout=5)
            if r.stdout.strip() and r.stdout.strip() != "none":
                hint = r.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    hint = hint or _read("/sys/hypervisor/type") or _read("/sys/class/dmi/id/sys_vendor")
    return ("hypervisor" in flags) or bool(hint and hint != "none"), hint


def _bracketed(text: str | None) -> str | None:
    if not text:
        return None
    m = re.search(r"\[(\w+)\]", text)
    return m.group(1) if m else text


def cpu_mitigations() -> dict[str, str]:
    """The kernel's active defences against CPU vulnerabilities (sysfs),
    only those it mitigates: they add work to kernel entry and exit and to
    context switches, so they belong beside any system-call figure."""
    return {k: v for k, v in cpu_vulnerabilities().items() if v and v.startswith("Mitigation")}


def cpu_vulnerabilities(root="/") -> dict[str, str]:
    """Every line of /sys/devices/system/cpu/vulnerabilities: mitigated,
    vulnerable or not affected, as the kernel states it."""
    d = Path(root) / str(_SYS_CPU).lstrip("/") / "vulnerabilities"
    return {f.name: _read(f) for f in sorted(d.glob("*"))} if d.is_dir() else {}


def smt_state() -> dict:
    """Simultaneous multithreading: whether sibling hardware threads are
    active and how the kernel controls them (None where sysfs says nothing)."""
    active = _read(_SYS_CPU / "smt" / "active")
    return {"active": None if active is None else active == "1",
            "control": _read(_SYS_CPU / "smt" / "control")}


def thp_settings(root="/") -> dict:
    """Transparent huge pages, system-wide: the mode chosen in ``enabled``
    and ``defrag`` (always, madvise, never ...), None where absent."""
    d = Path(root) / "sys/kernel/mm/transparent_hugepage"
    return {"enabled": _bracketed(_read(d / "enabled")), "defrag": _bracketed(_read(d / "defrag"))}


def damon_schemes(root="/") -> list[dict]:
    """What DAMON, the kernel's data-access monitor, does here: one entry
    per running kdamond's scheme, with the action it applies (``pageout``
    drops cold pages: a file or buffer left untouched for ``min_age_s``
    seconds is paged out, so a later "cached" reread is partly a disk read)
    and the access pattern that triggers it.  Empty where no kdamond runs
    or sysfs has no DAMON."""
    out = []
    for k in sorted((Path(root) / "sys/kernel/mm/damon/admin/kdamonds").glob("[0-9]*")):
        if _read(k / "state") != "on":
            continue
        for ctx in sorted((k / "contexts").glob("[0-9]*")):
            aggr_us = _read(ctx / "monitoring_attrs/intervals/aggr_us")
            for sc in sorted((ctx / "schemes").glob("[0-9]*")):
                age_min = _read(sc / "access_pattern/age/min")
                out.append({
                    "kdamond": k.name, "operations": _read(ctx / "operations"),
                    "action": _read(sc / "action"),
                    "min_age_s": (int(age_min) * int(aggr_us) / 1e6
                                  if age_min and aggr_us and age_min.isdigit() and aggr_us.isdigit()
                                  else None),
                    "max_accesses": _read(sc / "access_pattern/nr_accesses/max")})
    return out


def cpufreq_policy() -> dict | None:
    """The frequency policy of CPU 0: driver, governor, energy preference and
    limits; None where the guest exposes no cpufreq (common on VMs)."""
    d = _SYS_CPU / "cpu0" / "cpufreq"
    if not d.is_dir():
        return None
    keys = ("scaling_driver", "scaling_governor", "energy_performance_preference",
            "scaling_min_freq", "scaling_max_freq", "cpuinfo_max_freq")
    return {k: _read(d / k) for k in keys}


@functools.lru_cache(maxsize=1)
def _static_info() -> dict:
    from benchlib._native import ffi, lib

    ci = _cpuinfo()
    flags = cpu_flags()
    caches = cpu_caches()
    virt, hint = _virtualization(flags)
    mem_total = None
    for line in (_read("/proc/meminfo") or "").splitlines():
        if line.startswith("MemTotal:"):
            mem_total = int(line.split()[1]) * 1024
    tsc = lib.bl_tsc_ticks_per_ns()
    policy = cpufreq_policy()
    thp = thp_settings()
    info = {
        "hostname": socket.gethostname(),
        "cpu_model": ci.get("model name") or ci.get("Hardware") or platform.processor() or None,
        "cpu_mhz_reported": float(ci["cpu MHz"]) if "cpu MHz" in ci else None,
        "arch": platform.machine(),
        "cpus_online": os.cpu_count(),
        "cpus_allowed": len(os.sched_getaffinity(0)),
        "caches": caches,
        **cache_summary(caches),
        "cache_line_bytes": next((c["line_bytes"] for c in caches if c["line_bytes"]), None),
        "memory_total_bytes": mem_total,
        "kernel": platform.release(),
        "os": platform.system(),
        "virtualized": virt,
        "hypervisor_hint": hint,
        "thp_enabled": thp["enabled"],
        "thp_defrag": thp["defrag"],
        "cpufreq_governor": (policy or {}).get("scaling_governor"),
        "cpufreq_policy": policy,
        "smt": smt_state(),
        "damon": damon_schemes(),
        "cpu_mitigations": cpu_mitigations(),
        "cpu_vulnerabilities": cpu_vulnerabilities(),
        "kernel_cmdline": _read("/proc/cmdline"),
        "clocksource": _read(_SYS_CPU.parent / "clocksource" / "clocksource0" / "current_clocksource"),
        "clock_resolution_ns": lib.bl_clock_resolution_ns(),
        "tsc_ghz": round(tsc, 4) if tsc > 0 else None,
        "compiler": ffi.string(lib.bl_compiler()).decode(),
        "cflags": ffi.string(lib.bl_cflags()).decode(),
        "benchlib_version": __version__,
        "python": sys.version.split()[0],
    }
    return info


def machine_info() -> dict:
    """The machine's description: the static part (computed once per process)
    plus load average and timestamp, which change."""
    info = dict(_static_info())
    info["loadavg"] = list(os.getloadavg())
    info["timestamp"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return info


# ------------------------------------------------ the kernel's configuration and switches
#
# Each reader takes ``root`` (the file system's root, "/" on a machine; a
# folder holding proc/ and sys/ in tests) and answers None where nothing
# there says.

def _at(root, path: str) -> Path:
    return Path(root) / path.lstrip("/")


def kernel_config_text(root="/", release: str | None = None) -> tuple[str, str | None]:
    """The running kernel's build configuration as text and where it was
    read (/proc/config.gz, else /boot/config-<release>); ("", None) when
    neither is readable."""
    import gzip

    release = release or platform.release()
    for path in ("/proc/config.gz", f"/boot/config-{release}"):
        try:
            if path.endswith(".gz"):
                with gzip.open(_at(root, path), "rt") as f:
                    return f.read(), path
            return _at(root, path).read_text(), path
        except (OSError, EOFError):
            continue
    return "", None


def kernel_config(root="/", release: str | None = None) -> tuple[dict[str, str], str | None]:
    """CONFIG_* -> value ("y", "m", a number or a string; "n" for a "# ...
    is not set" line) and the file read; ({}, None) when none is readable."""
    text, source = kernel_config_text(root, release)
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(CONFIG_\w+)=(.*)$", line)
        if m:
            out[m.group(1)] = m.group(2).strip('"')
        else:
            m = re.match(r"^# (CONFIG_\w+) is not set", line)
            if m:
                out[m.group(1)] = "n"
    return out, source


def kernel_cmdline(root="/") -> list[str] | None:
    """The kernel's command line, word by word (None where unreadable)."""
    text = _read(_at(root, "/proc/cmdline"))
    return None if text is None else text.split()


def mount_point(fs_type: str, root="/") -> str | None:
    """Where a file system of ``fs_type`` (debugfs, cgroup2 ...) is mounted
    (the first in /proc/self/mounts), or None."""
    for line in (_read(_at(root, "/proc/self/mounts")) or "").splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[2] == fs_type:
            return parts[1].replace("\\040", " ")
    return None


def fault_around_bytes(root="/") -> int | None:
    """The kernel's fault-around window (debugfs fault_around_bytes), or
    None where debugfs is not mounted or the file is absent."""
    where = mount_point("debugfs", root)
    text = _read(_at(root, f"{where}/fault_around_bytes")) if where else None
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def memory_cgroup(pid: int | str = "self", root="/") -> dict | None:
    """The memory cgroup a process is in: {"version": 1 or 2, "path" (in
    the hierarchy, "/" the root), "directory" (where it is mounted here),
    "root": whether it is the hierarchy's root}; None where no memory
    controller is mounted."""
    lines = (_read(_at(root, f"/proc/{pid}/cgroup")) or "").splitlines()
    v1 = mount_point_with_option("cgroup", "memory", root)
    for line in lines:
        hid, ctrls, path = (line.split(":", 2) + ["", ""])[:3]
        if v1 and "memory" in ctrls.split(","):
            return {"version": 1, "path": path, "directory": f"{v1}{path.rstrip('/')}" or "/",
                    "root": path in ("", "/")}
    v2 = mount_point("cgroup2", root)
    if v2 and "memory" in (_read(_at(root, f"{v2}/cgroup.controllers")) or "").split():
        for line in lines:
            hid, ctrls, path = (line.split(":", 2) + ["", ""])[:3]
            if hid == "0" and ctrls == "":
                return {"version": 2, "path": path, "directory": f"{v2}{path.rstrip('/')}",
                        "root": path in ("", "/")}
    return None


def mount_point_with_option(fs_type: str, option: str, root="/") -> str | None:
    """Where a file system of ``fs_type`` with mount option ``option`` is
    mounted (cgroup v1's memory hierarchy: cgroup with "memory")."""
    for line in (_read(_at(root, "/proc/self/mounts")) or "").splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] == fs_type and option in parts[3].split(","):
            return parts[1]
    return None


def process_security(pid: int | str = "self", root="/") -> dict:
    """What the kernel checks on every system call of a process: its
    seccomp mode (0 none, 1 strict, 2 filter) and filters, no_new_privs, and
    its speculation controls as /proc/<pid>/status states them (None where
    the kernel does not say)."""
    st = {}
    for line in (_read(_at(root, f"/proc/{pid}/status")) or "").splitlines():
        k, _, v = line.partition(":")
        st[k] = v.strip()
    num = (lambda k: int(st[k]) if st.get(k, "").isdigit() else None)
    return {"seccomp_mode": num("Seccomp"), "seccomp_filters": num("Seccomp_filters"),
            "no_new_privs": None if num("NoNewPrivs") is None else num("NoNewPrivs") == 1,
            "speculation_store_bypass": st.get("Speculation_Store_Bypass"),
            "indirect_branch_speculation": st.get("SpeculationIndirectBranch"),
            "thp_enabled": None if num("THP_enabled") is None else num("THP_enabled") == 1}


def cpuidle(root="/") -> dict:
    """The idle driver and the idle states CPU 0 may enter (names), None
    where sysfs says nothing."""
    states = []
    for d in sorted(_at(root, "/sys/devices/system/cpu/cpu0/cpuidle").glob("state*"),
                    key=lambda p: int(p.name[5:]) if p.name[5:].isdigit() else 0):
        states.append(_read(d / "name"))
    return {"driver": _read(_at(root, "/sys/devices/system/cpu/cpuidle/current_driver")),
            "states": states or None}


# ------------------------------------------------ the TLB the CPU reports

def reported_tlb() -> dict:
    """Data-TLB entries for 4 KiB pages as the CPU reports them, per level:
    {"levels": {1: n, 2: n}, "source": "...", "note": "..."}.  Intel: cpuid
    leaf 0x18 (deterministic address translation); AMD: leaves 0x80000005/6;
    /proc/cpuinfo's "TLB size" (AMD, one figure: the L2).  A guest's cpuid is
    the hypervisor's to fill: it may be empty or invented, and the note says
    where the figures came from."""
    from benchlib._native import ffi, lib

    out = {"levels": {}, "source": None, "note": ""}
    regs = ffi.new("unsigned[4]")
    if lib.bl_cpuid(0, 0, regs) != 0:
        out["note"] = "not an x86 CPU: no cpuid; TLB sizes unknown"
        return out
    vendor = b"".join(int(r).to_bytes(4, "little") for r in (regs[1], regs[3], regs[2])).decode(
        "ascii", "replace")
    max_leaf = int(regs[0])
    if vendor == "GenuineIntel" and max_leaf >= 0x18:
        lib.bl_cpuid(0x18, 0, regs)
        n_sub = int(regs[0])
        for sub in range(n_sub + 1):
            lib.bl_cpuid(0x18, sub, regs)
            edx, ebx, ecx = int(regs[3]), int(regs[1]), int(regs[2])
            kind, level = edx & 0x1F, (edx >> 5) & 0x7
            if kind in (1, 3, 4) and ebx & 1:            # data, unified or load; 4K pages
                entries = ((ebx >> 16) & 0xFFFF) * ecx
                out["levels"][level] = max(out["levels"].get(level, 0), entries)
        out["source"] = "cpuid leaf 0x18"
    elif vendor == "AuthenticAMD":
        lib.bl_cpuid(0x80000000, 0, regs)
        if int(regs[0]) >= 0x80000006:
            lib.bl_cpuid(0x80000005, 0, regs)
            l1 = (int(regs[1]) >> 16) & 0xFF
            lib.bl_cpuid(0x80000006, 0, regs)
            l2 = (int(regs[1]) >> 16) & 0xFFF
            out["levels"] = {k: v for k, v in ((1, l1), (2, l2)) if v}
            out["source"] = "cpuid leaves 0x80000005/6"
    for line in (_read_text("/proc/cpuinfo") or "").splitlines():
        if line.startswith("TLB size") and 2 not in out["levels"]:
            try:
                out["levels"][2] = int(line.split(":")[1].split()[0])
                out["source"] = (out["source"] + " and " if out["source"] else "") + "/proc/cpuinfo"
            except (IndexError, ValueError):
                pass
            break
    if not out["levels"]:
        out["note"] = (f"{vendor}: cpuid reports no data-TLB sizes in the leaves read (a "
                       "hypervisor may hide them; Intel's older leaf 0x2 descriptors are not "
                       "decoded)")
    else:
        out["note"] = f"{vendor}: from {out['source']} (in a guest, as the hypervisor presents it)"
    return out


def _read_text(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def tlb_with_reported(fitted: list[dict], reported: dict) -> list[dict]:
    """Each fitted TLB level with ``reported_entries`` (None where the CPU
    reports nothing) and ``page_bytes``."""
    out = []
    for t in fitted:
        d = dict(t)
        d["reported_entries"] = reported["levels"].get(int(t["level"]))
        d.setdefault("page_bytes", 4096)
        out.append(d)
    return out


# --------------------------------------------------- for the notebook


# ---------------------------------------------------------------- provenance

_REPO_ROOT = Path(__file__).resolve().parents[2]


@functools.lru_cache(maxsize=1)
def git_state() -> tuple[str | None, bool | None]:
    """(commit, dirty) of the checkout benchlib runs from; (None, None) if it
    is not a git checkout (an installed wheel)."""
    if not (_REPO_ROOT / ".git").exists():
        return None, None
    try:
        head = subprocess.run(["git", "-C", str(_REPO_ROOT), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        status = subprocess.run(["git", "-C", str(_REPO_ROOT), "status", "--porcelain",
                                 "--untracked-files=no"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None, None
    if head.returncode != 0:
        return None, None
    return head.stdout.strip(), bool(status.stdout.strip()) if status.returncode == 0 else None


def provenance() -> dict:
    """Where a result comes from: package version, git commit, the command
    line.  The results recorder adds the notebook that recorded it."""
    commit, dirty = git_state()
    return {"benchlib_version": __version__, "git_commit": commit, "git_dirty": dirty,
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv else None,
            "notebook": None}
