// ReplayObjective: a lookup by canonical config text, and the fastest ok time.
#include "replay/replay_objective.hpp"

namespace evotune {

ReplayObjective::ReplayObjective(const RecordedSweep& sweep) {
  for (const auto& result : sweep.results) {
    Outcome outcome;
    outcome.status = result.status;
    outcome.message = result.message;
    outcome.timing = result.timing;
    if (outcome.status == Status::ok && outcome.timing &&
        (!best_us_ || outcome.timing->median_us < *best_us_))
      best_us_ = outcome.timing->median_us;
    outcomes_.emplace(canonical_json(result.params), std::move(outcome));
  }
}

Outcome ReplayObjective::evaluate(const Config& config) const {
  const std::string key = canonical_json(config);
  if (const auto found = outcomes_.find(key); found != outcomes_.end()) return found->second;
  Outcome missing;
  missing.status = Status::launch_error;
  missing.message = "not in the recorded sweep: " + key;
  return missing;
}

}  // namespace evotune
