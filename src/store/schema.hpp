// The results database's schema: its versions, the migrations between them, and the checks made at open.
#pragma once

#include "store/sqlite.hpp"

namespace evotune {

// The schema version this build writes (PRAGMA user_version).
int latest_schema_version();

// Readies an open connection: busy timeout, WAL, foreign keys, then every pending migration in one
// transaction. Nothing is written before the file is known to be a SQLite database of evotune's (or empty)
// with a schema version this build knows; otherwise throws Error naming the file. A read-only connection is
// accepted when no migration is needed.
void prepare_schema(sqlite::Connection& db);
// The same, migrating only up to `target_version` (at most the latest): how tests make a database of an
// older version to migrate.
void prepare_schema(sqlite::Connection& db, int target_version);

}  // namespace evotune
