// The processes that evaluate a run's variants: the compile pipeline (where the target runs binaries) and
// the worker pool.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "compile/compile_service.hpp"
#include "compile/compiler.hpp"
#include "core/baseline.hpp"
#include "session/tune_options.hpp"
#include "session/tune_target.hpp"
#include "session/variant_compiler.hpp"
#include "space/search_space.hpp"
#include "store/store.hpp"
#include "worker/worker_pool.hpp"

namespace evotune {

class RunWorkers {
 public:
  // Starts the compilers (persistent processes, started on their first compile) and the workers, and waits
  // until every worker is ready; Error when one cannot set up. Variants compile for `arch`, through the
  // store's compile cache.
  RunWorkers(const TuneOptions& options, const SearchSpace& space, const Sizes& sizes,
             const std::string& arch, const TuneTarget& target, Store& store);

  WorkerPool& pool() { return *pool_; }
  // The compile service's figures so far; none where the target compiles nothing (replay).
  std::optional<CompileStats> compile_stats() const;
  // Null where the target needs no binaries.
  VariantCompiler* compiler() { return variants_.get(); }
  // The reference kernel's time per launch as the first worker measured it; 0 where there is none.
  double reference_ms() const { return reference_ms_; }
  // The space's library baseline, timed once the workers were ready (session/baseline_jobs.hpp); none
  // without one, where it failed or on a replay. The rerank re-times it (reranked_us).
  std::optional<BaselineTiming>& baseline() { return baseline_; }
  // How many configs to keep compiling ahead of the workers: one per compile thread.
  std::size_t compile_window() const { return static_cast<std::size_t>(compile_threads_); }

 private:
  int compile_threads_;
  std::unique_ptr<const Compiler> compiler_;
  std::unique_ptr<CompileService> service_;
  std::unique_ptr<VariantCompiler> variants_;
  std::unique_ptr<WorkerPool> pool_;
  double reference_ms_ = 0;
  std::optional<BaselineTiming> baseline_;
};

}  // namespace evotune
