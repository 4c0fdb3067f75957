// Strategy: picks the next config to evaluate. Never sees CUDA; learns only through observe().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/outcome.hpp"

namespace evotune {

class Strategy {
 public:
  virtual ~Strategy() = default;
  // The next config to evaluate, or nullopt when the strategy has nothing left to propose.
  virtual std::optional<Config> next() = 0;
  // The outcome of a config this strategy proposed.
  virtual void observe(const Config& /*config*/, const Outcome& /*outcome*/) {}
  // Whether next() may be called again before the outcomes of earlier proposals are observed
  // (lets the session compile ahead).
  virtual bool proposes_ahead() const { return true; }
};

// What every strategy starts from: the valid configs of the space for this problem and device, and the
// canonical text (canonical_json) of those already measured for the same space, problem and device.
struct StrategyInput {
  std::vector<Config> candidates;
  std::set<std::string> already_measured;
  std::uint64_t seed = 0;
};

// "exhaustive" or "random"; throws Error for another name.
std::unique_ptr<Strategy> make_strategy(const std::string& name, StrategyInput input);
const std::vector<std::string>& strategy_names();

}  // namespace evotune
