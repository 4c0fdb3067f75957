// Store: opening the database and every write (upserts, runs, the compile cache, measurements).
#include "store/store.hpp"

#include <nlohmann/json.hpp>
#include <system_error>

#include "core/core_json.hpp"
#include "core/error.hpp"
#include "store/column_groups.hpp"
#include "store/dialect.hpp"
#include "store/schema.hpp"

namespace evotune {
namespace {

std::int64_t the_id(sql::Statement& select) {
  if (!select.step()) throw Error("internal: a row just inserted was not found");
  return select.int64(0);
}

std::int64_t to_int64(std::uint64_t value) { return static_cast<std::int64_t>(value); }

}  // namespace

Store::Store(const std::string& location) : Store(location, true) {}

Store Store::open_existing(const std::string& location) { return Store(location, false); }

Store::Store(const std::string& location, bool create)
    : path_(location), db_(open_database(location, create)) {}

std::int64_t Store::upsert_device(const DeviceInfo& device, const std::string& nvrtc_version) {
  sql::Statement insert(*db_, R"(
      INSERT INTO devices (name, arch, cc_major, cc_minor, driver_version, nvrtc_version, sm_count, l2_bytes,
                           max_smem_per_block)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
      ON CONFLICT (name, arch, driver_version, nvrtc_version) DO NOTHING)");
  insert.bind_text(1, device.name).bind_text(2, device.arch()).bind_int(3, device.cc_major);
  insert.bind_int(4, device.cc_minor).bind_int(5, device.driver_version).bind_text(6, nvrtc_version);
  insert.bind_int(7, device.sm_count).bind_int(8, device.l2_bytes).bind_int(9, device.max_smem_per_block);
  insert.run();
  sql::Statement select(*db_, R"(
      SELECT id FROM devices WHERE name = ?1 AND arch = ?2 AND driver_version = ?3 AND nvrtc_version = ?4)");
  select.bind_text(1, device.name).bind_text(2, device.arch()).bind_int(3, device.driver_version);
  select.bind_text(4, nvrtc_version);
  return the_id(select);
}

std::int64_t Store::upsert_space(const std::string& name, const std::string& path, const std::string& hash,
                                 const std::string& json) {
  sql::Statement insert(*db_, R"(
      INSERT INTO spaces (name, path, hash, json) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (hash) DO NOTHING)");
  insert.bind_text(1, name).bind_text(2, path).bind_text(3, hash).bind_text(4, json);
  insert.run();
  return *find_space(hash);
}

std::int64_t Store::upsert_problem(const Sizes& sizes) {
  sql::Statement insert(*db_, "INSERT INTO problems (sizes) VALUES (?1) ON CONFLICT (sizes) DO NOTHING");
  insert.bind_text(1, canonical_json(sizes));
  insert.run();
  return *find_problem(sizes);
}

std::int64_t Store::upsert_config(std::int64_t space_id, const Config& config) {
  const std::string params = canonical_json(config);
  sql::Statement insert(*db_, R"(
      INSERT INTO configs (space_id, params) VALUES (?1, ?2) ON CONFLICT (space_id, params) DO NOTHING)");
  insert.bind_int(1, space_id).bind_text(2, params);
  insert.run();
  sql::Statement select(*db_, "SELECT id FROM configs WHERE space_id = ?1 AND params = ?2");
  select.bind_int(1, space_id).bind_text(2, params);
  return the_id(select);
}

std::optional<std::int64_t> Store::find_space(const std::string& hash) const {
  sql::Statement select(*db_, "SELECT id FROM spaces WHERE hash = ?1");
  select.bind_text(1, hash);
  if (!select.step()) return std::nullopt;
  return select.int64(0);
}

std::optional<std::int64_t> Store::find_problem(const Sizes& sizes) const {
  sql::Statement select(*db_, "SELECT id FROM problems WHERE sizes = ?1");
  select.bind_text(1, canonical_json(sizes));
  if (!select.step()) return std::nullopt;
  return select.int64(0);
}

std::int64_t Store::begin_run(const RunStart& run) {
  sql::Statement insert(*db_, R"(
      INSERT INTO runs (space_id, problem_id, device_id, strategy, seed, budget, command, timing, host, pid,
                        heartbeat_at)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, )" +
                                  dialect::now(db_->backend()) + R"()
      RETURNING id)");
  insert.bind_int(1, run.space_id).bind_int(2, run.problem_id).bind_int(3, run.device_id);
  insert.bind_text(4, run.strategy).bind_int(5, to_int64(run.seed)).bind_int(6, run.budget);
  insert.bind_text(7, run.command);
  if (!run.timing.empty()) insert.bind_text(8, run.timing);
  if (!run.host.empty()) insert.bind_text(9, run.host).bind_int(10, run.pid);
  const std::int64_t id = the_id(insert);
  insert.run();
  return id;
}

