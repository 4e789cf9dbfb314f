"""Reading the database back: the same DataFrame ``load_results`` gives from
files, and a summary of what it holds."""
from __future__ import annotations

from collections import defaultdict

import pandas as pd
import sqlalchemy as sa

from benchlib.results.db import records as R
from benchlib.results.db.schema import T


def load_records(engine: sa.Engine, benchmark: str | None = None) -> list[dict]:
    """Every result record, in import order, rebuilt whole (samples from
    the samples table)."""
    res, smp = T["results"], T["samples"]
    q = sa.select(res.c.id, res.c.record).order_by(res.c.id)
    sq = (sa.select(smp.c.result_id, smp.c.sample_index, smp.c.value, smp.c.ns_per_iteration,
                    smp.c.tsc_ticks_per_iteration, smp.c.clock_ghz)
          .order_by(smp.c.result_id, smp.c.sample_index))
    if benchmark is not None:
        q = q.where(res.c.benchmark == benchmark)
        sq = sq.join(res, res.c.id == smp.c.result_id).where(res.c.benchmark == benchmark)
    with engine.connect() as conn:
        rows = conn.execute(q).all()
        samples = defaultdict(list)
        for s in conn.execute(sq):
            samples[s[0]].append(tuple(s[1:]))
    return [R.rebuild_record(rec, samples.get(rid, [])) for rid, rec in rows]


def load_results(engine: sa.Engine, benchmark: str | None = None) -> pd.DataFrame:
    from benchlib.results.resultfile import result_row

    return pd.DataFrame([result_row(rec) for rec in load_records(engine, benchmark)])


def counts(engine: sa.Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {name: conn.execute(sa.select(sa.func.count()).select_from(T[name])).scalar()
                for name in ("machines", "runs", "results", "samples", "imported_files")}


def runs_table(engine: sa.Engine) -> pd.DataFrame:
    """One row per run: its machine, profile, producer, label, how many
    results and samples, first and last timestamp."""
    m, r, res = T["machines"], T["runs"], T["results"]
    q = (sa.select(m.c.id.label("machine_id"), m.c.hostname, m.c.cpu_model, m.c.virtualized,
                   r.c.id.label("run_id"), r.c.profile, r.c.producer, r.c.label, r.c.kernel,
                   r.c.git_commit,
                   sa.func.count(res.c.id).label("results"),
                   sa.func.coalesce(sa.func.sum(res.c.n_samples), 0).label("samples"),
                   sa.func.min(res.c.timestamp).label("first"),
                   sa.func.max(res.c.timestamp).label("last"))
         .select_from(r.join(m, m.c.id == r.c.machine_id).outerjoin(res, res.c.run_id == r.c.id))
         .group_by(m.c.id, m.c.hostname, m.c.cpu_model, m.c.virtualized, r.c.id, r.c.profile,
                   r.c.producer, r.c.label, r.c.kernel, r.c.git_commit)
         .order_by(m.c.id, r.c.id))
    with engine.connect() as conn:
        return pd.DataFrame(conn.execute(q).mappings().all(),
                            columns=["machine_id", "hostname", "cpu_model", "virtualized", "run_id",
                                     "profile", "producer", "label", "kernel", "git_commit",
                                     "results", "samples", "first", "last"])
