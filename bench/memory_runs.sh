#!/usr/bin/env bash
# Five quick runs and one full of `benchlib memory`, each saved in DIR/RUN
# (q1..q5, full) with its printout (RUN.out) and its wall time (walls.txt);
# then `PYTHONPATH=. python bench/memory_refit_recorded.py --md DIR/*/` tabulates
# them against sysfs.  Measure with nothing else running.
#
#   bash bench/memory_runs.sh DIR
set -euo pipefail
out=${1:?a directory for the runs}
py=${PYTHON:-python3}
mkdir -p "$out"
for r in q1 q2 q3 q4 q5 full; do
  prof=quick; [ "$r" = full ] && prof=full
  s=$(date +%s.%N)
  "$py" -m benchlib.cli memory --profile "$prof" --save "$out/$r" > "$out/$r.out" 2> "$out/$r.err"
  e=$(date +%s.%N)
  echo "$r wall $("$py" -c "print(round($e - $s, 2))") s" | tee -a "$out/walls.txt"
done
