// A PostgreSQL database out of reach, refusing the user, of another schema version or of another program is
// refused by every command with one line naming the cause (never the password), and nothing is written to it.
// Runs where the ctest fixture `postgres` started a server (EVOTUNE_TEST_PG_DIR); skips elsewhere.
#include <gtest/gtest.h>

#include "cli/cli_error_fixture.hpp"
#include "store/postgres.hpp"
#include "store/schema.hpp"

namespace evotune {
namespace cli_postgres_errors_test {

class PostgresStore : public test::CliErrorTest {
 protected:
  void SetUp() override {
    test::CliErrorTest::SetUp();
    if (!database.skip_reason().empty()) GTEST_SKIP() << database.skip_reason();
    if (!database.postgres())
      GTEST_SKIP() << "EVOTUNE_TEST_PG_DIR names no PostgreSQL server (ctest -R postgres.)";
  }

  std::int64_t count(const std::string& query) const {
    const postgres::Connection connection(database.location());
    sql::Statement select(connection, query);
    return select.step() ? select.int64(0) : -1;
  }
  // Every reading command and tune refuse `url` naming `cause`.
  void expect_every_command_refuses(const std::string& url, const std::string& cause) const {
    const std::string with_db = " --db '" + url + "'";
    expect_refused("runs" + with_db, cause);
    expect_refused("best " + test::kSaxpy + with_db, cause);
    expect_refused("show 1" + with_db, cause);
    expect_tune_refused(test::kSaxpy + with_db, cause);
  }

  store_test::TempDir scratch;
  store_test::TestDatabase database{scratch};
};

TEST_F(PostgresStore, UnreachableServer) {
  expect_every_command_refuses("postgresql:///evotune?host=/nonexistent-evotune-socket-dir",
                               "cannot connect");
}

TEST_F(PostgresStore, UnknownUserIsRefusedWithoutPrintingThePassword) {
  const std::string url =
      "postgresql://nobody_here:s3cret-word@/evotune?host=" + std::string(std::getenv("EVOTUNE_TEST_PG_DIR"));
  expect_every_command_refuses(url, "cannot connect");
  const auto result = test::run_evotune("runs --db '" + url + "'");
  EXPECT_EQ(result.err.find("s3cret-word"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("nobody_here:***@"), std::string::npos) << result.err;
}

TEST_F(PostgresStore, NewerSchemaVersionIsRefusedAndLeftAsItIs) {
  { Store store(database.location()); }
  const int newer = latest_schema_version() + 1;
  postgres::Connection(database.location())
      .exec("UPDATE evotune_schema SET version = " + std::to_string(newer));
  expect_every_command_refuses(database.location(), "schema version " + std::to_string(newer) +
                                                        " is newer than this evotune supports");
  EXPECT_EQ(count("SELECT version FROM evotune_schema"), newer);
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 0);
}

TEST_F(PostgresStore, AnotherProgramsDatabaseGetsNoTables) {
  postgres::Connection(database.location()).exec("CREATE TABLE contacts (name TEXT)");
  expect_every_command_refuses(database.location(), "not an evotune results database");
  EXPECT_EQ(count("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), 1);
}

TEST_F(PostgresStore, AnEmptyDatabaseIsMigratedOnceAndReadBack) {
  {
    Store store(database.location());
    store.upsert_problem({{"N", 1}});
  }
  const auto runs = test::run_evotune("runs --db '" + database.location() + "'");
  EXPECT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_EQ(count("SELECT version FROM evotune_schema"), latest_schema_version());
}

}  // namespace cli_postgres_errors_test
}  // namespace evotune
