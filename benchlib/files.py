"""Writing a file so that a reader sees the old one or the new, never half:
the one place the project does it (result files, the store, the kernel-
independent caches of the measuring layer).  Beneath every layer."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from benchlib.errors import BenchlibError


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file in the same
    directory and a rename: readers see the old file or the new, never half."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise BenchlibError(f"cannot write {path}: {exc.strerror}") from None
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)  # as open() would have made it, not mkstemp's 0600
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise BenchlibError(f"cannot write {path}: {exc.strerror}") from None
        raise
    return path
