#!/usr/bin/env bash
# `evotune tune` over several problems (a list on --problem, then a --problems file), each answered by its own
# recorded sweep: the order starts at the most central problem, later searches start from the configs of
# nearby problems, `best` prints the problem-by-config table, and bad input stops before any search.
# Usage: tests/session/multi_problem_tune.sh EVOTUNE
set -euo pipefail
evotune=$1 backend=sqlite
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/support/test_db.sh"
space=tests/data/spaces/saxpy.json
replays=()
for n in 4096 8192 16384 65536; do
  sed "s/\"problem\": {\"ALIGN\":4,\"N\":4096}/\"problem\": {\"ALIGN\":4,\"N\":$n}/" \
    tests/data/sweeps/saxpy_synthetic.json >"$work/saxpy_$n.json"
  replays+=(--replay "$work/saxpy_$n.json")
done
status=0
fail() { echo "FAIL: $*"; status=1; }
runs() { sql "SELECT COUNT(*) FROM runs"; }

"$evotune" tune $space --problem "ALIGN=4,N=4096,8192,16384" --strategy evolve --budget 10 "${replays[@]}" \
  --db "$db" >"$work/out1" 2>"$work/log1" || { fail "the list tune failed"; cat "$work/log1"; }
order=$(grep -o 'problem [0-9] of 3: [A-Z0-9=,]*' "$work/log1" | tr '\n' ';')
[ "$order" = "problem 1 of 3: ALIGN=4,N=8192;problem 2 of 3: ALIGN=4,N=4096;problem 3 of 3: ALIGN=4,N=16384;" ] ||
  fail "order: $order"
[ "$(grep -c 'evolve: population .*, 4 from nearby problems' "$work/log1")" = 2 ] ||
  fail "the second and third searches did not start from nearby problems: $(grep 'evolve:' "$work/log1")"
[ "$(runs)" = 3 ] || fail "$(runs) runs, expected 3"

printf '["ALIGN=4,N=65536", {"ALIGN": 4, "N": 4096}]\n' >"$work/problems.json"
"$evotune" tune $space --problems "$work/problems.json" --strategy anneal --budget 5 "${replays[@]}" \
  --db "$db" >/dev/null 2>"$work/log2" || { fail "the --problems tune failed"; cat "$work/log2"; }
# N=4096 is tuned already (distance 0), so it goes on first; then N=65536, from N=16384's best configs.
grep -q 'problem 2 of 2: ALIGN=4,N=65536' "$work/log2" || fail "--problems order: $(grep 'problem ' "$work/log2")"
grep -q 'anneal: 4 chains, 0 started from the database, 2 from nearby problems' "$work/log2" ||
  fail "anneal did not start from nearby problems: $(grep 'anneal:' "$work/log2")"

"$evotune" best $space --problem "ALIGN=4,N=4096..65536:x2" --db "$db" >"$work/best"
[ "$(grep -c '^ALIGN=4,N=[0-9]* .*\*' "$work/best")" = 4 ] || { fail "best table"; cat "$work/best"; }
grep -q '^ALIGN=4,N=32768 .*(no ok result)' "$work/best" || fail "the untuned N=32768 row"

before=$(runs)
if "$evotune" tune $space --problem "ALIGN=4,N=4096,32768" "${replays[@]}" --db "$db" 2>"$work/err1"; then
  fail "a problem without a sweep was accepted"
fi
grep -q 'no --replay sweep is of problem ALIGN=4,N=32768' "$work/err1" || fail "message: $(cat "$work/err1")"
if "$evotune" tune $space --problem "N=4096" --problems "$work/problems.json" --db "$db" 2>"$work/err2"; then
  fail "--problem with --problems was accepted"
fi
grep -q 'give --problem or --problems, not both' "$work/err2" || fail "message: $(cat "$work/err2")"
[ "$(runs)" = "$before" ] || fail "a refused tune started a run"
echo "multi_problem_tune: $(runs) runs over 4 problems; $([ $status = 0 ] && echo ok || echo FAILED)"
exit $status
