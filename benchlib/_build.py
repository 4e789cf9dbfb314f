"""cffi build script (API, out-of-line mode): compiles benchlib/csrc into
``benchlib._cbench`` at install time.

The cdef is the BEGIN CDEF ... END CDEF part of ``csrc/benchlib.h`` (the
public API; ``csrc/internal.h`` is what the C files share) so the header
stays the one place the C API is declared.
"""
from pathlib import Path
import re

from cffi import FFI

HERE = Path(__file__).resolve().parent
CSRC = HERE / "csrc"
# The one list of C sources: every csrc/*.c is part of the library except
# the small programs that run on their own (built by
# benchlib/measuring/benchmarks/compiler_cache.py).  reproduce.sh's stamp reads every
# file in csrc/, so a new source is rebuilt without being listed anywhere.
PROGRAMS = ("tiny_exit.c", "proc_runner.c")
SOURCES = sorted(p.name for p in CSRC.glob("*.c") if p.name not in PROGRAMS)
# -O2 and no -march=native: the numbers should come from the code a user of
# a distribution's compiler gets, and be comparable between machines.
CFLAGS = ["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"]


def _package_version() -> str:
    text = (HERE / "_version.py").read_text()
    return re.search(r'__version__ = "([^"]+)"', text).group(1)


def _cdef() -> str:
    text = (CSRC / "benchlib.h").read_text()
    m = re.search(r"/\* BEGIN CDEF \*/(.*?)/\* END CDEF \*/", text, re.S)
    if not m:
        raise RuntimeError("benchlib.h has no BEGIN CDEF ... END CDEF section")
    return m.group(1)


def _tirpc() -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """(include dirs, libraries, macros) for Sun RPC through libtirpc, found
    by pkg-config or by its header; all empty when it is not installed
    (rpc_latency then reports how to get it)."""
    import shutil
    import subprocess

    if shutil.which("pkg-config"):
        try:
            if subprocess.run(["pkg-config", "--exists", "libtirpc"]).returncode == 0:
                flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libtirpc"],
                                       capture_output=True, text=True, check=True).stdout.split()
                incs = [f[2:] for f in flags if f.startswith("-I")]
                libs = [f[2:] for f in flags if f.startswith("-l")] or ["tirpc"]
                return incs or ["/usr/include/tirpc"], libs, [("BL_HAVE_TIRPC", "1")]
        except (OSError, subprocess.CalledProcessError):
            pass
    if Path("/usr/include/tirpc/rpc/rpc.h").exists():
        return ["/usr/include/tirpc"], ["tirpc"], [("BL_HAVE_TIRPC", "1")]
    return [], [], []


TIRPC_INCLUDES, TIRPC_LIBS, TIRPC_MACROS = _tirpc()

ffibuilder = FFI()
ffibuilder.cdef(_cdef())
ffibuilder.set_source(
    "benchlib._cbench",
    '#include "benchlib.h"',
    sources=[str((CSRC / s).relative_to(HERE.parent)) for s in SOURCES],
    include_dirs=[str(CSRC.relative_to(HERE.parent))] + TIRPC_INCLUDES,
    extra_compile_args=CFLAGS,
    define_macros=[
        ("BL_CFLAGS", '"%s"' % " ".join(CFLAGS)),
        ("BL_PACKAGE_VERSION", '"%s"' % _package_version()),
    ] + TIRPC_MACROS,
    libraries=["m", "pthread"] + TIRPC_LIBS,
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
