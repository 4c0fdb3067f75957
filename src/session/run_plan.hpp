// Planning a tuning run before any worker starts: its rows in the store, the strategy with what the store
// knows, and the budget.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "session/tune_options.hpp"
#include "session/tune_target.hpp"
#include "space/search_space.hpp"
#include "store/store.hpp"
#include "strategy/strategy.hpp"

namespace evotune {

// The rows a run's measurements are stored under.
struct RunKeys {
  std::int64_t space_id = 0, problem_id = 0, device_id = 0;
  std::int64_t run_id = 0;  // 0 until the run begins
};

struct RunPlan {
  RunKeys keys;
  std::string arch;             // what variants compile for: the device's, with the space's suffix
  std::int64_t candidates = 0;  // valid configs for this problem and device
  std::int64_t skipped = 0;     // of them, measured before this run
  std::int64_t budget = 0;      // configs to propose in this run
  std::unique_ptr<Strategy> strategy;

  std::int64_t remaining() const { return candidates - skipped; }
  // Every valid config is measured already: the run begins and finishes at once.
  bool nothing_to_do() const { return remaining() == 0 || budget == 0; }
};

// Upserts the space, problem and device, reads what was measured before and makes the strategy over
// `candidates` (the space's valid configs for the target's device). Error for a non-positive --budget.
RunPlan plan_run(const TuneOptions& options, const SearchSpace& space, const Sizes& sizes,
                 const TuneTarget& target, Store& store, std::vector<Config> candidates);

}  // namespace evotune
