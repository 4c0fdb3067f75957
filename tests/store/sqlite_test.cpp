// The SQLite wrapper: bindings round-trip, errors name the file, transactions roll back unless committed.
#include "store/sqlite.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "core/error.hpp"
#include "store_fixture.hpp"

namespace evotune {
namespace sqlite_test {

using store_test::TempDir;

class SqliteTest : public ::testing::Test {
 protected:
  SqliteTest() : db(dir.file("plain.db"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) {
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB)");
  }
  std::int64_t count() {
    sqlite::Statement select(db, "SELECT count(*) FROM t");
    select.step();
    return select.int64(0);
  }
  TempDir dir;
  sqlite::Connection db;
};

TEST_F(SqliteTest, ValuesRoundTripIncludingBlobsWithZeroBytes) {
  const std::string bytes(
      "\x7f"
      "ELF\0\0\x01\0tail",
      12);
  sqlite::Statement insert(db, "INSERT INTO t (i, r, s, b) VALUES (?1, ?2, ?3, ?4)");
  insert.bind_int(1, -(std::int64_t{1} << 62)).bind_real(2, 0.125).bind_text(3, "text").bind_blob(4, bytes);
  insert.run();
  sqlite::Statement select(db, "SELECT i, r, s, b FROM t");
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.int64(0), -(std::int64_t{1} << 62));
  EXPECT_DOUBLE_EQ(select.real(1), 0.125);
  EXPECT_EQ(select.text(2), "text");
  EXPECT_EQ(select.blob(3), bytes);
  EXPECT_EQ(select.blob(3).size(), 12u);
  EXPECT_FALSE(select.step());
}

TEST_F(SqliteTest, OptionalsBindNullAndReadBack) {
  sqlite::Statement insert(db, "INSERT INTO t (i, r) VALUES (?1, ?2)");
  insert.bind_int(1, std::optional<std::int64_t>{}).bind_real(2, std::optional<double>{2.5});
  insert.run();
  sqlite::Statement select(db, "SELECT i, r, s FROM t");
  ASSERT_TRUE(select.step());
  EXPECT_TRUE(select.is_null(0));
  EXPECT_EQ(select.optional_int64(0), std::nullopt);
  EXPECT_EQ(select.optional_real(1), 2.5);
  EXPECT_EQ(select.text(2), "");
}

TEST_F(SqliteTest, ErrorsAreOneLineNamingTheFile) {
  try {
    sqlite::Statement bad(db, "SELECT x FROM\n  missing_table");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(dir.file("plain.db").string()), std::string::npos) << message;
    EXPECT_NE(message.find("no such table: missing_table"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST_F(SqliteTest, ConstraintViolationThrowsFromStep) {
  db.exec("CREATE TABLE u (k TEXT NOT NULL UNIQUE)");
  db.exec("INSERT INTO u VALUES ('a')");
  sqlite::Statement insert(db, "INSERT INTO u VALUES ('a')");
  EXPECT_THROW(insert.step(), Error);
}

TEST_F(SqliteTest, TransactionRollsBackUnlessCommitted) {
  {
    sqlite::Transaction transaction(db);
    db.exec("INSERT INTO t (i) VALUES (1)");
  }
  EXPECT_EQ(count(), 0);
  {
    sqlite::Transaction transaction(db);
    db.exec("INSERT INTO t (i) VALUES (1)");
    db.exec("INSERT INTO t (i) VALUES (2)");
    transaction.commit();
  }
  EXPECT_EQ(count(), 2);
}

TEST_F(SqliteTest, MovedConnectionKeepsWorking) {
  sqlite::Connection moved = std::move(db);
  moved.exec("INSERT INTO t (i) VALUES (5)");
  sqlite::Statement select(moved, "SELECT i FROM t");
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.int64(0), 5);
  EXPECT_EQ(moved.changes(), 1);
}

}  // namespace sqlite_test
}  // namespace evotune
