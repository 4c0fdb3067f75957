// Transfer benchmark: on recorded sweeps of one space at several problems, how many evaluations a strategy
// needs to come near each problem's best when it starts cold against when it starts from the best configs of
// the nearest other problems (as `tune --problems` seeds it), over seeds. Needs no GPU, database or compiler.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench/strategy_bench.hpp"
#include "replay/recorded_sweep.hpp"
#include "space/search_space.hpp"

namespace evotune {

struct TransferOptions {
  std::vector<std::string> strategies{"evolve", "anneal"};  // those that use transferred configs
  int seeds = 20;
  std::size_t in_flight = 16;
  std::vector<double> thresholds{0.01, 0.02, 0.05};
  std::size_t problems = 2;     // nearest other problems to take configs from, as `tune`
  std::size_t per_problem = 8;  // their fastest configs each
};

struct TransferRow {
  Sizes problem;
  std::string strategy;
  std::int64_t valid_configs = 0;
  double best_us = 0;
  std::size_t transferred = 0;           // configs seeded from the other problems (valid here)
  std::vector<ThresholdStats> cold;      // one per threshold
  std::vector<ThresholdStats> transfer;  // one per threshold
};

// One row per sweep and strategy, in the sweeps' order. Throws Error for fewer than two sweeps, a sweep of
// another space, two sweeps of one problem, an unknown strategy, or a sweep with no ok valid config.
std::vector<TransferRow> bench_transfer(const SearchSpace& space, const std::vector<RecordedSweep>& sweeps,
                                        const TransferOptions& options);

}  // namespace evotune
