#!/usr/bin/env bash
# Build and run read_loops.c (see its header), pinned to CPU 0, five times.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
"$cc" -O -DPART=1 -c "$here/read_loops.c" -o "$tmp/block.o"
"$cc" -O2 -DPART=2 -I"$here/../../benchlib/csrc" -c "$here/read_loops.c" -o "$tmp/benchlib.o"
"$cc" -O2 -Wall -DPART=3 "$here/read_loops.c" "$tmp/block.o" "$tmp/benchlib.o" -o "$tmp/read_loops"
for _ in 1 2 3 4 5; do taskset -c 0 "$tmp/read_loops" "${1:-150}" "${2:-300}"; echo; done
