#!/usr/bin/env bash
# The commands a shared database adds, on either backend: `check --db` fills the compile cache, and a second
# check with the toolkit reached through another path compiles nothing (the key does not say where the
# toolkit is); `remeasure` re-times the fastest stored configs (a recorded sweep standing in for the GPU)
# and stores their rerank; `runs` shows each run's host, pid and heartbeat.
# Usage: tests/session/shared_db_commands.sh EVOTUNE sqlite|postgres   (77: skipped, no PostgreSQL server)
set -euo pipefail
evotune=$1 backend=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/support/test_db.sh"
status=0
fail() { echo "FAIL: $*"; status=1; }

# check --db: compiles land in the shared cache; the toolkit through another path finds them all.
cuda=${CUDA_HOME:-/usr/local/cuda}
"$evotune" check tests/data/spaces/saxpy.json --arch sm_90 --sample 6 --db "$db" >"$work/check1.log" 2>&1 ||
  fail "check: $(tail -n 3 "$work/check1.log")"
first=$(sql "SELECT count(*) FROM compiles")
[ "$first" -ge 6 ] || fail "check stored $first compiles, expected at least 6"
ln -s "$(readlink -f "$cuda")" "$work/toolkit-elsewhere"
CUDA_HOME=$work/toolkit-elsewhere "$evotune" check tests/data/spaces/saxpy.json --arch sm_90 --sample 6 \
  --db "$db" >"$work/check2.log" 2>&1 || fail "second check: $(tail -n 3 "$work/check2.log")"
second=$(sql "SELECT count(*) FROM compiles")
[ "$second" = "$first" ] || fail "the toolkit at another path compiled again: $first then $second compiles"

# remeasure: a replayed tune, then the fastest 3 re-timed and stored as a rerank of a new run.
sweep=tests/data/sweeps/saxpy_synthetic.json
"$evotune" tune tests/data/spaces/saxpy.json --replay "$sweep" --rerank 0 --db "$db" >/dev/null 2>"$work/tune.log" ||
  fail "tune: $(tail -n 3 "$work/tune.log")"
"$evotune" remeasure tests/data/spaces/saxpy.json --top 3 --rounds 2 --replay "$sweep" --db "$db" \
  >"$work/remeasure.out" 2>"$work/remeasure.log" || fail "remeasure: $(tail -n 3 "$work/remeasure.log")"
reranked=$(sql "SELECT count(*) FROM reranks rr JOIN runs r ON r.id = rr.run_id WHERE r.strategy = 'remeasure'")
[ "$reranked" = 3 ] || fail "remeasure stored $reranked reranked configs, expected 3"
evaluated=$(sql "SELECT evaluated FROM runs WHERE strategy = 'remeasure'")
[ "$evaluated" = 0 ] || fail "remeasure evaluated $evaluated new configs, expected none"

"$evotune" runs --db "$db" >"$work/runs.out" 2>&1 || fail "runs: $(cat "$work/runs.out")"
grep -q "host: $(hostname), pid [0-9]*, last heartbeat 20" "$work/runs.out" ||
  fail "runs shows no host, pid and heartbeat: $(head -n 5 "$work/runs.out")"

echo "shared_db_commands ($backend): check cached $first compiles and found them all from another toolkit" \
  "path; remeasure stored $reranked; $([ $status = 0 ] && echo ok || echo FAILED)"
exit $status
