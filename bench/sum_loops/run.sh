#!/usr/bin/env bash
# Build and run sum_loops.c (see its header), pinned to CPU 0, five times.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
"$cc" -O -DPART=1 -c "$here/sum_loops.c" -o "$tmp/block.o"
"$cc" -O2 -DPART=2 -I"$here/../../benchlib/csrc" -c "$here/sum_loops.c" -o "$tmp/four.o"
"$cc" -O2 -DPART=3 "$here/sum_loops.c" "$tmp/block.o" "$tmp/four.o" -o "$tmp/sum_loops"
for _ in 1 2 3 4 5; do taskset -c 0 "$tmp/sum_loops" "${1:-/tmp}"; done
