#!/usr/bin/env bash
# The GPU tests alone (on a machine with a GPU): builds, then runs the tests labelled gpu.
#   scripts/gpu_tests.sh                                 every GPU test through ctest (-L gpu), one GPU
#   scripts/gpu_tests.sh --gpus 0,1,2,3 [--filter F] ... installs and builds, then scripts/gpu_shards.py: the
#                                                        gtest cases in one shard a GPU (N with --per-gpu N),
#                                                        all at once, then the Python GPU tests; its other
#                                                        options pass through
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != --gpus ]; then
  exec scripts/test.sh -L gpu "$@"
fi
scripts/install_deps.sh
scripts/build.sh
exec "${PYTHON:-python3}" scripts/gpu_shards.py "$@"
