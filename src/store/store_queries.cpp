// Store: the read-only queries behind `best`, `runs`, `show`, `report` and the session's resume check.
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/error.hpp"
#include "store/column_groups.hpp"
#include "store/dialect.hpp"
#include "store/store.hpp"

namespace evotune {
namespace {

// ok first, fastest first; then failures grouped by status; ties by insertion order.
constexpr std::string_view kRankOrder =
    " ORDER BY m.status <> 'ok', CASE WHEN m.status = 'ok' THEN m.time_median_us END, m.status, m.id";

Status read_status(const sql::Statement& row, int column, const std::string& file) {
  const std::string text = row.text(column);
  const auto status = status_from_string(text);
  if (!status) throw Error(file + ": unknown status '" + text + "' in the database");
  return *status;
}

// Seven columns from `first`: median, min, mean, stddev, p20, p80, samples. NULL median: no timing.
std::optional<TimingStats> read_timing(const sql::Statement& row, int first) {
  if (row.is_null(first)) return std::nullopt;
  TimingStats timing;
  timing.median_us = row.real(first);
  timing.min_us = row.real(first + 1);
  timing.mean_us = row.real(first + 2);
  timing.stddev_us = row.real(first + 3);
  timing.p20_us = row.real(first + 4);
  timing.p80_us = row.real(first + 5);
  timing.samples = static_cast<int>(row.int64(first + 6));
  return timing;
}

// Four columns from `first`: max_abs_err, rel_l2_err, non_finite, compared_elements. NULL: validation never
// ran.
std::optional<ErrorStats> read_error(const sql::Statement& row, int first) {
  if (row.is_null(first)) return std::nullopt;
  ErrorStats error;
  error.max_abs = row.real(first);
  error.rel_l2 = row.real(first + 1);
  error.non_finite = row.int64(first + 2);
  error.elements = row.int64(first + 3);
  return error;
}

// -1: no limit (dialect::limit).
std::int64_t limit_of(int limit) { return limit > 0 ? limit : -1; }

// A measurement as `best` ranks it: 24 columns, read by read_ranked, then kRankedFrom; the query may add
// columns in between, and adds WHERE and ORDER BY.
constexpr std::string_view kRankedColumns = R"(
      SELECT m.config_id, c.params, m.status, m.message,
             m.time_median_us, m.time_min_us, m.time_mean_us, m.time_stddev_us, m.time_p20_us, m.time_p80_us, m.samples,
             m.tflops, m.gbps, d.name, m.id, cp.registers, m.timing_mode, m.graph_executions, m.flush_l2, m.timing_note,
             m.energy_uj, m.energy_power_w, m.energy_window_ms, m.energy_executions)";
constexpr std::string_view kRankedFrom = R"(
      FROM measurements m
      JOIN configs c ON c.id = m.config_id
      JOIN devices d ON d.id = m.device_id
      LEFT JOIN compiles cp ON cp.id = m.compile_id)";

RankedResult read_ranked(const sql::Statement& select, const std::string& file) {
  RankedResult result;
  result.config_id = select.int64(0);
  result.params = parse_int_map(select.text(1));
  result.status = read_status(select, 2, file);
  result.message = select.text(3);
  result.timing = read_timing(select, 4);
  result.tflops = select.real(11);
  result.gbps = select.real(12);
  result.device_name = select.text(13);
  result.measurement_id = select.int64(14);
  result.registers = static_cast<int>(select.int64(15));
  if (result.timing) result.timing->method = read_method(select, 16);
  result.energy = read_energy(select, 20);
  return result;
}

// A run with its space, problem and device: 32 columns, read by read_runs; the query adds WHERE and ORDER BY.
constexpr std::string_view kRunColumns = R"(
      SELECT r.id, s.name, s.hash, p.sizes, d.name, r.strategy, r.status, r.started_at, r.finished_at,
             r.seed, r.budget, r.evaluated, r.failed, r.command, d.driver_version, d.nvrtc_version,
             r.compilers, r.compile_count, r.compile_busy_ms, r.compile_idle_ms, r.compile_queue_wait_ms,
             r.compile_queue_mean, r.compile_queue_max, r.workers, r.worker_idle_ms, r.reference_ms,
             r.gpu_state_start, r.gpu_state_end, r.timing, r.host, r.pid, r.heartbeat_at
      FROM runs r
      JOIN spaces s ON s.id = r.space_id
      JOIN problems p ON p.id = r.problem_id
      LEFT JOIN devices d ON d.id = r.device_id)";

