// libpq calls, each checked; failures become one-line Errors naming the server (never its password).
#include "store/postgres.hpp"

#include <libpq-fe.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <regex>
#include <vector>

#include "core/error.hpp"
#include "store/dialect.hpp"

namespace evotune::postgres {
namespace {

constexpr Oid kByteaOid = 17;

using dialect::sql_head;

std::string first_line(const char* message) {
  std::string text = message ? message : "";
  if (const auto end = text.find('\n'); end != std::string::npos) text.resize(end);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.pop_back();
  if (text.rfind("ERROR:  ", 0) == 0) text.erase(0, 8);
  if (text.rfind("FATAL:  ", 0) == 0) text.erase(0, 8);
  return text.empty() ? "unknown error" : text;
}

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

bool succeeded(const PGresult* result) {
  const ExecStatusType status = PQresultStatus(result);
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

std::int64_t changed_rows(const PGresult* result) {
  const char* rows = PQcmdTuples(const_cast<PGresult*>(result));
  return rows && *rows ? std::strtoll(rows, nullptr, 10) : 0;
}

class Cursor final : public sql::Cursor {
 public:
  Cursor(const Connection& connection, std::string_view sql)
      : connection_(&connection), sql_(dialect::postgres_placeholders(sql)) {
    // Parameters are counted from the SQL: libpq refuses a value the statement does not use.
    int count = 0;
    for (std::size_t at = sql_.find('$'); at != std::string::npos; at = sql_.find('$', at + 1))
      count = std::max(count, std::atoi(sql_.c_str() + at + 1));
    values_.resize(static_cast<std::size_t>(count));
    binary_.resize(static_cast<std::size_t>(count), 0);
  }

  void bind_int(int index, std::int64_t value) override { set(index, std::to_string(value), false); }
  void bind_real(int index, double value) override {
    if (std::isnan(value)) return set(index, "NaN", false);
    if (std::isinf(value)) return set(index, value > 0 ? "Infinity" : "-Infinity", false);
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    set(index, text, false);
  }
  void bind_text(int index, std::string_view text) override { set(index, std::string(text), false); }
  void bind_blob(int index, std::string_view bytes) override { set(index, std::string(bytes), true); }
  void bind_null(int index) override {
    check_index(index);
    values_[static_cast<std::size_t>(index - 1)].reset();
  }

  bool step() override {
    if (!result_) {
      std::vector<const char*> values;
      std::vector<int> lengths, formats;
      for (std::size_t i = 0; i < values_.size(); ++i) {
        values.push_back(values_[i] ? values_[i]->data() : nullptr);
        lengths.push_back(values_[i] ? static_cast<int>(values_[i]->size()) : 0);
        formats.push_back(binary_[i]);
      }
      result_.reset(PQexecParams(connection_->handle(), sql_.c_str(), static_cast<int>(values.size()),
                                 nullptr, values.data(), lengths.data(), formats.data(), 0));
      if (!result_ || !succeeded(result_.get())) {
        const std::string reason =
            first_line(result_ ? PQresultErrorMessage(result_.get()) : PQerrorMessage(connection_->handle()));
        result_.reset();
        connection_->fail(sql_head(sql_), reason);
      }
      connection_->set_changes(changed_rows(result_.get()));
      row_ = -1;
    }
    return ++row_ < PQntuples(result_.get());
  }
  void reset() override { result_.reset(); }

  bool is_null(int column) const override { return PQgetisnull(result_.get(), row_, column) == 1; }
  std::int64_t int64(int column) const override {
    const char* value = PQgetvalue(result_.get(), row_, column);
    if (value[0] == 't' || value[0] == 'f') return value[0] == 't' ? 1 : 0;  // a boolean
    return std::strtoll(value, nullptr, 10);
  }
  double real(int column) const override {
    return std::strtod(PQgetvalue(result_.get(), row_, column), nullptr);
  }
  std::string text(int column) const override {
    if (is_null(column)) return {};
    return {PQgetvalue(result_.get(), row_, column),
            static_cast<std::size_t>(PQgetlength(result_.get(), row_, column))};
  }
  std::string blob(int column) const override {
    if (is_null(column)) return {};
    if (PQftype(result_.get(), column) != kByteaOid) return text(column);
    std::size_t size = 0;
    unsigned char* bytes = PQunescapeBytea(
        reinterpret_cast<const unsigned char*>(PQgetvalue(result_.get(), row_, column)), &size);
    if (!bytes) connection_->fail("reading a blob", "out of memory");
    std::string copy(reinterpret_cast<const char*>(bytes), size);
    PQfreemem(bytes);
    return copy;
  }

 private:
  void check_index(int index) const {
    if (index < 1 || index > static_cast<int>(values_.size()))
      connection_->fail("binding parameter " + std::to_string(index) + " of " + sql_head(sql_),
                        "no such parameter");
  }
  void set(int index, std::string value, bool binary) {
    check_index(index);
    values_[static_cast<std::size_t>(index - 1)] = std::move(value);
    binary_[static_cast<std::size_t>(index - 1)] = binary ? 1 : 0;
  }

  const Connection* connection_;
  std::string sql_;
  std::vector<std::optional<std::string>> values_;
  std::vector<int> binary_;
  Result result_;
  int row_ = -1;
};

// Notices (a table that already exists, ...) are not the user's business.
void ignore_notice(void*, const char*) {}

}  // namespace

std::string redacted(std::string_view url) {
  std::string text(url);
  text = std::regex_replace(text, std::regex(R"(^(postgres(?:ql)?://[^:/@]*):[^@]*@)"), "$1:***@");
  return std::regex_replace(text, std::regex(R"(password=[^&\s]*)"), "password=***");
}

Connection::Connection(const std::string& url) : name_(redacted(url)) {
  conn_ = PQconnectdb(url.c_str());
  if (!conn_) throw Error(name_ + ": cannot connect: out of memory");
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string reason = first_line(PQerrorMessage(conn_));
    PQfinish(conn_);
    conn_ = nullptr;
    throw Error(name_ + ": cannot connect: " + reason);
  }
  PQsetNoticeProcessor(conn_, ignore_notice, nullptr);
}

Connection::~Connection() { PQfinish(conn_); }

void Connection::exec(std::string_view sql) {
  const std::string text(sql);
  const Result result(PQexec(conn_, text.c_str()));
  if (!result || !succeeded(result.get()))
    fail(sql_head(sql), first_line(result ? PQresultErrorMessage(result.get()) : PQerrorMessage(conn_)));
  changes_ = changed_rows(result.get());
}

std::unique_ptr<sql::Cursor> Connection::prepare(std::string_view sql) const {
  return std::make_unique<Cursor>(*this, sql);
}

void Connection::begin() { exec("BEGIN"); }

void Connection::commit() { exec("COMMIT"); }

void Connection::rollback() noexcept { PQclear(PQexec(conn_, "ROLLBACK")); }

void Connection::fail(std::string_view what) const { fail(what, first_line(PQerrorMessage(conn_))); }

void Connection::fail(std::string_view what, const std::string& reason) const {
  throw Error(name_ + ": " + std::string(what) + ": " + reason);
}

}  // namespace evotune::postgres
