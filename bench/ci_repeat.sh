#!/usr/bin/env bash
# Run CI as CI runs it, N times in a row, each time from a fresh clone with
# ../shared beside it, and count how many pass.  With --busy, a loop pinned
# to the last CPU keeps it busy for the whole time, as a shared host often is.
#
#   bench/ci_repeat.sh [--busy] [--runs N] [--commit REV] [--log DIR] [--lock FILE]
#
# --lock FILE: each run (and its busy loop) holds an exclusive flock on FILE,
# so that measurements taken by others under the same lock see a quiet
# machine; others get the lock between runs.
# --idle-class: run CI and the busy loop as SCHED_IDLE (chrt -i 0), so that
# they only take CPU time nothing else wants: others can measure meanwhile,
# and the suite runs starved whenever they do (a harsher host than --busy).
#
# Prints one line per run (exit status, seconds, pytest's closing line) and
# a summary; every run's output is kept in the log directory.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$repo/.." && pwd)/shared
runs=10 busy=0 commit=HEAD log="" lock="" idle=""
while [ $# -gt 0 ]; do
  case "$1" in
    --busy) busy=1 ;;
    --runs) runs=$2; shift ;;
    --commit) commit=$2; shift ;;
    --log) log=$2; shift ;;
    --lock) lock=$2; shift ;;
    --idle-class) idle="chrt -i 0" ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "ci_repeat.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -d "$shared" ] || { echo "ci_repeat.sh: $shared not found" >&2; exit 2; }
rev=$(git -C "$repo" rev-parse --short "$commit") || exit 2
log=${log:-$(mktemp -d /tmp/ci-repeat.XXXXXX)}
mkdir -p "$log"
work=$(mktemp -d /tmp/ci-clone.XXXXXX)
loop_pid=""
cleanup() {
  [ -n "$loop_pid" ] && kill "$loop_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
last=$(( $(nproc) - 1 ))
echo "commit $rev, $runs runs, logs in $log"
pass=0
for i in $(seq 1 "$runs"); do
  rm -rf "$work/main" && mkdir -p "$work"
  git clone -q "$repo" "$work/main" && git -C "$work/main" checkout -q "$rev"
  ln -sfn "$shared" "$work/shared"
  [ -n "$lock" ] && { exec 9>"$lock"; flock 9; }
  if [ "$busy" = 1 ]; then
    $idle taskset -c "$last" sh -c 'while :; do :; done' &
    loop_pid=$!
  fi
  t0=$(date +%s)
  (cd "$work/main" && CI=true $idle bash .ci/run </dev/null) >"$log/run$i.log" 2>&1
  rc=$?
  t1=$(date +%s)
  if [ -n "$loop_pid" ]; then kill "$loop_pid" 2>/dev/null; wait "$loop_pid" 2>/dev/null; loop_pid=""; fi
  [ -n "$lock" ] && { flock -u 9; exec 9>&-; sleep 15; }
  last_line=$(grep -E "passed|failed" "$log/run$i.log" | tail -1)
  [ "$rc" = 0 ] && pass=$((pass + 1))
  printf 'run %2d: exit %d, %4d s, %s (%s)\n' "$i" "$rc" "$((t1 - t0))" "$last_line" "$(date +%H:%M)"
done
echo "passed $pass of $runs ($([ "$busy" = 1 ] && echo "CPU $last kept busy by a pinned loop" || echo "nothing else started")${idle:+, as SCHED_IDLE})"
[ "$pass" = "$runs" ]
