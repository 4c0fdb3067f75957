#!/usr/bin/env bash
# A throwaway PostgreSQL server in a folder, for tests and for several evotune processes on one host:
# listens on a Unix socket in DIR only (no TCP), trusts local connections, holds one database "evotune".
#   scripts/pg_local.sh start DIR   prints the URL to pass as --db (postgresql:///evotune?host=DIR&user=evotune)
#   scripts/pg_local.sh stop DIR    stops it (the data stays in DIR/data until DIR is removed)
#   scripts/pg_local.sh url DIR
# The server's programs: $EVOTUNE_PG_BIN (a folder with initdb, pg_ctl, postgres; e.g. .debs unpacked by
# scripts/fetch_debs.sh --with-postgres-server, with their libraries found through $EVOTUNE_PG_LIB or the
# unpacked tree), else the newest /usr/lib/postgresql/*/bin, else PATH. PostgreSQL refuses to run as root:
# as root the server runs as the system user evotune-pg (made when missing).
set -euo pipefail
command=${1:?usage: scripts/pg_local.sh start|stop|url DIR}
dir=${2:?usage: scripts/pg_local.sh start|stop|url DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
url="postgresql:///evotune?host=$dir&user=evotune"

bin=${EVOTUNE_PG_BIN:-}
if [ -z "$bin" ]; then
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  [ -n "$bin" ] || bin=$(dirname "$(command -v pg_ctl 2>/dev/null || echo /nonexistent/pg_ctl)")
fi
if [ ! -x "$bin/pg_ctl" ] || [ ! -x "$bin/initdb" ]; then
  echo "pg_local: no PostgreSQL server programs (initdb, pg_ctl) in '$bin' (install postgresql, or set EVOTUNE_PG_BIN)" >&2
  exit 2
fi
# Programs unpacked from .debs find their libraries in the unpacked tree: <root>/usr/lib/postgresql/15/bin.
root=$(cd "$bin/../../../../.." && pwd)
lib=${EVOTUNE_PG_LIB:-}
[ -z "$lib" ] && [ -d "$root/usr/lib/x86_64-linux-gnu" ] && [ "$root" != / ] &&
  lib="$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu"
[ -n "$lib" ] && export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

as_owner=()
if [ "$(id -u)" = 0 ]; then
  id evotune-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin evotune-pg
  as_owner=(setpriv --reuid=evotune-pg --regid=evotune-pg --init-groups env "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}")
  chown evotune-pg: "$dir"
  if ! setpriv --reuid=evotune-pg --regid=evotune-pg --init-groups test -x "$dir"; then
    echo "pg_local: the server's user evotune-pg cannot reach $dir (a parent folder is closed to others)" >&2
    exit 2
  fi
fi
chmod 755 "$dir"

case $command in
start)
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    # A failed start leaves no half-made cluster behind.
    trap 'rm -rf "$dir/data"' ERR
    "${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U evotune --auth=trust --encoding=UTF8 --no-locale \
      >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    trap - ERR
  fi
  # fsync off: a throwaway server; the data is not worth a disk flush per commit.
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off -c jit=off -c max_connections=200" start \
    >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
  "${as_owner[@]}" "$bin/psql" -h "$dir" -U evotune -d postgres -Atq \
    -c "SELECT 1 FROM pg_database WHERE datname = 'evotune'" | grep -q 1 ||
    "${as_owner[@]}" "$bin/psql" -h "$dir" -U evotune -d postgres -q -c "CREATE DATABASE evotune" >/dev/null
  echo "$url"
  ;;
stop)
  if [ -f "$dir/data/postmaster.pid" ]; then
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  fi
  ;;
url) echo "$url" ;;
*)
  echo "usage: scripts/pg_local.sh start|stop|url DIR" >&2
  exit 2
  ;;
esac
