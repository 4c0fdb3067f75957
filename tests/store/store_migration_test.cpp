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
namespace store_migration_test {

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

// A version-7 database: a run that stored its timing settings with two measurements (one ok, one failed), and
// a replayed run (no timing settings) with one ok measurement.
void make_version_7(const std::filesystem::path& file) {
  make_version_2(file);
  sqlite::Connection db(file, SQLITE_OPEN_READWRITE);
  prepare_schema(db, 7);
  db.exec(R"sql(
    INSERT INTO runs (id, space_id, problem_id, device_id, strategy, seed, budget, command, status, timing)
      VALUES (2, 1, 1, 1, 'random', 7, 10, 'evotune tune', 'finished',
              '{"warmup":3,"repetitions":30,"flush_l2":false,"timeout_ms":10000.0,"reset_in_process":false,"validation_rounds":2}');
    INSERT INTO runs (id, space_id, problem_id, device_id, strategy, seed, budget, command, status)
      VALUES (3, 1, 1, 1, 'random', 7, 10, 'evotune tune --replay sweep.json', 'finished');
    INSERT INTO configs (id, space_id, params) VALUES (2, 1, '{"BLOCK":128}'), (3, 1, '{"BLOCK":256}'),
                                                      (4, 1, '{"BLOCK":512}');
    INSERT INTO measurements (run_id, config_id, problem_id, device_id, status, message, time_median_us,
                              time_min_us, time_mean_us, time_stddev_us, time_p20_us, time_p80_us, samples,
                              validation_seed, compile_ms, validate_ms, bench_ms)
      VALUES (2, 2, 1, 1, 'ok', '', 12.5, 12, 12.6, 0.2, 12.3, 12.8, 30, 1, 0, 0, 0),
             (3, 4, 1, 1, 'ok', '', 14.5, 14, 14.6, 0.2, 14.3, 14.8, 30, 1, 0, 0, 0);
    INSERT INTO measurements (run_id, config_id, problem_id, device_id, status, message, validation_seed,
                              compile_ms, validate_ms, bench_ms)
      VALUES (2, 3, 1, 1, 'timeout', 'too slow', 1, 0, 0, 0);
  )sql");
}

TEST(StoreMigration, Version7MeasurementsLearnTheirTimingModeWhereTheirRunSaidIt) {
  TempDir dir;
  const auto file = dir.file("v7.db");
  make_version_7(file);
  ASSERT_EQ(query_text(file, "PRAGMA user_version"), "7");
  Store store(file);
  EXPECT_EQ(query_text(file, "PRAGMA user_version"), std::to_string(latest_schema_version()));
  for (const char* column : {"timing_mode", "graph_executions", "flush_l2", "timing_note"})
    EXPECT_EQ(columns(file, "measurements").count(column), 1u) << column;
  // The timed run's ok row: single launches, unflushed as its run said; its failure and the replay's row:
  // unknown.
  const auto timed = store.config_detail(2)->measurements.at(0).outcome.timing;
  ASSERT_TRUE(timed);
  EXPECT_EQ(timed->median_us, 12.5);
  EXPECT_EQ(timed->method, (TimingMethod{false, 0, false}));
  EXPECT_FALSE(store.config_detail(3)->measurements.at(0).outcome.timing);
  const auto replayed = store.config_detail(4)->measurements.at(0).outcome.timing;
  ASSERT_TRUE(replayed);
  EXPECT_FALSE(replayed->method);
  EXPECT_EQ(query_text(file, "SELECT count(*) FROM measurements WHERE timing_mode IS NOT NULL"), "1");

  // New rows keep their method.
  Outcome graph;
  graph.timing = TimingStats{2.5, 2.4, 2.5, 0.1, 2.45, 2.55, 30, TimingMethod{true, 20, true}};
  store.record_measurement({2, store.upsert_config(1, {{"BLOCK", 1024}}), 1, 1, std::nullopt, graph});
  EXPECT_EQ(query_text(file,
                       "SELECT timing_mode || ' ' || graph_executions || ' ' || flush_l2 FROM measurements "
                       "WHERE time_median_us = 2.5"),
            "graph 20 1");
  EXPECT_EQ(query_text(file, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(query_text(file, "PRAGMA foreign_key_check"), "<no row>");
}

TEST(StoreMigration, Version8GainsTheRerankTableAndKeepsItsRanking) {
  TempDir dir;
  const auto file = dir.file("v8.db");
  make_version_7(file);
  {
    sqlite::Connection db(file, SQLITE_OPEN_READWRITE);
    prepare_schema(db, 8);
  }
  ASSERT_EQ(query_text(file, "SELECT count(*) FROM sqlite_master WHERE name = 'reranks'"), "0");
  Store store(file);
  EXPECT_EQ(query_text(file, "PRAGMA user_version"), std::to_string(latest_schema_version()));
  EXPECT_EQ(columns(file, "reranks").count("round_medians_us"), 1u);
  // Without a rerank, best ranks as before: by the measurement's median.
  const auto before = store.best({.space_id = 1, .problem_id = 1, .device_id = 1});
  ASSERT_EQ(before.size(), 2u);
  EXPECT_EQ(before[0].config_id, 2);
  EXPECT_FALSE(before[0].remeasured);
  // A rerank of both that finds config 4 faster puts it first.
  RerankRecord faster{4, {}};
  faster.remeasured = {1, 12.0, 11.9, 12.1, {11.9, 12.0, 12.1}, std::nullopt};
  RerankRecord slower{2, {}};
  slower.remeasured = {2, 12.5, 12.4, 12.6, {12.4, 12.5, 12.6}, std::nullopt};
  store.save_rerank(2, 1, 1, {faster, slower});
  EXPECT_EQ(store.best({.space_id = 1, .problem_id = 1, .device_id = 1}).at(0).config_id, 4);
  EXPECT_EQ(query_text(file, "PRAGMA foreign_key_check"), "<no row>");
}

TEST(StoreMigration, MigratedAndNewDatabasesHaveTheSameTables) {
  TempDir dir;
  make_version_1(dir.file("old.db"));
  { Store migrated(dir.file("old.db")); }
  { Store created(dir.file("new.db")); }
  for (const char* table : {"devices", "spaces", "problems", "configs", "compiles", "runs", "measurements",
                            "sanitizer_findings", "reranks"})
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

}  // namespace store_migration_test
}  // namespace evotune
