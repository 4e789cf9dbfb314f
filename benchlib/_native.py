"""The compiled C library, with a clear message when it was not built."""
try:
    from benchlib._cbench import ffi, lib  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError(
        "benchlib's C library (benchlib._cbench) is not built. Install the "
        "package with `pip install -e .` (or run ./reproduce.sh), which "
        "compiles benchlib/csrc with cffi."
    ) from exc
