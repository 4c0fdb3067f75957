// What the parts of a tuning run share once its workers are up: the problem, the device, the store, the
// workers and the compiler, the options and the run's rows. The search loop, the rerank and every variant's
// job read this one struct.
#pragma once

#include <optional>

#include "core/baseline.hpp"
#include "core/config.hpp"
#include "core/device_info.hpp"
#include "session/run_plan.hpp"
#include "session/tune_options.hpp"
#include "space/search_space.hpp"
#include "store/store.hpp"
#include "worker/worker_pool.hpp"

namespace evotune {

class VariantCompiler;

struct RunContext {
  const SearchSpace& space;
  const Sizes& sizes;
  const DeviceInfo& device;
  Store& store;
  WorkerPool& pool;
  VariantCompiler* compiler;  // null where the target needs no binaries (a replay)
  const TuneOptions& options;
  RunKeys keys;
  double reference_ms;
  int extra_rounds = 0;  // extra_validation_rounds(space, sizes): the job deadline counts them
  // The space's library baseline, where the run timed one: the rerank re-times it in every round beside the
  // configs (its best algorithm) and sets reranked_us. Null where there is none to re-time.
  std::optional<BaselineTiming>* baseline = nullptr;
};

}  // namespace evotune
