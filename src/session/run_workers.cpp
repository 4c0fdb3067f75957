// Starting a run's compilers and workers.
#include "session/run_workers.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

#include "session/baseline_jobs.hpp"

namespace evotune {
namespace {

int compile_thread_count(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

RunWorkers::RunWorkers(const TuneOptions& options, const SearchSpace& space, const Sizes& sizes,
                       const std::string& arch, const TuneTarget& target, Store& store)
    : compile_threads_(compile_thread_count(options.compile_threads)) {
  if (target.compiles_variants()) {
    compiler_ = std::make_unique<const Compiler>(cuda_include_dirs());
    service_ = std::make_unique<CompileService>(
        *compiler_, compile_threads_, CompileService::child_command_for(options.worker_command.at(0)));
    variants_ = std::make_unique<VariantCompiler>(space, sizes, arch, *compiler_, *service_, &store);
  }
  pool_ = std::make_unique<WorkerPool>(options.worker_command, target.worker_setups(variants_.get()));
  reference_ms_ = pool_->ready(0).reference_ms;
  if (const std::string ready = target.describe_ready(reference_ms_); !ready.empty())
    spdlog::info("{}", ready);
  if (target.compiles_variants() && space.baseline(sizes)) {
    baseline_ = time_baseline(*pool_, options.eval, options.seed);
    if (baseline_)
      spdlog::info(
          "baseline {}: {:.1f} us (the heuristic's first algorithm), {:.1f} us (the best of its {}: #{}), {}",
          baseline_->library, baseline_->heuristic_us, baseline_->best_us, baseline_->algorithms,
          baseline_->best_index, baseline_->timing_mode);
  }
}

std::optional<CompileStats> RunWorkers::compile_stats() const {
  if (!service_) return std::nullopt;
  return service_->stats();
}

}  // namespace evotune
