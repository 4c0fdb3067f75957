// The SQLite backend of sql.hpp: thin RAII over the SQLite C API; every return code is checked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "store/sql.hpp"

struct sqlite3;

namespace evotune::sqlite {

// One open database handle. Movable, not copyable; closed on destruction.
class Connection final : public sql::Connection {
 public:
  // flags: SQLITE_OPEN_* bits. Throws Error "<file>: cannot open database: <reason>".
  Connection(const std::filesystem::path& file, int flags);
  ~Connection() override;
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* handle() const { return db_; }
  sql::Backend backend() const override { return sql::Backend::sqlite; }
  const std::string& name() const override { return file_; }
  const std::string& file() const { return file_; }  // as given, for messages
  void set_busy_timeout(int milliseconds);
  void exec(std::string_view sql) override;  // statements without results; throws Error
  std::int64_t changes() const override;     // rows changed by the last INSERT/UPDATE/DELETE
  std::unique_ptr<sql::Cursor> prepare(std::string_view sql) const override;
  // BEGIN IMMEDIATE: takes the write lock at once (waiting up to the busy timeout), so a transaction never
  // has to upgrade a read lock, which SQLite refuses without waiting.
  void begin() override;
  void commit() override;
  void rollback() noexcept override;
  bool read_only() const;  // the file could only be opened for reading
  int error_code() const;  // primary result code (SQLITE_BUSY, ...) of the last failed call

  // Throws Error "<file>: <what>: <sqlite3_errmsg>".
  [[noreturn]] void fail(std::string_view what) const override;

 private:
  sqlite3* db_ = nullptr;
  std::string file_;
};

using Statement = sql::Statement;
using Transaction = sql::Transaction;

}  // namespace evotune::sqlite
