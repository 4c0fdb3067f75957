#!/usr/bin/env bash
# The whole test suite: install, build with warnings as errors, run every test in parallel (GPU tests skip
# without a GPU, and run one at a time), print the pass/fail/skip counts. Arguments go to ctest (e.g. -L gpu
# for the GPU tests only). The exhaustive compile check of every variant (label `exhaustive`) runs only when
# asked for: scripts/test.sh -L exhaustive.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh || exit 1
# The store tests also run against a throwaway PostgreSQL server (they skip, saying why, without one).
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql ||
    echo "test.sh: could not install postgresql; the PostgreSQL tests will skip" >&2
fi
# -O1: the tests exercise the host code, not its speed (kernels are compiled by NVRTC), and a fresh build on a
# 2-core CI machine takes about half as long as at -O3. scripts/tune.sh builds at -O3 again.
scripts/build.sh -DEVOTUNE_WERROR=ON -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" || exit 1
log=$(mktemp)
labels=(-LE exhaustive)
for arg in "$@"; do [ "$arg" = -L ] && labels=(); done
(cd build && ctest --output-on-failure -j"$(nproc)" "${labels[@]}" "$@") 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
total=$(grep -oE 'tests passed(, [0-9]+ tests failed)? out of [0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
failed=$(grep -oE '[0-9]+ tests failed out of' "$log" | grep -oE '^[0-9]+' || echo 0)
skipped=$(grep -cE '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' "$log" || true)
passed=$((total - failed - skipped))
rm -f "$log"
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
exit "$status"
