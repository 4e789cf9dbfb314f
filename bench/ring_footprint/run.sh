#!/usr/bin/env bash
# The 8-process ring at 0 and 16 KB a process, lmbench3's lat_ctx beside
# benchlib's proc_runner (the small parent), alternated, both on CPU 0:
# each tool's switch per hop and its overhead (the hot sum it subtracts).
# Where the 0 KB rings agree and the 16 KB ones do not, the difference is
# in what the 16 KB footprint costs each tool's summing loop after a switch.
#
#   bash bench/ring_footprint/run.sh LMBENCH_BIN [ROUNDS]
#
# LMBENCH_BIN: the folder of lmbench3's programs (../shared/peers/build-lmbench3.sh).
set -euo pipefail
B=${1:?usage: run.sh LMBENCH_BIN [ROUNDS]}
ROUNDS=${2:-5}
PY=${PYTHON:-python3}
RUNNER=$($PY -c "from benchlib.measuring.benchmarks.compiler_cache import proc_runner; print(proc_runner())")
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
echo "round kb lmbench_hop_us lmbench_ovr_us benchlib_hop_us benchlib_ovr_us ratio"
for r in $(seq "$ROUNDS"); do
  for kb in 0 16; do
    lm=$(taskset -c 0 "$B/lat_ctx" -s "$kb" 8 2>&1)
    hop=$(echo "$lm" | tail -1 | awk '{print $2}')
    ovr=$(echo "$lm" | grep -o "ovr=[0-9.]*" | cut -d= -f2)
    taskset -c 0 "$RUNNER" ring 8 $((kb * 1024)) 200 2 500000 2e9 0 > "$OUT"
    bhop=$(awk 'NR>2{print $1}' "$OUT" | sort -g | awk '{a[NR]=$1} END{printf "%.3f", a[int((NR+1)/2)]/8000}')
    bovr=$(head -1 "$OUT" | awk '{printf "%.3f", $4/8000}')
    echo "$r $kb $hop $ovr $bhop $bovr $(awk -v a="$bhop" -v b="$hop" 'BEGIN{printf "%.3f", a/b}')"
  done
done
