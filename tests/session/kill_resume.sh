#!/usr/bin/env bash
# Kills a running `evotune tune` with SIGKILL at random moments (the tuning process, and sometimes one of its
# workers first), reruns it each time, and checks that the database ends with exactly the results of an
# uninterrupted run: nothing lost, nothing measured twice, a clean integrity check.
# Usage: tests/session/kill_resume.sh [--compare-status-only] EVOTUNE SPACE ROUNDS [TUNE ARGS...]
# With a recorded sweep (--replay FILE) it runs on any machine; with a GPU, pass --compare-status-only
# (times differ between runs there). KILL_RESUME_KEEP_COMPILES=1 starts the interrupted database with the
# uninterrupted run's compile cache (on a GPU: the kills then land while variants are being evaluated).
set -euo pipefail
compare=status_and_time
if [ "${1:-}" = --compare-status-only ]; then compare=status; shift; fi
evotune=$1 space=$2 rounds=$3
shift 3
args=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
RANDOM=${KILL_RESUME_SEED:-12345}

# This test's processes carry a tag in their environment (workers inherit it): other tests running at the
# same time start `evotune worker` processes too, which must not count as this test's orphans.
export KILL_RESUME_TAG="$$.$(date +%s%N)"
our_workers() {
  local pid
  for pid in $(pgrep -f "$evotune worker" || true); do
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "KILL_RESUME_TAG=$KILL_RESUME_TAG" && echo "$pid"
  done
  return 0
}

sqlite_query="$(dirname "$0")/../../scripts/sqlite_query.sh"
sql() { "$sqlite_query" "$@"; }

results() {  # one line per measurement: canonical params, status[, median time]
  local columns="c.params, m.status"
  [ "$compare" = status_and_time ] && columns="$columns, m.time_median_us"
  sql "$1" "SELECT $columns FROM measurements m JOIN configs c ON c.id = m.config_id ORDER BY c.params"
}

max_ms=${KILL_RESUME_MAX_MS:-950}  # pauses before a kill are drawn from 50 ms to this
pause() { local ms=$((RANDOM % (max_ms - 49) + 50)); sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"; }

echo "kill_resume: uninterrupted run"
"$evotune" tune "$space" "${args[@]}" --db "$work/clean.db" >"$work/clean.out" 2>"$work/clean.log" ||
  { cat "$work/clean.log"; exit 1; }

if [ "${KILL_RESUME_KEEP_COMPILES:-0}" = 1 ]; then
  cp "$work/clean.db" "$work/killed.db"
  sql "$work/killed.db" "DELETE FROM measurements; DELETE FROM runs;"
fi

worker_kills=0 driver_kills=0 finished_early=0
for ((round = 1; round <= rounds; round++)); do
  "$evotune" tune "$space" "${args[@]}" --db "$work/killed.db" >>"$work/killed.out" 2>>"$work/killed.log" &
  driver=$!
  pause
  if ((RANDOM % 3 == 0)); then
    worker=$(pgrep -P "$driver" | head -n 1 || true)
    if [ -n "$worker" ]; then
      kill -9 "$worker" 2>/dev/null && worker_kills=$((worker_kills + 1))
      pause
    fi
  fi
  if kill -9 "$driver" 2>/dev/null; then driver_kills=$((driver_kills + 1)); else finished_early=$((finished_early + 1)); fi
  wait "$driver" 2>/dev/null || true
  # Workers die with their tuning process (parent-death signal, closed pipe); give the kernel a moment.
  for _ in 1 2 3 4 5 6 7 8 9 10; do [ -n "$(our_workers)" ] || break; sleep 0.1; done
done
echo "kill_resume: $rounds rounds: $driver_kills tuning processes and $worker_kills workers killed, $finished_early finished first"
"$evotune" tune "$space" "${args[@]}" --db "$work/killed.db" >>"$work/killed.out" 2>>"$work/killed.log" ||
  { tail -n 20 "$work/killed.log"; exit 1; }

status=0
integrity=$(sql "$work/killed.db" "PRAGMA integrity_check")
[ "$integrity" = ok ] || { echo "FAIL: integrity_check: $integrity"; status=1; }
duplicates=$(sql "$work/killed.db" "SELECT COUNT(*) FROM (SELECT 1 FROM measurements GROUP BY config_id, problem_id, device_id HAVING COUNT(*) > 1)")
[ "$duplicates" = 0 ] || { echo "FAIL: $duplicates configs measured more than once"; status=1; }
results "$work/clean.db" >"$work/clean.txt"
results "$work/killed.db" >"$work/killed.txt"
if ! diff -q "$work/clean.txt" "$work/killed.txt" >/dev/null; then
  echo "FAIL: the interrupted database differs from the uninterrupted one:"
  diff "$work/clean.txt" "$work/killed.txt" | head -n 20
  status=1
fi
orphans=$(our_workers)
[ -z "$orphans" ] || { echo "FAIL: worker processes outlived their tuning process: $orphans"; status=1; }
echo "kill_resume: $(wc -l <"$work/clean.txt") results, $(sql "$work/killed.db" "SELECT COUNT(*) FROM runs") runs;" \
  "$([ $status = 0 ] && echo same results, no duplicates, integrity ok || echo FAILED)"
exit $status
