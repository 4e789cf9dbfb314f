#!/usr/bin/env bash
# benchlib: set up the environment, then reproduce every notebook (default)
# or run the test suite (--test).  Needs only python3 (3.10+) and a C
# compiler; uses an active conda environment if there is one, else .venv/
# (or the virtual environment named by $BENCHLIB_VENV).
#
#   ./reproduce.sh            every notebook, quick profile -> results/<host>-<time>/
#   ./reproduce.sh --full     every notebook, full profile
#   ./reproduce.sh --test     unit tests + every notebook (smoke profile)
#   ./reproduce.sh --setup    set up the environment only
set -euo pipefail
cd "$(dirname "$0")"

mode=reproduce profile=quick
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --full) profile=full ;;
    --quick) profile=quick ;;
    --smoke) profile=smoke ;;
    --test) mode=test ;;
    --setup) mode=setup ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "reproduce.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

# ---- the environment -------------------------------------------------------
if [ -n "${CONDA_PREFIX:-}" ] && [ "${CONDA_DEFAULT_ENV:-base}" != "base" ]; then
  py="$CONDA_PREFIX/bin/python"
  echo "==> using the active conda environment $CONDA_DEFAULT_ENV"
else
  command -v python3 >/dev/null || { echo "reproduce.sh: python3 not found" >&2; exit 1; }
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
    || { echo "reproduce.sh: python3 is $(python3 -V 2>&1); benchlib needs 3.10 or later" >&2; exit 1; }
  venv="${BENCHLIB_VENV:-.venv}"   # BENCHLIB_VENV: a virtual environment elsewhere (made if missing)
  if [ ! -x "$venv/bin/python" ]; then
    echo "==> creating $venv"
    python3 -m venv "$venv"
  fi
  py="$(cd "$venv" && pwd)/bin/python"
fi
command -v "${CC:-cc}" >/dev/null || command -v gcc >/dev/null \
  || { echo "reproduce.sh: no C compiler (cc or gcc) found; benchlib compiles its C core" >&2; exit 1; }

# Reinstall only when the package's sources or requirements changed.
stamp=".venv-stamp"
[ -n "${BENCHLIB_VENV:-}" ] && stamp="$BENCHLIB_VENV/.benchlib-stamp"
[ -n "${CONDA_PREFIX:-}" ] && [ "${CONDA_DEFAULT_ENV:-base}" != "base" ] && stamp="$CONDA_PREFIX/.benchlib-stamp"
want=$(cat pyproject.toml setup.py benchlib/_build.py benchlib/__init__.py benchlib/_version.py benchlib/csrc/* | cksum)
have=$(cat "$stamp" 2>/dev/null || true)
if [ "$want" != "$have" ] || ! "$py" -c 'import benchlib._cbench' 2>/dev/null; then
  echo "==> installing benchlib and its notebook, test and fleet dependencies (log: install.log)"
  # pip and the build backend print notices that are not ours (an editable
  # install's advice, the machine's index settings): they go to the log,
  # which is shown only if the install fails.
  # The build's requirements (pyproject.toml's [build-system]) go into the
  # environment itself and benchlib builds there, not in a throwaway
  # environment pip would make for it; the installed modules are then
  # byte-compiled on every CPU (pip compiles on one).  They must be compiled
  # here: where PYTHONDONTWRITEBYTECODE is set, no later import writes a
  # .pyc, and without them the test suite took 458 s instead of 347.
  # A fresh .venv: 58 s instead of 79 (EPYC guest, 2 CPUs, 2026-11-27).
  mapfile -t build_reqs < <("$py" -c 'import re; t = open("pyproject.toml").read(); print("\n".join(re.findall(r"\"([^\"]+)\"", re.search(r"^requires\s*=\s*\[(.*?)\]", t, re.M | re.S).group(1))))')
  if ! { "$py" -m pip install --quiet --upgrade pip &&
         "$py" -m pip install --quiet "${build_reqs[@]}" &&
         "$py" -m pip install --quiet --no-build-isolation --no-compile -e ".[notebooks,test,fleet]" &&
         { "$py" -m compileall -q -j 0 "$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
             || true; } &&   # a package's deliberately broken test file is not our failure
         "$py" -m ipykernel install --sys-prefix --name benchlib --display-name "Python (benchlib)"; \
       } >install.log 2>&1; then
    cat install.log >&2
    echo "reproduce.sh: installing benchlib failed (above; kept in install.log)" >&2
    exit 1
  fi
  echo "$want" > "$stamp"
fi

case "$mode" in
  setup)
    echo "==> environment ready: $py"
    ;;
  test)
    echo "==> running the test suite"
    # one worker per CPU (pytest-xdist): the notebooks' smoke runs and the
    # unit tests share the machine's CPUs instead of queueing on one; work
    # stealing keeps both busy to the end (the long notebook runs sort late,
    # and a fixed share left one CPU idle while the other ran them).  The
    # slowest phases are listed at the end (set-up and teardown included), so
    # that a run that waits names the test it waited in (two fresh-clone runs
    # took 15 minutes against 6 with normal CPU use, sessions 14-15)
    exec "$py" -m pytest -q -n auto --dist worksteal --durations=15 "${extra[@]}"
    ;;
  reproduce)
    exec "$py" -m benchlib.notebooks --profile "$profile" "${extra[@]}"
    ;;
esac
