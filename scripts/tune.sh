#!/usr/bin/env bash
# The main job: install, build, then tune the attention kernel on this machine's GPU into results/evotune.db.
# The space is the fastest measured for the GPU (H100, 2026-11-23, scripts/compare_torch.py attention): the
# wgmma template on sm_90 (Hopper), the mma.sync template elsewhere; EVOTUNE_SPACE names another. With no GPU
# it says so and checks (compiles) every variant instead. Arguments go to `evotune tune`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG"  # (scripts/test.sh builds at -O1)
devices=$(build/evotune devices)
if grep -q '^0: .*(sm_90)' <<<"$devices"; then
  space=${EVOTUNE_SPACE:-search_spaces/flash_attn_fwd_wgmma.json}
else
  space=${EVOTUNE_SPACE:-search_spaces/flash_attn_fwd_mma.json}
fi
if grep -q '^0:' <<<"$devices"; then
  build/evotune tune "$space" "$@"
  build/evotune best "$space" --top 10
else
  echo "$devices"
  echo "tune.sh: no GPU here, so no tuning: compiling every variant of $space instead (evotune check)"
  build/evotune check "$space" --arch sm_90
fi
