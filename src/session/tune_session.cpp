// run_tune: a tuning run step by step; the only place that sees every layer.
#include "session/tune_session.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "core/core_json.hpp"
#include "core/error.hpp"
#include "eval/energy_support.hpp"
#include "session/heartbeat.hpp"
#include "session/rerank.hpp"
#include "session/run_context.hpp"
#include "session/run_plan.hpp"
#include "session/run_workers.hpp"
#include "session/search_loop.hpp"
#include "session/tune_target.hpp"
#include "session/worker_setup.hpp"
#include "space/config_text.hpp"
#include "space/search_space.hpp"

namespace evotune {
namespace {

// An existing database is opened (and checked) before anything else; a new one is created only once the run
// can start.
std::optional<Store> open_existing(const std::filesystem::path& db_file) {
  std::optional<Store> store;
  if (is_server_url(db_file.string()) || std::filesystem::exists(db_file)) store.emplace(db_file);
  return store;
}

void log_start(const SearchSpace& space, const Sizes& sizes, const TuneTarget& target, const RunPlan& plan) {
  spdlog::info(
      "space {} ({}), problem {}, device {} ({}), {}; {} valid configs, {} already measured, budget {}",
      space.name(), space.hash(), key_value_text(sizes), target.device().name, plan.arch, target.where(),
      plan.candidates, plan.skipped, plan.budget);
  if (const std::string start = plan.strategy->describe_start(); !start.empty()) spdlog::info("{}", start);
}

// The GPUs' clocks, power and clock reasons at the run's start or end (nothing without NVML or for a replay).
void save_gpu_states(Store& store, std::int64_t run_id, bool at_end, const TuneTarget& target) {
  const std::vector<GpuState> states = target.gpu_states();
  if (states.empty()) return;
  store.save_gpu_states(run_id, at_end, gpu_states_json(states));
  for (std::size_t i = 0; i < states.size(); ++i)
    spdlog::info("GPU {} at the {}: {}", i, at_end ? "end" : "start", describe(states[i]));
}

std::int64_t begin_run(Store& store, const RunPlan& plan, const TuneOptions& options) {
  // A replay measures nothing: its times were taken the way the recorded run's were.
  const std::string timing = options.replay_file ? "" : to_json(options.eval).dump();
  const std::string strategy = options.remeasure_only ? "remeasure" : options.strategy;
  return store.begin_run({plan.keys.space_id, plan.keys.problem_id, plan.keys.device_id, strategy,
                          options.seed, plan.budget, options.command_line, timing, host_name(),
                          static_cast<std::int64_t>(getpid())});
}

// Stores how the run ended; the summary, with the best stored results.
TuneSummary finish_run(Store& store, const RunPlan& plan, const SearchLoop::Result& result,
                       int worker_restarts) {
  TuneSummary summary;
  summary.run_id = plan.keys.run_id;
  summary.candidates = plan.candidates;
  summary.skipped = plan.skipped;
  summary.stop_reason = result.stop_reason;
  if (result.stop_reason == StopReason::finished && result.time_limit_reached)
    summary.stop_reason = StopReason::time_limit;
  else if (result.stop_reason == StopReason::finished && result.proposed >= plan.budget &&
           result.proposed < plan.remaining())
    summary.stop_reason = StopReason::budget;
  summary.error = result.error;
  summary.evaluated = result.evaluated;
  summary.failed = result.failed;
  summary.seconds = result.seconds;
  summary.worker_restarts = worker_restarts;
  // The runs table knows no 'budget' or 'time limit': a run that spent either finished.
  const StopReason stored =
      summary.stop_reason == StopReason::budget || summary.stop_reason == StopReason::time_limit
          ? StopReason::finished
          : summary.stop_reason;
  store.release_claims(summary.run_id);
  store.finish_run(summary.run_id, std::string(to_string(stored)), summary.evaluated, summary.failed);
  summary.top = store.best({.space_id = plan.keys.space_id,
                            .problem_id = plan.keys.problem_id,
                            .device_id = plan.keys.device_id,
                            .top_k = 5});
  return summary;
}

// tune --rerank after a finished search; an interrupt during it makes the run interrupted, a failing pool
// only ends the rerank (the search's results are stored).
void rerank_after_search(const RunContext& context, const TuneOptions& options,
                         const std::atomic<bool>* interrupt,
                         std::optional<std::chrono::steady_clock::time_point> deadline,
                         SearchLoop::Result& result) {
  if (options.rerank_top <= 0 || result.stop_reason != StopReason::finished) return;
  try {
    const RerankOutcome reranked =
        rerank_top(context, options.rerank_top, options.rerank_rounds, interrupt, deadline);
    if (reranked.interrupted) {
      spdlog::info("rerank interrupted: nothing of it stored");
      result.stop_reason = StopReason::interrupted;
      return;
    }
    if (reranked.failed > 0) spdlog::warn("rerank: {} re-timings did not end ok", reranked.failed);
    if (reranked.ranked.empty()) return;
    const RerankRecord& winner = reranked.ranked.front();
    spdlog::info(
        "rerank: config {} is the fastest, {:.2f} us ({:.2f}..{:.2f} over {} rounds); {} configs stored",
        winner.config_id, winner.remeasured.median_us, winner.remeasured.min_us, winner.remeasured.max_us,
        winner.remeasured.round_medians_us.size(), reranked.ranked.size());
  } catch (const Error& e) {
    spdlog::warn("rerank stopped, nothing of it stored: {}", e.what());
  }
}

}  // namespace

void check_energy_readable(Objective objective, bool replay) {
  const std::string what =
      needs_energy(objective) ? std::string("--objective ") + to_string(objective) : std::string("--energy");
  if (replay) throw Error(what + " needs a GPU run: recorded sweeps hold no energy");
  if (const auto why = energy_unreadable_reason())
    throw Error(what + " reads the GPU's energy counter through NVML, which is not available: " + *why);
}

TuneSummary run_tune(const TuneOptions& options, const std::atomic<bool>* interrupt) {
  const auto started = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (options.time_limit_s > 0)
    deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(options.time_limit_s));
  if (needs_energy(options.objective) && !options.eval.measure_energy)
    throw Error(std::string("internal: --objective ") + to_string(options.objective) +
                " without measuring energy");
  if (options.eval.measure_energy) check_energy_readable(options.objective, options.replay_file.has_value());
  if (options.worker_command.empty()) throw Error("internal: no worker command");
  SearchSpace space = SearchSpace::load(options.space_file);
  if (!options.reference_config.empty()) {
    if (!space.reference_config())
      throw Error("--reference-config: " + space.name() + " has a reference kernel of its own");
    space.set_reference_config(override_config(*space.reference_config(), options.reference_config));
  }
  const Sizes sizes = space.resolve_problem(options.problem);
  std::optional<Store> store = open_existing(options.db_file);
  const std::unique_ptr<TuneTarget> target = find_target(options, space, sizes);
  // Error when the space's conditions exclude every config.
  std::uint64_t valid = 0;
  std::vector<Config> candidates =
      space.search_candidates(sizes, target->device(), options.seed, SearchSpace::kSearchSample, &valid);
  if (space.total_configs() > SearchSpace::kEnumerableCandidates)
    spdlog::info(
        "{} candidates, too many to enumerate: the search draws from {} of the {} valid configs (sampled "
        "with seed {}, the Seeds added)",
        space.total_configs(), candidates.size(), valid, options.seed);
  if (!store) store.emplace(options.db_file);

