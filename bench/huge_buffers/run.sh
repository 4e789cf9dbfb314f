#!/usr/bin/env bash
# Build and run huge_buffers.c (see its header), pinned to CPU 0: ROUNDS rounds (default 3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${CC:-cc}" -O2 -Wall -o "$tmp/huge_buffers" "$here/huge_buffers.c"
taskset -c 0 "$tmp/huge_buffers" "${1:-3}"
