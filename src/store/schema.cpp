// The schema's versions and the open-time checks; a new version appends a migration, never edits one.
#include "store/schema.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <thread>

#include "core/error.hpp"

namespace evotune {
namespace {

constexpr int kBusyTimeoutMs = 10'000;
// "evtu": marks a file as evotune's, so a foreign SQLite database is refused rather than extended.
constexpr std::int64_t kApplicationId = 0x65767475;

#define EVOTUNE_NOW "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
#define EVOTUNE_STATUSES \
  "('ok', 'compile_error', 'resource_error', 'launch_error', 'timeout', 'wrong_result', 'nan')"

// kMigrations[i] takes the schema from version i to version i + 1.
// Version 3's list: the evaluator's out-of-bounds and nondeterminism checks.
#define EVOTUNE_STATUSES_V3                                                                      \
  "('ok', 'compile_error', 'resource_error', 'launch_error', 'timeout', 'wrong_result', 'nan', " \
  "'out_of_bounds', 'nondeterministic')"

constexpr std::array<const char*, 10> kMigrations{{
    R"sql(
CREATE TABLE devices (
  id                 INTEGER PRIMARY KEY,
  name               TEXT    NOT NULL,
  arch               TEXT    NOT NULL,
  cc_major           INTEGER NOT NULL,
  cc_minor           INTEGER NOT NULL,
  driver_version     INTEGER NOT NULL,
  nvrtc_version      TEXT    NOT NULL,
  sm_count           INTEGER NOT NULL,
  l2_bytes           INTEGER NOT NULL,
  max_smem_per_block INTEGER NOT NULL,
  created_at         TEXT    NOT NULL DEFAULT )sql" EVOTUNE_NOW R"sql(,
  UNIQUE (name, arch, driver_version, nvrtc_version)
);
CREATE TABLE spaces (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  path       TEXT NOT NULL,
  hash       TEXT NOT NULL UNIQUE,
  json       TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT )sql" EVOTUNE_NOW R"sql(
);
CREATE INDEX spaces_by_name ON spaces (name);
CREATE TABLE problems (
  id    INTEGER PRIMARY KEY,
  sizes TEXT NOT NULL UNIQUE
);
CREATE TABLE configs (
  id       INTEGER PRIMARY KEY,
  space_id INTEGER NOT NULL REFERENCES spaces (id),
  params   TEXT    NOT NULL,
  UNIQUE (space_id, params)
);
CREATE TABLE compiles (
  id                INTEGER PRIMARY KEY,
  source_hash       TEXT    NOT NULL,
  arch              TEXT    NOT NULL,
  nvrtc_version     TEXT    NOT NULL,
  options           TEXT    NOT NULL,
  status            TEXT    NOT NULL CHECK (status IN )sql" EVOTUNE_STATUSES R"sql(),
  message           TEXT    NOT NULL,
  log               TEXT    NOT NULL,
  cubin             BLOB,
  registers         INTEGER NOT NULL,
  static_smem_bytes INTEGER NOT NULL,
  spill_store_bytes INTEGER NOT NULL,
  spill_load_bytes  INTEGER NOT NULL,
  stack_frame_bytes INTEGER NOT NULL,
  compile_ms        REAL    NOT NULL,
  created_at        TEXT    NOT NULL DEFAULT )sql" EVOTUNE_NOW R"sql(,
  UNIQUE (source_hash, arch, nvrtc_version, options)
);
CREATE TABLE runs (
  id          INTEGER PRIMARY KEY,
  space_id    INTEGER NOT NULL REFERENCES spaces (id),
  problem_id  INTEGER NOT NULL REFERENCES problems (id),
  device_id   INTEGER REFERENCES devices (id),
  strategy    TEXT    NOT NULL,
  seed        INTEGER NOT NULL,
  budget      INTEGER NOT NULL,
  command     TEXT    NOT NULL,
  started_at  TEXT    NOT NULL DEFAULT )sql" EVOTUNE_NOW R"sql(,
  finished_at TEXT,
  status      TEXT    NOT NULL DEFAULT 'running'
              CHECK (status IN ('running', 'finished', 'interrupted', 'failed')),
  evaluated   INTEGER NOT NULL DEFAULT 0,
  failed      INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE measurements (
  id                INTEGER PRIMARY KEY,
  run_id            INTEGER NOT NULL REFERENCES runs (id),
  config_id         INTEGER NOT NULL REFERENCES configs (id),
  problem_id        INTEGER NOT NULL REFERENCES problems (id),
  device_id         INTEGER NOT NULL REFERENCES devices (id),
  compile_id        INTEGER REFERENCES compiles (id),
  status            TEXT    NOT NULL CHECK (status IN )sql" EVOTUNE_STATUSES R"sql(),
  message           TEXT    NOT NULL,
  time_median_us    REAL,
  time_min_us       REAL,
  time_mean_us      REAL,
  time_stddev_us    REAL,
  time_p20_us       REAL,
  time_p80_us       REAL,
  samples           INTEGER,
  max_abs_err       REAL,
  rel_l2_err        REAL,
  non_finite        INTEGER,
  compared_elements INTEGER,
  validation_seed   INTEGER NOT NULL,
  tflops            REAL,
  gbps              REAL,
  compile_ms        REAL    NOT NULL,
  validate_ms       REAL    NOT NULL,
  bench_ms          REAL    NOT NULL,
  created_at        TEXT    NOT NULL DEFAULT )sql" EVOTUNE_NOW R"sql(,
  UNIQUE (config_id, problem_id, device_id),
  CHECK (status <> 'ok' OR time_median_us IS NOT NULL)
);
CREATE INDEX measurements_by_problem ON measurements (problem_id, device_id, status, time_median_us);
CREATE INDEX measurements_by_run ON measurements (run_id);
CREATE INDEX measurements_by_compile ON measurements (compile_id);
)sql",
    // 2: where compile time goes. NVRTC's per-phase times of each compile, and each run's compile service
    // figures; NULL where they were not measured (older rows).
    R"sql(
ALTER TABLE compiles ADD COLUMN frontend_ms REAL;
ALTER TABLE compiles ADD COLUMN nvvm_ms REAL;
ALTER TABLE compiles ADD COLUMN ptxas_ms REAL;
ALTER TABLE runs ADD COLUMN compilers INTEGER;
ALTER TABLE runs ADD COLUMN compile_count INTEGER;
ALTER TABLE runs ADD COLUMN compile_busy_ms REAL;
ALTER TABLE runs ADD COLUMN compile_idle_ms REAL;
ALTER TABLE runs ADD COLUMN compile_queue_wait_ms REAL;
ALTER TABLE runs ADD COLUMN compile_queue_mean REAL;
ALTER TABLE runs ADD COLUMN compile_queue_max INTEGER;
)sql",
    // 3: the statuses out_of_bounds and nondeterministic, and how many validation rounds a variant passed;
    // how long a run's GPU workers waited for work.
    // SQLite cannot change a CHECK, so measurements (which no table references) is copied into a new table.
    R"sql(
CREATE TABLE measurements_v3 (
  id                INTEGER PRIMARY KEY,
  run_id            INTEGER NOT NULL REFERENCES runs (id),
  config_id         INTEGER NOT NULL REFERENCES configs (id),
  problem_id        INTEGER NOT NULL REFERENCES problems (id),
  device_id         INTEGER NOT NULL REFERENCES devices (id),
  compile_id        INTEGER REFERENCES compiles (id),
  status            TEXT    NOT NULL CHECK (status IN )sql" EVOTUNE_STATUSES_V3 R"sql(),
  message           TEXT    NOT NULL,
  time_median_us    REAL,
  time_min_us       REAL,
  time_mean_us      REAL,
  time_stddev_us    REAL,
  time_p20_us       REAL,
  time_p80_us       REAL,
  samples           INTEGER,
  max_abs_err       REAL,
  rel_l2_err        REAL,
  non_finite        INTEGER,
  compared_elements INTEGER,
  validation_seed   INTEGER NOT NULL,
  tflops            REAL,
  gbps              REAL,
  compile_ms        REAL    NOT NULL,
  validate_ms       REAL    NOT NULL,
  bench_ms          REAL    NOT NULL,
  created_at        TEXT    NOT NULL DEFAULT )sql" EVOTUNE_NOW R"sql(,
  validation_rounds INTEGER NOT NULL DEFAULT 1,
  UNIQUE (config_id, problem_id, device_id),
  CHECK (status <> 'ok' OR time_median_us IS NOT NULL)
);
INSERT INTO measurements_v3 SELECT *, 1 FROM measurements;
DROP TABLE measurements;
ALTER TABLE measurements_v3 RENAME TO measurements;
CREATE INDEX measurements_by_problem ON measurements (problem_id, device_id, status, time_median_us);
CREATE INDEX measurements_by_run ON measurements (run_id);
CREATE INDEX measurements_by_compile ON measurements (compile_id);
ALTER TABLE runs ADD COLUMN workers INTEGER;
ALTER TABLE runs ADD COLUMN worker_idle_ms REAL;
)sql",
    // 4: what compute-sanitizer found in a config (`evotune sanitize`, `tune --sanitize-top`).
    R"sql(
CREATE TABLE sanitizer_findings (
  id          INTEGER PRIMARY KEY,
  config_id   INTEGER NOT NULL REFERENCES configs (id),
  problem_id  INTEGER NOT NULL REFERENCES problems (id),
  device      TEXT    NOT NULL,
  tool        TEXT    NOT NULL CHECK (tool IN ('memcheck', 'racecheck', 'synccheck', 'initcheck')),
  verdict     TEXT    NOT NULL CHECK (verdict IN ('clean', 'findings', 'failed')),
  errors      INTEGER NOT NULL,
  warnings    INTEGER NOT NULL,
  summary     TEXT    NOT NULL,
  report      TEXT    NOT NULL,
  eval_status TEXT    NOT NULL,
  seconds     REAL    NOT NULL,
  created_at  TEXT    NOT NULL DEFAULT )sql" EVOTUNE_NOW R"sql(
);
CREATE INDEX sanitizer_findings_by_config ON sanitizer_findings (config_id, problem_id);
)sql",
    // 5: the reference kernel's time in each run (the report's reference line).
    R"sql(
ALTER TABLE runs ADD COLUMN reference_ms REAL;
)sql",
    // 6: the state of the run's GPUs (NVML) when it started and when it ended: JSON arrays, one per GPU.
    R"sql(