void Store::finish_run(std::int64_t run_id, const std::string& status, std::int64_t evaluated,
                       std::int64_t failed) {
  if (status != "finished" && status != "interrupted" && status != "failed")
    throw Error("run " + std::to_string(run_id) + ": '" + status +
                "' is not a final run status (finished, interrupted, failed)");
  sql::Statement update(*db_, R"(
      UPDATE runs SET status = ?2, evaluated = ?3, failed = ?4, finished_at = )" +
                                  dialect::now(db_->backend()) + R"(
      WHERE id = ?1)");
  update.bind_int(1, run_id).bind_text(2, status).bind_int(3, evaluated).bind_int(4, failed);
  update.run();
  if (db_->changes() == 0) throw Error(db_->name() + ": no run with id " + std::to_string(run_id));
}

void Store::save_compile_stats(std::int64_t run_id, const CompileStats& stats) {
  sql::Statement update(*db_, R"(
      UPDATE runs SET compilers = ?2, compile_count = ?3, compile_busy_ms = ?4, compile_idle_ms = ?5,
                      compile_queue_wait_ms = ?6, compile_queue_mean = ?7, compile_queue_max = ?8
      WHERE id = ?1)");
  update.bind_int(1, run_id).bind_int(2, stats.compilers).bind_int(3, stats.compiles);
  update.bind_real(4, stats.busy_ms).bind_real(5, stats.idle_ms).bind_real(6, stats.queue_wait_ms);
  update.bind_real(7, stats.queue_mean).bind_int(8, stats.queue_max);
  update.run();
  if (db_->changes() == 0) throw Error(db_->name() + ": no run with id " + std::to_string(run_id));
}

void Store::save_worker_idle(std::int64_t run_id, int workers, double idle_ms) {
  sql::Statement update(*db_, "UPDATE runs SET workers = ?2, worker_idle_ms = ?3 WHERE id = ?1");
  update.bind_int(1, run_id).bind_int(2, workers).bind_real(3, idle_ms);
  update.run();
  if (db_->changes() == 0) throw Error(db_->name() + ": no run with id " + std::to_string(run_id));
}

void Store::save_sanitizer_finding(std::int64_t config_id, std::int64_t problem_id, const std::string& device,
                                   const SanitizerFinding& finding) {
  sql::Statement insert(*db_, R"(
      INSERT INTO sanitizer_findings (config_id, problem_id, device, tool, verdict, errors, warnings, summary,
                                      report, eval_status, seconds)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11))");
  insert.bind_int(1, config_id).bind_int(2, problem_id).bind_text(3, device).bind_text(4, finding.tool);
  insert.bind_text(5, finding.verdict).bind_int(6, finding.errors).bind_int(7, finding.warnings);
  insert.bind_text(8, finding.summary).bind_text(9, finding.report).bind_text(10, finding.eval_status);
  insert.bind_real(11, finding.seconds);
  insert.run();
}

void Store::save_gpu_states(std::int64_t run_id, bool at_end, const std::string& states_json) {
  sql::Statement update(*db_, at_end ? "UPDATE runs SET gpu_state_end = ?2 WHERE id = ?1"
                                     : "UPDATE runs SET gpu_state_start = ?2 WHERE id = ?1");
  update.bind_int(1, run_id).bind_text(2, states_json);
  update.run();
  if (db_->changes() == 0) throw Error(db_->name() + ": no run with id " + std::to_string(run_id));
}

void Store::save_reference_time(std::int64_t run_id, double reference_ms) {
  sql::Statement update(*db_, "UPDATE runs SET reference_ms = ?2 WHERE id = ?1");
  update.bind_int(1, run_id).bind_real(2, reference_ms);
  update.run();
  if (db_->changes() == 0) throw Error(db_->name() + ": no run with id " + std::to_string(run_id));
}

void Store::save_baseline(std::int64_t run_id, const BaselineTiming& baseline) {
  sql::Statement update(*db_, "UPDATE runs SET baseline = ?2 WHERE id = ?1");
  update.bind_int(1, run_id).bind_text(2, to_json(baseline).dump());
  update.run();
  if (db_->changes() == 0) throw Error(db_->name() + ": no run with id " + std::to_string(run_id));
}

