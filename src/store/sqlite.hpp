// Thin RAII over the SQLite C API: connection, statement, transaction; every return code is checked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace evotune::sqlite {

// One open database handle. Movable, not copyable; closed on destruction.
class Connection {
 public:
  // flags: SQLITE_OPEN_* bits. Throws Error "<file>: cannot open database: <reason>".
  Connection(const std::filesystem::path& file, int flags);
  ~Connection();
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* handle() const { return db_; }
  const std::string& file() const { return file_; }  // as given, for messages
  void set_busy_timeout(int milliseconds);
  void exec(std::string_view sql);  // statements without results; throws Error
  std::int64_t changes() const;     // rows changed by the last INSERT/UPDATE/DELETE
  bool read_only() const;           // the file could only be opened for reading
  int error_code() const;           // primary result code (SQLITE_BUSY, ...) of the last failed call

  // Throws Error "<file>: <what>: <sqlite3_errmsg>".
  [[noreturn]] void fail(std::string_view what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string file_;
};

// A prepared statement. Parameters are 1-based, result columns 0-based, as in SQLite.
class Statement {
 public:
  Statement(const Connection& connection, std::string_view sql);  // throws Error
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind_int(int index, std::int64_t value);
  Statement& bind_int(int index, const std::optional<std::int64_t>& value);  // nullopt binds NULL
  Statement& bind_real(int index, double value);
  Statement& bind_real(int index, const std::optional<double>& value);
  Statement& bind_text(int index, std::string_view text);
  Statement& bind_blob(int index, std::string_view bytes);  // any bytes, zeros included
  Statement& bind_null(int index);

  bool step();   // true: a row is ready; false: done. Throws Error.
  void run();    // steps to completion (statements that return no rows)
  void reset();  // ready to step again with the same bindings

  bool is_null(int column) const;
  std::int64_t int64(int column) const;
  double real(int column) const;
  std::string text(int column) const;  // NULL reads as ""
  std::string blob(int column) const;  // NULL reads as ""
  std::optional<std::int64_t> optional_int64(int column) const;
  std::optional<double> optional_real(int column) const;

 private:
  void check_bind(int rc, int index) const;

  const Connection* connection_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE: takes the write lock at once (waiting up to the busy timeout), so a transaction never has
// to upgrade a read lock, which SQLite refuses without waiting. Rolls back on destruction unless committed.
class Transaction {
 public:
  explicit Transaction(Connection& connection);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit();

 private:
  Connection* connection_;
  bool open_ = true;
};

}  // namespace evotune::sqlite
