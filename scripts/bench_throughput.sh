#!/usr/bin/env bash
# Evaluation throughput of an exhaustive sweep of the attention space: variants fully evaluated (compiled,
# validated, timed, stored) per minute, once with a cold compile cache and once with a warm one.
# Usage: scripts/bench_throughput.sh [DEVICES] [PROBLEM] [OUT_DIR] [MORE_WARM_DEVICES...]
#   (defaults: 0, the space's, a temp dir); each MORE_WARM_DEVICES (e.g. 0) adds a warm sweep on those GPUs.
# Writes cold.log, warm*.log and the database to OUT_DIR; prints one line per phase.
set -euo pipefail
cd "$(dirname "$0")/.."
devices=${1:-0}
problem=${2:-B=1,H=8,S=512,D=64}
out=${3:-$(mktemp -d)}
shift $(($# < 3 ? $# : 3))
evotune=${EVOTUNE:-build/evotune}
space=search_spaces/flash_attn_fwd.json
mkdir -p "$out"
db="$out/throughput.db"
rm -f "$db" "$db-wal" "$db-shm"

sql() { scripts/sqlite_query.sh "$@"; }

phase() {  # phase NAME DEVICES: one exhaustive sweep, its rate from the run summary line
  local start end
  start=$(date +%s.%N)
  "$evotune" tune "$space" --problem "$problem" --strategy exhaustive --devices "$2" --db "$db" \
    >"$out/$1.out" 2>"$out/$1.log"
  end=$(date +%s.%N)
  grep -o 'run [0-9]*: .*' "$out/$1.log" | tail -n 1
  echo "$1 (GPUs $2): wall $(awk "BEGIN { printf \"%.1f\", $end - $start }") s including start-up"
}

echo "throughput: $("$evotune" devices | head -n 3 | tr '\n' ' ')"
echo "throughput: devices $devices, problem $problem, $(nproc) CPU cores"
phase cold "$devices"
sql "$db" "DELETE FROM measurements; DELETE FROM runs;"  # keep the compile cache
phase warm "$devices"
for more in "$@"; do
  sql "$db" "DELETE FROM measurements; DELETE FROM runs;"
  phase "warm-$more" "$more"
done
