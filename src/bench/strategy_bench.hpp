// Strategy benchmark: runs search strategies against a recorded sweep in-process (no GPU, database or
// compiler) and counts the evaluations each needs to come within 1%, 2% and 5% of the recorded best.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "replay/recorded_sweep.hpp"
#include "replay/replay_objective.hpp"
#include "space/search_space.hpp"
#include "strategy/strategy.hpp"

namespace evotune {

struct BenchOptions {
  std::vector<std::string> strategies;  // empty: the strategy table's benchmarked ones
  int seeds = 20;                       // each strategy runs with seeds 1..seeds
  std::optional<std::int64_t> budget;   // evaluations per run; default: every valid config
  std::size_t in_flight = 16;  // proposals taken before the oldest is observed, as the compile-ahead window
  std::vector<double> thresholds{0.01, 0.02, 0.05};
};

// One run of a strategy with one seed. reached[i]: evaluations until the best so far was within
// (1 + thresholds[i]) of the best; nullopt: never, within the budget.
struct BenchRun {
  std::uint64_t seed = 0;
  std::int64_t evaluations = 0;  // evaluated before it stopped (a run stops once every threshold is reached)
  std::vector<std::optional<std::int64_t>> reached;
};

// Over the seeds, a seed that never reached the threshold counting as infinitely many evaluations; a
// quartile that falls on such seeds is nullopt (infinite).
struct ThresholdStats {
  double threshold = 0;
  int reached = 0;  // seeds that reached it
  std::optional<double> q1, median, q3;
};

struct StrategyBench {
  std::string strategy;
  std::vector<BenchRun> runs;         // one per seed
  std::vector<ThresholdStats> stats;  // one per threshold
};

struct BenchReport {
  std::int64_t valid_configs = 0;  // the space's candidates for the sweep's problem and device
  std::int64_t unrecorded = 0;     // candidates the sweep does not hold: they replay as failures
  double best_us = 0;              // the fastest ok time among the candidates: the target
  std::int64_t budget = 0;
  BenchOptions options;  // as run: strategies and budget filled in
  std::vector<StrategyBench> strategies;
};

// Proposes up to `in_flight` configs ahead, observes them oldest first with their replayed outcomes, and
// stops at the budget, when the strategy has nothing left to propose, or once every threshold is reached.
BenchRun run_replay(Strategy& strategy, const ReplayObjective& replay, double best_us, std::int64_t budget,
                    std::size_t in_flight, const std::vector<double>& thresholds);

// Quartiles (linear interpolation between order statistics) of the runs' evaluations to each threshold.
std::vector<ThresholdStats> summarize(const std::vector<BenchRun>& runs,
                                      const std::vector<double>& thresholds);

// What a strategy starts from on the sweep's problem and device, as `tune` would give it with no history:
// the space's valid configs and the parameters' values. Throws Error when the sweep's problem does not fit.
StrategyInput sweep_strategy_input(const SearchSpace& space, const RecordedSweep& sweep);

// The strategy table's benchmarked strategies when `names` is empty; Error for an unknown one.
std::vector<std::string> checked_strategies(std::vector<std::string> names);

// Runs every strategy with every seed against the sweep. Throws Error for an unknown strategy, a sweep of
// another space, or a sweep with no ok result among the valid configs.
BenchReport bench_strategies(const SearchSpace& space, const RecordedSweep& sweep, BenchOptions options);

}  // namespace evotune
