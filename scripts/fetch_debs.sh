#!/usr/bin/env bash
# Downloads the .deb files install_deps.sh needs into a folder, for a machine with no package registry.
# Usage: scripts/fetch_debs.sh [--with-postgres-server] DIR
# libpq (PostgreSQL's client) comes with the libraries it loads that an Ubuntu 24.04 GPU machine may lack
# (libldap-2.5-0, Kerberos, TLS): unpacked into build/deps, the binary finds them through its RPATH.
# --with-postgres-server adds PostgreSQL 15's server and psql, for a throwaway server run from the unpacked
# tree (scripts/pg_local.sh with EVOTUNE_PG_BIN=build/deps/usr/lib/postgresql/15/bin).
set -euo pipefail
server=0
if [ "${1:-}" = --with-postgres-server ]; then
  server=1
  shift
fi
dir=${1:?usage: scripts/fetch_debs.sh [--with-postgres-server] DIR}
mkdir -p "$dir"
cd "$dir"
packages=(libsqlite3-dev libmuparser-dev libmuparser2v5 libgtest-dev libxml2-utils
          libpq-dev libpq5 libldap-2.5-0 libsasl2-2 libsasl2-modules-db libgssapi-krb5-2 libkrb5-3 libk5crypto3
          libkrb5support0 libkeyutils1 libcom-err2 libssl3 libgnutls30 libhogweed6 libnettle8 libp11-kit0
          libtasn1-6 libidn2-0 libunistring2 libffi8 libgmp10)
if [ $server = 1 ]; then
  packages+=(postgresql-15 postgresql-client-15 libicu72 libxml2 libreadline8)
fi
apt-get download "${packages[@]}"
ls -1 "$PWD"
