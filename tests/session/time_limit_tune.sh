#!/usr/bin/env bash
# tune --time-limit: a replayed search whose budget would take far longer stops proposing at the limit, lets
# what is in flight finish, reranks in one round only (its five would take 5 s more), says "time limit", and
# stores the run as finished; a second run of the same command goes on where the first stopped; a limit
# shorter than the set-up still measures the first window. Out-of-range values are refused in one line.
# Usage: tests/session/time_limit_tune.sh EVOTUNE
set -euo pipefail
evotune=$1 backend=sqlite
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/support/test_db.sh"
space=(search_spaces/flash_attn_fwd.json --replay tests/data/sweeps/flash_attn_fwd_h100_B1_H8_S512_D64.json
  --strategy random --seed 3 --budget 400 --replay-delay-ms 100 --rerank 10 --db "$db")
status=0
start=$(date +%s.%N)
"$evotune" tune "${space[@]}" --time-limit 2 >"$work/a.out" 2>"$work/a.log" || { tail -n 5 "$work/a.log"; exit 1; }
seconds=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
evaluated=$(sql "SELECT COUNT(*) FROM measurements")
# One worker answering every 100 ms: about 20 in 2 s, plus the few in flight at the limit; nowhere near 400.
[ "$evaluated" -ge 5 ] && [ "$evaluated" -le 60 ] || { echo "FAIL: $evaluated results after a 2 s limit"; status=1; }
awk "BEGIN { exit !($seconds < 8) }" || { echo "FAIL: the limited tune took $seconds s"; status=1; }
grep -q "time limit: no more variants proposed" "$work/a.log" || { echo "FAIL: no time-limit line"; status=1; }
grep -q "; time limit$" "$work/a.log" || { echo "FAIL: the run's line does not end with its stop reason"; grep "run 1" "$work/a.log"; status=1; }
grep -q "rerank: time limit: 1 of 5 rounds" "$work/a.log" || { echo "FAIL: the rerank was not cut to one round"; grep rerank "$work/a.log"; status=1; }
grep -q "rerank: config [0-9]* is the fastest, .* over 1 rounds" "$work/a.log" || { echo "FAIL: no rerank winner from its one round"; status=1; }
[ "$(sql "SELECT status FROM runs")" = finished ] || { echo "FAIL: run stored as $(sql "SELECT status FROM runs")"; status=1; }
"$evotune" tune "${space[@]}" --time-limit 1.5 >"$work/b.out" 2>"$work/b.log" || { tail -n 5 "$work/b.log"; exit 1; }
more=$(sql "SELECT COUNT(*) FROM measurements")
[ "$more" -gt "$evaluated" ] || { echo "FAIL: the second run added nothing ($more after $evaluated)"; status=1; }
duplicates=$(sql "SELECT COUNT(*) FROM (SELECT 1 FROM measurements GROUP BY config_id, problem_id, device_id HAVING COUNT(*) > 1)")
[ "$duplicates" = 0 ] || { echo "FAIL: $duplicates configs measured twice"; status=1; }
# A limit the set-up uses up still measures the first window (the strategy's first picks), then stops.
"$evotune" tune "${space[@]}" --time-limit 0.001 >"$work/d.out" 2>"$work/d.log" || { tail -n 5 "$work/d.log"; exit 1; }
first=$(grep -o "run [0-9]*: [0-9]* evaluated" "$work/d.log" | awk '{ print $3 }')
[ -n "$first" ] && [ "$first" -ge 1 ] && [ "$first" -le 20 ] ||
  { echo "FAIL: a limit shorter than the set-up measured '${first:-nothing}'"; grep "run " "$work/d.log"; status=1; }
if "$evotune" tune "${space[@]}" --time-limit -1 >/dev/null 2>"$work/c.log"; then
  echo "FAIL: --time-limit -1 accepted"; status=1
fi
[ "$(wc -l <"$work/c.log")" -le 2 ] || { echo "FAIL: the refusal is not one line:"; cat "$work/c.log"; status=1; }
echo "time_limit_tune: $evaluated results in $seconds s under a 2 s limit, $more after a second run;" \
  "$([ $status = 0 ] && echo stopped, reranked, stored as finished || echo FAILED)"
exit $status
