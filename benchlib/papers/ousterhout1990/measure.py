"""This machine's rows of Ousterhout 1990, "Why Aren't Operating Systems
Getting Faster As Fast as Hardware?": one function per table, each running
the benchmarks the table needs and returning the results beside rows in the
paper's columns and units, ready for ``paper_table``.

The paper's data and normalisation are in ``benchlib.papers.ousterhout1990.paper``;
this module only measures.  Pinned rows use the first CPU this process may
run on; Tables 2 and 3 also report unpinned (and, for the round trip, two
CPUs) as separate rows, since a VM's cross-CPU wake-ups change them most.
"""
from __future__ import annotations

import math

import pandas as pd
from scipy.stats import gmean

from benchlib.stats import intervals as iv
from benchlib.measuring.harness import sweep, run
from benchlib.memory.measure import cache_sizes
from benchlib.measuring.metadata import machine_info
from benchlib.papers import TableRows, beside_paper, load_table, pinned_cpu, table_rows as _rows
from benchlib.papers.mips import MipsRating, mips_rating  # noqa: F401  (this paper's rating, re-exported)
from benchlib.papers.ousterhout1990 import paper

KB = 1024  # the paper's kbyte; Table 10's sizes and Table 6's block are in these


# ------------------------------------------------------------ Tables 2-4

def table2(profile: str = "quick") -> TableRows:
    cpu = pinned_cpu()
    res = {"pinned": run("syscall", op="getpid", cpu=cpu, profile=profile),
           "unpinned": run("syscall", op="getpid", profile=profile)}
    rows = [{"configuration": f"this machine, {k}", "time_us": r.measured} for k, r in res.items()]
    return _rows("table02", rows, res, cpu=cpu)


def table3(profile: str = "quick") -> TableRows:
    res = {p: run("pipe_latency", placement=p, profile=profile)
           for p in ("same_cpu", "different_cpus", "unpinned")}
    rows = [{"configuration": f"this machine, {k}", "time_ms": r.measured / 1e3}
            for k, r in res.items()]
    return _rows("table03", rows, res)


def cswitch_parts(profile: str = "quick") -> TableRows:
    """The round trip beside its parts, all pinned to one CPU: the paper
    says a round trip is two writes, two reads and two context switches.

    * ``pipe_write_read``: a write and a read with no switch (one process);
    * ``yield_switch``: two processes handing the CPU back and forth with
      sched_yield: two switches plus two (cheap) system calls;
    * ``syscall getpid``: the cost of a bare system call, to take out of
      the yield figure.
    The switch a pipe round trip pays is (round trip - 2 x (write + read)) / 2;
    it includes going to sleep in read and being woken by write, which the
    bare yield switch does not."""
    cpu = pinned_cpu()
    res = {"round trip (same CPU)": run("pipe_latency", placement="same_cpu", cpu=cpu,
                                        profile=profile),
           "write + read, no switch": run("pipe_write_read", cpu=cpu, profile=profile),
           "yield + yield, two switches": run("yield_switch", cpu=cpu, profile=profile),
           "getpid": run("syscall", op="getpid", cpu=cpu, profile=profile)}
    rt = res["round trip (same CPU)"].median
    wr = res["write + read, no switch"].median
    yld = res["yield + yield, two switches"].median
    sysc = res["getpid"].median
    switch_in_pipe = (rt - 2 * wr) / 2
    bare_switch = yld / 2 - sysc
    rows = [
        {"part": "2 x (write + read)", "us": 2 * wr},
        {"part": "2 x switch, with sleep and wake-up (the rest)", "us": rt - 2 * wr},
        {"part": "round trip, measured", "us": rt},
        {"part": "2 x bare switch (sched_yield pair - 2 syscalls)", "us": 2 * bare_switch},
        {"part": "round trip predicted from bare switches", "us": 2 * wr + 2 * bare_switch},
    ]
    alternation = res["yield + yield, two switches"].extras.get("child_yields_per_parent_yield")
    checks = {
        "parts are smaller than the whole": 2 * wr < rt,
        "a switch in the round trip costs at least a bare switch": switch_in_pipe >= bare_switch,
        "the yielding processes really alternated (0.9-1.1 child yields per parent yield)":
            alternation is not None and 0.9 <= alternation <= 1.1,
        "write + read costs more than two bare system calls": wr > 2 * sysc,
    }
    return TableRows("cswitch_parts", pd.DataFrame(rows), res,
                     {"checks": checks, "switch_in_pipe_us": switch_in_pipe,
                      "bare_switch_us": bare_switch, "wakeup_us": switch_in_pipe - bare_switch,
                      "child_yields_per_parent_yield": alternation, "cpu": cpu})


