#!/usr/bin/env bash
# Tunes each attention space for each benchmark shape, then compares the stored winners with PyTorch SDPA in
# one process (scripts/compare_torch.py attention). Each tune's strategy, budget and wall time go to OUT/tunes.tsv, the
# comparison to OUT/compare.json and OUT/compare.txt. Needs a GPU, and PyTorch for the comparison.
#
#   scripts/bench_attention.sh [OUT_DIR]   environment: SPACES (space files), SHAPES (B,H,S,D[,causal] ...),
#                                          STRATEGY (evolve), BUDGET (per tune; 0: the space's), DB, EVOTUNE
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/bench_attention}
spaces=${SPACES:-search_spaces/flash_attn_fwd_mma.json search_spaces/flash_attn_fwd.json}
shapes=${SHAPES:-1,8,512,64 1,8,4096,64 8,16,4096,64 4,16,4096,128 1,8,512,128 2,16,2048,128,causal 4,32,1024,64 2,8,1000,64}
strategy=${STRATEGY:-evolve}
budget=${BUDGET:-200}
db=${DB:-results/evotune.db}
evotune=${EVOTUNE:-build/evotune}
mkdir -p "$out"
printf 'space\tproblem\tstrategy\tbudget\twall_s\tsummary\n' >"$out/tunes.tsv"
shape_args=()
for shape in $shapes; do
  problem=$(python3 -c 'import sys; sys.path.insert(0, "scripts"); import compare_torch as c
print(c.attention_problem(c.parse_attention_shape(sys.argv[1])))' "$shape")  # one shape parser
  shape_args+=(--shape "$shape")
  for space in $spaces; do
    budget_args=()
    [ "$budget" != 0 ] && budget_args=(--budget "$budget")
    start=$(date +%s.%N)
    "$evotune" tune "$space" --problem "$problem" --strategy "$strategy" "${budget_args[@]}" --db "$db" \
      >"$out/tune.out" 2>"$out/tune.log" || echo "bench_attention: $space $problem: tune failed (see $out/tune.log)" >&2
    wall=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
    summary=$(grep -o 'run [0-9]*: .*' "$out/tune.log" | tail -n 1 || true)
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$space" "$problem" "$strategy" "$budget" "$wall" "$summary" >>"$out/tunes.tsv"
    echo "$(basename "$space") $problem: $wall s, $summary"
  done
done
space_args=()
for space in $spaces; do space_args+=(--space "$space"); done
python3 scripts/compare_torch.py attention "${shape_args[@]}" "${space_args[@]}" --db "$db" --evotune "$evotune" \
  --json "$out/compare.json" | tee "$out/compare.txt"