std::optional<BaselineTiming> Store::latest_baseline(std::int64_t space_id, std::int64_t problem_id,
                                                     const std::string& device_name) const {
  sql::Statement select(*db_, R"(
      SELECT r.baseline FROM runs r JOIN devices d ON d.id = r.device_id
      WHERE r.space_id = ?1 AND r.problem_id = ?2 AND d.name = ?3 AND r.baseline IS NOT NULL
      ORDER BY r.id DESC LIMIT 1)");
  select.bind_int(1, space_id).bind_int(2, problem_id).bind_text(3, device_name);
  if (!select.step()) return std::nullopt;
  const std::string text = select.text(0);
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded()) throw Error(db_->name() + ": runs.baseline is not JSON: " + text);
  return baseline_timing_from_json(Fields(json, "", db_->name() + " runs.baseline"));
}

std::optional<StoredCompile> Store::find_compile(const CompileKey& key) const {
  sql::Statement select(*db_, R"(
      SELECT id, status, message, log, cubin, registers, static_smem_bytes, spill_store_bytes, spill_load_bytes,
             stack_frame_bytes, compile_ms, frontend_ms, nvvm_ms, ptxas_ms
      FROM compiles WHERE source_hash = ?1 AND arch = ?2 AND nvrtc_version = ?3 AND options = ?4)");
  select.bind_text(1, key.source_hash).bind_text(2, key.arch).bind_text(3, key.nvrtc_version);
  select.bind_text(4, key.options);
  if (!select.step()) return std::nullopt;
  StoredCompile stored;
  stored.id = select.int64(0);
  const std::string status = select.text(1);
  const auto parsed = status_from_string(status);
  if (!parsed)
    throw Error(db_->name() + ": compile " + std::to_string(stored.id) + " has unknown status '" + status +
                "'");
  stored.status = *parsed;
  stored.message = select.text(2);
  stored.info.log = select.text(3);
  stored.cubin = select.blob(4);
  stored.info.registers = static_cast<int>(select.int64(5));
  stored.info.static_smem_bytes = static_cast<int>(select.int64(6));
  stored.info.spill_store_bytes = static_cast<int>(select.int64(7));
  stored.info.spill_load_bytes = static_cast<int>(select.int64(8));
  stored.info.stack_frame_bytes = static_cast<int>(select.int64(9));
  stored.info.compile_ms = select.real(10);
  stored.info.phases = read_phases(select, 11);
  stored.info.arch = key.arch;
  stored.info.from_cache = true;
  return stored;
}

std::int64_t Store::put_compile(const CompileKey& key, Status status, const std::string& message,
                                const CompileInfo& info, const std::string& cubin) {
  sql::Statement insert(*db_, R"(
      INSERT INTO compiles (source_hash, arch, nvrtc_version, options, status, message, log, cubin, registers,
                            static_smem_bytes, spill_store_bytes, spill_load_bytes, stack_frame_bytes, compile_ms,
                            frontend_ms, nvvm_ms, ptxas_ms)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
      ON CONFLICT (source_hash, arch, nvrtc_version, options) DO NOTHING)");
  insert.bind_text(1, key.source_hash).bind_text(2, key.arch).bind_text(3, key.nvrtc_version);
  insert.bind_text(4, key.options)
      .bind_text(5, to_string(status))
      .bind_text(6, message)
      .bind_text(7, info.log);
  if (cubin.empty()) {
    insert.bind_null(8);
  } else {
    insert.bind_blob(8, cubin);
  }
  insert.bind_int(9, info.registers)
      .bind_int(10, info.static_smem_bytes)
      .bind_int(11, info.spill_store_bytes);
  insert.bind_int(12, info.spill_load_bytes)
      .bind_int(13, info.stack_frame_bytes)
      .bind_real(14, info.compile_ms);
  if (info.phases) {
    insert.bind_real(15, info.phases->frontend_ms).bind_real(16, info.phases->nvvm_ms);
    insert.bind_real(17, info.phases->ptxas_ms);
  } else {
    for (const int index : {15, 16, 17}) insert.bind_null(index);
  }
  insert.run();
  sql::Statement select(*db_, R"(
      SELECT id FROM compiles WHERE source_hash = ?1 AND arch = ?2 AND nvrtc_version = ?3 AND options = ?4)");
  select.bind_text(1, key.source_hash).bind_text(2, key.arch).bind_text(3, key.nvrtc_version);
  select.bind_text(4, key.options);
  return the_id(select);
}

