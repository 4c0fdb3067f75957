#!/usr/bin/env bash
# Configures and builds evotune into build/ (Release). Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
prefix=()
[ -d build/deps/usr ] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/build/deps/usr" -DCMAKE_INCLUDE_PATH="$PWD/build/deps/usr/include")
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${prefix[@]}" "$@" >/dev/null
cmake --build build --parallel "$(nproc)"
