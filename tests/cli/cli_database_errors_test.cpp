// A results database that is corrupt, from a newer evotune or out of reach is refused by every command with
// one line naming the cause, and left exactly as it was.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <random>

#include "cli/cli_error_fixture.hpp"
#include "store/schema.hpp"
#include "store/sqlite.hpp"

namespace evotune {
namespace cli_database_errors_test {

using store_test::read_bytes;
using store_test::write_bytes;

class CliErrorsDatabase : public test::CliErrorTest {
 protected:
  // The commands that read a database (runs, show, best, export, report) and tune, given `db`: each must fail
  // naming `cause`, changing no file.
  void expect_every_command_refuses(const std::filesystem::path& db, const std::string& cause) const {
    const std::string with_db = " --db " + db.string();
    expect_refused("runs" + with_db, cause);
    expect_refused("show 1" + with_db, cause);
    expect_refused("best " + test::kSaxpy + with_db, cause);
    expect_refused("best " + test::kSaxpy + with_db + " --json --failed", cause);
    expect_refused("export " + test::kSaxpy + with_db + " -o " + (dir_ / "out.cu").string(), cause);
    expect_refused("report " + test::kSaxpy + with_db + " -o " + (dir_ / "report.html").string(), cause);
    expect_tune_refused(test::kSaxpy + with_db, cause);
  }
};

// The baseline for the refusals below: the same commands on a sound database succeed and only read it.
TEST_F(CliErrorsDatabase, SoundDatabaseIsReadByEveryCommandAndLeftAsItIs) {
  const auto db = make_results_db();
  const std::string before = read_bytes(db);
  const std::string with_db = " --db " + db.string();
  for (const std::string& arguments :
       {"runs" + with_db, "show 1" + with_db, "best " + test::kSaxpy + with_db,
        "export " + test::kSaxpy + with_db + " -o " + (dir_ / "out.cu").string(),
        "report " + test::kSaxpy + with_db + " -o " + (dir_ / "report.html").string()}) {
    const auto result = test::run_evotune(arguments);
    EXPECT_EQ(result.exit_code, 0) << arguments << ": " << result.err;
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out.cu"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "report.html"));
  EXPECT_EQ(read_bytes(db), before);
}

TEST_F(CliErrorsDatabase, CorruptFile) {
  const auto db = dir_ / "corrupt.db";
  std::string garbage;
  std::mt19937_64 random(7);
  for (int i = 0; i < 8192; ++i) garbage += static_cast<char>(random() & 0xff);
  write_bytes(db, garbage);
  expect_every_command_refuses(db, "corrupt.db: not a SQLite database");
}

TEST_F(CliErrorsDatabase, DamagedSchemaPage) {
  const auto db = make_results_db("damaged.db");
  std::string bytes = read_bytes(db);
  ASSERT_GT(bytes.size(), 300u);
  for (std::size_t i = 100; i < 300; ++i) bytes[i] = static_cast<char>(0xa5);  // page 1: the schema table
  write_bytes(db, bytes);
  expect_every_command_refuses(db, "damaged");
}

TEST_F(CliErrorsDatabase, NewerSchema) {
  const auto db = make_results_db("newer.db");
  const int newer = latest_schema_version() + 1;
  {
    sqlite::Connection connection(db, SQLITE_OPEN_READWRITE);
    connection.exec("PRAGMA user_version = " + std::to_string(newer));
  }
  expect_every_command_refuses(
      db, "schema version " + std::to_string(newer) + " is newer than this evotune supports");
}

TEST_F(CliErrorsDatabase, AnotherProgramsSqliteDatabase) {
  const auto db = dir_ / "contacts.db";
  {
    sqlite::Connection connection(db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    connection.exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ada')");
  }
  expect_every_command_refuses(db, "not an evotune results database");
}

// No folder can be made there, whoever runs the test (root included): the parent is a regular file.
TEST_F(CliErrorsDatabase, PathUnderARegularFile) {
  write_bytes(dir_ / "plain-file", "not a folder\n");
  const auto db = dir_ / "plain-file" / "evotune.db";
  expect_every_command_refuses(db, db.string());
}

TEST_F(CliErrorsDatabase, FolderInsteadOfAFile) {
  const auto db = dir_ / "a-folder.db";
  std::filesystem::create_directories(db);
  expect_every_command_refuses(db, "is a folder");
}

// Reading a write-protected database is fine; tuning into it is refused.
TEST_F(CliErrorsDatabase, WriteProtectedFileIsReadButNotTunedInto) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root, which permission bits do not stop";
  const auto db = make_results_db("protected.db");
  std::filesystem::permissions(db, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                       std::filesystem::perms::others_read);
  const auto best = test::run_evotune("best " + test::kSaxpy + " --db " + db.string());
  EXPECT_EQ(best.exit_code, 0) << best.err;
  expect_tune_refused(test::kSaxpy + " --db " + db.string(), "not writable");
}

}  // namespace cli_database_errors_test
}  // namespace evotune
