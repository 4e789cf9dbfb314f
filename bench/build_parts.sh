#!/usr/bin/env bash
# Build a loop-comparison tool written in three parts of one C file
# (sum_loops.c, read_loops.c): PART=1, the peer's loop shape, at -O as the
# peer is built; PART=2, benchlib's own loop from csrc/internal.h, at -O2
# as benchlib is; PART=3, the driver that times them.
#     bash bench/build_parts.sh SRC EXE
set -euo pipefail
src=$1
exe=$2
csrc=$(cd "$(dirname "$0")/../benchlib/csrc" && pwd)
cc=${CC:-cc}
"$cc" -O -DPART=1 -c "$src" -o "$exe.part1.o"
"$cc" -O2 -DPART=2 -I"$csrc" -c "$src" -o "$exe.part2.o"
"$cc" -O2 -Wall -DPART=3 -I"$csrc" "$src" "$exe.part1.o" "$exe.part2.o" -o "$exe"
