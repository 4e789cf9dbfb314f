"""This machine's rows of Ousterhout 1990, "Why Aren't Operating Systems
Getting Faster As Fast as Hardware?": one function per table, each running
the cells the table declares (``cells.CELLS``) and returning the results
beside rows in the paper's columns and units, ready for ``paper_table``.

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
from benchlib.papers import TableRows, load_table, measure_rows, paper_table as _paper_table, pinned_cpu
from benchlib.papers.mips import MipsRating, mips_rating  # noqa: F401  (this paper's rating, re-exported)
from benchlib.papers.ousterhout1990 import paper
from benchlib.papers.ousterhout1990.cells import CELLS, KB


# ------------------------------------------------------------ Tables 2-4

def table2(profile: str = "quick") -> TableRows:
    """getpid through syscall(2), pinned and unpinned."""
    return measure_rows(CELLS["table02"], profile)


def table3(profile: str = "quick") -> TableRows:
    """The pipe round trip with both processes on one CPU, one each, unpinned."""
    return measure_rows(CELLS["table03"], profile)


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
    return measure_rows(CELLS["table04"], profile)


# ------------------------------------------------------------ Tables 5-6

def table5(profile: str = "quick", rating: float | None = None) -> TableRows:
    """memcpy of a block that fits the caches and one much larger than the
    last level, sizes from this machine's caches (``papers.tables.SIZES``),
    and the uncached Mbytes per MIPS at ``rating``."""
    t = measure_rows(CELLS["table05"], profile)
    return with_mbytes_per_mips(t, rating)


def with_mbytes_per_mips(t: TableRows, rating: float | None) -> TableRows:
    """Table 5's rows with the paper's Mbytes/MIPS column (uncached MB/s
    over the MIPS rating; the rating is taken as exact, its range is shown
    separately); empty without a rating."""
    cells = [v / rating if rating else math.nan for v in t.column("uncached_mb_s")]
    rows = t.rows.assign(mbytes_per_mips=[iv.value(v) for v in cells])
    for i, v in enumerate(cells):
        if isinstance(v, iv.Measured):
            t.intervals[(i, "mbytes_per_mips")] = v
    t.rows = rows
    t.notes.update({f"{k}_bytes": r.params["size_bytes"] for k, r in
                    (("cached", t.results.get("cached_mb_s")),
                     ("uncached", t.results.get("uncached_mb_s"))) if r is not None})
    return t


def table5_row(cached, uncached, label: str, rating: float | None = None) -> pd.DataFrame:
    """Table 5's columns for a row measured otherwise (the memory notebook's
    copy_libc bandwidths, cached and uncached: Measured or numbers, in MB/s
    of 10^6 bytes; the paper does not say which megabyte it used)."""
    t = TableRows("table05", pd.DataFrame([{"configuration": label, "cached_mb_s": cached,
                                            "uncached_mb_s": uncached}]), spec=CELLS["table05"])
    return with_mbytes_per_mips(t, rating).with_intervals()


def table6(profile: str = "quick", directory: str | None = None) -> TableRows:
    """A file in the page cache but beyond the CPU caches, read in 16-kbyte calls."""
    t = measure_rows(CELLS["table06"], profile, directory)
    r = t.results["mb_s"]
    t.notes.update(file_bytes=r.params["file_bytes"], fs_type=r.extras.get("fs_type"))
    return t


# ------------------------------------------------------------ Tables 7-10

def table7(profile: str = "quick", directory: str | None = None) -> TableRows:
    """The Modified Andrew Benchmark, local only: "copy" is every phase but
    the compile (the paper's split), medians over the runs."""
    t = measure_rows(CELLS["table07"], profile, directory)
    r = t.results["total_s"]
    phases = pd.DataFrame(r.extras["phase_s"])
    total = phases.sum(axis=1)
    why = r.measured.unstable   # the runs' own intervals, the result's flags
    for col, cells in (("copy_s", total - phases["compile"]), ("compile_s", phases["compile"])):
        t.intervals[(0, col)] = m = iv.of_samples(cells, why)
        t.rows[col] = [m.value]
    t.rows = t.rows[["configuration", "copy_s", "compile_s", "total_s"]]
    t.notes.update(phases=phases, fs_type=r.extras.get("fs_type"))
    return t


def table9(profile: str = "quick", directory: str | None = None) -> TableRows:
    t = measure_rows(CELLS["table09"], profile, directory)
    t.notes.update(cpu=pinned_cpu(), fs_type=t.results["foo_ms"].extras.get("fs_type"))
    return t


def table10(profile: str = "quick", directory: str | None = None) -> TableRows:
    """Create-write-close-open-read-close-delete of 0, 10 and 100 kbytes,
    as the system does it (no fsync) and forced to disk (fsync)."""
    t = measure_rows(CELLS["table10"], profile, directory)
    t.notes.update(cpu=pinned_cpu(), fs_type=next(iter(t.results.values())).extras.get("fs_type"))
    return t


def table10_sweep(profile: str = "quick", directory: str | None = None,
                  progress: bool = True, recorder=None) -> pd.DataFrame:
    """The paper's follow-up: 1 to 10 kbytes at 1-kbyte steps (it found
    SunOS 4.0.3 jump from ~70 ms to ~800 ms past 8 kbytes, the page size),
    with and without fsync.  Points in random order (see ``sweep``).  The
    median carries its 95% interval (``median_ci95_lo`` ..., the columns of
    ``benchlib.stats.intervals``; ``iv.strip`` drops them)."""
    kw = {"directory": directory} if directory else {}
    results: list = []
    df = sweep("fs_create_delete", {"file_bytes": [k * KB for k in range(1, 11)],
                                    "fsync": ["no", "yes"]},
               cpu=pinned_cpu(), profile=profile, progress=progress, shuffle=True, **kw,
               results=results, recorder=recorder)
    # the results come in the order measured (shuffled): matched to rows by their point
    by_point = {(r.params["file_bytes"], r.params["fsync"]): iv.of_result(r) for r in results}
    iv.put(df, "median", [by_point[p] for p in zip(df["file_bytes"], df["fsync"])])
    return df


# ------------------------------------------------------------ the paper's tables

# Each table's reference row for its MIPS-relative speed (paper captions); the
# speed is computed from the column the paper sorts on (CELLS[...].sort_by).
REFERENCE_ROW = {
    "table02": "MVAX2 Ultrix 3.0", "table03": "MVAX2 Ultrix 3.0", "table04": "MVAX2 Ultrix 3.0",
    "table06": "MVAX2 Ultrix 3.0", "table07": "MVAX2 Ultrix 3.0 Local",
    "table09": "MVAX2 Ultrix 3.0 Local", "table10": "MVAX2 Ultrix 3.0 Local",
}


def _rule(table: str, rating: float):
    spec = CELLS[table]
    ref = load_table(paper.PAPER, table).set_index("configuration").loc[REFERENCE_ROW[table],
                                                                        spec.sort_by]
    return spec.sort_by, lambda v: paper.mips_relative(v, rating, ref,
                                                       higher_is_better=spec.higher_is_better)


def mips_relative_of(t: TableRows, rating: float) -> pd.Series:
    """MIPS-relative speed of each of this machine's rows, by the paper's
    rule for that table (Table 5 has Mbytes/MIPS instead)."""
    basis, rule = _rule(t.table, rating)
    return pd.Series([rule(v) for v in t.rows[basis]], index=t.rows["configuration"])


def mips_relative_cells(t: TableRows, rating: float) -> pd.Series:
    """``mips_relative_of`` with each speed's 95% interval: the rule is a
    monotone function of the one measured figure (the rating and the
    reference are taken as exact), so the interval is mapped through it."""
    basis, rule = _rule(t.table, rating)
    return pd.Series([v.map(rule) if isinstance(v, iv.Measured) else rule(v)
                      for v in t.column(basis)], index=t.rows["configuration"])


def paper_table(t: TableRows, rating: float | None = None,
                speedups: bool = False) -> pd.DataFrame:
    """``papers.paper_table`` with this machine's MIPS-relative speed (Table
    7: its local column) from ``rating`` added to its rows (Table 5 has its
    Mbytes/MIPS already); every figure of this machine with its 95% interval.
    ``speedups``: for every row, also ``speedup_vs_mvax2`` (how many times
    faster than the paper's yardstick) and ``implied_mips`` (the rating at
    which the row's MIPS-relative speed would be exactly 1.0), which need
    no rating; a Measured figure's interval is mapped into both."""
    mine = t.with_intervals()
    if t.table in REFERENCE_ROW and rating:
        col = "mips_relative_local" if t.table == "table07" else "mips_relative_speed"
        iv.put(mine, col, list(mips_relative_cells(t, rating)))
    df = _paper_table(t, mine, CELLS[t.table])
    if speedups:
        basis, higher = CELLS[t.table].sort_by, CELLS[t.table].higher_is_better
        ref = load_table(paper.PAPER, t.table).set_index("configuration").loc[
            REFERENCE_ROW[t.table], basis]
        cells = [iv.get(df, basis, i) for i in df.index]
        apply = lambda f, v: v.map(f) if isinstance(v, iv.Measured) else f(v)  # noqa: E731
        iv.put(df, "speedup_vs_mvax2",
               [apply(lambda x: x / ref if higher else ref / x, v) for v in cells])
        iv.put(df, "implied_mips", [apply(lambda x: paper.implied_mips(x, ref, higher_is_better=higher), v)
                                    for v in cells])
    return df


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
    mine = pd.DataFrame([{"configuration": CELLS["table07"].row_label("local"),
                          "mips_relative_local": math.nan,
                          "mips_relative_remote": math.nan, "remote_penalty_pct": math.nan}])
    if rating:
        iv.put(mine, "mips_relative_local", [mips_relative_cells(t7, rating).iloc[0]])
    t8 = TableRows("table08", pd.DataFrame(), spec=CELLS["table08"])
    return _paper_table(t8, mine)


def table5_from_bandwidth(bw: pd.DataFrame, label: str, rating: float | None = None) -> pd.DataFrame:
    """Table 5's row from the memory notebook's bandwidth table
    (``memory.bandwidth_table``: libc memcpy at the same cached and uncached
    sizes, bytes counted once, with its intervals)."""
    c = bw[(bw.counting == "once") & (bw.op == "copy_libc")].set_index("where")
    return table5_row(iv.get(c, "value", "cached"), iv.get(c, "value", "uncached"), label, rating)


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