ALTER TABLE runs ADD COLUMN gpu_state_start TEXT;
ALTER TABLE runs ADD COLUMN gpu_state_end TEXT;
)sql",
    // 7: how the run's variants were timed (warm-up, repetitions, L2 flush, validation rounds), as JSON.
    R"sql(
ALTER TABLE runs ADD COLUMN timing TEXT;
)sql",
    // 8: how each measurement was timed: single launches or a CUDA graph of graph_executions executions per
    // replay, the L2 flushed or not, and why a graph fell back to single launches (timing_note). Older ok
    // rows timed single launches, flushed as their run's timing says; NULL where the run did not say (its
    // rows came before version 7, or from a replayed sweep).
    R"sql(
ALTER TABLE measurements ADD COLUMN timing_mode TEXT CHECK (timing_mode IN ('single', 'graph'));
ALTER TABLE measurements ADD COLUMN graph_executions INTEGER;
ALTER TABLE measurements ADD COLUMN flush_l2 INTEGER;
ALTER TABLE measurements ADD COLUMN timing_note TEXT;
UPDATE measurements
SET timing_mode = 'single', graph_executions = 0,
    flush_l2 = (SELECT coalesce(json_extract(r.timing, '$.flush_l2'), 1) FROM runs r WHERE r.id = run_id)
