"""Helpers for the database tests: simulated result records with known
counts, and a throwaway PostgreSQL server (initdb in a temporary folder,
listening only on a Unix socket there, removed afterwards)."""
from __future__ import annotations

import glob
import json
import os
import pwd
import random
import shutil
import subprocess
import tempfile
from pathlib import Path


def machine(host: str, cpu: str = "Simulated CPU", cpus: int = 2, virt: bool = True) -> dict:
    return {"hostname": host, "cpu_model": cpu, "arch": "x86_64", "cpus_online": cpus,
            "cpus_allowed": cpus, "caches": [{"level": 1, "type": "Data", "size_bytes": 32768,
                                              "line_bytes": 64, "ways": 8, "shared_cpu_list": "0"}],
            "l1d_bytes": 32768, "l2_bytes": 1 << 20, "l3_bytes": 32 << 20,
            "memory_total_bytes": 8 << 30, "kernel": "6.1.0-sim", "os": "Linux",
            "virtualized": virt, "hypervisor_hint": "kvm" if virt else None,
            "thp_enabled": "madvise", "compiler": "gcc 12 (simulated)",
            "benchlib_version": "0.1.0", "python": "3.11.7",
            "loadavg": [0.5, 0.4, 0.3], "timestamp": "2026-11-23T17:00:00+00:00"}


def record(bench: str, params: dict, host_machine: dict, n: int, seed: int,
           profile: str = "smoke") -> dict:
    """A record shaped as Result.to_dict(), with simulated samples."""
    rng = random.Random(seed)
    samples = [1.0 + rng.random() for _ in range(n)]
    s = sorted(samples)
    return {"benchmark": bench, "params": params, "value": s[n // 2], "unit": "us",
            "min": s[0], "median": s[n // 2], "max": s[-1], "mean": sum(s) / n, "stdev": 0.1,
            "rel_iqr": 0.05, "best": s[0], "n_samples": n, "median_cycles": None,
            "median_clock_ghz": 2.5, "higher_is_better": False, "samples": samples,
            "ns_per_iteration": [x * 1000 for x in samples],
            "tsc_ticks_per_iteration": None, "clock_ghz": [2.5 + rng.random() / 10 for _ in range(n)],
            "iterations_per_sample": 100, "placement": {"cpu_first": 0, "cpu_last": 0},
            "clock_resolution_ns": 20.0, "overhead_ns": 1.0, "calibration_s": 0.01,
            "profile": profile, "machine": {**host_machine, "timestamp": f"2026-11-23T17:{seed % 60:02d}:00+00:00"},
            "timestamp": f"2026-11-23T17:{seed % 60:02d}:00+00:00", "counts": "", "extras": {}}


def write_store(path: Path, recs: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def simulated_tree(root: Path, n_files: int = 8, per_file: int = 5, n: int = 7) -> dict:
    """n_files store files over three machines, in the versioned format;
    returns the known counts."""
    from benchlib.results.resultfile import upgrade

    hosts = [machine(f"host{i}", cpu=f"CPU model {i}") for i in range(3)]
    total_samples = 0
    for f in range(n_files):
        m = hosts[f % 3]
        recs = [upgrade(record("syscall", {"op": "getppid", "cpu": k}, m, n + k, seed=100 * f + k))
                for k in range(per_file)]
        total_samples += sum(len(r["samples"]) for r in recs)
        write_store(root / f"run{f}" / "store" / f"{m['hostname']}.jsonl", recs)
    return {"machines": 3, "results": n_files * per_file, "samples": total_samples,
            "files": n_files}


# -- a throwaway PostgreSQL server -------------------------------------------
def find_pg_bin() -> Path | None:
    """The folder of initdb and pg_ctl: on PATH, or Debian's
    /usr/lib/postgresql/<version>/bin (not on PATH there)."""
    hit = shutil.which("initdb")
    if hit and shutil.which("pg_ctl"):
        return Path(hit).resolve().parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    return Path(found[-1]).parent if found else None


class PgServer:
    """initdb + pg_ctl start in a temporary folder, socket only.  initdb
    refuses root, so as root the server runs as the 'postgres' user."""

    def __init__(self):
        self.bin = find_pg_bin()
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed (no initdb on PATH or in "
                               "/usr/lib/postgresql/*/bin; Debian package 'postgresql')")
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("running as root and there is no 'postgres' user to run "
                                   "the server as") from None
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.dir = Path(tempfile.mkdtemp(prefix="blpg-", dir="/tmp"))
        if self.prefix:
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self.data = self.dir / "data"
        self.started = False

    def _run(self, *args: str) -> None:
        r = subprocess.run([*self.prefix, *args], capture_output=True, text=True, timeout=120)
        if r.returncode:
            raise RuntimeError(f"{Path(args[0]).name} failed: {(r.stderr or r.stdout).strip()[-400:]}")

    def start(self) -> "PgServer":
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "benchlib",
                  "-E", "UTF8", "--no-sync", "--locale=C")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-t", "60",
                  "-l", str(self.dir / "server.log"),
                  "-o", f"-k {self.dir} -c listen_addresses='' -F -c max_connections=40", "start")
        self.started = True
        return self

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql+psycopg://benchlib@/{dbname}?host={self.dir}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(host=str(self.dir), user="benchlib", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            if self.started:
                self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                          "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
