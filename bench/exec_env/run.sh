#!/usr/bin/env bash
# Build exec_env.c and run it three times, pinned to CPU 0, on benchlib's
# tiny program (compiled on first use), 1500 execs of each environment.
# The environment is this shell's (`env | wc -c` is printed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${CC:-cc}" -O2 "$here/exec_env.c" -o "$tmp/exec_env"
py=${PYTHON:-python3}
prog=$("$py" -c "from benchlib.measuring.benchmarks import tiny_program; print(tiny_program())")
echo "environment: $(env | wc -c) bytes; program: $prog"
for _ in 1 2 3; do taskset -c 0 "$tmp/exec_env" "$prog" 1500; done
