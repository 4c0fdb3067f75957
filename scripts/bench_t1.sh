#!/usr/bin/env bash
# The autotuning community's benchmark suite on this GPU, evotune and Kernel Tuner side by side: each T1 file
# (GEMM, nbody, convolution, pnpoly, TRIAD of BAT) tuned by evotune's evolve and by Kernel Tuner's genetic
# algorithm at budgets 100 and 500 (SEEDS seeds each), and by Kernel Tuner's default strategy (brute force,
# which takes no budget) where the space has at most BRUTE_MAX valid configs (default 0: never; the suite's
# spaces have 1,568 to 10,312, tens of minutes each at Kernel Tuner's serial compiles). Then OUT/table.md: configs per
# minute, best time after 100 and 500 evaluations, time to the best, failures by status
# (scripts/bench_t1_table.py). Needs a GPU; Kernel Tuner from KT_PATH (default .carry/kt, see
# scripts/kt_t1_bench.py), numpy and cupy.
#
#   scripts/bench_t1.sh BAT_CHECKOUT [OUT_DIR]   environment: BENCHMARKS, BUDGETS ("100 500"), SEEDS ("1"),
#                                                BRUTE_MAX (0), KT (1: run Kernel Tuner), EVOTUNE,
#                                                EVOTUNE_ARGS (more tune options, e.g. "--reps 7" for Kernel
#                                                Tuner's 7 iterations; default: evotune's 30 flushed samples)
#
# One benchmark takes about 10 minutes with Kernel Tuner's serial compiles: run them one a call, e.g.
#   BENCHMARKS=GEMM/GEMM-CAFF scripts/bench_t1.sh .carry/BAT results/bench_t1  (the table covers all in OUT)
set -euo pipefail
cd "$(dirname "$0")/.."
bat=${1:?usage: scripts/bench_t1.sh BAT_CHECKOUT [OUT_DIR]}
out=${2:-results/bench_t1}
benchmarks=${BENCHMARKS:-GEMM/GEMM-CAFF nbody/nbody-CAFF convolution/convolution-CAFF pnpoly/pnpoly-CAFF TRIAD/TRIAD-CAFF}
budgets=${BUDGETS:-100 500}
seeds=${SEEDS:-1}
brute_max=${BRUTE_MAX:-0}
evotune=${EVOTUNE:-build/evotune}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" 2>/dev/null || true
for bench in $benchmarks; do
  file="$bat/batbench/benchmarks/$bench.json"
  name=$(basename "$bench")
  "$evotune" check "$file" --sample 16 >"$out/$name.check.txt" 2>&1 ||
    echo "bench_t1: $name: check reports failures (see $out/$name.check.txt)" >&2
  for budget in $budgets; do
    for seed in $seeds; do
      db="$out/$name.evolve.$budget.$seed.db"
      rm -f "$db"
      start=$(date +%s.%N)
      # shellcheck disable=SC2086  # EVOTUNE_ARGS is a list of options
      "$evotune" tune "$file" --strategy evolve --budget "$budget" --seed "$seed" --rerank 0 --db "$db" ${EVOTUNE_ARGS:-} \
        >"$out/$name.evolve.$budget.$seed.out" 2>"$out/$name.evolve.$budget.$seed.log" ||
        echo "bench_t1: $name evolve $budget: tune failed (see $out/$name.evolve.$budget.$seed.log)" >&2
      wall=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
      "$evotune" record "$file" --db "$db" --t4 -o "$out/$name.evolve.$budget.$seed.t4.json" >/dev/null 2>&1 || true
      echo "$name evotune evolve budget $budget seed $seed: $wall s"
      if [ "${KT:-1}" = 1 ]; then
        python3 scripts/kt_t1_bench.py "$file" --strategy genetic_algorithm --budget "$budget" --seed "$seed" \
          -o "$out/$name.kt_ga.$budget.$seed.json" 2>"$out/$name.kt_ga.$budget.$seed.log" ||
          echo "bench_t1: $name Kernel Tuner GA $budget: failed (see $out/$name.kt_ga.$budget.$seed.log)" >&2
      fi
    done
  done
  valid=$(grep -o '[0-9]* of [0-9]* configs valid' "$out/$name.check.txt" | head -n 1 | cut -d' ' -f1 || echo 0)
  if [ "${KT:-1}" = 1 ] && [ "${valid:-0}" -gt 0 ] && [ "$valid" -le "$brute_max" ]; then
    python3 scripts/kt_t1_bench.py "$file" --strategy brute_force --budget "$valid" -o "$out/$name.kt_brute.json" \
      2>"$out/$name.kt_brute.log" || echo "bench_t1: $name Kernel Tuner brute force: failed" >&2
  fi
done
python3 scripts/bench_t1_table.py "$out" | tee "$out/table.md"
