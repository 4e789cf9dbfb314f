"""Switches of the kernel that change while the machine runs, and the
guarantee that every one is put back.

A *switch* is a setting that can move a measurement: transparent huge
pages' mode (system-wide, sysfs), the fault-around window (system-wide,
debugfs), membership of a memory cgroup, and the per-process ones a
measuring worker can be made with (``benchlib.measuring.worker.SETUPS``:
a seccomp filter, prctl's huge-page and speculation controls).  Each
switch says what it is now (``as_found``), which other states it can take
here (``states``) or why it cannot (``unavailable``), and how a
measurement runs in one of them: a system-wide switch is written
(``set``) and written back (``restore``); a per-process one becomes the
``setup`` of a worker made for it, so neither this process nor the default
worker is touched.

``Restoring`` is the guard around a run that changes system-wide switches:
every switch set inside it is written back on the way out, whether the run
ends, raises, is interrupted by Ctrl-C, or receives SIGTERM or SIGHUP
(turned into ``SwitchesInterrupted`` while the guard is active, so the
``finally`` runs).  Every reader and writer takes ``root`` (the file
system's root; a folder holding sys/ and proc/ in tests), so the whole
machinery is tested without root and without touching the machine.

Nothing here measures or imports a numerical library."""
from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

from benchlib.errors import BenchlibError
from benchlib.measuring import metadata
from benchlib.measuring import worker as _worker


class SwitchesInterrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived while switches were changed (they are put back)."""


class Switch:
    """One switch.  ``scope``: "system" (written here, written back after)
    or "process" (a worker's setup).  ``states()``: the states other than
    as found that a run may measure; ``unavailable()``: None, or why this
    machine or this user cannot change it."""
    name = ""
    scope = "system"
    cause = ""          # the cause (LEBench's, or today's) the switch turns on or off
    description = ""

    def __init__(self, root="/"):
        self.root = Path(root)

    def as_found(self) -> str:
        raise NotImplementedError

    def states(self) -> list[str]:
        raise NotImplementedError

    def unavailable(self) -> str | None:
        return None

    # system-wide switches
    def set(self, state: str) -> None:
        raise BenchlibError(f"{self.name} is not a system-wide switch")

    def restore(self) -> None:
        """Put back the state found (a no-op for per-process switches)."""

    # per-process switches
    def setup(self, state: str) -> dict:
        """The worker setup that puts a measurement in ``state``."""
        raise BenchlibError(f"{self.name} is not a per-process switch")

    def describe(self) -> dict:
        why = self.unavailable()
        return {"switch": self.name, "scope": self.scope, "cause": self.cause,
                "as_found": self.as_found(), "states": [] if why else self.states(),
                "skipped_because": why, "description": self.description}


# ---------------------------------------------------------------- system-wide

class ModeFile(Switch):
    """A sysfs file that shows its modes with the chosen one bracketed
    ("always [madvise] never") and takes a mode's name."""

    def __init__(self, name: str, path: str, cause: str, description: str, root="/"):
        super().__init__(root)
        self.name, self.path, self.cause, self.description = name, path, cause, description
        self._found: str | None = None
        self._modes: list[str] | None = None

    @property
    def file(self) -> Path:
        return self.root / self.path.lstrip("/")

    def _text(self) -> str | None:
        try:
            return self.file.read_text().strip()
        except OSError:
            return None

    def as_found(self) -> str:
        if self._found is not None:
            return self._found
        text = self._text()
        return metadata._bracketed(text) if text else "absent"

    def modes(self) -> list[str]:
        """The modes the file offers (as first read: a file that shows only
        the mode written, as a plain file does, keeps its list)."""
        if not self._modes:
            self._modes = [m.strip("[]") for m in (self._text() or "").split()]
        return self._modes

    def states(self) -> list[str]:
        now = self.as_found()
        return [m for m in self.modes() if m != now]

    def unavailable(self) -> str | None:
        if self._text() is None:
            return f"{self.path} is absent (a kernel without this switch)"
        if not os.access(self.file, os.W_OK):
            return f"{self.path} is not writable (needs root)"
        return None

    def set(self, state: str) -> None:
        self.modes()
        if self._found is None:
            self._found = metadata._bracketed(self._text()) if self._text() else None
        if state not in self.modes() and state != self._found:
            raise BenchlibError(f"{self.name} has no mode {state!r}; modes: "
                                f"{', '.join(self.modes())}")
        self.file.write_text(state)

    def restore(self) -> None:
        if self._found is not None:
            self.file.write_text(self._found)
            self._found = None


def thp_enabled(root="/") -> ModeFile:
    return ModeFile("thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled",
                    "Disabling transparent huge pages",
                    "transparent huge pages, system-wide: always, madvise (only where a "
                    "program asks) or never", root)


class FaultAround(Switch):
    """The fault-around window (debugfs fault_around_bytes): how much of a
    file the kernel maps around the page a read fault asks for.  Its other
    state here is 4096 (one page: fault-around off)."""
    name = "fault_around_bytes"
    cause = "Fault around"
    description = ("bytes of a file mapped around a read fault (debugfs; 4096: one page, "
                   "fault-around off)")
    OFF = "4096"

    def __init__(self, root="/"):
        super().__init__(root)
        self._found: str | None = None

    def _file(self) -> Path | None:
        where = metadata.mount_point("debugfs", self.root)
        return self.root / where.lstrip("/") / "fault_around_bytes" if where else None

    def as_found(self) -> str:
        if self._found is not None:
            return self._found
        v = metadata.fault_around_bytes(self.root)
        return "unknown" if v is None else str(v)

    def states(self) -> list[str]:
        return [s for s in (self.OFF, "65536") if s != self.as_found()]

    def unavailable(self) -> str | None:
        f = self._file()
        if f is None:
            return "debugfs is not mounted (fault_around_bytes lives there)"
        if not f.exists():
            return "debugfs has no fault_around_bytes (a kernel without fault-around)"
        if not os.access(f, os.W_OK):
            return "fault_around_bytes is not writable (needs root)"
        return None

    def set(self, state: str) -> None:
        if self._found is None:
            self._found = self.as_found()
        self._file().write_text(str(int(state)))

    def restore(self) -> None:
        if self._found is not None:
            self._file().write_text(self._found)
            self._found = None


class MemoryCgroup(Switch):
    """Membership of a memory cgroup: the worker measured in a child cgroup
    of its own memory cgroup (made here, removed after), against the worker
    where it is.  From the hierarchy's root this is the controller on
    against off; from a cgroup already charged (a container, a session) it
    is one more level of charging, and the switch says so."""
    name = "memory_cgroup"
    scope = "process"
    cause = "Control group memory controller"
    STATE = "child"

    def __init__(self, root="/", pid: int | str = "self"):
        super().__init__(root)
        self.pid = pid
        self.made: Path | None = None

    @property
    def description(self) -> str:
        cg = metadata.memory_cgroup(self.pid, self.root)
        where = "the root (no charging)" if cg and cg["root"] else "a memory cgroup already"
        return (f"the worker in a new child memory cgroup; it is in {where}, so this measures "
                + ("the controller's charging on against off" if cg and cg["root"]
                   else "one more level of charging, not the controller on against off"))

    def as_found(self) -> str:
        cg = metadata.memory_cgroup(self.pid, self.root)
        return "none" if cg is None else cg["path"] or "/"

    def states(self) -> list[str]:
        return [self.STATE]

    def unavailable(self) -> str | None:
        cg = metadata.memory_cgroup(self.pid, self.root)
        if cg is None:
            return "no memory cgroup controller is mounted"
        d = self.root / cg["directory"].lstrip("/")
        if not os.access(d, os.W_OK):
            return f"cannot create a cgroup in {cg['directory']} (needs root or delegation)"
        return None

    def setup(self, state: str) -> dict:
        if state != self.STATE:
            raise BenchlibError(f"{self.name} has one state here, {self.STATE!r}")
        if self.made is None:
            cg = metadata.memory_cgroup(self.pid, self.root)
            d = self.root / cg["directory"].lstrip("/") / f"benchlib-{os.getpid()}"
            d.mkdir(exist_ok=True)
            self.made = d
        return {"cgroup_procs": str(self.made / "cgroup.procs")}

    def restore(self) -> None:
        """Remove the child cgroup (its workers must have ended first)."""
        if self.made is not None:
            _worker.end_setup_workers()
            try:
                self.made.rmdir()
            finally:
                self.made = None


# ---------------------------------------------------------------- per-process

class Seccomp(Switch):
    """A seccomp filter of 0, 1 or 10 rules, as a container runtime installs
    one (csrc/seccomp.c), in a worker made for it."""
    name = "seccomp"
    scope = "process"
    cause = "Seccomp filter (a container's system-call filter)"
    description = "a seccomp filter of N deny rules installed in the measuring worker"
    RULES = (0, 1, 10)

    def as_found(self) -> str:
        sec = metadata.process_security("self", self.root)
        if sec["seccomp_mode"] is None:
            return "unknown"
        return "none" if sec["seccomp_mode"] == 0 else f"mode {sec['seccomp_mode']}, " \
            f"{sec['seccomp_filters']} filters"

    def states(self) -> list[str]:
        return [f"{n} rule" if n == 1 else f"{n} rules" for n in self.RULES]

    def unavailable(self) -> str | None:
        sec = metadata.process_security("self", self.root)
        if sec["seccomp_mode"] is None:
            return "this kernel reports no seccomp (CONFIG_SECCOMP off)"
        return None

    def setup(self, state: str) -> dict:
        return {"seccomp_rules": int(state.split()[0])}


class ThpPrctl(Switch):
    """prctl(PR_SET_THP_DISABLE) for the worker: no transparent huge pages
    for that process, whatever the system-wide mode."""
    name = "thp_prctl"
    scope = "process"
    cause = "Disabling transparent huge pages"
    description = "transparent huge pages refused for the measuring worker (prctl)"

    def as_found(self) -> str:
        on = metadata.process_security("self", self.root)["thp_enabled"]
        return "unknown" if on is None else "allowed" if on else "disabled"

    def states(self) -> list[str]:
        return ["disabled"]

    def unavailable(self) -> str | None:
        if self.as_found() != "allowed":
            return f"this process's huge pages are {self.as_found()} already"
        return None

    def setup(self, state: str) -> dict:
        return {"thp_disable": True}


class Speculation(Switch):
    """A per-process speculation control of prctl: speculative store bypass
    (SSBD) or indirect branch speculation (STIBP/IBPB) disabled for the
    worker.  Available where the kernel leaves the choice to processes
    (its mitigation mode "prctl" or "seccomp")."""
    scope = "process"

    def __init__(self, which: str, root="/"):
        super().__init__(root)
        self.which = which
        self.name = which
        self.cause = {"spec_store_bypass": "Speculative store bypass disabled (SSBD)",
                      "spec_indirect_branch": "Indirect branch speculation restricted"}[which]
        self.description = f"prctl(PR_SET_SPECULATION_CTRL) {which} disabled for the worker"

    def _status(self) -> str | None:
        sec = metadata.process_security("self", self.root)
        return sec["speculation_store_bypass" if self.which == "spec_store_bypass"
                   else "indirect_branch_speculation"]

    def as_found(self) -> str:
        return self._status() or "unknown"

    def states(self) -> list[str]:
        return ["disable"]

    def unavailable(self) -> str | None:
        bits = _worker.speculation_control(self.which)
        if bits is None:
            return "this kernel has no such speculation control"
        if not bits & _worker.PR_SPEC_PRCTL:
            return (f"the kernel does not leave it to processes (/proc status: "
                    f"{self._status()!r}; boot option's mode is not prctl or seccomp)")
        return None

    def setup(self, state: str) -> dict:
        return {self.which: "disable"}


def runtime_switches(root="/") -> list[Switch]:
    """Every switch this module knows, in the order a report lists them."""
    return [thp_enabled(root), FaultAround(root), MemoryCgroup(root), Seccomp(root),
            ThpPrctl(root), Speculation("spec_store_bypass", root),
            Speculation("spec_indirect_branch", root)]


# ---------------------------------------------------------------- the guard

class Restoring:
    """``with Restoring() as guard: guard.set(switch, state) ...``: every
    system-wide switch set through the guard, and every per-process switch
    given to ``guard.track``, is put back on the way out (normal end,
    exception, Ctrl-C, SIGTERM or SIGHUP).  Restoring goes on past a switch
    that fails to restore; the first such failure is raised after."""

    SIGNALS = (signal.SIGTERM, signal.SIGHUP)

    def __init__(self):
        self.touched: list[Switch] = []
        self._old: dict = {}

    def track(self, switch: Switch) -> Switch:
        if switch not in self.touched:
            self.touched.append(switch)
        return switch

    def set(self, switch: Switch, state: str) -> None:
        self.track(switch)
        switch.set(state)

    def restore_all(self) -> list[str]:
        """Put every switch back; the errors met, as text."""
        errors = []
        _worker.end_setup_workers()
        for sw in reversed(self.touched):
            try:
                sw.restore()
            except Exception as exc:  # keep restoring the others
                errors.append(f"{sw.name}: {exc}")
        return errors

    def _on_signal(self, signum, frame):
        raise SwitchesInterrupted(f"signal {signal.Signals(signum).name}: switches restored")

    def __enter__(self) -> "Restoring":
        if threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                self._old[s] = signal.signal(s, self._on_signal)
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        try:
            errors = self.restore_all()
        finally:
            for s, h in self._old.items():
                signal.signal(s, h)
            self._old.clear()
        if errors and exc_type is None:
            raise BenchlibError("could not restore " + "; ".join(errors))
        return False
