"""What every subcommand shares: exit codes, KEY=VALUE parsing, the line
that says why a result is unstable."""
from __future__ import annotations

from benchlib.errors import BenchlibError

EXIT_USAGE = 2
EXIT_MEASUREMENT = 1
EXIT_INTERRUPTED = 130


def _parse_kv(items: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in items or []:
        if "=" not in item:
            raise BenchlibError(f"parameters are KEY=VALUE; got {item!r}")
        k, v = item.split("=", 1)
        k = k.strip()
        if not k:
            raise BenchlibError(f"parameters are KEY=VALUE; got {item!r}")
        out[k] = [x.strip() for x in v.split(",")] if "," in v else [v.strip()]
    return out


def unstable_line(r) -> str:
    """One line saying why a result is not to be trusted."""
    params = " ".join(f"{k}={v}" for k, v in r.params.items())
    return (f"{r.benchmark} {params}: unstable ({'; '.join(r.diagnostics['unstable_detail'])}); "
            "rerun on a quieter machine or with more samples")
