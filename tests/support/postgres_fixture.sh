#!/usr/bin/env bash
# The ctest fixture `postgres`: a throwaway PostgreSQL server (scripts/pg_local.sh) for the tests that run
# against both backends. Where none can be started, DIR/unavailable says why, and those tests skip with
# that reason rather than fail.
# Usage: tests/support/postgres_fixture.sh start|stop DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
command=$1
dir=$2
case $command in
start)
  scripts/pg_local.sh stop "$dir" >/dev/null 2>&1
  rm -rf "$dir"
  mkdir -p "$dir"
  if ! out=$(scripts/pg_local.sh start "$dir" 2>&1); then
    echo "${out##*$'\n'}" >"$dir/unavailable"
    echo "postgres fixture: no server, the PostgreSQL tests will skip: $(cat "$dir/unavailable")"
    exit 0
  fi
  echo "postgres fixture: server at $out"
  ;;
stop)
  scripts/pg_local.sh stop "$dir"
  rm -rf "$dir"
  ;;
esac