def table4(profile: str = "quick") -> TableRows:
    cpu = pinned_cpu()
    res = {"1 pipe": run("select_latency", pipes=1, full="no", cpu=cpu, profile=profile),
           "10 empty": run("select_latency", pipes=10, full="no", cpu=cpu, profile=profile),
           "10 full": run("select_latency", pipes=10, full="yes", cpu=cpu, profile=profile)}
    rows = [{"configuration": "this machine, pinned", "one_pipe_us": res["1 pipe"].measured,
             "ten_empty_us": res["10 empty"].measured, "ten_full_us": res["10 full"].measured}]
    return _rows("table04", rows, res, cpu=cpu)


# ------------------------------------------------------------ Tables 5-6

def table5(profile: str = "quick", rating: float | None = None) -> TableRows:
    """memcpy of a block that fits the caches and one much larger than the
    last level, sizes chosen from this machine's caches (memory.cache_sizes)."""
    cpu = pinned_cpu()
    cached, uncached = cache_sizes(machine_info())
    res = {"cached": run("bcopy", size_bytes=cached, cpu=cpu, profile=profile),
           "uncached": run("bcopy", size_bytes=uncached, cpu=cpu, profile=profile)}
    # the rating is taken as exact here: its range is shown separately (mips_rating)
    row = {"configuration": "this machine, pinned", "cached_mb_s": res["cached"].measured,
           "uncached_mb_s": res["uncached"].measured,
           "mbytes_per_mips": res["uncached"].measured / rating if rating else math.nan}
    return _rows("table05", [row], res, cached_bytes=cached, uncached_bytes=uncached, cpu=cpu)


def read_file_bytes(machine: dict | None = None) -> int:
    """A file that fits the page cache but not the CPU caches: 4x the last
    level, a power of two, at least 64 MiB."""
    _, uncached = cache_sizes(machine or machine_info())
    return max(64 << 20, uncached)


def table6(profile: str = "quick", directory: str | None = None) -> TableRows:
    cpu = pinned_cpu()
    size = read_file_bytes()
    kw = {"directory": directory} if directory else {}
    res = {"read": run("file_read_bandwidth", file_bytes=size, block_bytes=16 * KB, cpu=cpu,
                       profile=profile, **kw)}
    rows = [{"configuration": "this machine, pinned", "mb_s": res["read"].measured}]
    return _rows("table06", rows, res, file_bytes=size, cpu=cpu,
                 fs_type=res["read"].extras.get("fs_type"))


# ------------------------------------------------------------ Tables 7-10

def table7(profile: str = "quick", directory: str | None = None) -> TableRows:
    """The Modified Andrew Benchmark, local only: "copy" is every phase but
    the compile (the paper's split), medians over the runs."""
    kw = {"directory": directory} if directory else {}
    r = run("andrew_benchmark", copy="cp", profile=profile, **kw)
    phases = pd.DataFrame(r.extras["phase_s"])
    total = phases.sum(axis=1)
    copy = total - phases["compile"]
    why = r.measured.unstable   # the runs' own intervals, the result's flags
    rows = [{"configuration": "this machine, local", "copy_s": iv.of_samples(copy, why),
             "compile_s": iv.of_samples(phases["compile"], why), "total_s": r.measured}]
    return _rows("table07", rows, {"andrew": r}, phases=phases,
                 fs_type=r.extras.get("fs_type"))


def table9(profile: str = "quick", directory: str | None = None) -> TableRows:
    cpu = pinned_cpu()
    kw = {"directory": directory} if directory else {}
    res = {p: run("open_close_latency", path=p, cpu=cpu, profile=profile, **kw)
           for p in ("foo", "a/b/c/foo")}
    rows = [{"configuration": "this machine, local", "foo_ms": res["foo"].measured / 1e3,
             "abc_foo_ms": res["a/b/c/foo"].measured / 1e3}]
    return _rows("table09", rows, res, cpu=cpu, fs_type=res["foo"].extras.get("fs_type"))


def table10(profile: str = "quick", directory: str | None = None) -> TableRows:
    """Create-write-close-open-read-close-delete of 0, 10 and 100 kbytes,
    as the system does it (no fsync) and forced to disk (fsync)."""
    cpu = pinned_cpu()
    kw = {"directory": directory} if directory else {}
    res, rows = {}, []
    for sync in ("no", "yes"):
        row = {"configuration": "this machine, local" + (", fsync" if sync == "yes" else "")}
        for col, size in (("no_data_ms", 0), ("kb10_ms", 10 * KB), ("kb100_ms", 100 * KB)):
            r = run("fs_create_delete", file_bytes=size, fsync=sync, cpu=cpu, profile=profile, **kw)
            res[f"{size // KB} KB, fsync {sync}"] = r
            row[col] = r.measured
        rows.append(row)
    first = next(iter(res.values()))
    return _rows("table10", rows, res, cpu=cpu, fs_type=first.extras.get("fs_type"))


