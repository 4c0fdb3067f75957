#!/usr/bin/env bash
# Compile time of the attention template per variant (scripts/bench_compile.cpp): source layouts, NVRTC's
# precompiled headers, -lineinfo, and a long-lived compiler process. Each comparison is one process that
# alternates between the two setups variant by variant, so that both meet the same machine load; rounds
# repeat the comparisons.
#
#   scripts/bench_compile.sh [VARIANTS] [ROUNDS]   (defaults: 32 variants, 3 rounds; about 15 minutes)
#   JOBS=16 scripts/bench_compile.sh [VARIANTS]    instead: 16 processes of the old and then of the new setup
#                                                  at once, as the compilers of a sweep on a 16-core machine
#
# Variants are evenly spread configs of the recorded H100 sweep (D=64, CAUSAL=0). NVRTC options are evotune's
# (sm_90, -Xptxas=-v, -std=c++17, the CUDA include dirs) plus those shown. Times are medians per compile: wall,
# this process's CPU, and NVRTC's phases (--time, wall time).
set -euo pipefail
cd "$(dirname "$0")/.."
variants=${1:-32}
rounds=${2:-3}
jobs=${JOBS:-0}
cuda=${CUDA_HOME:-/usr/local/cuda}
mkdir -p build
g++ -O2 -std=c++17 -o build/bench_compile scripts/bench_compile.cpp -I"$cuda/include" -L"$cuda/lib64" -lnvrtc \
  -Wl,-rpath,"$cuda/lib64"
defines=build/bench_compile_variants.txt
python3 - "$variants" tests/data/sweeps/flash_attn_fwd_h100_B1_H8_S512_D64.json >"$defines" <<'PY'
import json, sys
count, sweep = int(sys.argv[1]), json.load(open(sys.argv[2]))
lines = [" ".join(f"{k}={v}" for k, v in r["params"].items()) + " D=64 CAUSAL=0" for r in sweep["results"]]
for i in range(count):
    print(lines[i * len(lines) // count])
PY
template=kernels/attention/flash_attn_fwd.cu
base=(--gpu-architecture=sm_90 -Xptxas=-v -std=c++17 -I"$cuda/include")
[ -d "$cuda/include/cccl" ] && base+=(-I"$cuda/include/cccl")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

old=(defines -lineinfo)
new=(hoisted -lineinfo --pch --pch-messages=false --pch-verbose=false)
bench() {  # bench [WARMUP+]COUNT SETUP [--vs SETUP]
  build/bench_compile "$template" "$defines" "$@" -- "${base[@]}"
}
long_lived() {  # a process after 200 compiles or more and a fresh one, compiling the same variants at once
  rm -f "$out/ready"
  BENCH_READY="$out/ready" bench "$(((200 + variants - 1) / variants * variants))+$variants" "${old[@]}" >"$out/a" &
  while [ ! -e "$out/ready" ]; do sleep 0.1; done
  bench "$variants" "${old[@]}" >"$out/b" &
  wait
  cat "$out/a" "$out/b"
}
many() {  # many SETUP: JOBS processes of it at once; the CPU medians of each
  for ((job = 0; job < jobs; ++job)); do bench "$variants" "$@" >"$out/$job" & done
  wait
  echo "$*: $jobs at once, per-process cpu medians (ms): $(sed -n 's/.*cpu *\([0-9]*\) ms.*/\1/p' "$out"/[0-9]* |
    sort -n | tr '\n' ' ')"
  rm -f "$out"/[0-9]*
}

echo "# $(nproc) cores, $(uptime | sed 's/.*load/load/'), $variants variants"
if ((jobs > 0)); then
  many "${old[@]}"
  many "${new[@]}"
  exit
fi
for ((round = 1; round <= rounds; ++round)); do
  echo "# round $round: evotune's old layout vs hoisted headers with precompiled headers"
  bench "$variants" "${old[@]}" --vs "${new[@]}"
  echo "# round $round: -lineinfo vs none"
  bench "$variants" "${old[@]}" --vs defines
  echo "# round $round: precompiled headers alone (both hoisted)"
  bench "$variants" hoisted -lineinfo --vs "${new[@]}"
done
echo "# after 200 compiles in one process vs a fresh process, at the same time"
long_lived