WHERE time_median_us IS NOT NULL AND (SELECT r.timing FROM runs r WHERE r.id = run_id) IS NOT NULL;
)sql",
    // 9: the fastest configs re-timed after a search (tune --rerank), in rounds that time each of them once
    // in a rotating order: per config its place in the final order, the median of its rounds' medians, the
    // fastest and slowest round, every round's median, and how the rounds were timed.
    R"sql(
CREATE TABLE reranks (
  id               INTEGER PRIMARY KEY,
  run_id           INTEGER NOT NULL REFERENCES runs (id),
  config_id        INTEGER NOT NULL REFERENCES configs (id),
  problem_id       INTEGER NOT NULL REFERENCES problems (id),
  device_id        INTEGER NOT NULL REFERENCES devices (id),
  position         INTEGER NOT NULL,
  rounds           INTEGER NOT NULL,
  median_us        REAL    NOT NULL,
  min_us           REAL    NOT NULL,
  max_us           REAL    NOT NULL,
  round_medians_us TEXT    NOT NULL,
  timing_mode      TEXT    CHECK (timing_mode IN ('single', 'graph')),
  graph_executions INTEGER,
  flush_l2         INTEGER,
  timing_note      TEXT,
  created_at       TEXT    NOT NULL DEFAULT )sql" EVOTUNE_NOW R"sql(
);
CREATE INDEX reranks_by_config ON reranks (config_id, problem_id, device_id);
)sql",
    // 10: the energy of one execution (NVML's energy counter around a loop of executions at least a window
    // long), the loop's average power, its length and its executions; NULL where energy was not measured.
    R"sql(