std::vector<RunSummary> read_runs(sql::Statement& select) {
  std::vector<RunSummary> summaries;
  while (select.step()) {
    RunSummary& run = summaries.emplace_back();
    run.id = select.int64(0);
    run.space_name = select.text(1);
    run.space_hash = select.text(2);
    run.problem = key_value_text(parse_int_map(select.text(3)));
    run.device_name = select.text(4);
    run.strategy = select.text(5);
    run.status = select.text(6);
    run.started_at = select.text(7);
    run.finished_at = select.text(8);
    run.seed = static_cast<std::uint64_t>(select.int64(9));
    run.budget = select.int64(10);
    run.evaluated = select.int64(11);
    run.failed = select.int64(12);
    run.command = select.text(13);
    run.driver_version = select.int64(14);
    run.nvrtc_version = select.text(15);
    if (!select.is_null(16)) {
      CompileStats& stats = run.compile.emplace();
      stats.compilers = static_cast<int>(select.int64(16));
      stats.compiles = select.int64(17);
      stats.busy_ms = select.real(18);
      stats.idle_ms = select.real(19);
      stats.queue_wait_ms = select.real(20);
      stats.queue_mean = select.real(21);
      stats.queue_max = select.int64(22);
    }
    if (!select.is_null(23)) {
      run.workers = static_cast<int>(select.int64(23));
      run.worker_idle_ms = select.real(24);
    }
    if (!select.is_null(25)) run.reference_ms = select.real(25);
    if (!select.is_null(26)) run.gpu_state_start = select.text(26);
    if (!select.is_null(27)) run.gpu_state_end = select.text(27);
    if (!select.is_null(28)) run.timing = select.text(28);
    run.host = select.text(29);
    run.pid = select.is_null(30) ? 0 : select.int64(30);
    run.heartbeat_at = select.text(31);
  }
  return summaries;
}

}  // namespace

std::set<std::string> Store::measured_configs(std::int64_t space_id, std::int64_t problem_id,
                                              std::int64_t device_id) const {
  sql::Statement select(*db_, R"(
      SELECT c.params FROM measurements m JOIN configs c ON c.id = m.config_id
      WHERE c.space_id = ?1 AND m.problem_id = ?2 AND m.device_id = ?3)");
  select.bind_int(1, space_id).bind_int(2, problem_id).bind_int(3, device_id);
  std::set<std::string> params;
  while (select.step()) params.insert(select.text(0));
  return params;
}

std::vector<RankedResult> Store::best(const BestQuery& query) const {
  // Each measurement with the newest rerank of its config, problem and device. The search's medians rank
  // them all (taken the same way); the configs a rerank re-timed keep the places their search medians gave
  // them, in the order of their re-measured medians. A rerank times its configs back to back, on a GPU
  // hotter than the search's (power capping lowers the clocks under sustained load): its medians order
  // those configs against each other, not against configs it did not time.
  sql::Statement select(*db_, std::string(kRankedColumns) + R"(,
             rr.position, rr.median_us, rr.min_us, rr.max_us, rr.round_medians_us,
             rr.timing_mode, rr.graph_executions, rr.flush_l2, rr.timing_note)" +
                                  std::string(kRankedFrom) + R"(
      LEFT JOIN reranks rr ON rr.id = (SELECT max(x.id) FROM reranks x WHERE x.config_id = m.config_id
                                         AND x.problem_id = m.problem_id AND x.device_id = m.device_id)
      WHERE c.space_id = ?1 AND m.problem_id = ?2 AND (CAST(?3 AS BIGINT) IS NULL OR m.device_id = ?3)
        AND (?4 OR m.status = 'ok')
      ORDER BY m.status <> 'ok', CASE WHEN m.status = 'ok' THEN m.time_median_us END, m.status, m.id)");
  select.bind_int(1, query.space_id).bind_int(2, query.problem_id).bind_int(3, query.device_id);
  select.bind_int(4, query.include_failed ? 1 : 0);
  std::vector<RankedResult> results;
  while (select.step()) {
    RankedResult& result = results.emplace_back(read_ranked(select, db_->name()));
    if (select.is_null(24)) continue;
    Remeasurement& remeasured = result.remeasured.emplace();
    remeasured.position = static_cast<int>(select.int64(24));
    remeasured.median_us = select.real(25);
    remeasured.min_us = select.real(26);
    remeasured.max_us = select.real(27);
    remeasured.round_medians_us = nlohmann::json::parse(select.text(28)).get<std::vector<double>>();
    remeasured.method = read_method(select, 29);
  }
  std::vector<std::size_t> slots;  // of the re-measured results, in search order
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].remeasured) slots.push_back(i);
  std::vector<RankedResult> remeasured;
  for (const std::size_t slot : slots) remeasured.push_back(std::move(results[slot]));
  std::stable_sort(remeasured.begin(), remeasured.end(), [](const RankedResult& a, const RankedResult& b) {
    return a.remeasured->median_us < b.remeasured->median_us;
  });
  for (std::size_t k = 0; k < slots.size(); ++k) results[slots[k]] = std::move(remeasured[k]);
  if (query.top_k > 0 && results.size() > static_cast<std::size_t>(query.top_k))
    results.resize(static_cast<std::size_t>(query.top_k));
  return results;
}

