// Everything the store's SQL says differently on SQLite and PostgreSQL, in one place: placeholders, column
// types and identity keys, timestamps, JSON fields. The store writes SQLite's spelling and asks here for
// the rest.
#pragma once

#include <string>
#include <string_view>

#include "store/sql.hpp"

namespace evotune::dialect {

// The current UTC time as text, 2026-11-25T22:35:00.123Z, by the server's clock (not the statement's
// start: a heartbeat in a long transaction still moves).
std::string now(sql::Backend backend);
// Seconds from one such timestamp column to another, as a double.
std::string seconds_between(sql::Backend backend, std::string_view earlier, std::string_view later);
// Whether timestamp column `at` is older than `seconds` (an SQL expression) before now.
std::string older_than(sql::Backend backend, std::string_view at, std::string_view seconds);

// A LIMIT's count from an integer parameter where -1 means no limit: SQLite reads -1 so, PostgreSQL needs
// NULL (and SQLite refuses NULL).
std::string limit(sql::Backend backend, std::string_view parameter);

// A schema migration written for SQLite, as `backend` reads it: on PostgreSQL INTEGER PRIMARY KEY becomes a
// BIGINT identity, INTEGER BIGINT, REAL DOUBLE PRECISION, BLOB BYTEA, SQLite's clock and JSON functions
// PostgreSQL's.
std::string ddl(sql::Backend backend, std::string_view sqlite_sql);

// ?N parameters as PostgreSQL's $N (outside quoted text).
std::string postgres_placeholders(std::string_view sql);

// The statement's first words (about 48 characters, white space folded), for messages: enough to tell which
// query failed.
std::string sql_head(std::string_view sql);

}  // namespace evotune::dialect
