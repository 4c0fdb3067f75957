// ReplayObjective: answers "evaluate this config" from a recorded sweep instead of the GPU.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "core/config.hpp"
#include "core/outcome.hpp"
#include "replay/recorded_sweep.hpp"

namespace evotune {

class ReplayObjective {
 public:
  explicit ReplayObjective(const RecordedSweep& sweep);

  // The recorded outcome (status, message, timing); a launch_error "not in the recorded sweep: ..." for a
  // config the sweep does not hold.
  Outcome evaluate(const Config& config) const;
  bool contains(const Config& config) const { return outcomes_.contains(canonical_json(config)); }
  // The fastest ok median; nullopt when no recorded result is ok.
  std::optional<double> best_time_us() const { return best_us_; }
  std::size_t size() const { return outcomes_.size(); }

 private:
  std::map<std::string, Outcome> outcomes_;  // by canonical_json(params)
  std::optional<double> best_us_;
};

}  // namespace evotune
