// The schema's migrations, written once in SQLite's spelling and read by each backend through
// dialect::ddl; a new version appends a migration, never edits one.
#include "store/migrations.hpp"

#include <array>

#include "store/dialect.hpp"

namespace evotune {
namespace {

#define EVOTUNE_NOW "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
#define EVOTUNE_STATUSES \
  "('ok', 'compile_error', 'resource_error', 'launch_error', 'timeout', 'wrong_result', 'nan')"

// kMigrations[i] takes the schema from version i to version i + 1.
// Version 3's list: the evaluator's out-of-bounds and nondeterminism checks.
#define EVOTUNE_STATUSES_V3                                                                      \
  "('ok', 'compile_error', 'resource_error', 'launch_error', 'timeout', 'wrong_result', 'nan', " \
  "'out_of_bounds', 'nondeterministic')"

constexpr std::array<const char*, 12> kMigrations{{
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
    // 10: several processes or hosts on one database. Which host and process a run is, and when it last said
    // it is alive (its heartbeat, by the database's clock); the configs a run is evaluating (claims), so
    // others skip them while it lives and take them over once its heartbeat is older than the lease.
    // attempts counts the runs that claimed the config: one that keeps killing its runs is given up.
    R"sql(
ALTER TABLE runs ADD COLUMN host TEXT;
ALTER TABLE runs ADD COLUMN pid INTEGER;
ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;
CREATE TABLE claims (
  config_id  INTEGER NOT NULL REFERENCES configs (id),
  problem_id INTEGER NOT NULL REFERENCES problems (id),
  device_id  INTEGER NOT NULL REFERENCES devices (id),
  run_id     INTEGER NOT NULL REFERENCES runs (id),
  claimed_at TEXT    NOT NULL,
  attempts   INTEGER NOT NULL,
  PRIMARY KEY (config_id, problem_id, device_id)
);
CREATE INDEX claims_by_run ON claims (run_id);
)sql",
    // 11: the energy of one execution (NVML's energy counter watched during a loop of executions at least a
    // window long), the loop's average power, its length and its executions; NULL where energy was not
    // measured.
    R"sql(
ALTER TABLE measurements ADD COLUMN energy_uj REAL;
ALTER TABLE measurements ADD COLUMN energy_power_w REAL;
ALTER TABLE measurements ADD COLUMN energy_window_ms REAL;
ALTER TABLE measurements ADD COLUMN energy_executions INTEGER;
)sql",
    // 12: the space's library baseline as the run's first worker timed it (JSON of core's BaselineTiming:
    // library, the heuristic's first algorithm and the best of those tried, how it was timed); NULL without
    // one.
    R"sql(
ALTER TABLE runs ADD COLUMN baseline TEXT;
)sql",
}};

#undef EVOTUNE_NOW
#undef EVOTUNE_STATUSES
#undef EVOTUNE_STATUSES_V3

}  // namespace

int migration_count() { return static_cast<int>(kMigrations.size()); }

std::string migration(sql::Backend backend, int from_version) {
  return dialect::ddl(backend, kMigrations.at(static_cast<std::size_t>(from_version)));
}

}  // namespace evotune
