"""Registrations for csrc/fs.c: open/close, create/delete, file read and
reread bandwidth, batches of creates and deletes, small files, disk I/O."""
from __future__ import annotations

from benchlib.errors import BenchlibError
from benchlib.measuring.registry import Benchmark, Param, check_free_space, filesystem_of, register
from benchlib.measuring.benchmarks.common import (CPU, DIRECTORY, _check_cpu, _check_cpu_param, _encode, _ffi, _fs_extras,
                     _lib, _us, no_extras, phase_buffer, phase_extras)


# ---------------------------------------------------------------- file system

register(Benchmark(
    name="open_close_latency",
    description='open() then close() of an existing file named "foo" or "a/b/c/foo"',
    unit="us",
    params=(Param("path", "choice", "foo", "the name opened", choices=("foo", "a/b/c/foo")),
            DIRECTORY, CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_open_close(
        _encode(p["directory"]), 1 if p["path"] == "foo" else 4, o, ns, tk, info)),
    to_unit=_us,
    check=_check_cpu_param,
    extras=_fs_extras,
))

register(Benchmark(
    name="fs_create_delete",
    description="create a file, write file_bytes, close, reopen, read it, close, delete "
                "(Ousterhout's temporary-file benchmark), optionally forcing data to disk",
    unit="ms",
    params=(Param("file_bytes", "size", 0, "bytes written and read back", min=0, max=1 << 30),
            Param("fsync", "choice", "no", "yes: fsync the file and the directory, so the "
                  "call waits for the disk", choices=("no", "yes")),
            DIRECTORY, CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_create_delete(
        _encode(p["directory"]), p["file_bytes"], p["fsync"] == "yes", o, ns, tk, info)),
    to_unit=lambda ns, p: ns / 1e6,
    check=_check_cpu_param,
    memory_bytes=lambda p: p["file_bytes"],
    extras=_fs_extras,
))


def _check_free_space(p: dict) -> None:
    check_free_space(p["file_bytes"], p["directory"], "file_bytes")


# How the file is made is part of what is measured: a file system with large
# folios (ext4 and xfs on Linux 6.x) keeps a file in the page cache in folios
# up to as large as the writes that made it (to 2 MiB).  On an AMD EPYC guest
# (Linux 6.18, ext4, 2026-11-27) a 64 MiB file written in 16 KiB writes was
# read back by read() at 8.2-8.4 GB/s and through a fresh mapping at 7.2 GB/s;
# written in one 64 MiB write, at 10.5-11.0 and 14.4 GB/s (the mapping then
# takes one fault per 2 MiB).  docs/peers.md has the command.
WRITE_BYTES = Param("write_bytes", "size", 16 << 10,
                    "bytes per write() when the file is made, just before the timing (the page "
                    "cache keeps it in folios as large as the writes, to 2 MiB, where the file "
                    "system has large folios: the larger, the faster read() and mmap() read it)",
                    min=4096, max=1 << 30)


