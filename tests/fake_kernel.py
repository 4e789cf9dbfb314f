"""A fake kernel's files under a folder (sys/, proc/): the switches and the
causes are read and written there, so their tests need no root and touch
nothing of the machine."""
import gzip
from pathlib import Path

CONFIG = """CONFIG_MEMCG=y
CONFIG_SLAB_FREELIST_RANDOM=y
CONFIG_HARDENED_USERCOPY=y
CONFIG_HARDENED_USERCOPY_DEFAULT_ON=y
CONFIG_USERFAULTFD=y
# CONFIG_CONTEXT_TRACKING_USER_FORCE is not set
CONFIG_TRANSPARENT_HUGEPAGE=y
CONFIG_RANDOMIZE_KSTACK_OFFSET=y
CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT=y
# CONFIG_INIT_ON_ALLOC_DEFAULT_ON is not set
CONFIG_MITIGATION_PAGE_TABLE_ISOLATION=y
"""
STATUS = """Name:\tpython
Seccomp:\t0
Seccomp_filters:\t0
NoNewPrivs:\t0
THP_enabled:\t1
Speculation_Store_Bypass:\tthread vulnerable
SpeculationIndirectBranch:\tconditional enabled
"""


def make(root: Path, debugfs: bool = True, memcg_path: str = "/box", thp: str = "madvise",
         config: str | None = CONFIG, cmdline: str = "quiet console=ttyS0",
         vulnerabilities: dict | None = None) -> Path:
    def put(rel: str, text: str) -> None:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)

    modes = " ".join(f"[{m}]" if m == thp else m for m in ("always", "madvise", "never"))
    put("sys/kernel/mm/transparent_hugepage/enabled", modes + "\n")
    put("sys/kernel/mm/transparent_hugepage/defrag", "always defer [madvise] never\n")
    mounts = ["proc /proc proc rw 0 0",
              "cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0"]
    if debugfs:
        mounts.append("debugfs /sys/kernel/debug debugfs rw,relatime 0 0")
        put("sys/kernel/debug/fault_around_bytes", "65536\n")
    put("proc/self/mounts", "\n".join(mounts) + "\n")
    put("proc/self/cgroup", f"4:memory:{memcg_path}\n0::/\n")
    (root / "sys/fs/cgroup/memory" / memcg_path.lstrip("/")).mkdir(parents=True, exist_ok=True)
    put("proc/self/status", STATUS)
    put("proc/cmdline", cmdline + "\n")
    if config is not None:
        (root / "proc").mkdir(parents=True, exist_ok=True)
        with gzip.open(root / "proc/config.gz", "wt") as f:
            f.write(config)
    vulns = {"meltdown": "Mitigation: PTI", "spectre_v2": "Mitigation: Retpolines; STIBP: disabled",
             "spectre_v1": "Mitigation: usercopy/swapgs barriers", "mds": "Not affected"}
    for name, line in (vulnerabilities if vulnerabilities is not None else vulns).items():
        put(f"sys/devices/system/cpu/vulnerabilities/{name}", line + "\n")
    put("sys/devices/system/cpu/cpuidle/current_driver", "intel_idle\n")
    for i, name in enumerate(("POLL", "C1", "C1E", "C6")):
        put(f"sys/devices/system/cpu/cpu0/cpuidle/state{i}/name", name + "\n")
    return root


def thp_mode(root: Path) -> str:
    text = (root / "sys/kernel/mm/transparent_hugepage/enabled").read_text().split()
    marked = [w.strip("[]") for w in text if w.startswith("[")]
    return marked[0] if marked else text[0]