def table10_sweep(profile: str = "quick", directory: str | None = None,
                  progress: bool = True) -> pd.DataFrame:
    """The paper's follow-up: 1 to 10 kbytes at 1-kbyte steps (it found
    SunOS 4.0.3 jump from ~70 ms to ~800 ms past 8 kbytes, the page size),
    with and without fsync.  Points in random order (see ``sweep``)."""
    kw = {"directory": directory} if directory else {}
    return sweep("fs_create_delete", {"file_bytes": [k * KB for k in range(1, 11)],
                                      "fsync": ["no", "yes"]},
                 cpu=pinned_cpu(), profile=profile, progress=progress, shuffle=True, **kw)


# ------------------------------------------------------------ the paper's tables

# The column each table's MIPS-relative speed is computed from, its
# reference row, and whether higher is better (paper captions).
BASIS = {
    "table02": ("time_us", "MVAX2 Ultrix 3.0", False),
    "table03": ("time_ms", "MVAX2 Ultrix 3.0", False),
    "table04": ("ten_full_us", "MVAX2 Ultrix 3.0", False),
    "table06": ("mb_s", "MVAX2 Ultrix 3.0", True),
    "table07": ("total_s", "MVAX2 Ultrix 3.0 Local", False),
    "table09": ("foo_ms", "MVAX2 Ultrix 3.0 Local", False),
    "table10": ("no_data_ms", "MVAX2 Ultrix 3.0 Local", False),
}


def mips_relative_of(t: TableRows, rating: float) -> pd.Series:
    """MIPS-relative speed of each of this machine's rows, by the paper's
    rule for that table (None for Table 5, which has Mbytes/MIPS instead)."""
    basis, ref_conf, higher = BASIS[t.table]
    ref = load_table(paper.PAPER, t.table).set_index("configuration").loc[ref_conf, basis]
    return pd.Series([paper.mips_relative(v, rating, ref, higher_is_better=higher)
                      for v in t.rows[basis]], index=t.rows["configuration"])


def mips_relative_cells(t: TableRows, rating: float) -> pd.Series:
    """``mips_relative_of`` with each speed's 95% interval: the rule is a
    monotone function of the one measured figure (the rating and the
    reference are taken as exact), so the interval is mapped through it."""
    basis, ref_conf, higher = BASIS[t.table]
    ref = load_table(paper.PAPER, t.table).set_index("configuration").loc[ref_conf, basis]
    rule = lambda v: paper.mips_relative(v, rating, ref, higher_is_better=higher)  # noqa: E731
    return pd.Series([v.map(rule) if isinstance(v, iv.Measured) else rule(v)
                      for v in t.column(basis)], index=t.rows["configuration"])


def paper_table(t: TableRows, rating: float | None = None) -> pd.DataFrame:
    """The paper's table with this machine's rows added (``source`` says
    which is which), sorted as the paper sorts it, with this machine's
    MIPS-relative speed (or Mbytes/MIPS) from ``rating``; this machine's
    figures carry their 95% intervals (``TableRows.with_intervals``)."""
    p = load_table(paper.PAPER, t.table)
    mine = t.with_intervals()
    if t.table in BASIS:
        basis, ref_conf, higher = BASIS[t.table]
        if rating:
            col = "mips_relative_local" if t.table == "table07" else "mips_relative_speed"
            iv.put(mine, col, list(mips_relative_cells(t, rating)))
        if t.table == "table07":
            p = p.drop(columns=["recovered"])
        return beside_paper(p, mine, basis, ascending=not higher)
    return beside_paper(p, mine, "uncached_mb_s", ascending=False)


# The row of each table Figure 1 averages: the pinned / same-CPU / local one
# (the rows that match the paper's uniprocessors), default (no fsync) for Table 10.
FIGURE1_ROWS = {"table02": "this machine, pinned", "table03": "this machine, same_cpu",
                "table04": "this machine, pinned", "table06": "this machine, pinned",
                "table07": "this machine, local", "table09": "this machine, local",
                "table10": "this machine, local"}


