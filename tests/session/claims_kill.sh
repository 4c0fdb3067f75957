#!/usr/bin/env bash
# Four `evotune tune --replay` processes share one database (as four hosts would), and one is killed with
# SIGKILL while it holds claims. With a short lease the others take its configs over: the database must end
# with exactly the results of one uninterrupted run, none stored twice, and no claims left.
# Usage: tests/session/claims_kill.sh EVOTUNE sqlite|postgres
# Exits 77 (skipped) for postgres where no PostgreSQL server can be started.
set -euo pipefail
evotune=$1 backend=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/support/test_db.sh"
[ -n "${CLAIMS_KILL_KEEP:-}" ] && trap - EXIT
space=search_spaces/flash_attn_fwd.json
tune=(tune "$space" --replay tests/data/sweeps/flash_attn_fwd_h100_B1_H8_S512_D64.json --strategy exhaustive
      --rerank 0)

results() {  # one line per measurement: canonical params, status, median time (as each backend prints it)
  "$@" "SELECT c.params, m.status, m.time_median_us FROM measurements m JOIN configs c ON c.id = m.config_id
        ORDER BY c.params" | awk -F'|' '{ printf "%s|%s|%.6g\n", $1, $2, $3 }'
}

"$evotune" "${tune[@]}" --db "$work/reference.db" >/dev/null 2>"$work/reference.log"
reference() { "$root/scripts/sqlite_query.sh" "$work/reference.db" "$1"; }
results reference >"$work/expected"

export EVOTUNE_CLAIM_LEASE_S=2
pids=()
for i in 1 2 3 4; do
  "$evotune" "${tune[@]}" --replay-delay-ms 4 --db "$db" >/dev/null 2>"$work/tune$i.log" &
  pids+=($!)
done
victim=${pids[1]}
# Kill the victim once it holds claims (it is evaluating configs).
for _ in $(seq 1 400); do
  held=$(sql "SELECT count(*) FROM claims c JOIN runs r ON r.id = c.run_id WHERE r.pid = $victim" 2>/dev/null || echo 0)
  [ "${held:-0}" -gt 0 ] && break
  sleep 0.05
done
kill -9 "$victim"
echo "claims_kill: killed tune $victim holding ${held:-0} claims"

status=0
for pid in "${pids[@]}"; do
  [ "$pid" = "$victim" ] && continue
  if ! wait "$pid"; then
    echo "FAIL: tune $pid failed:"
    tail -n 5 "$work"/tune*.log
    status=1
  fi
done
wait "$victim" 2>/dev/null || true

results sql >"$work/actual"
if ! diff -q "$work/expected" "$work/actual" >/dev/null; then
  echo "FAIL: the shared database differs from an uninterrupted run's ($(wc -l <"$work/expected") results):"
  diff "$work/expected" "$work/actual" | head -n 10
  status=1
fi
duplicates=$(sql "SELECT count(*) FROM (SELECT 1 FROM measurements GROUP BY config_id, problem_id, device_id HAVING count(*) > 1) d")
[ "$duplicates" = 0 ] || { echo "FAIL: $duplicates configs stored twice"; status=1; }
claims=$(sql "SELECT count(*) FROM claims")
[ "$claims" = 0 ] || { echo "FAIL: $claims claims left"; status=1; }
taken=$(sql "SELECT count(*) FROM runs WHERE status = 'finished'")
evaluated=$(sql "SELECT sum(evaluated) FROM runs WHERE status = 'finished'")
echo "claims_kill: the finished tunes evaluated $evaluated configs between them"
echo "claims_kill ($backend): $(wc -l <"$work/actual") results from $taken finished tunes and one killed;" \
  "$([ $status = 0 ] && echo same as an uninterrupted run, none twice, no claims left || echo FAILED)"
exit $status
