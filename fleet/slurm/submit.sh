#!/usr/bin/env bash
# Submit benchlib to Slurm: the job array (one task per notebook, each on a
# whole node), then the collection step once every task has ended.
#
#   fleet/slurm/submit.sh [sbatch options...]     e.g. --partition=bench
#   BENCHLIB_PROFILE=full BENCHLIB_NOTEBOOKS="00_quickstart mach1989" fleet/slurm/submit.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="${BENCHLIB_REPO:-$(cd "$here/../.." && pwd)}"
if [ -n "${BENCHLIB_NOTEBOOKS:-}" ]; then
  read -r -a names <<< "$BENCHLIB_NOTEBOOKS"
else
  names=()
  for nb in "$repo"/notebooks/*.ipynb; do
    [ "$(basename "$nb" .ipynb)" = class_results ] || names+=("$nb")
  done
fi
n=${#names[@]}
[ "$n" -gt 0 ] || { echo "submit.sh: no notebooks" >&2; exit 2; }
export BENCHLIB_REPO="$repo"
cd "$repo"
job=$(sbatch --parsable --array=0-$((n - 1)) --export=ALL "$@" "$here/benchlib.sbatch")
job=${job%%;*}
collect=$(sbatch --parsable --dependency=afterany:"$job" --exclusive=none --time=00:30:00 \
  --job-name=benchlib-collect --export=ALL "$@" "$here/benchlib.sbatch" collect "$job")
echo "submitted array $job ($n tasks) and collection $collect"
