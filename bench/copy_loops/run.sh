#!/usr/bin/env bash
# Build and run copy_loops.c (see its header), pinned to CPU 0, five times.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
"$cc" -O2 -fno-tree-loop-distribute-patterns -fno-tree-vectorize -DPART=1 -c "$here/copy_loops.c" -o "$tmp/one.o"
"$cc" -O2 -DPART=2 -I"$here/../../benchlib/csrc" -c "$here/copy_loops.c" -o "$tmp/eight.o"
"$cc" -O2 -DPART=3 "$here/copy_loops.c" "$tmp/one.o" "$tmp/eight.o" -o "$tmp/copy_loops"
objdump -d "$tmp/one.o" | grep -q "call" && { echo "copy_loops: the one-word loop became a call" >&2; exit 1; }
for _ in 1 2 3 4 5; do taskset -c 0 "$tmp/copy_loops"; done
