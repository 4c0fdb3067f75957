// run_tune: the only place that sees every layer (space, generator, compiler, workers, store, strategy).
#include "session/tune_session.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "compile/compiler.hpp"
#include "core/error.hpp"
#include "eval/device_query.hpp"
#include "replay/recorded_sweep.hpp"
#include "session/search_loop.hpp"
#include "session/variant_compiler.hpp"
#include "session/worker_setup.hpp"
#include "space/search_space.hpp"
#include "strategy/strategy.hpp"
#include "worker/worker_pool.hpp"

namespace evotune {
namespace {

// Where the variants run: GPU workers, or replay workers answering from a recorded sweep.
struct Target {
  DeviceInfo device;
  std::string nvrtc_version;
  std::vector<int> ordinals;           // GPUs; empty for replay
  std::optional<RecordedSweep> sweep;  // replay
};

Target find_target(const TuneOptions& options, const SearchSpace& space, const Sizes& sizes) {
  Target target;
  if (options.replay_file) {
    target.sweep = load_sweep(*options.replay_file);
    if (target.sweep->space_name != space.name())
      throw Error("--replay " + options.replay_file->string() + " records space '" +
                  target.sweep->space_name + "', not '" + space.name() + "'");
    if (target.sweep->problem != sizes)
      throw Error("--replay " + options.replay_file->string() + " records problem " +
                  key_value_text(target.sweep->problem) + ", not " + key_value_text(sizes) +
                  " (pass --problem " + key_value_text(target.sweep->problem) + ")");
    target.device = target.sweep->device;
    target.nvrtc_version = target.sweep->nvrtc_version;
    return target;
  }
  const int count = gpu_count();
  if (count == 0)
    throw Error("evotune tune needs a GPU: " + no_gpu_reason() + " (or pass --replay FILE)");
  target.ordinals = parse_device_list(options.devices, count);
  target.device = common_device(target.ordinals);
  target.nvrtc_version = Compiler::nvrtc_version();
  return target;
}

std::map<std::string, std::vector<ParamValue>> parameter_values(const SearchSpace& space) {
  std::map<std::string, std::vector<ParamValue>> values;
  for (const auto& parameter : space.parameters()) values[parameter.name] = parameter.values;
  return values;
}

std::vector<PastResult> history(const Store& store, std::int64_t space_id, std::int64_t problem_id,
                                std::int64_t device_id) {
  std::vector<PastResult> past;
  for (const auto& result : store.best(space_id, problem_id, device_id, 0, true))
    past.push_back({result.params, result.status,
                    result.timing ? std::optional<double>(result.timing->median_us) : std::nullopt});
  return past;
}

int compile_thread_count(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

TuneSummary run_tune(const TuneOptions& options, const std::atomic<bool>* interrupt) {
  const SearchSpace space = SearchSpace::load(options.space_file);
  const Sizes sizes = space.resolve_problem(options.problem);
  // An existing database is checked before anything else; a new one is created only once the run can start.
  std::optional<Store> opened;
  if (std::filesystem::exists(options.db_file)) opened.emplace(options.db_file);
  const Target target = find_target(options, space, sizes);
  StrategyInput input;
  input.candidates = space.enumerate(sizes, target.device);  // Error when the conditions exclude every config
  if (!opened) opened.emplace(options.db_file);
  Store& store = *opened;
  if (options.worker_command.empty()) throw Error("internal: no worker command");
  const bool replay = target.sweep.has_value();
  const std::string arch = target.device.arch() + space.arch_suffix();

  input.parameter_values = parameter_values(space);
  input.seed = options.seed;
  input.patience = options.patience;

  const std::int64_t space_id =
      store.upsert_space(space.name(), space.path().string(), space.hash(), space.json_text());
  const std::int64_t problem_id = store.upsert_problem(sizes);
  const std::int64_t device_id = store.upsert_device(target.device, target.nvrtc_version);
  input.already_measured = store.measured_configs(space_id, problem_id, device_id);
  input.history = history(store, space_id, problem_id, device_id);
  TuneSummary summary;
  summary.candidates = static_cast<std::int64_t>(input.candidates.size());
  for (const auto& config : input.candidates)
    if (input.already_measured.contains(canonical_json(config))) ++summary.skipped;
  const std::int64_t remaining = summary.candidates - summary.skipped;
  const std::int64_t budget = options.budget.value_or(space.default_budget().value_or(remaining));
  if (budget <= 0 && options.budget) throw Error("--budget must be positive");
  auto strategy = make_strategy(options.strategy, std::move(input));

  const std::string where = replay ? "replay of " + options.replay_file->string()
                                   : std::to_string(target.ordinals.size()) + " GPU worker(s)";
  spdlog::info(
      "space {} ({}), problem {}, device {} ({}), {}; {} valid configs, {} already measured, budget {}",
      space.name(), space.hash(), key_value_text(sizes), target.device.name, arch, where, summary.candidates,
      summary.skipped, budget);
  if (const std::string start = strategy->describe_start(); !start.empty()) spdlog::info("{}", start);

  RunStart run{space_id, problem_id, device_id, options.strategy, options.seed, budget, options.command_line};
  if (remaining == 0 || budget == 0) {
    spdlog::info("every valid config is measured already: nothing to do");
    summary.run_id = store.begin_run(run);
    summary.stop_reason = "finished";
    store.finish_run(summary.run_id, "finished", 0, 0);
    summary.top = store.best(space_id, problem_id, device_id, 5, false);
    return summary;
  }

  const Compiler compiler(cuda_include_dirs());
  CompileService compile_service(compiler, compile_thread_count(options.compile_threads),
                                 CompileService::child_command_for(options.worker_command.at(0)));
  VariantCompiler variants(space, sizes, arch, compiler, compile_service, &store);
  std::vector<WorkerSetup> setups;
  if (replay) {
    setups = replay_worker_setups(*options.replay_file, options.replay_delay_ms,
                                  std::max(1, options.replay_workers));
  } else {
    const CompiledVariant reference = variants.compile_reference();
    if (reference.result.status != Status::ok)
      throw Error("the reference kernel " + space.reference().file.string() +
                  " does not compile: " + reference.result.message);
    setups = gpu_worker_setups(
        target.ordinals, space.buffers(sizes),
        CompiledKernel{reference.result.cubin, space.reference_launch(sizes, target.device)},
        space.tolerances(), options.eval, compiler.include_dirs());
  }
  WorkerPool pool(options.worker_command, std::move(setups));
  const double reference_ms = pool.ready(0).reference_ms;
  if (!replay) spdlog::info("reference kernel: {:.3f} ms per launch", reference_ms);

  summary.run_id = store.begin_run(run);
  SearchLoop::Context context{space,
                              sizes,
                              target.device,
                              store,
                              *strategy,
                              pool,
                              replay ? nullptr : &variants,
                              options,
                              {space_id, problem_id, device_id, summary.run_id},
                              reference_ms};
  SearchLoop loop(context);
  const SearchLoop::Result result =
      loop.run(budget, std::min(budget, remaining),
               static_cast<std::size_t>(compile_thread_count(options.compile_threads)), interrupt);
  summary.stop_reason = result.stop_reason;
  if (summary.stop_reason == "finished" && result.proposed >= budget && result.proposed < remaining)
    summary.stop_reason = "budget";
  summary.evaluated = result.evaluated;
  summary.failed = result.failed;
  summary.seconds = result.seconds;
  summary.worker_restarts = pool.restarts();
  const bool clean = summary.stop_reason == "finished" || summary.stop_reason == "budget";
  store.finish_run(summary.run_id,
                   clean ? "finished" : (summary.stop_reason == "interrupted" ? "interrupted" : "failed"),
                   summary.evaluated, summary.failed);
  summary.top = store.best(space_id, problem_id, device_id, 5, false);
  return summary;
}

}  // namespace evotune
