// The strategy benchmark's loop: propose ahead, observe in order, count evaluations to each threshold.
#include "bench/strategy_bench.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "core/error.hpp"
#include "replay/sweep_match.hpp"
#include "strategy/strategy_table.hpp"

namespace evotune {
namespace {

// Linear interpolation between the order statistics of `sorted` (infinity for never); nullopt: infinite.
std::optional<double> quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::nullopt;
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto low = static_cast<std::size_t>(std::floor(h));
  const double fraction = h - static_cast<double>(low);
  const double a = sorted[low];
  if (fraction == 0) return std::isinf(a) ? std::nullopt : std::optional<double>(a);
  const double b = sorted[low + 1];
  if (std::isinf(a) || std::isinf(b)) return std::nullopt;
  return a + fraction * (b - a);
}

Sizes sweep_sizes(const SearchSpace& space, const RecordedSweep& sweep) {
  try {
    return space.resolve_problem(key_value_text(sweep.problem));
  } catch (const Error& e) {
    throw Error("the sweep's problem " + key_value_text(sweep.problem) + " does not fit " + space.name() +
                ": " + e.what());
  }
}

}  // namespace

std::vector<std::string> checked_strategies(std::vector<std::string> names) {
  if (names.empty())
    for (const StrategyEntry& entry : strategy_table())
      if (entry.benchmarked) names.emplace_back(entry.name);
  for (const auto& name : names) find_strategy(name);
  return names;
}

StrategyInput sweep_strategy_input(const SearchSpace& space, const RecordedSweep& sweep) {
  StrategyInput input;
  input.candidates = space.enumerate(sweep_sizes(space, sweep), sweep.device);
  for (const auto& parameter : space.parameters()) input.parameter_values[parameter.name] = parameter.values;
  return input;
}

BenchRun run_replay(Strategy& strategy, const ReplayObjective& replay, double best_us, std::int64_t budget,
                    std::size_t in_flight, const std::vector<double>& thresholds) {
  BenchRun run;
  run.reached.assign(thresholds.size(), std::nullopt);
  std::size_t open = thresholds.size();
  std::deque<Config> pending;
  std::int64_t proposed = 0;
  std::optional<double> best_so_far;
  while (open > 0) {
    while (proposed < budget && pending.size() < std::max<std::size_t>(in_flight, 1)) {
      auto config = strategy.next();
      if (!config) break;
      pending.push_back(std::move(*config));
      ++proposed;
    }
    if (pending.empty()) break;
    const Config config = std::move(pending.front());
    pending.pop_front();
    const Outcome outcome = replay.evaluate(config);
    ++run.evaluations;
    strategy.observe(config, outcome);
    if (const auto time = objective(outcome); time && (!best_so_far || *time < *best_so_far))
      best_so_far = time;
    if (!best_so_far) continue;
    for (std::size_t i = 0; i < thresholds.size(); ++i) {
      if (run.reached[i] || *best_so_far > (1 + thresholds[i]) * best_us) continue;
      run.reached[i] = run.evaluations;
      --open;
    }
  }
  return run;
}

std::vector<ThresholdStats> summarize(const std::vector<BenchRun>& runs,
                                      const std::vector<double>& thresholds) {
  std::vector<ThresholdStats> stats;
  for (std::size_t i = 0; i < thresholds.size(); ++i) {
    ThresholdStats& threshold = stats.emplace_back();
    threshold.threshold = thresholds[i];
    std::vector<double> evaluations;
    for (const auto& run : runs) {
      const auto& reached = run.reached.at(i);
      if (reached) ++threshold.reached;
      evaluations.push_back(reached ? static_cast<double>(*reached)
                                    : std::numeric_limits<double>::infinity());
    }
    std::sort(evaluations.begin(), evaluations.end());
    threshold.q1 = quantile(evaluations, 0.25);
    threshold.median = quantile(evaluations, 0.5);
    threshold.q3 = quantile(evaluations, 0.75);
  }
  return stats;
}

BenchReport bench_strategies(const SearchSpace& space, const RecordedSweep& sweep, BenchOptions options) {
  check_sweep_matches(sweep, "the sweep", space.name(), space.hash(), nullptr);
  options.strategies = checked_strategies(std::move(options.strategies));
  if (options.seeds <= 0) throw Error("--seeds must be positive");
  const ReplayObjective replay(sweep);
  const StrategyInput input = sweep_strategy_input(space, sweep);

  BenchReport report;
  report.valid_configs = static_cast<std::int64_t>(input.candidates.size());
  std::optional<double> best;
  for (const auto& config : input.candidates) {
    if (!replay.contains(config)) ++report.unrecorded;
    const auto time = objective(replay.evaluate(config));
    if (time && (!best || *time < *best)) best = time;
  }
  if (!best)
    throw Error("none of the " + std::to_string(report.valid_configs) + " valid configs of " + space.name() +
                " has an ok result in the sweep: there is no best to aim for");
  if (report.unrecorded > 0)
    spdlog::warn("{} of {} valid configs are not in the sweep: they replay as failures", report.unrecorded,
                 report.valid_configs);
  if (*best > replay.best_time_us().value_or(*best))
    spdlog::warn(
        "the sweep's fastest result ({} us) is not a valid config of this space version; the target "
        "is the fastest valid one ({} us)",
        *replay.best_time_us(), *best);
  report.best_us = *best;
  report.budget = options.budget.value_or(report.valid_configs);
  if (report.budget <= 0) throw Error("--budget must be positive");
  options.budget = report.budget;

  for (const auto& name : options.strategies) {
    StrategyBench& bench = report.strategies.emplace_back();
    bench.strategy = name;
    for (int seed = 1; seed <= options.seeds; ++seed) {
      StrategyInput seeded = input;
      seeded.seed = static_cast<std::uint64_t>(seed);
      const auto strategy = make_strategy(name, std::move(seeded));
      BenchRun& run = bench.runs.emplace_back(run_replay(*strategy, replay, report.best_us, report.budget,
                                                         options.in_flight, options.thresholds));
      run.seed = static_cast<std::uint64_t>(seed);
    }
    bench.stats = summarize(bench.runs, options.thresholds);
  }
  report.options = std::move(options);
  return report;
}

}  // namespace evotune
