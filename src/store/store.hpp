// Store: the results database (SQLite file or PostgreSQL server; schema in docs/database-schema.md). Knows
// nothing of CUDA. One Store per thread; several Stores, in threads, processes or hosts, may share one
// database (SQLite: WAL, 10 s busy timeout; PostgreSQL: one connection each).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/baseline.hpp"
#include "core/compile_stats.hpp"
#include "core/config.hpp"
#include "core/device_info.hpp"
#include "core/outcome.hpp"
#include "core/problem_time.hpp"
#include "core/sanitizer_finding.hpp"
#include "core/status.hpp"
#include "store/sql.hpp"

namespace evotune {

// Identity of one NVRTC compile: the compile cache's key.
struct CompileKey {
  std::string source_hash, arch, nvrtc_version, options;
};

struct StoredCompile {
  std::int64_t id = 0;
  Status status = Status::ok;
  std::string message;
  CompileInfo info;   // info.arch is the key's arch; info.from_cache is true; phases when they were measured
  std::string cubin;  // empty when the compile failed
};

struct RunStart {
  std::int64_t space_id = 0, problem_id = 0;
  std::optional<std::int64_t> device_id;  // none for compile-only runs
  std::string strategy;
  std::uint64_t seed = 0;
  std::int64_t budget = 0;
  std::string command;   // the command line, for the record
  std::string timing{};  // how variants are timed (JSON of core_json's to_json(EvalSettings)); "" for none
  std::string host{};    // where it runs (gethostname), and its process id: who holds its claims
  std::int64_t pid = 0;
};

// Which config a run evaluates, on which problem and device: the key of a claim and of a measurement.
struct ClaimKey {
  std::int64_t config_id = 0, problem_id = 0, device_id = 0;
};

// How claims expire: a run whose heartbeat is older than lease_s is dead, and its claims are taken over;
// a config claimed by max_attempts runs that all died is stored as a timeout.
struct ClaimPolicy {
  double lease_s = 60;
  int max_attempts = 3;
  // Whether a run's process is known to be gone (on this host, no process has its pid any more): its claims
  // are taken over at once, without waiting for the lease. Unset: only the lease tells.
  std::function<bool(const std::string& host, std::int64_t pid)> process_gone{};
};

enum class ClaimResult {
  claimed,    // this run may evaluate it (first, or taken over from a dead run)
  measured,   // a result is stored already
  held,       // a live run is evaluating it
  abandoned,  // too many runs died on it: now stored as a timeout
};

struct MeasurementRecord {
  std::int64_t run_id = 0, config_id = 0, problem_id = 0, device_id = 0;
  std::optional<std::int64_t> compile_id;
  Outcome outcome;  // outcome.compile.compile_ms is stored; the rest of CompileInfo lives in compiles
  double tflops = 0, gbps = 0;
};

// A config re-timed after a search (tune --rerank), in rounds interleaved with the other fastest configs.
struct Remeasurement {
  int position = 0;                      // its place in that rerank's order, 1 the fastest
  double median_us = 0;                  // median of the rounds' medians
  double min_us = 0, max_us = 0;         // the fastest and the slowest round: the spread to judge noise by
  std::vector<double> round_medians_us;  // each round's median, in round order
  std::optional<TimingMethod> method;    // how the rounds were timed (the last round's)
};

// One config's rerank, as tune stores it.
struct RerankRecord {
  std::int64_t config_id = 0;
  Remeasurement remeasured;
};

// One measurement of a config, as `best` lists it.
struct RankedResult {
  std::int64_t config_id = 0;
  Config params;
  Status status = Status::ok;
  std::string message;
  std::optional<TimingStats> timing;  // present for ok results
  std::optional<EnergyStats> energy;  // where the energy was measured
  double tflops = 0, gbps = 0;
  std::string device_name;
  std::int64_t measurement_id = 0;
  int registers = 0;  // 0 when the measurement has no compile row
  // The newest rerank of this config on this problem and device (Store::best only); none where it has none.
  std::optional<Remeasurement> remeasured{};

