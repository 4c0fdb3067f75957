#!/usr/bin/env bash
# Downloads the .deb files install_deps.sh needs into a folder, for a machine with no package registry.
# Usage: scripts/fetch_debs.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/fetch_debs.sh DIR}
mkdir -p "$dir"
cd "$dir"
apt-get download libsqlite3-dev libmuparser-dev libmuparser2v5 libgtest-dev libxml2-utils
ls -1 "$PWD"
