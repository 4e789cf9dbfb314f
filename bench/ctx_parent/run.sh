#!/usr/bin/env bash
# lmbench3's lat_ctx -s 16 8 beside benchlib's context_switch 8 x 16 KB with
# the ring forked from a small C process (parent=small, the default) and
# from the Python measuring process (parent=interpreter), alternated, all
# pinned to CPU 0; per round each figure in us per hop and each benchlib
# figure over lat_ctx's.
#
#   bash bench/ctx_parent/run.sh LMBENCH_BIN_DIR [ROUNDS]
set -euo pipefail
bin=${1:?the folder of the lmbench3 programs}
rounds=${2:-8}
py=${PYTHON:-python3}
one() {
  taskset -c 0 "$py" -m benchlib.cli run context_switch -p processes=8 -p process_kb=16 \
    -p placement=same_cpu -p cpu=0 -p parent="$1" --json 2>/dev/null | tail -1 |
    "$py" -c "import json, sys; print(json.load(sys.stdin)['value'])"
}
for r in $(seq 1 "$rounds"); do
  l=$(ENOUGH=50000 taskset -c 0 "$bin/lat_ctx" -N 5 -s 16 8 2>&1 | tail -1 | awk '{print $2}')
  s=$(one small)
  i=$(one interpreter)
  "$py" -c "l, s, i = $l, $s, $i; print(f'round $r: lat_ctx {l:.2f}  small {s:.2f} ({s / l:.3f})  interpreter {i:.2f} ({i / l:.3f})')"
done
