// The replay target: workers answer from a recorded sweep (evotune record) instead of a GPU; no compiles.
#include <algorithm>

#include "core/error.hpp"
#include "replay/recorded_sweep.hpp"
#include "replay/sweep_match.hpp"
#include "session/tune_target.hpp"
#include "session/worker_setup.hpp"

namespace evotune {
namespace {

class ReplayTarget final : public TuneTarget {
 public:
  ReplayTarget(const RecordedSweep& sweep, const TuneOptions& options)
      : TuneTarget(sweep.device, sweep.nvrtc_version), options_(options) {}

  bool compiles_variants() const override { return false; }

  std::string where() const override { return "replay of " + options_.replay_file->string(); }

  std::vector<WorkerSetup> worker_setups(VariantCompiler* /*compiler*/) const override {
    return replay_worker_setups(*options_.replay_file, options_.replay_delay_ms,
                                std::max(1, options_.replay_workers));
  }

  std::string describe_ready(double /*reference_ms*/) const override { return {}; }

 private:
  const TuneOptions& options_;
};

}  // namespace

std::unique_ptr<TuneTarget> replay_target(const TuneOptions& options, const SearchSpace& space,
                                          const Sizes& sizes) {
  const std::string file = options.replay_file->string();
  RecordedSweep sweep = load_sweep(*options.replay_file);
  sweep.problem = space.complete_problem(sweep.problem);  // recorded before a size with a default was added
  check_sweep_matches(sweep, "--replay " + file, space.name(), space.hash(), &sizes);
  return std::make_unique<ReplayTarget>(sweep, options);
}

}  // namespace evotune
