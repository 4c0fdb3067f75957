#!/usr/bin/env bash
# Runs SQL on an SQLite database and prints the rows (columns joined by |): with the sqlite3 shell when
# there is one, else with Python's sqlite3 module (the GPU machine has no sqlite3 shell).
# Usage: scripts/sqlite_query.sh DB SQL
set -euo pipefail
if command -v sqlite3 >/dev/null; then
  exec sqlite3 "$1" "$2"
fi
exec python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
sql = sys.argv[2]
if sql.lstrip().upper().startswith(("SELECT", "PRAGMA")):
    for row in db.execute(sql):
        print("|".join("" if v is None else str(v) for v in row))
else:
    db.executescript(sql)
    db.commit()
' "$1" "$2"
