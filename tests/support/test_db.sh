# The database a test script runs against, on either backend, sourced by the scripts that run on both:
#   backend=sqlite|postgres root=REPOSITORY; source "$root/tests/support/test_db.sh"
# It makes $work (a temporary folder, removed at exit with the server it may have started), $db (a SQLite
# file in it, or a throwaway PostgreSQL server's URL) and `sql QUERY` (rows as a|b|c, on either backend).
# Exits 77 (skipped) for postgres where no PostgreSQL server can be started.
work=$(mktemp -d)
chmod 755 "$work"  # the server runs as evotune-pg when the test runs as root
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
test_db_cleanup() {
  [ "$backend" = postgres ] && "$root/scripts/pg_local.sh" stop "$work/pg" >/dev/null 2>&1
  rm -rf "$work"
}
trap test_db_cleanup EXIT
if [ "$backend" = postgres ]; then
  if ! db=$("$root/scripts/pg_local.sh" start "$work/pg" 2>"$work/pg.log"); then
    echo "SKIPPED: no PostgreSQL server: $(tail -n 1 "$work/pg.log")"
    exit 77
  fi
  sql() { "${EVOTUNE_PG_BIN:-$pg_bin}/psql" "$db" -Atq -F '|' -c "$1"; }
else
  db=$work/shared.db
  sql() { "$root/scripts/sqlite_query.sh" "$db" "$1"; }
fi
