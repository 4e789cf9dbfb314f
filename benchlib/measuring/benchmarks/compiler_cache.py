"""The compiler cache: small C programs that run outside the library
(the tiny program process_creation execs, the small process that forks
for it), compiled once per user with the library's flags and kept under
$XDG_CACHE_HOME/benchlib, named by a hash of their sources."""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile

from benchlib.errors import BenchlibError
from benchlib.measuring.benchmarks.common import _ffi, _lib

CSRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "csrc")
TINY_SOURCE = os.path.join(CSRC, "tiny_exit.c")


def _cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "benchlib")


def _cached_build(stem: str, sources: list[str], flags: list[str]) -> str:
    """Compile C sources from csrc/ with $CC or cc into a per-user cache
    directory, once: the executable is named by a hash of the sources, the
    flags and the compiler command, so a change to any of them builds anew."""
    cc = shlex.split(os.environ.get("CC", "")) or ["cc"]
    if shutil.which(cc[0]) is None:
        raise BenchlibError(
            f"this benchmark needs a C compiler to build {stem}, but {cc[0]!r} was not "
            f"found (install gcc or set CC)")
    paths = [os.path.join(CSRC, name) for name in sources]
    h = hashlib.sha256(" ".join(cc + flags).encode())
    for path in paths + [os.path.join(CSRC, name) for name in ("benchlib.h", "internal.h")]:
        with open(path, "rb") as f:
            h.update(b"\0" + f.read())
    directory = _cache_dir()
    target = os.path.join(directory, f"{stem}-{h.hexdigest()[:16]}")
    if os.access(target, os.X_OK):
        return target
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{stem}-", dir=directory)
        os.close(fd)
    except OSError as e:
        raise BenchlibError(f"cannot write {stem} into {directory}: {e}") from None
    try:
        r = subprocess.run([*cc, *flags, "-pthread", "-I", CSRC, "-o", tmp, *paths, "-lm"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise BenchlibError(f"{' '.join(cc)} could not compile {', '.join(sources)}:\n"
                                f"{r.stderr}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)  # atomic: a concurrent run sees all or nothing
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def tiny_program() -> str:
    """Absolute path of the tiny program process_creation execs (it exits at
    once with status 0), compiled on first use from csrc/tiny_exit.c."""
    return _cached_build("bl-tiny-exit", ["tiny_exit.c"], ["-O2"])


def proc_runner() -> str:
    """Absolute path of the small C process that runs process_creation and
    context_switch with parent=small: csrc/proc_runner.c with the library's own proc.c, timing.c
    and add_chain.c, compiled with the library's flags."""
    ffi = _ffi()
    flags = ffi.string(_lib().bl_cflags()).decode().split()
    return _cached_build("bl-proc-runner", ["proc_runner.c", "proc.c", "timing.c", "add_chain.c"],
                         flags)

