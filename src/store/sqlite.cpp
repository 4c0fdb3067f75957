// SQLite C API calls, each checked; failures become one-line Errors naming the database file.
#include "store/sqlite.hpp"

#include <sqlite3.h>

#include <memory>
#include <utility>

#include "core/error.hpp"
#include "store/dialect.hpp"

namespace evotune::sqlite {

using dialect::sql_head;

Connection::Connection(const std::filesystem::path& file, int flags) : file_(file.string()) {
  const int rc = sqlite3_open_v2(file_.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string reason = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw Error(file_ + ": cannot open database: " + reason);
  }
  sqlite3_extended_result_codes(db_, 1);
}

Connection::~Connection() { sqlite3_close_v2(db_); }

Connection::Connection(Connection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), file_(std::move(other.file_)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    file_ = std::move(other.file_);
  }
  return *this;
}

void Connection::set_busy_timeout(int milliseconds) {
  if (sqlite3_busy_timeout(db_, milliseconds) != SQLITE_OK) fail("cannot set busy timeout");
}

void Connection::exec(std::string_view sql) {
  const std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail(sql_head(sql));
}

std::int64_t Connection::changes() const { return sqlite3_changes64(db_); }

bool Connection::read_only() const { return sqlite3_db_readonly(db_, "main") == 1; }

int Connection::error_code() const { return sqlite3_errcode(db_) & 0xff; }

void Connection::fail(std::string_view what) const {
  throw Error(file_ + ": " + std::string(what) + ": " + sqlite3_errmsg(db_));
}

namespace {

// A prepared statement on a Connection.
class Cursor final : public sql::Cursor {
 public:
  Cursor(const Connection& connection, std::string_view sql) : connection_(&connection) {
    const int rc =
        sqlite3_prepare_v3(connection.handle(), sql.data(), static_cast<int>(sql.size()), 0, &stmt_, nullptr);
    if (rc != SQLITE_OK) connection.fail(sql_head(sql));
  }
  ~Cursor() override { sqlite3_finalize(stmt_); }
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  void bind_int(int index, std::int64_t value) override {
    check_bind(sqlite3_bind_int64(stmt_, index, value), index);
  }
  void bind_real(int index, double value) override {
    check_bind(sqlite3_bind_double(stmt_, index, value), index);
  }
  void bind_text(int index, std::string_view text) override {
    check_bind(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
               index);
  }
  void bind_blob(int index, std::string_view bytes) override {
    // A zero-length blob still binds a (non-NULL) blob: data must not be a null pointer.
    check_bind(
        sqlite3_bind_blob64(stmt_, index, bytes.empty() ? "" : bytes.data(), bytes.size(), SQLITE_TRANSIENT),
        index);
  }
  void bind_null(int index) override { check_bind(sqlite3_bind_null(stmt_, index), index); }

  bool step() override {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    const std::string head = sql_head(sqlite3_sql(stmt_));
    sqlite3_reset(stmt_);
    connection_->fail(head);
  }
  void reset() override {
    if (sqlite3_reset(stmt_) != SQLITE_OK) connection_->fail(sql_head(sqlite3_sql(stmt_)));
  }

  bool is_null(int column) const override { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  std::int64_t int64(int column) const override { return sqlite3_column_int64(stmt_, column); }
  double real(int column) const override { return sqlite3_column_double(stmt_, column); }
  std::string text(int column) const override {
    const auto* data = sqlite3_column_text(stmt_, column);
    const int size = sqlite3_column_bytes(stmt_, column);
    return data ? std::string(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size))
                : std::string();
  }
  std::string blob(int column) const override {
    const void* data = sqlite3_column_blob(stmt_, column);
    const int size = sqlite3_column_bytes(stmt_, column);
    return data ? std::string(static_cast<const char*>(data), static_cast<std::size_t>(size)) : std::string();
  }

 private:
  void check_bind(int rc, int index) const {
    if (rc != SQLITE_OK)
      connection_->fail("binding parameter " + std::to_string(index) + " of " + sql_head(sqlite3_sql(stmt_)));
  }

  const Connection* connection_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace

std::unique_ptr<sql::Cursor> Connection::prepare(std::string_view sql) const {
  return std::make_unique<Cursor>(*this, sql);
}

void Connection::begin() { exec("BEGIN IMMEDIATE"); }

void Connection::commit() { exec("COMMIT"); }

// Rolling back a transaction SQLite already rolled back (after some errors) fails harmlessly.
void Connection::rollback() noexcept { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

}  // namespace evotune::sqlite
