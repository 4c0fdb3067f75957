#!/usr/bin/env bash
# The main job: install, build, then tune the attention kernel on this machine's GPU into results/evotune.db.
# With no GPU it says so and checks (compiles) every variant instead. Arguments go to `evotune tune`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
space=search_spaces/flash_attn_fwd.json
if build/evotune devices | grep -q '^0:'; then
  build/evotune tune "$space" "$@"
  build/evotune best "$space" --top 10
else
  build/evotune devices
  echo "tune.sh: no GPU here, so no tuning: compiling every variant instead (evotune check)"
  build/evotune check "$space" --arch sm_90
fi
