// The transfer benchmark: each sweep in turn is the target, the others are the problems tuned before it.
#include "bench/transfer_bench.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "replay/replay_objective.hpp"
#include "replay/sweep_match.hpp"
#include "space/shape_transfer.hpp"
#include "strategy/strategy_table.hpp"

namespace evotune {
namespace {

// The ok results of every sweep but `target`, as the store's per-problem times.
std::vector<ProblemTime> other_problems_times(const std::vector<RecordedSweep>& sweeps, std::size_t target) {
  std::vector<ProblemTime> times;
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    if (i == target) continue;
    for (const RecordedResult& result : sweeps[i].results)
      if (result.status == Status::ok && result.timing)
        times.push_back({sweeps[i].problem, 0, result.params, result.timing->median_us});
  }
  return times;
}

std::vector<ThresholdStats> bench_seeds(const std::string& strategy, const StrategyInput& input,
                                        const ReplayObjective& replay, double best_us,
                                        const TransferOptions& options) {
  std::vector<BenchRun> runs;
  for (int seed = 1; seed <= options.seeds; ++seed) {
    StrategyInput seeded = input;
    seeded.seed = static_cast<std::uint64_t>(seed);
    const auto search = make_strategy(strategy, std::move(seeded));
    runs.push_back(run_replay(*search, replay, best_us, static_cast<std::int64_t>(input.candidates.size()),
                              options.in_flight, options.thresholds));
  }
  return summarize(runs, options.thresholds);
}

}  // namespace

std::vector<TransferRow> bench_transfer(const SearchSpace& space, const std::vector<RecordedSweep>& sweeps,
                                        const TransferOptions& options) {
  if (sweeps.size() < 2) throw Error("the transfer benchmark needs sweeps of at least two problems");
  if (options.seeds <= 0) throw Error("--seeds must be positive");
  const std::vector<std::string> strategies = checked_strategies(options.strategies);
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    check_sweep_matches(sweeps[i], "sweep " + std::to_string(i + 1), space.name(), space.hash(), nullptr);
    for (std::size_t j = 0; j < i; ++j)
      if (sweeps[j].problem == sweeps[i].problem)
        throw Error("two sweeps of the problem " + key_value_text(sweeps[i].problem));
  }
  std::vector<TransferRow> rows;
  for (std::size_t target = 0; target < sweeps.size(); ++target) {
    const RecordedSweep& sweep = sweeps[target];
    const ReplayObjective replay(sweep);
    const StrategyInput cold = sweep_strategy_input(space, sweep);
    std::optional<double> best;
    for (const Config& config : cold.candidates)
      if (const auto time = objective(replay.evaluate(config)); time && (!best || *time < *best)) best = time;
    if (!best) throw Error("the sweep of " + key_value_text(sweep.problem) + " has no ok valid config");
    StrategyInput warm = cold;
    for (Config& config : transfer_configs(other_problems_times(sweeps, target), sweep.problem,
                                           options.problems, options.per_problem))
      if (std::find(cold.candidates.begin(), cold.candidates.end(), config) != cold.candidates.end())
        warm.transferred.push_back(std::move(config));
    for (const std::string& strategy : strategies) {
      TransferRow& row = rows.emplace_back();
      row.problem = sweep.problem;
      row.strategy = strategy;
      row.valid_configs = static_cast<std::int64_t>(cold.candidates.size());
      row.best_us = *best;
      row.transferred = warm.transferred.size();
      row.cold = bench_seeds(strategy, cold, replay, *best, options);
      row.transfer = bench_seeds(strategy, warm, replay, *best, options);
    }
  }
  return rows;
}

}  // namespace evotune
