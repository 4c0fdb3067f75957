#!/usr/bin/env bash
# Exports the best stored attention variant for a problem, builds it with nvcc beside a small harness and checks
# its output against float64 on the CPU. Needs a GPU and a database with results.
# Usage: [DB=results/evotune.db] [EVOTUNE=build/evotune] scripts/check_export.sh [B H S D CAUSAL]   (default 1 8 512 64 0)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-1} H=${2:-8} S=${3:-512} D=${4:-64} CAUSAL=${5:-0}
db=${DB:-results/evotune.db}
evotune=${EVOTUNE:-build/evotune}
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$evotune" export search_spaces/flash_attn_fwd.json --problem "B=$B,H=$H,S=$S,D=$D,CAUSAL=$CAUSAL" --db "$db" \
  -o "$work/exported.cu"
arch=$("$evotune" devices | sed -n 's/^0: .*(\(sm_[0-9]*\)).*/\1/p')
"$nvcc" -arch="${arch:-sm_90}" -c "$work/exported.cu" -o "$work/exported.o"   # compiles on its own
"$nvcc" -arch="${arch:-sm_90}" -std=c++17 -DEXPORTED="\"$work/exported.cu\"" tests/gpu/attention_export_harness.cu \
  -o "$work/harness"
"$work/harness" "$B" "$H" "$S" "$D" "$CAUSAL"
