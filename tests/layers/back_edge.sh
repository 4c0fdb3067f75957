#!/usr/bin/env bash
# The build's layer check passes on the tree as it is and fails, naming the file, on a planted back-edge
# (store including a session header) and on a CUDA header outside the CUDA modules (strategy).
# Usage: back_edge.sh CMAKE SOURCE_DIR LAYER_MAP CUDA_MODULES
set -uo pipefail
cmake=$1 source=$2 map=$3 cuda=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$source/src" "$work/src"
check() { "$cmake" -DSRC="$work/src" "-DMAP=$map" "-DCUDA_MODULES=$cuda" -P "$source/cmake/check_layers.cmake" 2>&1; }
fail() { echo "FAIL: $*"; exit 1; }

check >"$work/clean.log" || { cat "$work/clean.log"; fail "the tree as it is does not pass the layer check"; }

store_file=$(ls "$work"/src/store/*.cpp | head -n 1)
cp "$store_file" "$work/saved"
printf '#include "session/tune_session.hpp"\n' >>"$store_file"
if out=$(check); then fail "a store file including a session header passed"; fi
grep -q "src/store/$(basename "$store_file"): store may not include session/tune_session.hpp" <<<"$out" ||
  fail "the message does not name the back-edge: $out"
cp "$work/saved" "$store_file"

strategy_file=$(ls "$work"/src/strategy/*.hpp | head -n 1)
printf '#include <cuda.h>\n' >>"$strategy_file"
if out=$(check); then fail "a strategy header including <cuda.h> passed"; fi
grep -q "strategy may not include <cuda.h>" <<<"$out" || fail "the message does not name the CUDA header: $out"
echo "layer check: clean tree passes, both planted edges fail"