std::optional<RankedResult> Store::measurement_of(const ClaimKey& key) const {
  sql::Statement select(*db_, std::string(kRankedColumns) + std::string(kRankedFrom) + R"(
      WHERE m.config_id = ?1 AND m.problem_id = ?2 AND m.device_id = ?3)");
  select.bind_int(1, key.config_id).bind_int(2, key.problem_id).bind_int(3, key.device_id);
  if (!select.step()) return std::nullopt;
  return read_ranked(select, db_->name());
}

std::vector<RunSummary> Store::runs(int limit) const {
  sql::Statement select(
      *db_, std::string(kRunColumns) + " ORDER BY r.id DESC LIMIT " + dialect::limit(db_->backend(), "?1"));
  select.bind_int(1, limit_of(limit));
  return read_runs(select);
}

std::optional<ConfigDetail> Store::config_detail(std::int64_t config_id) const {
  sql::Statement config(*db_, R"(
      SELECT c.space_id, s.name, s.hash, s.path, c.params FROM configs c JOIN spaces s ON s.id = c.space_id
      WHERE c.id = ?1)");
  config.bind_int(1, config_id);
  if (!config.step()) return std::nullopt;
  ConfigDetail detail;
  detail.config_id = config_id;
  detail.space_id = config.int64(0);
  detail.space_name = config.text(1);
  detail.space_hash = config.text(2);
  detail.space_path = config.text(3);
  detail.params = parse_int_map(config.text(4));

  sql::Statement select(*db_, std::string(R"(
      SELECT m.id, m.run_id, p.sizes, d.name, m.compile_id, m.status, m.message,
             m.time_median_us, m.time_min_us, m.time_mean_us, m.time_stddev_us, m.time_p20_us, m.time_p80_us, m.samples,
             m.max_abs_err, m.rel_l2_err, m.non_finite, m.compared_elements,
             m.validation_seed, m.tflops, m.gbps, m.compile_ms, m.validate_ms, m.bench_ms, m.created_at,
             cp.arch, cp.registers, cp.static_smem_bytes, cp.spill_store_bytes, cp.spill_load_bytes,
             cp.stack_frame_bytes, cp.log, cp.frontend_ms, cp.nvvm_ms, cp.ptxas_ms, m.validation_rounds,
             m.timing_mode, m.graph_executions, m.flush_l2, m.timing_note,
             m.energy_uj, m.energy_power_w, m.energy_window_ms, m.energy_executions
      FROM measurements m
      JOIN problems p ON p.id = m.problem_id
      JOIN devices d ON d.id = m.device_id
      LEFT JOIN compiles cp ON cp.id = m.compile_id
      WHERE m.config_id = ?1)") + std::string(kRankOrder));
  select.bind_int(1, config_id);
  while (select.step()) {
    MeasurementDetail& measurement = detail.measurements.emplace_back();
    measurement.measurement_id = select.int64(0);
    measurement.run_id = select.int64(1);
    measurement.problem = parse_int_map(select.text(2));
    measurement.device_name = select.text(3);
    measurement.compile_id = select.optional_int64(4);
    Outcome& outcome = measurement.outcome;
    outcome.status = read_status(select, 5, db_->name());
    outcome.message = select.text(6);
    outcome.timing = read_timing(select, 7);
    if (outcome.timing) outcome.timing->method = read_method(select, 36);
    outcome.energy = read_energy(select, 40);
    outcome.error = read_error(select, 14);
    outcome.validation_seed = static_cast<std::uint64_t>(select.int64(18));
    outcome.validation_rounds = static_cast<int>(select.int64(35));
    measurement.tflops = select.real(19);
    measurement.gbps = select.real(20);
    outcome.compile.compile_ms = select.real(21);
    outcome.validate_ms = select.real(22);
    outcome.bench_ms = select.real(23);
    measurement.created_at = select.text(24);
    if (measurement.compile_id) {
      outcome.compile.arch = select.text(25);
      outcome.compile.registers = static_cast<int>(select.int64(26));
      outcome.compile.static_smem_bytes = static_cast<int>(select.int64(27));
      outcome.compile.spill_store_bytes = static_cast<int>(select.int64(28));
      outcome.compile.spill_load_bytes = static_cast<int>(select.int64(29));
      outcome.compile.stack_frame_bytes = static_cast<int>(select.int64(30));
      outcome.compile.log = select.text(31);
      outcome.compile.phases = read_phases(select, 32);
    }
  }

  sql::Statement findings(*db_, R"(
      SELECT p.sizes, f.device, f.tool, f.verdict, f.errors, f.warnings, f.summary, f.report, f.eval_status,
             f.seconds, f.created_at
      FROM sanitizer_findings f JOIN problems p ON p.id = f.problem_id
      WHERE f.config_id = ?1 ORDER BY f.id)");
  findings.bind_int(1, config_id);
  while (findings.step()) {
    StoredSanitizerFinding& stored = detail.sanitizer_findings.emplace_back();
    stored.problem = parse_int_map(findings.text(0));
    stored.device = findings.text(1);
    SanitizerFinding& finding = stored.finding;
    finding.tool = findings.text(2);
    finding.verdict = findings.text(3);
    finding.errors = static_cast<int>(findings.int64(4));
    finding.warnings = static_cast<int>(findings.int64(5));
    finding.summary = findings.text(6);
    finding.report = findings.text(7);
    finding.eval_status = findings.text(8);
    finding.seconds = findings.real(9);
    stored.created_at = findings.text(10);
  }
  return detail;
}

std::int64_t Store::count_measurements(std::int64_t space_id, std::int64_t problem_id,
                                       std::optional<std::int64_t> device_id) const {
  sql::Statement select(*db_, R"(
      SELECT count(*) FROM measurements m JOIN configs c ON c.id = m.config_id
      WHERE c.space_id = ?1 AND m.problem_id = ?2 AND (CAST(?3 AS BIGINT) IS NULL OR m.device_id = ?3))");
  select.bind_int(1, space_id).bind_int(2, problem_id).bind_int(3, device_id);
  select.step();
  return select.int64(0);
}

std::int64_t Store::count_older_versions(const std::string& space_name, const std::string& hash) const {
  sql::Statement select(*db_, "SELECT count(*) FROM spaces WHERE name = ?1 AND hash <> ?2");
  select.bind_text(1, space_name).bind_text(2, hash);
  select.step();
  return select.int64(0);
}

std::vector<RunSummary> Store::runs_of(std::int64_t space_id, std::int64_t problem_id) const {
  sql::Statement select(
      *db_, std::string(kRunColumns) + " WHERE r.space_id = ?1 AND r.problem_id = ?2 ORDER BY r.id");
  select.bind_int(1, space_id).bind_int(2, problem_id);
  return read_runs(select);
}

std::vector<StoredMeasurement> Store::measurement_history(std::int64_t space_id,
                                                          std::int64_t problem_id) const {
  // SQLite's julianday has about 40 us of resolution at today's dates: plenty for a progress plot.
  sql::Statement select(*db_, std::string(kRankedColumns) + R"(,
             m.run_id, CASE WHEN cp.id IS NULL THEN 0 ELSE 1 END,
             coalesce(cp.spill_store_bytes + cp.spill_load_bytes, 0), )" +
                                  dialect::seconds_between(db_->backend(), "r.started_at", "m.created_at") +
                                  std::string(kRankedFrom) + R"(
      JOIN runs r ON r.id = m.run_id
      WHERE c.space_id = ?1 AND m.problem_id = ?2 ORDER BY m.id)");
  select.bind_int(1, space_id).bind_int(2, problem_id);
  std::vector<StoredMeasurement> history;
  while (select.step()) {
    StoredMeasurement& row = history.emplace_back();
    row.result = read_ranked(select, db_->name());
    row.run_id = select.int64(24);
    row.compiled = select.int64(25) != 0;
    row.spill_bytes = static_cast<int>(select.int64(26));
    row.seconds_into_run = select.real(27);
  }
  return history;
}

std::vector<ProblemTime> Store::ok_times_by_problem(std::int64_t space_id,
                                                    std::optional<std::int64_t> device_id) const {
  sql::Statement select(*db_, R"(
      SELECT p.sizes, m.config_id, c.params, min(m.time_median_us)
      FROM measurements m JOIN configs c ON c.id = m.config_id JOIN problems p ON p.id = m.problem_id
      WHERE c.space_id = ?1 AND m.status = 'ok' AND (CAST(?2 AS BIGINT) IS NULL OR m.device_id = ?2)
      GROUP BY m.problem_id, m.config_id, p.sizes, c.params ORDER BY m.problem_id, m.config_id)");
  select.bind_int(1, space_id);
  if (device_id) select.bind_int(2, *device_id);
  std::vector<ProblemTime> times;
  while (select.step())
    times.push_back(
        {parse_int_map(select.text(0)), select.int64(1), parse_int_map(select.text(2)), select.real(3)});
  return times;
}

}  // namespace evotune
