// The PostgreSQL backend of sql.hpp, over libpq: one connection, statements run with bound parameters
// (?N written as $N), results read as text (bytea unescaped); every call checked.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "store/sql.hpp"

struct pg_conn;

namespace evotune::postgres {

class Connection final : public sql::Connection {
 public:
  // url: postgresql://[user[:password]@][host][:port]/dbname[?param=value...] (libpq's). Throws Error
  // "<url without password>: cannot connect: <reason>".
  explicit Connection(const std::string& url);
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  pg_conn* handle() const { return conn_; }
  sql::Backend backend() const override { return sql::Backend::postgres; }
  const std::string& name() const override { return name_; }
  void exec(std::string_view sql) override;
  std::int64_t changes() const override { return changes_; }
  std::unique_ptr<sql::Cursor> prepare(std::string_view sql) const override;
  void begin() override;
  void commit() override;
  void rollback() noexcept override;
  [[noreturn]] void fail(std::string_view what) const override;
  [[noreturn]] void fail(std::string_view what, const std::string& reason) const;

  void set_changes(std::int64_t rows) const { changes_ = rows; }

 private:
  pg_conn* conn_ = nullptr;
  std::string name_;
  mutable std::int64_t changes_ = 0;
};

// The URL with its password (user:password@, password=...) replaced by ***: for messages and logs.
std::string redacted(std::string_view url);

}  // namespace evotune::postgres