def figure1_points(tables: dict[str, TableRows], rating: float) -> pd.DataFrame:
    """This machine's MIPS-relative speeds on the benchmarks Figure 1
    averages: the pinned / same-CPU / local row of each table (the rows
    that match the paper's uniprocessors), default (no fsync) for Table 10."""
    rows = []
    for name, conf in FIGURE1_ROWS.items():
        if name in tables:
            v = mips_relative_of(tables[name], rating)[conf]
            rows.append({"table": name, "configuration": conf, "machine": "this machine",
                         "column": "mips_relative_speed", "value": float(v)})
    return pd.DataFrame(rows)


def figure1_with_machine(tables: dict[str, TableRows], rating: float) -> pd.DataFrame:
    """Figure 1's points (geometric mean of MIPS-relative speeds per machine),
    this machine included at ``rating``."""
    pts = pd.concat([paper.mips_relative_points(), figure1_points(tables, rating)],
                    ignore_index=True)
    fig = paper.figure1(pts)
    fig.loc[fig.machine == "this machine", "mips"] = rating
    return fig.sort_values("mips").reset_index(drop=True)


def figure1_measured(tables: dict[str, TableRows], rating: float) -> iv.Measured | float:
    """This machine's Figure 1 point (the geometric mean of ``figure1_points``)
    with a 95% interval propagated from the speeds' intervals by their
    endpoints (conservative); the rating is taken as exact."""
    return iv.gmean([mips_relative_cells(tables[k], rating)[c] for k, c in FIGURE1_ROWS.items()
                     if k in tables])


def sensitivity(tables: dict[str, TableRows], ratings) -> pd.DataFrame:
    """This machine's MIPS-relative speeds, table by table, and their
    geometric mean, under each rating in ``ratings``: which conclusions
    survive a different rating."""
    out = {}
    for rating in ratings:
        pts = figure1_points(tables, rating).set_index("table")["value"]
        pts["geometric mean"] = float(gmean(pts))
        out[f"{rating:,.0f} MIPS"] = pts
    return pd.DataFrame(out)


def table8(t7: TableRows, rating: float | None) -> pd.DataFrame:
    """Table 8 (Andrew, MIPS-relative local and remote, remote penalty) with
    this machine's local row.  The remote column stays empty: the paper ran
    the remote case against a file server of the same kind over a LAN
    (NFS, Sprite, AFS); this machine has no such server, and a loop-back
    mount would measure neither the network nor a second machine."""
    mine = pd.DataFrame([{"configuration": "this machine, local",
                          "mips_relative_local": math.nan,
                          "mips_relative_remote": math.nan, "remote_penalty_pct": math.nan}])
    if rating:
        iv.put(mine, "mips_relative_local", [mips_relative_cells(t7, rating).iloc[0]])
    return beside_paper(load_table(paper.PAPER, "table08"), mine, "remote_penalty_pct")


# --- Verdicts: the paper's questions answered from this run's numbers -----------------------------

def keeps_pace(mips_relative_low: float, mips_relative_high: float, pace: float = 1.0) -> bool | None:
    """Does a MIPS-relative speed keep pace with integer speed over the rating's range?

    The two arguments are the same speed at the highest and the lowest rating the
    measurement supports (either order).  True if both reach ``pace``, False if both
    fall short, None if the range straddles it (the run cannot tell)."""
    lo, hi = sorted((float(mips_relative_low), float(mips_relative_high)))
    if lo >= pace:
        return True
    if hi < pace:
        return False
    return None


def orders_of_magnitude(slow: float, fast: float) -> float:
    """How many powers of ten separate two times of the same operation (log10 slow / fast)."""
    if slow <= 0 or fast <= 0:
        raise ValueError(f"times must be positive, got {slow!r} and {fast!r}")
    return math.log10(slow / fast)


def creation_waits_for_disk(no_fsync_ms: float, fsync_ms: float, min_ratio: float = 3.0) -> bool | None:
    """Does creating and deleting a file wait for the disk by default (Table 10)?

    False when forcing the same sequence to disk costs at least ``min_ratio`` times
    the default path: the default does not wait.  None otherwise: either the default
    already waits, or an fsync is nearly free here (tmpfs, a write-back device
    cache), and one run cannot tell which."""
    if no_fsync_ms <= 0 or fsync_ms <= 0:
        raise ValueError(f"times must be positive, got {no_fsync_ms!r} and {fsync_ms!r}")
    return False if fsync_ms / no_fsync_ms >= min_ratio else None


def lookup_share(foo: float, abc_foo: float, extra_components: int = 3) -> float:
    """What one extra path component adds to an open-close, as a fraction of the
    open-close of a one-component name (Table 9: "foo" against "a/b/c/foo")."""
    if foo <= 0 or extra_components < 1:
        raise ValueError(f"need a positive time and at least one extra component, got {foo!r}, {extra_components!r}")
    return (abc_foo - foo) / extra_components / foo
