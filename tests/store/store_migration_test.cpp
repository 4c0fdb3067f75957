// Migrations: a database of an older schema version opens, migrates in place and keeps every row.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <set>
#include <string>

#include "core/error.hpp"
#include "store/schema.hpp"
#include "store/store.hpp"
#include "store_fixture.hpp"

namespace evotune {
namespace {

using store_test::TempDir;

std::set<std::string> columns(const std::filesystem::path& file, const std::string& table) {
  sqlite::Connection db(file, SQLITE_OPEN_READWRITE);
  sqlite::Statement select(db, "SELECT name FROM pragma_table_info('" + table + "')");
  std::set<std::string> names;
  while (select.step()) names.insert(select.text(0));
  return names;
}

std::string query_text(const std::filesystem::path& file, const std::string& sql) {
  sqlite::Connection db(file, SQLITE_OPEN_READWRITE);
  sqlite::Statement statement(db, sql);
  return statement.step() ? statement.text(0) : "<no row>";
}

// A version-1 database (before the compile phase times and run compile figures) with a run and a compile.
void make_version_1(const std::filesystem::path& file) {
  sqlite::Connection db(file, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  prepare_schema(db, 1);
  db.exec(R"sql(
    INSERT INTO spaces (id, name, path, hash, json) VALUES (1, 'attention', 'a.json', 'h1', '{}');
    INSERT INTO problems (id, sizes) VALUES (1, '{"S":512}');
    INSERT INTO runs (id, space_id, problem_id, strategy, seed, budget, command, status, evaluated)
      VALUES (1, 1, 1, 'exhaustive', 7, 10, 'evotune check', 'finished', 3);
    INSERT INTO compiles (id, source_hash, arch, nvrtc_version, options, status, message, log, cubin, registers,
                          static_smem_bytes, spill_store_bytes, spill_load_bytes, stack_frame_bytes, compile_ms)
      VALUES (1, 'abc', 'sm_90', '13.0', '-lineinfo', 'ok', '', 'ptxas log', x'7f454c46', 96, 0, 0, 0, 0, 812.5);
  )sql");
}

TEST(StoreMigration, Version1GainsThePhaseAndCompileServiceColumns) {
  TempDir dir;
  const auto file = dir.file("v1.db");
  make_version_1(file);
  ASSERT_EQ(query_text(file, "PRAGMA user_version"), "1");
  EXPECT_EQ(columns(file, "compiles").count("frontend_ms"), 0u);

  Store store(file);
  EXPECT_EQ(query_text(file, "PRAGMA user_version"), std::to_string(latest_schema_version()));
  const auto compile_columns = columns(file, "compiles");
  for (const char* column : {"frontend_ms", "nvvm_ms", "ptxas_ms", "compile_ms", "cubin"})
    EXPECT_EQ(compile_columns.count(column), 1u) << column;
  const auto run_columns = columns(file, "runs");
  for (const char* column : {"compilers", "compile_count", "compile_busy_ms", "compile_idle_ms",
                             "compile_queue_wait_ms", "compile_queue_mean", "compile_queue_max", "evaluated"})
    EXPECT_EQ(run_columns.count(column), 1u) << column;

  // The old rows are as they were, with nothing measured in the new columns.
  const auto old = store.find_compile({"abc", "sm_90", "13.0", "-lineinfo"});
  ASSERT_TRUE(old);
  EXPECT_EQ(old->info.registers, 96);
  EXPECT_DOUBLE_EQ(old->info.compile_ms, 812.5);
  EXPECT_EQ(old->cubin,
            "\x7f"
            "ELF");
  EXPECT_FALSE(old->info.phases);
  const RunSummary run = store.runs(1).at(0);
  EXPECT_EQ(run.evaluated, 3);
  EXPECT_EQ(run.status, "finished");
  EXPECT_FALSE(run.compile);

  // And the new ones are written.
  CompileInfo info;
  info.phases = CompilePhases{40, 100, 90};
  store.put_compile({"def", "sm_90", "13.0", "-lineinfo"}, Status::ok, "", info, "x");
  EXPECT_DOUBLE_EQ(store.find_compile({"def", "sm_90", "13.0", "-lineinfo"})->info.phases->ptxas_ms, 90);
  CompileStats stats;
  stats.compilers = 2;
  stats.compiles = 3;
  store.save_compile_stats(run.id, stats);
  EXPECT_EQ(store.runs(1).at(0).compile->compiles, 3);
  EXPECT_EQ(query_text(file, "PRAGMA integrity_check"), "ok");
}

// A version-2 database with one measurement (a wrong_result) of the run above.
void make_version_2(const std::filesystem::path& file) {
  make_version_1(file);
  sqlite::Connection db(file, SQLITE_OPEN_READWRITE);
  prepare_schema(db, 2);
  db.exec(R"sql(
    INSERT INTO devices (id, name, arch, cc_major, cc_minor, driver_version, nvrtc_version, sm_count, l2_bytes,
                         max_smem_per_block) VALUES (1, 'H100', 'sm_90', 9, 0, 13000, '13.0', 132, 52428800, 232448);
    INSERT INTO configs (id, space_id, params) VALUES (1, 1, '{"BLOCK":64}');
    INSERT INTO measurements (id, run_id, config_id, problem_id, device_id, compile_id, status, message,
                              validation_seed, compile_ms, validate_ms, bench_ms, max_abs_err)
      VALUES (1, 1, 1, 1, 1, 1, 'wrong_result', 'max_abs 0.5', 42, 812.5, 3.5, 0, 0.5);
  )sql");
}

TEST(StoreMigration, Version2GainsTheNewStatusesAndKeepsItsMeasurements) {
  TempDir dir;
  const auto file = dir.file("v2.db");
  make_version_2(file);
  ASSERT_EQ(query_text(file, "PRAGMA user_version"), "2");
  Store store(file);
  EXPECT_EQ(query_text(file, "PRAGMA user_version"), std::to_string(latest_schema_version()));
  EXPECT_EQ(columns(file, "measurements").count("validation_rounds"), 1u);
  const auto detail = store.config_detail(1);
  ASSERT_TRUE(detail);
  ASSERT_EQ(detail->measurements.size(), 1u);
  EXPECT_EQ(detail->measurements[0].outcome.status, Status::wrong_result);
  EXPECT_EQ(detail->measurements[0].outcome.message, "max_abs 0.5");
  EXPECT_EQ(detail->measurements[0].outcome.validation_seed, 42u);
  EXPECT_EQ(detail->measurements[0].outcome.validation_rounds, 1);

  // The new statuses are stored.
  Outcome outside;
  outside.status = Status::out_of_bounds;
  outside.message = "wrote outside buffer 'out'";
  outside.validation_rounds = 2;
  const std::int64_t config = store.upsert_config(1, {{"BLOCK", 128}});
  store.record_measurement({1, config, 1, 1, std::nullopt, outside});
  const auto stored = store.config_detail(config)->measurements.at(0).outcome;
  EXPECT_EQ(stored.status, Status::out_of_bounds);
  EXPECT_EQ(stored.validation_rounds, 2);
  Outcome racy;
  racy.status = Status::nondeterministic;
  store.record_measurement({1, store.upsert_config(1, {{"BLOCK", 256}}), 1, 1, std::nullopt, racy});
  EXPECT_EQ(query_text(file, "SELECT count(*) FROM measurements"), "3");
  EXPECT_EQ(query_text(file, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(query_text(file, "PRAGMA foreign_key_check"), "<no row>");
}

TEST(StoreMigration, MigratedAndNewDatabasesHaveTheSameTables) {
  TempDir dir;
  make_version_1(dir.file("old.db"));
  { Store migrated(dir.file("old.db")); }
  { Store created(dir.file("new.db")); }
  for (const char* table : {"devices", "spaces", "problems", "configs", "compiles", "runs", "measurements"})
    EXPECT_EQ(columns(dir.file("old.db"), table), columns(dir.file("new.db"), table)) << table;
}

TEST(StoreMigration, ReadOnlyOldDatabaseIsRefusedUnchanged) {
  TempDir dir;
  const auto file = dir.file("v1.db");
  make_version_1(file);
  const std::string before = store_test::read_bytes(file);
  sqlite::Connection db(file, SQLITE_OPEN_READONLY);
  EXPECT_THROW(prepare_schema(db), Error);
  EXPECT_EQ(store_test::read_bytes(file), before);
}

}  // namespace
}  // namespace evotune