  // The time reported for it: the rerank's median where it was re-timed, else its stored median (ok only).
  double reported_us() const { return remeasured ? remeasured->median_us : timing->median_us; }
};

struct RunSummary {
  std::int64_t id = 0;
  std::string space_name, space_hash;
  // problem: key_value_text of the sizes ("B=1,H=8,S=512"); device_name "" for a run without a device;
  // finished_at "" while running.
  std::string problem, device_name, strategy, status, started_at, finished_at;
  std::uint64_t seed = 0;
  std::int64_t budget = 0, evaluated = 0, failed = 0;
  std::optional<CompileStats> compile;  // the run's compile service figures, when they were saved
  int workers = 0;                      // with worker_idle_ms: 0 when not saved
  double worker_idle_ms = 0;
  std::optional<double> reference_ms;  // the reference kernel's time, when the run measured one
  // JSON arrays of the run's GPU states (core/gpu_state.hpp) at its start and end; "" when not recorded.
  std::string gpu_state_start, gpu_state_end;
  std::string timing;  // JSON of the run's EvalSettings (to_json in core_json); "" when not recorded
  std::string command, nvrtc_version;  // nvrtc_version "" for a run without a device
  std::int64_t driver_version = 0;     // 0 for a run without a device
  std::string host, heartbeat_at;      // "" for runs before schema version 10
  std::int64_t pid = 0;
};

// Which results Store::best returns: a space version's measurements of one problem.
struct BestQuery {
  std::int64_t space_id = 0;
  std::int64_t problem_id = 0;
  std::optional<std::int64_t> device_id = std::nullopt;  // none: every device's measurements
  int top_k = 0;                                         // <= 0: all
  bool include_failed = false;                           // the failures too, after the ok results
};

// One measurement as stored, in storing order: the ranked fields plus which run and when.
struct StoredMeasurement {
  RankedResult result;  // result.registers is 0 when no compile row was recorded
  std::int64_t run_id = 0;
  bool compiled = false;        // a compile row is recorded: registers and spills are known
  int spill_bytes = 0;          // spill stores + spill loads
  double seconds_into_run = 0;  // created_at minus the run's started_at
};

// One measurement of a config with everything stored about it.
struct MeasurementDetail {
  std::int64_t measurement_id = 0, run_id = 0;
  Sizes problem;
  std::string device_name;
  std::optional<std::int64_t> compile_id;
  // Compile info (arch, registers, smem, spills, phase times, log) comes from the compile row when there is
  // one; compile_ms is the measurement's.
  Outcome outcome;
  double tflops = 0, gbps = 0;
  std::string created_at;
};

// One stored compute-sanitizer run of a config.
struct StoredSanitizerFinding {
  Sizes problem;
  std::string device;
  SanitizerFinding finding;
  std::string created_at;
};

struct ConfigDetail {
  std::int64_t config_id = 0, space_id = 0;
  std::string space_name, space_hash, space_path;
  Config params;
  std::vector<MeasurementDetail> measurements;             // ok ones fastest first, then the failures
  std::vector<StoredSanitizerFinding> sanitizer_findings;  // oldest first
};

// A postgresql:// or postgres:// URL: the database is on a PostgreSQL server; anything else is a SQLite file.
bool is_server_url(std::string_view location);

// A devices row: the limits the store keeps (the other DeviceInfo limits stay 0) and the NVRTC version.
struct StoredDevice {
  std::int64_t id = 0;
  DeviceInfo info;
  std::string nvrtc_version;
};

struct DeviceMeasurements {
  StoredDevice device;
  std::int64_t measurements = 0;
};

class Store {
 public:
  // Opens or creates the database: a SQLite file (its parent folder created when missing), or a PostgreSQL
  // database for a postgresql:// or postgres:// URL. Throws Error (one line naming the file or server) for
  // an unwritable path, an unreachable server, a database that is not evotune's, or a newer schema. Never
  // deletes or rewrites existing data; pending migrations run in one transaction.
  explicit Store(const std::string& location);
  explicit Store(const std::filesystem::path& db_file) : Store(db_file.string()) {}
  explicit Store(const char* location) : Store(std::string(location)) {}
  // For read-only commands: Error when the file does not exist (or the server database holds no evotune
  // results). A read-only file is fine if its schema is current.
  static Store open_existing(const std::string& location);
  static Store open_existing(const std::filesystem::path& db_file) { return open_existing(db_file.string()); }

  Store(Store&&) noexcept = default;
  Store& operator=(Store&&) noexcept = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::filesystem::path& path() const { return path_; }  // as given: a file or a URL
  sql::Backend backend() const { return db_->backend(); }

  // The upserts return the row's id, inserting it the first time; an existing row is never changed.
  std::int64_t upsert_device(const DeviceInfo& device, const std::string& nvrtc_version);
  std::int64_t upsert_space(const std::string& name, const std::string& path, const std::string& hash,
                            const std::string& json);
  std::int64_t upsert_problem(const Sizes& sizes);
  std::int64_t upsert_config(std::int64_t space_id, const Config& config);
  std::optional<std::int64_t> find_space(const std::string& hash) const;
  std::optional<std::int64_t> find_problem(const Sizes& sizes) const;