def _check_file_read(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["block_bytes"] > p["file_bytes"]:
        raise BenchlibError(f"block_bytes ({p['block_bytes']}) is larger than file_bytes "
                            f"({p['file_bytes']})")
    _check_free_space(p)


register(Benchmark(
    name="file_read_bandwidth",
    description="read() a file that is in the page cache, in block_bytes reads into one buffer",
    unit="MB/s",
    counts="file bytes read per second, MB = 10^6 bytes",
    params=(Param("file_bytes", "size", 64 << 20, "size of the file (fits the page cache, not "
                  "the CPU caches)", min=4096, max=1 << 40),
            Param("block_bytes", "size", 16 << 10, "bytes per read() (the paper: 16 kbytes)",
                  min=1, max=1 << 30),
            WRITE_BYTES, DIRECTORY, CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_file_read(
        _encode(p["directory"]), p["file_bytes"], p["block_bytes"], p["write_bytes"],
        o, ns, tk, info)),
    to_unit=lambda ns, p: p["file_bytes"] / ns * 1e3,
    check=_check_file_read,
    memory_bytes=lambda p: p["file_bytes"] + min(p["write_bytes"], p["file_bytes"]),
    extras=_fs_extras,
))


def _check_reread(p: dict) -> None:
    _check_file_read(p)
    if p["block_bytes"] % 8 or p["file_bytes"] % 8:
        raise BenchlibError("file_bytes and block_bytes must be multiples of 8 (words are summed)")


register(Benchmark(
    name="file_reread_bandwidth",
    description="Reread a file in the page cache and sum its words: by read() in block_bytes "
                "calls into one buffer, through a fresh mmap() per pass, or through one mapping "
                "made before the timing",
    unit="MB/s",
    counts="file bytes read and summed per second, MB = 10^6 bytes",
    params=(Param("method", "choice", "read", "read: read() into one buffer, then sum it; "
                  "mmap: map the file, sum it, unmap (each pass pays the mapping and its page "
                  "faults, as lmbench3's bw_mmap_rd open2close); mmap_once: map once before "
                  "the timing and only sum (lmbench3's bw_mmap_rd mmap_only: memory read of "
                  "the cached pages)",
                  choices=("read", "mmap", "mmap_once")),
            Param("file_bytes", "size", 64 << 20, "size of the file", min=4096, max=1 << 40),
            Param("block_bytes", "size", 64 << 10, "bytes per read() (method=read)",
                  min=8, max=1 << 30),
            WRITE_BYTES, DIRECTORY, CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_file_reread(
        _encode(p["directory"]), p["file_bytes"], p["block_bytes"], p["write_bytes"],
        ("read", "mmap", "mmap_once").index(p["method"]),
        o, ns, tk, info)),
    to_unit=lambda ns, p: p["file_bytes"] / ns * 1e3,
    check=_check_reread,
    memory_bytes=lambda p: p["file_bytes"] + min(p["write_bytes"], p["file_bytes"]),
    extras=_fs_extras,
))


def _measure_fs_latency(p, o, ns, tk, info):
    ffi = _ffi()

    batches = o.n_samples
    create, delete = ffi.new("double[]", batches), ffi.new("double[]", batches)
    o.clock_ghz = ffi.NULL  # batches are timed in C without the per-sample clock probe
    rc = _lib().bl_fs_latency(_encode(p["directory"]), p["file_bytes"], p["files"], batches,
                              create, delete, info)
    mine, other = (create, delete) if p["op"] == "create" else (delete, create)
    for i in range(info.n_samples):
        ns[i] = mine[i]
    other_name = "delete" if p["op"] == "create" else "create"
    return rc, {f"{other_name}_us_per_file": [other[i] / 1e3 for i in range(info.n_samples)]}


register(Benchmark(
    name="fs_latency",
    description="Create `files` files of file_bytes in one directory, then delete them all; "
                "the time per file of the creates or of the deletes",
    unit="us",
    counts="us per file created (op=create) or deleted (op=delete); each sample is one batch "
           "of `files`; the other operation's figures are in extras; files/s = 1e6 / us",
    params=(Param("op", "choice", "create", "which half to report", choices=("create", "delete")),
            Param("file_bytes", "size", 0, "bytes written to each file", min=0, max=1 << 20),
            Param("files", "int", 1000, "files per batch (the paper: 1000)", min=1,
                  max=1_000_000),
            DIRECTORY),
    measure=_measure_fs_latency,
    to_unit=lambda ns, p: ns / 1e3,
    extras=_fs_extras,
    memory_bytes=lambda p: p["file_bytes"] * p["files"],
))


SMALL_FILE_PHASES = ("create", "write", "read", "delete")


def _check_small_file(p: dict) -> None:
    _check_cpu(p["cpu"])
    check_free_space(p["size_bytes"] * p["files"], p["directory"], "files x size_bytes")


def _measure_small_file(p, o, ns, tk, info):
    phases = phase_buffer(o, len(SMALL_FILE_PHASES))  # batches are timed in C
    rc = _lib().bl_small_file(_encode(p["directory"]), p["size_bytes"], p["files"], o, phases,
                              info)
    k, m = info.n_samples, len(SMALL_FILE_PHASES)
    for b in range(k):
        ns[b] = (sum(phases[b * m + j] for j in range(m)) if p["phase"] == "total"
                 else phases[b * m + SMALL_FILE_PHASES.index(p["phase"])])
    return rc, phase_extras(phases, SMALL_FILE_PHASES, k, 1e3, "phase_us_per_file",
                            "phase_median_us")


register(Benchmark(
    name="small_file",
    description="The small-file benchmark: create `files` new files, write size_bytes to each, "
                "read each back, delete them all, each step timed over the whole batch",
    unit="us",
    counts="us per file of the phase chosen (total: all four); each sample is one batch of "
           "`files` new names (open O_CREAT|O_EXCL + close; open + write + close; open + read "
           "+ close; unlink); every phase's figures in extras (phase_us_per_file, "
           "phase_median_us); one batch is discarded first",
    params=(Param("phase", "choice", "total", "which figure is the value: total (all four "
                  "steps) or one of create, write, read, delete",
                  choices=("total",) + SMALL_FILE_PHASES),
            Param("size_bytes", "size", 1 << 10, "bytes written to and read from each file",
                  min=0, max=1 << 20),
            Param("files", "int", 100, "new files per batch (the slides do not say how many)",
                  min=1, max=100_000),
            DIRECTORY, CPU),
    measure=_measure_small_file,
    to_unit=lambda ns, p: ns / 1e3,
    check=_check_small_file,
    memory_bytes=lambda p: p["size_bytes"],
    extras=_fs_extras,
))


def _check_disk(p: dict) -> None:
    _check_cpu(p["cpu"])
    if p["block_bytes"] % 512:
        raise BenchlibError(f"block_bytes must be a multiple of 512; got {p['block_bytes']}")
    if p["block_bytes"] > p["file_bytes"]:
        raise BenchlibError(f"block_bytes ({p['block_bytes']}) is larger than file_bytes "
                            f"({p['file_bytes']})")
    _check_free_space(p)
    fs = filesystem_of(p["directory"]).get("fs_type")
    if p["direct"] == "yes" and fs in ("tmpfs", "ramfs", "devtmpfs"):
        # tmpfs accepts O_DIRECT since Linux 6.6, but there is no disk under it
        raise BenchlibError(f"{p['directory']} is on {fs}: memory, not a disk, so O_DIRECT "
                            "measures nothing; choose a directory on a disk-backed file system")


register(Benchmark(
    name="disk_io",
    description="block_bytes reads or writes at sequential or random offsets of a file, with "
                "O_DIRECT (past the page cache, to the device) unless direct=no",
    unit="us",
    counts="us per transfer; MB/s = block_bytes / us; sequential 512 B-4 KiB direct reads give "
           "the stack's overhead per operation (the device's cache answers them)",
    params=(Param("op", "choice", "read", "read or write", choices=("read", "write")),
            Param("pattern", "choice", "sequential", "sequential: the next block, wrapping; "
                  "random: uniformly random block-aligned offsets",
                  choices=("sequential", "random")),
            Param("block_bytes", "size", 4096, "bytes per transfer (a multiple of 512)",
                  min=512, max=64 << 20),
            Param("file_bytes", "size", 64 << 20, "size of the test file", min=4096, max=1 << 40),
            Param("direct", "choice", "yes", "yes: O_DIRECT (a clear error where the file "
                  "system refuses it, e.g. tmpfs); no: through the page cache",
                  choices=("yes", "no")),
            DIRECTORY, CPU),
    measure=lambda p, o, ns, tk, info: no_extras(_lib().bl_disk_io(
        _encode(p["directory"]), p["file_bytes"], p["block_bytes"], p["op"] == "write",
        p["pattern"] == "random", p["direct"] == "yes", o, ns, tk, info)),
    to_unit=lambda ns, p: ns / 1e3,
    check=_check_disk,
    extras=_fs_extras,
))

