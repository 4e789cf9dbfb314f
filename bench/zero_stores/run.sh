#!/usr/bin/env bash
# Build and run zero_stores.c (see its header), pinned to CPU 0: ROUNDS rounds (default 6).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${CC:-cc}" -O2 -Wall -I"$here/.." -o "$tmp/zero_stores" "$here/zero_stores.c"
taskset -c 0 "$tmp/zero_stores" "${1:-6}"
