#!/usr/bin/env bash
# Three `evotune tune` processes on one database at once: two spaces, plus a second search of the first space
# (as two GPUs of one kind would run it). All must finish with every result stored once, and the database
# must pass its integrity check.
# Usage: tests/session/concurrent_tunes.sh EVOTUNE
set -euo pipefail
evotune=$1 backend=sqlite
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/support/test_db.sh"
attention=(search_spaces/flash_attn_fwd.json --replay tests/data/sweeps/flash_attn_fwd_h100_B1_H8_S512_D64.json)
saxpy=(tests/data/spaces/saxpy.json --replay tests/data/sweeps/saxpy_synthetic.json --budget 1000)

"$evotune" tune "${attention[@]}" --strategy exhaustive --replay-delay-ms 2 --db "$db" >/dev/null 2>"$work/a.log" &
a=$!
"$evotune" tune "${attention[@]}" --strategy random --seed 7 --replay-delay-ms 2 --db "$db" >/dev/null 2>"$work/b.log" &
b=$!
"$evotune" tune "${saxpy[@]}" --replay-delay-ms 40 --db "$db" >/dev/null 2>"$work/c.log" &
c=$!
status=0
for job in "$a:exhaustive attention" "$b:random attention" "$c:saxpy"; do
  if ! wait "${job%%:*}"; then
    echo "FAIL: the ${job#*:} tune failed:"
    tail -n 5 "$work"/*.log
    status=1
  fi
done
count() { sql "SELECT COUNT(*) FROM measurements m JOIN configs c ON c.id = m.config_id JOIN spaces s ON s.id = c.space_id WHERE s.name = '$1'"; }
[ "$(count flash_attn_fwd)" = 1968 ] || { echo "FAIL: $(count flash_attn_fwd) attention results, expected 1968"; status=1; }
[ "$(count saxpy)" = 34 ] || { echo "FAIL: $(count saxpy) saxpy results, expected 34"; status=1; }
duplicates=$(sql "SELECT COUNT(*) FROM (SELECT 1 FROM measurements GROUP BY config_id, problem_id, device_id HAVING COUNT(*) > 1)")
[ "$duplicates" = 0 ] || { echo "FAIL: $duplicates configs stored twice"; status=1; }
[ "$(sql 'PRAGMA integrity_check')" = ok ] || { echo "FAIL: integrity_check"; status=1; }
unfinished=$(sql "SELECT COUNT(*) FROM runs WHERE status != 'finished'")
[ "$unfinished" = 0 ] || { echo "FAIL: $unfinished runs did not finish"; status=1; }
echo "concurrent_tunes: 3 tunes on one database: $(count flash_attn_fwd) + $(count saxpy) results;" \
  "$([ $status = 0 ] && echo all stored once, integrity ok || echo FAILED)"
exit $status