  // A run starts as 'running'; finish_run sets status ('finished', 'interrupted', 'failed'), finished_at and
  // the final counts. Error for an unknown run or status.
  std::int64_t begin_run(const RunStart& run);
  void finish_run(std::int64_t run_id, const std::string& status, std::int64_t evaluated,
                  std::int64_t failed);
  // The run's compile service figures (totals; per_compiler is not kept), saved when the run ends; a second
  // call replaces them. Error for an unknown run.
  void save_compile_stats(std::int64_t run_id, const CompileStats& stats);
  // How long the run's `workers` GPU workers waited for a job, summed over them. Error for an unknown run.
  void save_worker_idle(std::int64_t run_id, int workers, double idle_ms);
  // The reference kernel's time per launch as the run's workers measured it.
  void save_reference_time(std::int64_t run_id, double reference_ms);
  // The space's library baseline as the run timed it (runs.baseline).
  void save_baseline(std::int64_t run_id, const BaselineTiming& baseline);
  // The newest run's baseline for this space and problem on a device of this name; none where no run timed
  // one.
  std::optional<BaselineTiming> latest_baseline(std::int64_t space_id, std::int64_t problem_id,
                                                const std::string& device_name) const;
  // The state of the run's GPUs (a JSON array of core/gpu_state.hpp objects) when it started (at_end false)
  // or ended. Error for an unknown run.
  void save_gpu_states(std::int64_t run_id, bool at_end, const std::string& states_json);

  // The compile cache. put_compile is idempotent on the key: an existing entry is kept and its id returned.
  std::optional<StoredCompile> find_compile(const CompileKey& key) const;
  std::int64_t put_compile(const CompileKey& key, Status status, const std::string& message,
                           const CompileInfo& info, const std::string& cubin);

  // Inserts the measurement unless (config, problem, device) already has one, which is kept as it is; a new
  // row also counts toward its run's evaluated/failed. One transaction. Error for an ok outcome without
  // timing.
  void record_measurement(const MeasurementRecord& record);

  // Claims (store/claims.cpp): one transaction each; several processes or hosts may call them at once.
  ClaimResult claim(const ClaimKey& key, std::int64_t run_id, const ClaimPolicy& policy);
  // The run is alive: its heartbeat_at is set to the database's clock now.
  void heartbeat(std::int64_t run_id);
  // Drops every claim the run still holds (when it ends, however it ends).
  void release_claims(std::int64_t run_id);
  std::int64_t count_claims() const;
  // The stored result of one config, if any.
  std::optional<RankedResult> measurement_of(const ClaimKey& key) const;

  // canonical_json of every config of the space measured on (problem, device).
  std::set<std::string> measured_configs(std::int64_t space_id, std::int64_t problem_id,
                                         std::int64_t device_id) const;
  // One rerank's configs on (problem, device), in their final order; one transaction. Error for an unknown
  // run.
  void save_rerank(std::int64_t run_id, std::int64_t problem_id, std::int64_t device_id,
                   const std::vector<RerankRecord>& ranked);

  // Ok results by the search's median time ascending, the configs a rerank re-timed permuted among their
  // places by their re-measured medians; then (if include_failed) failures by status.
  std::vector<RankedResult> best(const BestQuery& query) const;
  std::vector<RunSummary> runs(int limit) const;  // newest first; limit <= 0: all
  // For reports of a space version: its runs on a problem (oldest first), their measurements of it on every
  // device (in storing order), and the ok times of every problem measured (by problem, then config id; on
  // one device, or the fastest over devices).
  std::vector<RunSummary> runs_of(std::int64_t space_id, std::int64_t problem_id) const;
  std::vector<StoredMeasurement> measurement_history(std::int64_t space_id, std::int64_t problem_id) const;
  std::vector<ProblemTime> ok_times_by_problem(std::int64_t space_id,
                                               std::optional<std::int64_t> device_id = std::nullopt) const;
  std::optional<ConfigDetail> config_detail(std::int64_t config_id) const;
  // Keeps what a compute-sanitizer tool found in a config for a problem on a device (by name).
  void save_sanitizer_finding(std::int64_t config_id, std::int64_t problem_id, const std::string& device,
                              const SanitizerFinding& finding);
  std::int64_t count_measurements(std::int64_t space_id, std::int64_t problem_id,
                                  std::optional<std::int64_t> device_id) const;
  // Devices with measurements of this space version and problem: most measurements first, ties by row id.
  std::vector<DeviceMeasurements> measured_devices(std::int64_t space_id, std::int64_t problem_id) const;
  // Space rows with this name but another hash: older (or other) versions of the space file.
  std::int64_t count_older_versions(const std::string& space_name, const std::string& hash) const;

 private:
  Store(const std::string& location, bool create);

  std::filesystem::path path_;  // the location as given, for messages
  std::unique_ptr<sql::Connection> db_;
};

}  // namespace evotune
