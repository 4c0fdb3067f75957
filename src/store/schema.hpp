// The results database's schema: its versions, the migrations between them, and the checks made at open.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "store/sqlite.hpp"

namespace evotune {

// The schema version this build writes (PRAGMA user_version on SQLite, evotune_schema on PostgreSQL).
int latest_schema_version();

// Opens `location` and readies it: a postgresql:// or postgres:// URL is a PostgreSQL database (which must
// exist on the server), anything else a SQLite file (create: made with its folder when missing; otherwise
// Error when missing). Then every pending migration, up to `target_version`, in one transaction. Nothing is
// written before the database is known to be evotune's (or empty) with a schema version this build knows;
// otherwise throws Error, one line naming the file or the server (never its password).
std::unique_ptr<sql::Connection> open_database(const std::string& location, bool create,
                                               int target_version = latest_schema_version());

// Readies an open SQLite connection: busy timeout, WAL, foreign keys, then every pending migration in one
// transaction. A read-only connection is accepted when no migration is needed.
void prepare_schema(sqlite::Connection& db);
// The same, migrating only up to `target_version` (at most the latest): how tests make a database of an
// older version to migrate.
void prepare_schema(sqlite::Connection& db, int target_version);

}  // namespace evotune
