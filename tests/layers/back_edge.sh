#!/usr/bin/env bash
# The build's layer check passes on the tree as it is and fails, naming the file, on planted back-edges
# (store including a session header; export, bench, tools and session including what they may not) and on a
# CUDA header outside the CUDA modules (strategy).
# Usage: back_edge.sh CMAKE SOURCE_DIR LAYER_MAP CUDA_MODULES
set -uo pipefail
cmake=$1 source=$2 map=$3 cuda=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$source/src" "$work/src"
check() { "$cmake" -DSRC="$work/src" "-DMAP=$map" "-DCUDA_MODULES=$cuda" -P "$source/cmake/check_layers.cmake" 2>&1; }
fail() { echo "FAIL: $*"; exit 1; }

check >"$work/clean.log" || { cat "$work/clean.log"; fail "the tree as it is does not pass the layer check"; }

# plant MODULE INCLUDE: a file of MODULE that includes INCLUDE fails the check, and the message names it.
plant() {
  local module=$1 include=$2 file out
  file=$(ls "$work/src/$module"/*.cpp | head -n 1)
  cp "$file" "$work/saved"
  printf '#include "%s"\n' "$include" >>"$file"
  if out=$(check); then fail "a $module file including $include passed"; fi
  grep -q "src/$module/$(basename "$file"): $module may not include $include" <<<"$out" ||
    fail "the message does not name the back-edge: $out"
  cp "$work/saved" "$file"
}
plant store session/tune_session.hpp
# The modules split from session: export and bench see neither the run nor the store they do not link,
# tools not the CLI, and the lower layers none of them.
plant export session/tune_session.hpp
plant export worker/worker_pool.hpp
plant bench store/store.hpp
plant bench export/export_dispatch.hpp
plant tools cli/commands.hpp
plant session export/export_variant.hpp
plant session tools/check_space.hpp
plant space bench/strategy_bench.hpp
check >"$work/restored.log" || { cat "$work/restored.log"; fail "the restored tree does not pass"; }

strategy_file=$(ls "$work"/src/strategy/*.hpp | head -n 1)
printf '#include <cuda.h>\n' >>"$strategy_file"
if out=$(check); then fail "a strategy header including <cuda.h> passed"; fi
grep -q "strategy may not include <cuda.h>" <<<"$out" || fail "the message does not name the CUDA header: $out"
echo "layer check: clean tree passes, every planted edge fails"
