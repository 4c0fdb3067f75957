#!/usr/bin/env bash
# Installs what evotune builds with: Debian/Ubuntu packages through apt, or, on a machine with no package
# registry, the same packages unpacked from .deb files in $EVOTUNE_DEB_DIR (see scripts/fetch_debs.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ nlohmann-json3-dev libspdlog-dev libcli11-dev libsqlite3-dev libmuparser-dev
          libgtest-dev libxml2-utils libpq-dev)
# Only for the tests that render `evotune report` in a browser (they skip without them; the golden screenshot
# was taken with DejaVu fonts), the scripts' tests (numpy for the Kernel Tuner driver's) and the formatting
# check in scripts/test.sh: installed when apt-get can, never required. Chromium is about 120 MB to download.
optional=(chromium fonts-dejavu-core python3 python3-numpy clang-format)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all packages present"
elif [ -n "${EVOTUNE_DEB_DIR:-}" ]; then
  # Offline: unpack the carried .debs into build/deps; CMake looks there (CMAKE_PREFIX_PATH in build.sh).
  mkdir -p build/deps
  for deb in "$EVOTUNE_DEB_DIR"/*.deb; do dpkg -x "$deb" build/deps; done
  echo "install_deps: unpacked $(ls "$EVOTUNE_DEB_DIR"/*.deb | wc -l) packages from $EVOTUNE_DEB_DIR into build/deps"
elif command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "install_deps: installing ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
else
  echo "install_deps: missing packages: ${missing[*]} (run as root with apt-get, or set EVOTUNE_DEB_DIR)" >&2
  exit 1
fi

optional_missing=()
for p in "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || optional_missing+=("$p")
done
if [ ${#optional_missing[@]} -gt 0 ] && [ -z "${EVOTUNE_DEB_DIR:-}" ] && command -v apt-get >/dev/null &&
  [ "$(id -u)" = 0 ]; then
  echo "install_deps: installing optional ${optional_missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${optional_missing[@]}" ||
    echo "install_deps: could not install ${optional_missing[*]}; the browser tests or the format check will skip" >&2
fi

if [ ! -d "${CUDA_HOME:-/usr/local/cuda}/include" ] || ! command -v "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" >/dev/null; then
  echo "install_deps: the CUDA toolkit was not found at ${CUDA_HOME:-/usr/local/cuda} (set CUDA_HOME)" >&2
  exit 1
fi
