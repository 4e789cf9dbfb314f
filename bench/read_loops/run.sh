#!/usr/bin/env bash
# Build and run read_loops.c (see its header), pinned to CPU 0, five times.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$here/../build_parts.sh" "$here/read_loops.c" "$tmp/read_loops"
for _ in 1 2 3 4 5; do taskset -c 0 "$tmp/read_loops" "${1:-150}" "${2:-300}"; echo; done
