// Opening a results database on either backend: the open-time checks, then the pending migrations.
#include "store/schema.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "store/migrations.hpp"
#include "store/postgres.hpp"
#include "store/store.hpp"

namespace evotune {
namespace {

constexpr int kBusyTimeoutMs = 10'000;
// "evtu": marks a file as evotune's, so a foreign SQLite database is refused rather than extended.
constexpr std::int64_t kApplicationId = 0x65767475;

std::int64_t pragma_int(const sqlite::Connection& db, const char* sql) {
  sqlite::Statement statement(db, sql);
  if (!statement.step()) db.fail(std::string("no result from ") + sql);
  return statement.int64(0);
}

std::string unsupported(const sqlite::Connection& db, std::int64_t version) {
  return db.file() + ": schema version " + std::to_string(version) +
         " is newer than this evotune supports (" + std::to_string(latest_schema_version()) + ")";
}

// Switching a new file to WAL needs an exclusive lock, and SQLite answers SQLITE_BUSY at once, without its
// busy handler, when another connection is doing the same: retry for as long as the busy timeout.
void enable_wal(sqlite::Connection& db) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (const Error&) {
      const int code = db.error_code();
      if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || std::chrono::steady_clock::now() > deadline)
        throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

int latest_schema_version() { return migration_count(); }

void prepare_schema(sqlite::Connection& db) { prepare_schema(db, latest_schema_version()); }

void prepare_schema(sqlite::Connection& db, int target_version) {
  target_version = std::min(target_version, latest_schema_version());
  db.set_busy_timeout(kBusyTimeoutMs);
  // The first read of the file: a file that is not a database fails here, before anything is written.
  // Tables are counted before user_version is read: a migration commits both at once, so this order cannot
  // see another process's new tables with the old version.
  std::int64_t tables = 0;
  try {
    tables = pragma_int(db, "SELECT count(*) FROM sqlite_master");
  } catch (const Error&) {
    const int code = db.error_code();
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) db.fail("not a SQLite database, or a damaged one");
    throw;
  }
  const std::int64_t version = pragma_int(db, "PRAGMA user_version");
  const std::int64_t application = pragma_int(db, "PRAGMA application_id");
  if (version > latest_schema_version()) throw Error(unsupported(db, version));
  if ((application != 0 && application != kApplicationId) || (version == 0 && tables > 0))
    throw Error(db.file() + ": a SQLite database of another program, not an evotune results database");

  if (db.read_only()) {
    if (version < target_version)
      throw Error(db.file() + ": read-only, and its schema (version " + std::to_string(version) +
                  ") needs an upgrade to version " + std::to_string(target_version));
    db.exec("PRAGMA foreign_keys = ON");
    return;
  }
  // WAL lets readers and one writer share the file across processes; NORMAL sync is durable enough in WAL.
  enable_wal(db);
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  if (version >= target_version) return;

  sqlite::Transaction transaction(db);
  // Another process may have migrated between the read above and taking the write lock.
  const std::int64_t current = pragma_int(db, "PRAGMA user_version");
  if (current > latest_schema_version()) throw Error(unsupported(db, current));
  if (current >= target_version) return;
  for (std::int64_t next = current; next < target_version; ++next)
    db.exec(migration(sql::Backend::sqlite, static_cast<int>(next)));
  db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  db.exec("PRAGMA user_version = " + std::to_string(target_version));
  transaction.commit();
}

namespace {

// Any constant will do: it only has to be the same in every evotune process.
constexpr std::int64_t kMigrationLock = 0x65767475;

std::int64_t single_int(const sql::Connection& db, const std::string& query) {
  sql::Statement select(db, query);
  if (!select.step()) db.fail("no result from " + query);
  return select.int64(0);
}

// The schema version is a one-row table; SQLite's PRAGMA user_version has no PostgreSQL twin.
void prepare_postgres(postgres::Connection& db, bool create, int target_version) {
  sql::Transaction transaction(db);
  // Processes that open a new database together wait here, and only the first one migrates.
  db.exec("SELECT pg_advisory_xact_lock(" + std::to_string(kMigrationLock) + ")");
  const bool marked = single_int(db, "SELECT to_regclass('evotune_schema') IS NOT NULL") != 0;
  const std::int64_t tables =
      single_int(db, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()");
  const std::int64_t version = marked ? single_int(db, "SELECT max(version) FROM evotune_schema") : 0;
  if (version > latest_schema_version())
    throw Error(db.name() + ": schema version " + std::to_string(version) +
                " is newer than this evotune supports (" + std::to_string(latest_schema_version()) + ")");
  if (!marked && tables > 0)
    throw Error(db.name() + ": a PostgreSQL database of another program, not an evotune results database");
  if (!marked && !create)
    throw Error(db.name() + ": no evotune results in this database (nothing tuned into it yet?)");
  if (version >= target_version) return;
  for (std::int64_t next = version; next < target_version; ++next)
    db.exec(migration(sql::Backend::postgres, static_cast<int>(next)));
  if (!marked)
    db.exec("CREATE TABLE evotune_schema (version BIGINT NOT NULL); INSERT INTO evotune_schema VALUES (0)");
  db.exec("UPDATE evotune_schema SET version = " + std::to_string(target_version));
  transaction.commit();
}

// Creates the parent folder when missing; the file itself is created by SQLite.
void make_parent(const std::filesystem::path& db_file) {
  const std::filesystem::path parent = db_file.parent_path();
  if (parent.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error)
    throw Error(db_file.string() + ": cannot create folder " + parent.string() + ": " + error.message());
}

std::unique_ptr<sqlite::Connection> open_sqlite(const std::filesystem::path& db_file, bool create) {
  std::error_code unreadable;  // treated as missing; SQLite then reports the real reason
  if (std::filesystem::is_directory(db_file, unreadable))
    throw Error(db_file.string() + ": is a folder, not a results database");
  if (create) {
    make_parent(db_file);
  } else if (!std::filesystem::exists(db_file, unreadable)) {
    throw Error(db_file.string() + ": no results database there (nothing tuned into it yet?)");
  }
  auto db = std::make_unique<sqlite::Connection>(db_file,
                                                 SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0));
  if (create && db->read_only()) throw Error(db_file.string() + ": the results database is not writable");
  return db;
}

}  // namespace

bool is_server_url(std::string_view location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

std::unique_ptr<sql::Connection> open_database(const std::string& location, bool create, int target_version) {
  if (is_server_url(location)) {
    auto db = std::make_unique<postgres::Connection>(location);
    prepare_postgres(*db, create, std::min(target_version, latest_schema_version()));
    return db;
  }
  auto db = open_sqlite(location, create);
  prepare_schema(*db, target_version);
  return db;
}

}  // namespace evotune