  RunPlan plan = plan_run(options, space, sizes, *target, *store, std::move(candidates));
  log_start(space, sizes, *target, plan);
  if (plan.nothing_to_do() && !options.remeasure_only) {
    spdlog::info("every valid config is measured already: nothing to do");
    plan.keys.run_id = begin_run(*store, plan, options);
    return finish_run(*store, plan, SearchLoop::Result{}, 0);
  }

  RunWorkers workers(options, space, sizes, plan.arch, *target, *store);
  plan.keys.run_id = begin_run(*store, plan, options);
  if (workers.reference_ms() > 0) store->save_reference_time(plan.keys.run_id, workers.reference_ms());
  if (workers.baseline()) store->save_baseline(plan.keys.run_id, *workers.baseline());
  save_gpu_states(*store, plan.keys.run_id, false, *target);
  const ClaimPolicy claims = claim_policy_from_environment();
  const RunContext run{space,
                       sizes,
                       target->device(),
                       *store,
                       workers.pool(),
                       workers.compiler(),
                       options,
                       plan.keys,
                       workers.reference_ms(),
                       extra_validation_rounds(space, sizes),
                       &workers.baseline()};
  SearchLoop::Result result;
  if (!options.remeasure_only) {
    const Heartbeat heartbeat(options.db_file.string(), plan.keys.run_id, claims.lease_s);
    SearchLoop loop(
        run, *plan.strategy, [&target] { return target->throttle_note(); }, claims);
    result = loop.run(plan.budget, std::min(plan.budget, plan.remaining()), workers.compile_window(),
                      interrupt, deadline);
  }
  rerank_after_search(run, options, interrupt, deadline, result);
  if (workers.baseline()) store->save_baseline(plan.keys.run_id, *workers.baseline());  // with its rerank
  if (const auto stats = workers.compile_stats()) store->save_compile_stats(plan.keys.run_id, *stats);
  store->save_worker_idle(plan.keys.run_id, static_cast<int>(workers.pool().size()), result.worker_idle_ms);
  save_gpu_states(*store, plan.keys.run_id, true, *target);
  TuneSummary summary = finish_run(*store, plan, result, workers.pool().restarts());
  summary.baseline = workers.baseline();
  return summary;
}

}  // namespace evotune
