#!/usr/bin/env bash
# Build ramp.c (see its header) and run it pinned to CPU 0: BUILDS builds
# (default 30) of PASSES passes (default 60) for read, write, copy, and read
# after 40 ms of sleep; then ramp.py's summary.  Outputs stay in OUT
# (default a temporary folder, removed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
builds=${1:-30}
passes=${2:-60}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp}
mkdir -p "$out"
"${CC:-cc}" -O2 -Wall -I"$here/../../benchlib/csrc" -o "$tmp/ramp" "$here/ramp.c"
for op in read write copy; do
    taskset -c 0 "$tmp/ramp" "$builds" "$passes" "$op" > "$out/$op.txt"
done
taskset -c 0 "$tmp/ramp" "$builds" "$passes" read 40 > "$out/read_after_40ms_sleep.txt"
"${PYTHON:-python3}" "$here/ramp.py" "$out/read.txt" "$out/write.txt" "$out/copy.txt" \
    "$out/read_after_40ms_sleep.txt"
