// Opening the results database: schema creation, reopening, refusals that leave the file as it was, sharing.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <set>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "store/schema.hpp"
#include "store/store.hpp"
#include "store_fixture.hpp"

namespace evotune {
namespace store_open_test {

using store_test::read_bytes;
using store_test::TempDir;
using store_test::test_device;
using store_test::write_bytes;

// The first row's first column of `sql` on the database `file`, "" without a row.
std::string first_text_or_empty(const std::filesystem::path& file, const std::string& sql) {
  sqlite::Connection db(file, SQLITE_OPEN_READWRITE);
  sqlite::Statement statement(db, sql);
  return statement.step() ? statement.text(0) : "";
}

// Runs `open` and returns the Error's message ("" when nothing was thrown).
template <typename Open>
std::string open_error(Open open) {
  try {
    open();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(StoreOpen, CreatesTheSchemaAndItsFolder) {
  TempDir dir;
  const auto file = dir.file("results/sub/evotune.db");
  {
    Store store(file);
    EXPECT_EQ(store.path(), file);
  }
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_EQ(first_text_or_empty(file, "PRAGMA user_version"), std::to_string(latest_schema_version()));
  EXPECT_EQ(first_text_or_empty(file, "PRAGMA journal_mode"), "wal");
  std::set<std::string> tables;
  sqlite::Connection db(file, SQLITE_OPEN_READWRITE);
  sqlite::Statement select(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
  while (select.step()) tables.insert(select.text(0));
  EXPECT_EQ(tables, (std::set<std::string>{"devices", "spaces", "problems", "configs", "compiles", "runs",
                                           "measurements", "sanitizer_findings", "reranks", "claims"}));
}

TEST(StoreOpen, ForeignKeysAreEnforced) {
  TempDir dir;
  Store store(dir.file("evotune.db"));
  EXPECT_THROW(store.upsert_config(12345, {{"BLOCK_M", 64}}), Error);
}

TEST(StoreOpen, ReopenKeepsDataAndIntegrity) {
  TempDir dir;
  const auto file = dir.file("evotune.db");
  std::int64_t space_id = 0;
  {
    Store store(file);
    space_id = store.upsert_space("attention", "a.json", "h1", R"({"x":1})");
    store.upsert_config(space_id, {{"BLOCK_M", 64}});
  }
  Store again(file);
  EXPECT_EQ(again.find_space("h1"), space_id);
  Store reader = Store::open_existing(file);
  EXPECT_EQ(reader.find_space("h1"), space_id);
  EXPECT_EQ(first_text_or_empty(file, "SELECT count(*) FROM configs"), "1");
  EXPECT_EQ(first_text_or_empty(file, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(first_text_or_empty(file, "PRAGMA foreign_key_check"), "");
}

TEST(StoreOpen, MovedStoreKeepsWorking) {
  TempDir dir;
  Store first(dir.file("evotune.db"));
  Store second = std::move(first);
  const auto id = second.upsert_problem({{"S", 128}});
  EXPECT_EQ(second.find_problem({{"S", 128}}), id);
}

TEST(StoreOpen, NewerSchemaIsRefusedAndLeftAsItIs) {
  TempDir dir;
  const auto file = dir.file("x.db");
  { Store store(file); }
  const int newer = latest_schema_version() + 1;
  {
    sqlite::Connection db(file, SQLITE_OPEN_READWRITE);
    db.exec("PRAGMA user_version = " + std::to_string(newer));
  }
  const std::string before = read_bytes(file);
  const std::string message = open_error([&] { Store store(file); });
  EXPECT_EQ(message, file.string() + ": schema version " + std::to_string(newer) +
                         " is newer than this evotune supports (" + std::to_string(latest_schema_version()) +
                         ")");
  EXPECT_NE(open_error([&] { Store::open_existing(file); }), "");
  EXPECT_EQ(read_bytes(file), before);
}

TEST(StoreOpen, CorruptFileIsRefusedAndLeftUntouched) {
  TempDir dir;
  const auto file = dir.file("corrupt.db");
  std::string garbage;
  std::mt19937_64 random(1);
  for (int i = 0; i < 8192; ++i) garbage += static_cast<char>(random() & 0xff);
  write_bytes(file, garbage);
  const std::string message = open_error([&] { Store store(file); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("not a"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(read_bytes(file), garbage);
  EXPECT_FALSE(std::filesystem::exists(dir.file("corrupt.db-wal")));
}

TEST(StoreOpen, DamagedDatabaseIsRefusedAndLeftUntouched) {
  TempDir dir;
  const auto file = dir.file("damaged.db");
  { Store store(file); }
  std::string bytes = read_bytes(file);
  ASSERT_GT(bytes.size(), 300u);
  for (std::size_t i = 100; i < 300; ++i) bytes[i] = static_cast<char>(0xa5);  // page 1: the schema table
  write_bytes(file, bytes);
  const std::string message = open_error([&] { Store store(file); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("damaged"), std::string::npos) << message;
  EXPECT_EQ(read_bytes(file), bytes);
}

TEST(StoreOpen, TextFileIsRefusedAndLeftUntouched) {
  TempDir dir;
  const auto file = dir.file("notes.db");
  const std::string text = "these are my notes, not a database\n";
  write_bytes(file, text);
  EXPECT_NE(open_error([&] { Store::open_existing(file); }).find(file.string()), std::string::npos);
  EXPECT_EQ(read_bytes(file), text);
}

TEST(StoreOpen, ForeignSqliteDatabaseIsRefusedAndLeftUntouched) {
  TempDir dir;
  const auto file = dir.file("other.db");
  {
    sqlite::Connection db(file, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    db.exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ada')");
  }
  const std::string before = read_bytes(file);
  const std::string message = open_error([&] { Store store(file); });
  EXPECT_NE(message.find("not an evotune results database"), std::string::npos) << message;
  EXPECT_EQ(read_bytes(file), before);
}

TEST(StoreOpen, EmptyFileBecomesADatabase) {
  TempDir dir;
  const auto file = dir.file("empty.db");
  write_bytes(file, "");
  Store store(file);
  EXPECT_GT(store.upsert_problem({{"S", 1}}), 0);
}

TEST(StoreOpen, UnwritablePathsAreOneLineErrors) {
  TempDir dir;
  write_bytes(dir.file("plain-file"), "x");
  const auto under_file = dir.file("plain-file") / "evotune.db";
  std::string message = open_error([&] { Store store(under_file); });
  EXPECT_NE(message.find(under_file.string()), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;

  message = open_error([&] { Store store(dir.path()); });
  EXPECT_NE(message.find("is a folder"), std::string::npos) << message;

  message = open_error([] { Store store("/proc/evotune-cannot-write-here.db"); });
  EXPECT_NE(message.find("/proc/evotune-cannot-write-here.db"), std::string::npos) << message;
}

TEST(StoreOpen, OpenExistingNeedsTheFile) {
  TempDir dir;
  const auto file = dir.file("missing.db");
  const std::string message = open_error([&] { Store::open_existing(file); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST(StoreOpen, TwoStoresWriteConcurrently) {
  TempDir dir;
  const auto file = dir.file("shared.db");
  constexpr int kPerThread = 150;
  auto work = [&](const std::string& device_name, std::string* error) {
    try {
      Store store(file);
      const auto space = store.upsert_space("attention", "a.json", "h", "{}");
      const auto problem = store.upsert_problem({{"S", 512}});
      const auto device = store.upsert_device(test_device(device_name), "12.8");
      const auto run = store.begin_run({space, problem, device, "random", 1, kPerThread, "test"});
      for (int i = 0; i < kPerThread; ++i) {
        const auto config = store.upsert_config(space, {{"BLOCK_M", i}});
        store.record_measurement(
            {run, config, problem, device, std::nullopt, store_test::ok_outcome(1.0 + i), 1, 1});
      }
      store.finish_run(run, "finished", kPerThread, 0);
    } catch (const std::exception& e) {
      *error = e.what();
    }
  };
  std::string error_a, error_b;
  std::thread a(work, "GPU A", &error_a);
  std::thread b(work, "GPU B", &error_b);
  a.join();
  b.join();
  EXPECT_EQ(error_a, "");
  EXPECT_EQ(error_b, "");
  Store store = Store::open_existing(file);
  const auto space = *store.find_space("h");
  const auto problem = *store.find_problem({{"S", 512}});
  EXPECT_EQ(store.count_measurements(space, problem, std::nullopt), 2 * kPerThread);
  EXPECT_EQ(first_text_or_empty(file, "SELECT count(*) FROM configs"), std::to_string(kPerThread));
  EXPECT_EQ(first_text_or_empty(file, "SELECT sum(evaluated) FROM runs WHERE status = 'finished'"),
            std::to_string(2 * kPerThread));
  EXPECT_EQ(first_text_or_empty(file, "PRAGMA integrity_check"), "ok");
}

}  // namespace store_open_test
}  // namespace evotune
