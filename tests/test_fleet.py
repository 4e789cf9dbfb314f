"""The fleet: the Ansible playbook run for real against this machine
(local connection, smoke profile, one small notebook) with its results
landing in the database; the Slurm script's own logic in a dry run."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from benchlib.results import db as bdb

REPO = Path(__file__).resolve().parents[1]
PLAYBOOK = REPO / "fleet" / "benchlib.yml"
SBATCH = REPO / "fleet" / "slurm" / "benchlib.sbatch"


def _overlay_venv(path: Path) -> Path:
    """A virtual environment that sees this one's packages (a .pth line) but
    installs into itself: reproduce.sh on the "host" then finds every
    dependency present and only builds benchlib from the copied sources,
    instead of downloading the notebook stack again (a minute and more).
    Everything else on the host side is the real path."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    site = next(path.glob("lib/python3*/site-packages"))
    import site as _site

    (site / "_benchlib_test_overlay.pth").write_text("\n".join(_site.getsitepackages()) + "\n")
    return path


def _ansible_playbook() -> str | None:
    here = Path(sys.executable).parent / "ansible-playbook"
    return str(here) if here.exists() else shutil.which("ansible-playbook")


@pytest.mark.slow
@pytest.mark.notebook
def test_playbook_on_localhost_lands_results_in_the_database(tmp_path):
    exe = _ansible_playbook()
    if exe is None:
        pytest.skip("ansible-core is not installed (pip install 'benchlib[fleet]')")
    inventory = tmp_path / "inventory.ini"
    inventory.write_text(f"[benchlib]\nlocalhost ansible_connection=local "
                         f"ansible_python_interpreter={sys.executable}\n")
    db = tmp_path / "fleet.sqlite"
    extra = {"benchlib_profile": "smoke", "benchlib_notebooks": ["00_quickstart"],
             "benchlib_remote_dir": str(tmp_path / "host"),
             "benchlib_collect_dir": str(tmp_path / "collected"),
             "benchlib_db": str(db),
             "benchlib_controller_benchlib": str(Path(sys.executable).parent / "benchlib"),
             "benchlib_environment": {"BENCHLIB_VENV": str(_overlay_venv(tmp_path / "host-venv"))}}
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONDA_")}
    env.update({ "ANSIBLE_NOCOLOR": "1", "ANSIBLE_HOST_KEY_CHECKING": "False",
           "ANSIBLE_LOCAL_TEMP": str(tmp_path / "ansible-local"),
           "ANSIBLE_REMOTE_TEMP": str(tmp_path / "ansible-remote")})
    r = subprocess.run([exe, "-i", str(inventory), str(PLAYBOOK), "--skip-tags", "prereq",
                        "-e", json.dumps(extra)], capture_output=True, text=True, env=env,
                       timeout=900, cwd=REPO)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "failed=0" in r.stdout
    engine = bdb.open_db(db)
    runs = bdb.runs_table(engine)
    recs = bdb.load_records(engine)
    engine.dispose()
    assert list(runs["hostname"]) == [socket.gethostname()]
    assert len(runs) == 1 and runs["producer"][0].startswith("notebook ")
    assert "quickstart" in runs["producer"][0]
    assert list(runs["profile"]) == ["smoke"]
    assert runs["label"][0].startswith("localhost-")  # the run folder the playbook named
    assert {rec["benchmark"] for rec in recs} >= {"syscall", "pipe_latency"}
    assert all(len(rec["samples"]) == rec["n_samples"] for rec in recs)
    # the host's copy has no results of the controller's, and the executed notebook came back
    assert list((tmp_path / "collected").glob("localhost-*/00_quickstart.ipynb"))


def _sbatch_dry(*args, **env):
    full = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM", "BENCHLIB"))}
    full.update({"BENCHLIB_SLURM_DRY_RUN": "1", "BENCHLIB_REPO": str(REPO), **env})
    return subprocess.run(["bash", str(SBATCH), *args], capture_output=True, text=True,
                          env=full, timeout=60)


def _fields(line: str) -> dict:
    return dict(f.split("=", 1) for f in line.split())


def test_slurm_array_index_chooses_notebook_and_output_folder(tmp_path):
    expected = sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb") if p.stem != "class_results")
    seen = []
    for i in range(len(expected)):
        r = _sbatch_dry(SLURM_ARRAY_TASK_ID=str(i), SLURM_ARRAY_JOB_ID="4242", SLURMD_NODENAME="node7",
                        BENCHLIB_RESULTS=str(tmp_path / "res"), BENCHLIB_PROFILE="smoke")
        assert r.returncode == 0, r.stderr
        task = _fields(r.stdout.splitlines()[0])
        seen.append(task["notebook"])
        assert task["notebook"] == f"notebooks/{expected[i]}.ipynb"
        out = Path(task["out"])
        assert out.parent == tmp_path / "res" / "job-4242"
        assert out.name.startswith(f"node7-{expected[i]}-") and len(out.name.split("-")[-1]) == 6
        cmd = r.stdout.splitlines()[-1]
        assert cmd.startswith("command=./reproduce.sh --smoke -- --out ")
        assert cmd.rstrip().endswith(f"notebooks/{expected[i]}.ipynb")
    assert len(set(seen)) == len(expected)  # every notebook once
    assert not (tmp_path / "res").exists()  # a dry run makes nothing


def test_slurm_bad_index_and_profile_are_clear_errors(tmp_path):
    r = _sbatch_dry(SLURM_ARRAY_TASK_ID="2", BENCHLIB_NOTEBOOKS="00_quickstart mach1989")
    assert r.returncode == 2 and "array index 2 has no notebook: 2 notebooks (0-1)" in r.stderr
    r = _sbatch_dry(SLURM_ARRAY_TASK_ID="1", BENCHLIB_NOTEBOOKS="00_quickstart mach1989")
    assert r.returncode == 0 and "notebook=notebooks/mach1989.ipynb" in r.stdout
    r = _sbatch_dry(SLURM_ARRAY_TASK_ID="0", BENCHLIB_PROFILE="fast")
    assert r.returncode == 2 and "smoke, quick or full" in r.stderr
    r = _sbatch_dry()
    assert r.returncode == 2 and "not an array task" in r.stderr


def test_slurm_collection_imports_the_jobs_folder(tmp_path):
    r = _sbatch_dry("collect", "4242", BENCHLIB_RESULTS=str(tmp_path / "res"),
                    BENCHLIB_DB="postgresql://lab@dbhost/benchlib")
    assert r.returncode == 0, r.stderr
    cmd = r.stdout.splitlines()[-1].split()
    assert cmd[1:5] == ["db", "import", "-q", str(tmp_path / "res" / "job-4242")]
    assert cmd[-2:] == ["--db", "postgresql://lab@dbhost/benchlib"]
