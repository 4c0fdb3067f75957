// The SQL connection the store talks to, whatever the server: SQLite (sqlite.hpp) or PostgreSQL
// (postgres.hpp). SQL is written once with ?N parameters; what differs between the two lives in dialect.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace evotune::sql {

enum class Backend { sqlite, postgres };

// A backend's prepared statement. Parameters are 1-based, result columns 0-based.
class Cursor {
 public:
  virtual ~Cursor() = default;
  virtual void bind_int(int index, std::int64_t value) = 0;
  virtual void bind_real(int index, double value) = 0;
  virtual void bind_text(int index, std::string_view text) = 0;
  virtual void bind_blob(int index, std::string_view bytes) = 0;
  virtual void bind_null(int index) = 0;
  virtual bool step() = 0;  // true: a row is ready; false: done. Throws Error.
  virtual void reset() = 0;
  virtual bool is_null(int column) const = 0;
  virtual std::int64_t int64(int column) const = 0;
  virtual double real(int column) const = 0;
  virtual std::string text(int column) const = 0;  // NULL reads as ""
  virtual std::string blob(int column) const = 0;  // NULL reads as ""
};

// One open connection. Not shared between threads.
class Connection {
 public:
  virtual ~Connection() = default;
  virtual Backend backend() const = 0;
  virtual const std::string& name() const = 0;  // the file or the server, for messages (no password)
  virtual void exec(std::string_view sql) = 0;  // statements without results or parameters; throws Error
  virtual std::int64_t changes() const = 0;     // rows changed by the last INSERT/UPDATE/DELETE
  virtual std::unique_ptr<Cursor> prepare(std::string_view sql) const = 0;
  // A write transaction: SQLite takes the write lock at once; PostgreSQL runs it READ COMMITTED.
  virtual void begin() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  [[noreturn]] virtual void fail(std::string_view what) const = 0;  // Error "<name>: <what>: <reason>"
};

// A statement on a connection, with chainable binds.
class Statement {
 public:
  Statement(const Connection& connection, std::string_view sql) : cursor_(connection.prepare(sql)) {}

  Statement& bind_int(int index, std::int64_t value) { return cursor_->bind_int(index, value), *this; }
  Statement& bind_int(int index, const std::optional<std::int64_t>& value) {
    return value ? bind_int(index, *value) : bind_null(index);
  }
  Statement& bind_real(int index, double value) { return cursor_->bind_real(index, value), *this; }
  Statement& bind_real(int index, const std::optional<double>& value) {
    return value ? bind_real(index, *value) : bind_null(index);
  }
  Statement& bind_text(int index, std::string_view text) { return cursor_->bind_text(index, text), *this; }
  Statement& bind_blob(int index, std::string_view bytes) { return cursor_->bind_blob(index, bytes), *this; }
  Statement& bind_null(int index) { return cursor_->bind_null(index), *this; }

  bool step() { return cursor_->step(); }
  void run() {
    while (step()) {
    }
  }
  void reset() { cursor_->reset(); }

  bool is_null(int column) const { return cursor_->is_null(column); }
  std::int64_t int64(int column) const { return cursor_->int64(column); }
  double real(int column) const { return cursor_->real(column); }
  std::string text(int column) const { return cursor_->text(column); }
  std::string blob(int column) const { return cursor_->blob(column); }
  std::optional<std::int64_t> optional_int64(int column) const {
    if (is_null(column)) return std::nullopt;
    return int64(column);
  }
  std::optional<double> optional_real(int column) const {
    if (is_null(column)) return std::nullopt;
    return real(column);
  }

 private:
  std::unique_ptr<Cursor> cursor_;
};

// Rolls back on destruction unless committed.
class Transaction {
 public:
  explicit Transaction(Connection& connection) : connection_(&connection) { connection.begin(); }
  ~Transaction() {
    if (open_) connection_->rollback();
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit() {
    connection_->commit();
    open_ = false;
  }

 private:
  Connection* connection_;
  bool open_ = true;
};

}  // namespace evotune::sql