ALTER TABLE measurements ADD COLUMN energy_uj REAL;
ALTER TABLE measurements ADD COLUMN energy_power_w REAL;
ALTER TABLE measurements ADD COLUMN energy_window_ms REAL;
ALTER TABLE measurements ADD COLUMN energy_executions INTEGER;
)sql",
}};

#undef EVOTUNE_NOW
#undef EVOTUNE_STATUSES
#undef EVOTUNE_STATUSES_V3

std::int64_t pragma_int(const sqlite::Connection& db, const char* sql) {
  sqlite::Statement statement(db, sql);
  if (!statement.step()) db.fail(std::string("no result from ") + sql);
  return statement.int64(0);
}

std::string unsupported(const sqlite::Connection& db, std::int64_t version) {
  return db.file() + ": schema version " + std::to_string(version) +
         " is newer than this evotune supports (" + std::to_string(latest_schema_version()) + ")";
}

// Switching a new file to WAL needs an exclusive lock, and SQLite answers SQLITE_BUSY at once, without its
// busy handler, when another connection is doing the same: retry for as long as the busy timeout.
void enable_wal(sqlite::Connection& db) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (const Error&) {
      const int code = db.error_code();
      if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || std::chrono::steady_clock::now() > deadline)
        throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

int latest_schema_version() { return static_cast<int>(kMigrations.size()); }

void prepare_schema(sqlite::Connection& db) { prepare_schema(db, latest_schema_version()); }

void prepare_schema(sqlite::Connection& db, int target_version) {
  target_version = std::min(target_version, latest_schema_version());
  db.set_busy_timeout(kBusyTimeoutMs);
  // The first read of the file: a file that is not a database fails here, before anything is written.
  // Tables are counted before user_version is read: a migration commits both at once, so this order cannot
  // see another process's new tables with the old version.
  std::int64_t tables = 0;
  try {
    tables = pragma_int(db, "SELECT count(*) FROM sqlite_master");
  } catch (const Error&) {
    const int code = db.error_code();
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) db.fail("not a SQLite database, or a damaged one");
    throw;
  }
  const std::int64_t version = pragma_int(db, "PRAGMA user_version");
  const std::int64_t application = pragma_int(db, "PRAGMA application_id");
  if (version > latest_schema_version()) throw Error(unsupported(db, version));
  if ((application != 0 && application != kApplicationId) || (version == 0 && tables > 0))
    throw Error(db.file() + ": a SQLite database of another program, not an evotune results database");

  if (db.read_only()) {
    if (version < target_version)
      throw Error(db.file() + ": read-only, and its schema (version " + std::to_string(version) +
                  ") needs an upgrade to version " + std::to_string(target_version));
    db.exec("PRAGMA foreign_keys = ON");
    return;
  }
  // WAL lets readers and one writer share the file across processes; NORMAL sync is durable enough in WAL.
  enable_wal(db);
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  if (version >= target_version) return;

  sqlite::Transaction transaction(db);
  // Another process may have migrated between the read above and taking the write lock.
  const std::int64_t current = pragma_int(db, "PRAGMA user_version");
  if (current > latest_schema_version()) throw Error(unsupported(db, current));
  if (current >= target_version) return;
  for (std::int64_t next = current; next < target_version; ++next) db.exec(kMigrations[next]);
  db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  db.exec("PRAGMA user_version = " + std::to_string(target_version));
  transaction.commit();
}

}  // namespace evotune
