// run_tune: the only place that sees every layer (space, generator, compiler, evaluator, store, strategy).
#include "session/tune_session.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "compile/compiler.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "cuda/driver.hpp"
#include "cuda/resources.hpp"
#include "session/progress.hpp"
#include "session/variant_compiler.hpp"
#include "space/search_space.hpp"
#include "strategy/strategy.hpp"

namespace evotune {
namespace {

std::uint64_t validation_seed(std::uint64_t run_seed, const Config& config) {
  return fnv1a64(canonical_json(config), 0x9e3779b97f4a7c15ULL ^ run_seed);
}

Outcome compile_failure(const CompiledVariant& variant) {
  Outcome outcome;
  outcome.status = variant.result.status;
  outcome.message = variant.result.message;
  outcome.compile = variant.result.info;
  return outcome;
}

std::string short_label(const Config& config) {
  std::string label;
  for (const auto& [name, value] : config)
    label += (label.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return label;
}

int compile_thread_count(int requested) {
  if (requested > 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

TuneSummary run_tune(const TuneOptions& options, const std::atomic<bool>* interrupt) {
  const SearchSpace space = SearchSpace::load(options.space_file);
  const Sizes sizes = space.resolve_problem(options.problem);
  if (cuda::device_count() == 0) throw Error("evotune tune needs a GPU: " + cuda::no_device_reason());

  Store store(options.db_file);
  const Compiler compiler(cuda_include_dirs());
  const DeviceInfo device = cuda::query_device(options.device);
  const std::string arch = device.arch() + space.arch_suffix();

  const std::int64_t space_id =
      store.upsert_space(space.name(), space.path().string(), space.hash(), space.json_text());
  const std::int64_t problem_id = store.upsert_problem(sizes);
  const std::int64_t device_id = store.upsert_device(device, Compiler::nvrtc_version());

  StrategyInput input;
  input.candidates = space.enumerate(sizes, device);
  input.already_measured = store.measured_configs(space_id, problem_id, device_id);
  input.seed = options.seed;
  TuneSummary summary;
  summary.candidates = static_cast<std::int64_t>(input.candidates.size());
  for (const auto& config : input.candidates)
    if (input.already_measured.contains(canonical_json(config))) ++summary.skipped;
  const std::int64_t remaining = summary.candidates - summary.skipped;
  const std::int64_t budget = options.budget.value_or(space.default_budget().value_or(remaining));
  if (budget <= 0) throw Error("--budget must be positive");
  auto strategy = make_strategy(options.strategy, std::move(input));

  spdlog::info("space {} ({}), problem {}, device {} ({}), {} valid configs, {} already measured, budget {}",
               space.name(), space.hash(), key_value_text(sizes), device.name, arch, summary.candidates,
               summary.skipped, budget);

  VariantCompiler variants(space, sizes, arch, compiler, &store);
  const CompiledVariant reference = variants.compile_reference();
  if (reference.result.status != Status::ok)
    throw Error("the reference kernel " + space.reference().file.string() +
                " does not compile: " + reference.result.message);
  GpuEvaluator evaluator(options.device, space.buffers(sizes),
                         CompiledKernel{reference.result.cubin, space.reference_launch(sizes, device)},
                         space.tolerances(), options.eval);

  RunStart run{space_id, problem_id, device_id, options.strategy, options.seed, budget, options.command_line};
  summary.run_id = store.begin_run(run);
  const double flops = space.flops(sizes);
  const double bytes = space.bytes(sizes);
  const std::size_t window = static_cast<std::size_t>(compile_thread_count(options.compile_threads));
  const bool ahead = true;
  std::int64_t proposed = 0;
  auto refill = [&] {
    while (proposed < budget && variants.pending() < (ahead ? window : 1)) {
      auto config = strategy->next();
      if (!config) return;
      variants.submit(*config);
      ++proposed;
    }
  };

  Progress progress(std::min(budget, remaining), isatty(STDERR_FILENO) != 0);
  std::optional<double> best_us;
  summary.stop_reason = "finished";
  for (refill(); auto variant = variants.take(); refill()) {
    if (interrupt && interrupt->load()) {
      summary.stop_reason = "interrupted";
      break;
    }
    Outcome outcome;
    if (variant->result.status != Status::ok) {
      outcome = compile_failure(*variant);
    } else {
      const LaunchSpec launch = space.variant_launch(variant->config, sizes, device);
      outcome = evaluator.evaluate(CompiledKernel{variant->result.cubin, launch},
                                   validation_seed(options.seed, variant->config));
      outcome.compile = variant->result.info;
    }
    MeasurementRecord record{summary.run_id,      store.upsert_config(space_id, variant->config),
                             problem_id,          device_id,
                             variant->compile_id, outcome};
    if (outcome.timing && outcome.timing->median_us > 0) {
      record.tflops = flops / (outcome.timing->median_us * 1e-6) / 1e12;
      record.gbps = bytes / (outcome.timing->median_us * 1e-6) / 1e9;
    }
    store.record_measurement(record);
    const bool ok = outcome.status == Status::ok;
    const bool improved = ok && (!best_us || outcome.timing->median_us < *best_us);
    if (improved) best_us = outcome.timing->median_us;
    if (!ok)
      spdlog::debug("{}: {} {}", short_label(variant->config), to_string(outcome.status), outcome.message);
    progress.update(ok, improved ? best_us : std::nullopt, improved ? short_label(variant->config) : "");
    if (!evaluator.healthy()) {
      summary.stop_reason = "the GPU context is unusable after " + short_label(variant->config) + " (" +
                            std::string(to_string(outcome.status)) + "): " + evaluator.unhealthy_reason();
      summary.gpu_unusable = true;
      break;
    }
  }
  progress.finish();
  if (summary.stop_reason == "finished" && proposed >= budget && proposed < remaining)
    summary.stop_reason = "budget";
  summary.evaluated = progress.done();
  summary.failed = progress.failed();
  const bool clean = summary.stop_reason == "finished" || summary.stop_reason == "budget";
  store.finish_run(summary.run_id,
                   clean ? "finished" : (summary.stop_reason == "interrupted" ? "interrupted" : "failed"),
                   summary.evaluated, summary.failed);
  summary.top = store.best(space_id, problem_id, device_id, 5, false);
  return summary;
}

}  // namespace evotune
