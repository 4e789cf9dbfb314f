#!/usr/bin/env bash
# Build and run store_loops.c (see its header), pinned to CPU 0: ROUNDS rounds (default 5).
# -fno-unroll-loops: the one-a-turn loop must stay one store a turn with any compiler.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${CC:-cc}" -O2 -fno-unroll-loops -Wall -I"$here/.." -o "$tmp/store_loops" "$here/store_loops.c"
taskset -c 0 "$tmp/store_loops" "${1:-5}"
