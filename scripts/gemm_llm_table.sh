#!/usr/bin/env bash
# The GEMM table of issue 24 on Hopper: tunes each shape of scripts/gemm_llm_table.py (the 36 LLM layers with B
# as nn.Linear's [N, K], and 4095x4097x4093, 1000x3000x2000, 77x5000x4096 with B in both layouts) with evolve
# under a wall-clock limit, then times every winner beside cuBLAS (scripts/compare_torch.py gemm) and writes
# the markdown table (shape, layout, tune seconds, ours and cuBLAS us, cuBLAS / ours, TFLOP/s; the geometric
# mean and the count at 1.1x or more).
#
#   scripts/gemm_llm_table.sh --gpus 0,1,2,3 [OUT]      one shard a GPU, in parallel; then the merged table
#   scripts/gemm_llm_table.sh --shard I/N --gpu G [OUT] one shard on GPU G (e.g. one host of several)
#   scripts/gemm_llm_table.sh --merge [OUT]             the table of the shards in OUT (OUT/table.md)
#
# OUT (default results/gemm_llm) receives per shard: shard_I.db (its own database), tunes_I.tsv (shape, tune
# seconds, exit status), tune_I.log, compare_I.json and compare_I.txt; and table.md. Environment:
#   LIMIT            a shape's search time (tune --time-limit, 45 s): no variant is proposed after it, those in
#                    flight finish, then the rerank's first round (a SIGTERM GRACE s later stops a tune that
#                    overran, keeping what it measured: exit status 130)
#   GRACE            seconds a tune may run past LIMIT, its rerank's, before that SIGTERM (30)
#   BUDGET           variants a tune at most (200)
#   SPACE            search_spaces/gemm_wgmma.json (or gemm_wgmma_bf16.json: cuBLAS is then timed in bf16; a
#                    *_out_f32.json space: cuBLAS writes fp32 too)
#   EVOTUNE          build/evotune
#   PYTHON           python3, with torch for the comparison
#   REPS             compare_torch.py's timed replays (30)
#   COMPILE_THREADS  NVRTC compiles of a tune (the cores / N: N shards share the host)
# A space that maps A and B directly cannot load rows that are not 16-byte aligned (TMA): with one, those shapes
# are not tuned and the table lists their cuBLAS time and the reason. The GEMM spaces stage such rows into
# padded scratch (docs/kernels/gemm_wgmma.md), so every shape is tuned.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${LIMIT:-45}
budget=${BUDGET:-200}
grace=${GRACE:-30}
space=${SPACE:-search_spaces/gemm_wgmma.json}
evotune=${EVOTUNE:-build/evotune}
python=${PYTHON:-python3}
reps=${REPS:-30}

usage() {
  sed -n "8,10p" "$0" | sed 's/^# *//' >&2
  exit 2
}

# run_shard I/N GPU OUT: tune the shard's shapes on GPU, then compare them.
run_shard() {
  local spec=$1 gpu=$2 out=$3 index=${1%%/*} count=${1##*/}
  local threads=${COMPILE_THREADS:-$(($(nproc) / count > 0 ? $(nproc) / count : 1))}
  local db="$out/shard_$index.db" times="$out/tunes_$index.tsv" log="$out/tune_$index.log"
  local shapes unsupported shape why problem start status wall
  shapes=$("$python" scripts/gemm_llm_table.py shapes --shard "$spec" --space "$space")
  unsupported=$("$python" scripts/gemm_llm_table.py shapes --shard "$spec" --space "$space" --unsupported)
  : >"$times"
  : >"$log"
  local shape_args=()
  for shape in $shapes; do
    shape_args+=(--shape "$shape")
    why=$(awk -F'\t' -v shape="$shape" '$1 == shape { print $2 }' <<<"$unsupported")
    if [ -n "$why" ]; then
      echo "gemm_llm_table: $shape: not tuned: $why" >&2
      continue
    fi
    problem=$("$python" -c 'import sys; sys.path.insert(0, "scripts"); import compare_torch as c
print(c.gemm_problem(c.parse_gemm_shape(sys.argv[1])))' "$shape")  # one shape parser
    start=$(date +%s.%N)
    status=0
    timeout --preserve-status -s TERM -k 10 $((limit + grace)) "$evotune" tune "$space" --problem "$problem" \
      --strategy evolve --budget "$budget" --time-limit "$limit" --seed 12 --timing graph --flush-l2 off --warmup-ms 100 --rerank 3 --devices "$gpu" \
      --compile-threads "$threads" --db "$db" >>"$log" 2>&1 || status=$?
    wall=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
    printf '%s\t%s\t%s\n' "$shape" "$wall" "$status" >>"$times"
    echo "gemm_llm_table: GPU $gpu: $shape tuned in $wall s (exit $status)" >&2
  done
  local dtype  # the space's element type, which compare_torch.py times cuBLAS in
  dtype=$("$python" -c 'import sys; sys.path.insert(0, "scripts"); import compare_torch as c, space_doc
print(c.space_dtype(space_doc.load(sys.argv[1]), "A") or "fp16")' "$space")
  CUDA_VISIBLE_DEVICES=$gpu "$python" scripts/compare_torch.py gemm --space "$space" --dtype "$dtype" --db "$db" \
    --evotune "$evotune" --reps "$reps" "${shape_args[@]}" --json "$out/compare_$index.json" \
    >"$out/compare_$index.txt" 2>&1 || {
    echo "gemm_llm_table: GPU $gpu: compare_torch.py failed (see $out/compare_$index.txt)" >&2
    return 1
  }
}

merge() {
  local out=$1
  cat "$out"/tunes_*.tsv >"$out/tunes.tsv"
  "$python" scripts/gemm_llm_table.py table "$out"/compare_*.json --tune-times "$out/tunes.tsv" -o "$out/table.md"
  cat "$out/table.md"
}

mode="" spec="" gpu="" gpus=""
while [ $# -gt 0 ]; do
  case $1 in
    --gpus) mode=all gpus=$2; shift 2 ;;
    --shard) mode=shard spec=$2; shift 2 ;;
    --gpu) gpu=$2; shift 2 ;;
    --merge) mode=merge; shift ;;
    -h | --help) usage ;;
    -*) echo "gemm_llm_table: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
out=${1:-results/gemm_llm}
mkdir -p "$out"
case $mode in
  shard)
    [ -n "$gpu" ] || { echo "gemm_llm_table: --shard needs --gpu" >&2; exit 2; }
    "$python" scripts/gemm_llm_table.py shapes --shard "$spec" >/dev/null  # a bad I/N fails here
    run_shard "$spec" "$gpu" "$out"
    ;;
  all)
    IFS=, read -r -a list <<<"$gpus"
    pids=()
    for i in "${!list[@]}"; do
      run_shard "$i/${#list[@]}" "${list[$i]}" "$out" &
      pids+=($!)
    done
    failed=0
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    merge "$out"
    exit $failed
    ;;
  merge) merge "$out" ;;
  *) usage ;;
esac