void Store::record_measurement(const MeasurementRecord& record) {
  const Outcome& outcome = record.outcome;
  if (outcome.status == Status::ok && !outcome.timing)
    throw Error("measurement of config " + std::to_string(record.config_id) + ": status ok without timing");
  sql::Transaction transaction(*db_);
  sql::Statement insert(*db_, R"(
      INSERT INTO measurements (run_id, config_id, problem_id, device_id, compile_id, status, message,
                                time_median_us, time_min_us, time_mean_us, time_stddev_us, time_p20_us, time_p80_us,
                                samples, max_abs_err, rel_l2_err, non_finite, compared_elements, validation_seed,
                                tflops, gbps, compile_ms, validate_ms, bench_ms, validation_rounds, timing_mode,
                                graph_executions, flush_l2, timing_note, energy_uj, energy_power_w, energy_window_ms,
                                energy_executions)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,
              ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33)
      ON CONFLICT (config_id, problem_id, device_id) DO NOTHING)");
  insert.bind_int(1, record.run_id).bind_int(2, record.config_id).bind_int(3, record.problem_id);
  insert.bind_int(4, record.device_id).bind_int(5, record.compile_id).bind_text(6, to_string(outcome.status));
  insert.bind_text(7, outcome.message);
  if (const auto& timing = outcome.timing) {
    insert.bind_real(8, timing->median_us).bind_real(9, timing->min_us).bind_real(10, timing->mean_us);
    insert.bind_real(11, timing->stddev_us).bind_real(12, timing->p20_us).bind_real(13, timing->p80_us);
    insert.bind_int(14, timing->samples).bind_real(20, record.tflops).bind_real(21, record.gbps);
  } else {
    for (const int index : {8, 9, 10, 11, 12, 13, 14, 20, 21}) insert.bind_null(index);
  }
  if (const auto& error = outcome.error) {
    insert.bind_real(15, error->max_abs).bind_real(16, error->rel_l2).bind_int(17, error->non_finite);
    insert.bind_int(18, error->elements);
  } else {
    for (const int index : {15, 16, 17, 18}) insert.bind_null(index);
  }
  insert.bind_int(19, to_int64(outcome.validation_seed)).bind_real(22, outcome.compile.compile_ms);
  insert.bind_real(23, outcome.validate_ms).bind_real(24, outcome.bench_ms);
  insert.bind_int(25, outcome.validation_rounds);
  bind_method(insert, 26, outcome.timing ? outcome.timing->method : std::nullopt);
  bind_energy(insert, 30, outcome.status == Status::ok ? outcome.energy : std::nullopt);
  insert.run();
  const bool inserted = db_->changes() == 1;
  // The claim goes with the result, in the same transaction: no moment has both or neither.
  sql::Statement release(*db_,
                         "DELETE FROM claims WHERE config_id = ?1 AND problem_id = ?2 AND device_id = ?3");
  release.bind_int(1, record.config_id).bind_int(2, record.problem_id).bind_int(3, record.device_id);
  if (inserted) {
    sql::Statement count(*db_,
                         "UPDATE runs SET evaluated = evaluated + 1, failed = failed + ?2 WHERE id = ?1");
    count.bind_int(1, record.run_id).bind_int(2, outcome.status == Status::ok ? 0 : 1);
    count.run();
  }
  release.run();
  transaction.commit();
}

void Store::save_rerank(std::int64_t run_id, std::int64_t problem_id, std::int64_t device_id,
                        const std::vector<RerankRecord>& ranked) {
  sql::Transaction transaction(*db_);
  for (const RerankRecord& record : ranked) {
    const Remeasurement& r = record.remeasured;
    sql::Statement insert(*db_, R"(
        INSERT INTO reranks (run_id, config_id, problem_id, device_id, position, rounds, median_us, min_us, max_us,
                             round_medians_us, timing_mode, graph_executions, flush_l2, timing_note)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14))");
    insert.bind_int(1, run_id).bind_int(2, record.config_id).bind_int(3, problem_id).bind_int(4, device_id);
    insert.bind_int(5, r.position).bind_int(6, static_cast<std::int64_t>(r.round_medians_us.size()));
    insert.bind_real(7, r.median_us).bind_real(8, r.min_us).bind_real(9, r.max_us);
    insert.bind_text(10, nlohmann::json(r.round_medians_us).dump());
    bind_method(insert, 11, r.method);
    insert.run();
  }
  transaction.commit();
}

}  // namespace evotune
