// The strategy benchmark: evaluations counted to each threshold, the propose-ahead window, quartiles with
// seeds that never got there, and the checks of strategies and sweep.
#include "bench/strategy_bench.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "replay/sweep_fixture.hpp"
#include "strategy/strategy_table.hpp"

namespace evotune {
namespace strategy_bench_test {

using replay_test::failed_result;
using replay_test::ok_result;

const std::vector<double> kThresholds{0.01, 0.02, 0.05};

std::vector<Config> line(int n) {
  std::vector<Config> configs;
  for (int i = 0; i < n; ++i) configs.push_back({{"A", i}});
  return configs;
}

std::unique_ptr<Strategy> exhaustive_over(int n) {
  StrategyInput input;
  input.candidates = line(n);
  return make_strategy("exhaustive", std::move(input));
}

// A[0] fails, A[1] is not recorded, A[3] is within 5% of the best, A[5] within 2%, A[7] the best.
RecordedSweep staircase() {
  RecordedSweep sweep = replay_test::small_sweep();
  sweep.results = {failed_result({{"A", 0}}, Status::resource_error, "too much shared memory")};
  for (int i = 2; i < 12; ++i) {
    const double time = i == 3 ? 10.4 : i == 5 ? 10.15 : i == 7 ? 10.0 : 20.0 + i;
    sweep.results.push_back(ok_result({{"A", i}}, time));
  }
  return sweep;
}

TEST(StrategyBench, ExhaustiveReachesEachThresholdJustAfterPassingIt) {
  const ReplayObjective replay(staircase());
  auto strategy = exhaustive_over(12);
  const BenchRun run = run_replay(*strategy, replay, 10.0, 12, 16, kThresholds);
  ASSERT_EQ(run.reached.size(), 3u);
  EXPECT_EQ(run.reached[0], 8);  // the best is at position 7
  EXPECT_EQ(run.reached[1], 6);
  EXPECT_EQ(run.reached[2], 4);
  EXPECT_EQ(run.evaluations, 8);  // stops once every threshold is reached
}

TEST(StrategyBench, BudgetEndsARunAndWhatWasNotReachedStaysOpen) {
  const ReplayObjective replay(staircase());
  auto strategy = exhaustive_over(12);
  const BenchRun run = run_replay(*strategy, replay, 10.0, 5, 16, kThresholds);
  EXPECT_EQ(run.evaluations, 5);
  EXPECT_FALSE(run.reached[0].has_value());
  EXPECT_FALSE(run.reached[1].has_value());
  EXPECT_EQ(run.reached[2], 4);
}

// Proposes in batches and waits for each batch's outcomes; records what was in flight at each observe.
class BatchStrategy : public Strategy {
 public:
  BatchStrategy(std::vector<Config> configs, std::size_t batch)
      : configs_(std::move(configs)), batch_(batch) {}
  std::optional<Config> next() override {
    if (position_ == configs_.size() || (position_ % batch_ == 0 && position_ > observed_.size()))
      return std::nullopt;
    return configs_[position_++];
  }
  void observe(const Config& config, const Outcome&) override {
    in_flight_at_observe.push_back(position_ - observed_.size());
    observed_.push_back(config);
  }
  const std::vector<Config>& observed() const { return observed_; }
  std::vector<std::size_t> in_flight_at_observe;

 private:
  std::vector<Config> configs_;
  std::size_t batch_;
  std::size_t position_ = 0;
  std::vector<Config> observed_;
};

TEST(StrategyBench, ProposesUpToTheWindowAheadAndObservesInProposalOrder) {
  const ReplayObjective replay(staircase());
  BatchStrategy unbatched(line(12), 100);
  run_replay(unbatched, replay, 1.0, 12, 4, kThresholds);  // a target nothing reaches: every config runs
  EXPECT_EQ(unbatched.observed(), line(12));
  EXPECT_EQ(*std::max_element(unbatched.in_flight_at_observe.begin(), unbatched.in_flight_at_observe.end()),
            4u);
  EXPECT_EQ(unbatched.in_flight_at_observe.front(), 4u);
}

TEST(StrategyBench, AStrategyWaitingForOutcomesIsNotTakenAsFinished) {
  const ReplayObjective replay(staircase());
  BatchStrategy batches(line(12), 3);
  const BenchRun run = run_replay(batches, replay, 1.0, 100, 16, kThresholds);
  EXPECT_EQ(run.evaluations, 12);
  EXPECT_EQ(batches.observed(), line(12));
  EXPECT_EQ(*std::max_element(batches.in_flight_at_observe.begin(), batches.in_flight_at_observe.end()), 3u);
}

BenchRun reaching(std::optional<std::int64_t> evaluations) { return {1, 0, {evaluations}}; }

TEST(StrategyBench, QuartilesInterpolateAndCountNeverAsInfinity) {
  const auto finite = summarize({reaching(5), reaching(1), reaching(3), reaching(2), reaching(4)}, {0.01});
  ASSERT_EQ(finite.size(), 1u);
  EXPECT_EQ(finite[0].reached, 5);
  EXPECT_EQ(finite[0].q1, 2.0);
  EXPECT_EQ(finite[0].median, 3.0);
  EXPECT_EQ(finite[0].q3, 4.0);

  const auto some_never = summarize({reaching(4), reaching(8), reaching(std::nullopt), reaching(2)}, {0.02});
  EXPECT_EQ(some_never[0].threshold, 0.02);
  EXPECT_EQ(some_never[0].reached, 3);
  EXPECT_EQ(some_never[0].q1, 3.5);
  EXPECT_EQ(some_never[0].median, 6.0);
  EXPECT_FALSE(some_never[0].q3.has_value());

  const auto all_never = summarize({reaching(std::nullopt), reaching(std::nullopt)}, {0.05});
  EXPECT_EQ(all_never[0].reached, 0);
  EXPECT_FALSE(all_never[0].q1.has_value());
  EXPECT_FALSE(all_never[0].median.has_value());
}

class SaxpyBench : public ::testing::Test {
 protected:
  SaxpyBench() : space(SearchSpace::load("tests/data/spaces/saxpy.json")) {
    valid = space.enumerate(space.resolve_problem(""), offline_device("sm_90")).size();
  }
  // The best (5 us) at position `best`; every other valid config 100 us or slower.
  RecordedSweep sweep_with_best_at(std::size_t best) const {
    return replay_test::synthetic_sweep(space, [best](std::size_t i) { return i == best ? 5.0 : 100.0 + i; });
  }
  SearchSpace space;
  std::size_t valid = 0;
};

TEST_F(SaxpyBench, ExhaustiveReachesAtTheBestsPositionPlusOne) {
  ASSERT_GT(valid, 11u);
  BenchOptions options;
  options.strategies = {"exhaustive"};
  options.seeds = 3;
  const BenchReport report = bench_strategies(space, sweep_with_best_at(10), options);
  EXPECT_EQ(report.valid_configs, static_cast<std::int64_t>(valid));
  EXPECT_EQ(report.unrecorded, 0);
  EXPECT_EQ(report.best_us, 5.0);
  EXPECT_EQ(report.budget, static_cast<std::int64_t>(valid));
  ASSERT_EQ(report.strategies.size(), 1u);
  const StrategyBench& bench = report.strategies[0];
  ASSERT_EQ(bench.runs.size(), 3u);
  EXPECT_EQ(bench.runs[2].seed, 3u);
  ASSERT_EQ(bench.stats.size(), 3u);
  for (const auto& stats : bench.stats) {
    EXPECT_EQ(stats.reached, 3);
    EXPECT_EQ(stats.q1, 11.0);
    EXPECT_EQ(stats.median, 11.0);
    EXPECT_EQ(stats.q3, 11.0);
  }
}

TEST_F(SaxpyBench, RandomIsReproducibleBySeedAndReachesWithTheFullBudget) {
  BenchOptions options;
  options.strategies = {"random"};
  options.seeds = 8;
  const auto first = bench_strategies(space, sweep_with_best_at(3), options);
  const auto second = bench_strategies(space, sweep_with_best_at(3), options);
  ASSERT_EQ(first.strategies[0].runs.size(), 8u);
  std::set<std::int64_t> distinct;
  for (std::size_t seed = 0; seed < 8; ++seed) {
    const auto& run = first.strategies[0].runs[seed];
    EXPECT_EQ(run.reached, second.strategies[0].runs[seed].reached);
    ASSERT_TRUE(run.reached[0].has_value());
    EXPECT_LE(*run.reached[0], static_cast<std::int64_t>(valid));
    distinct.insert(*run.reached[0]);
  }
  EXPECT_GT(distinct.size(), 1u);  // the seeds differ
  EXPECT_EQ(first.strategies[0].stats[0].reached, 8);
}

TEST_F(SaxpyBench, DefaultStrategiesAreAllButExhaustive) {
  BenchOptions options;
  options.seeds = 1;
  const auto report = bench_strategies(space, sweep_with_best_at(0), options);
  std::vector<std::string> expected;
  for (const auto& name : strategy_names())
    if (name != "exhaustive") expected.push_back(name);
  std::vector<std::string> names;
  for (const auto& bench : report.strategies) names.push_back(bench.strategy);
  EXPECT_EQ(names, expected);
  EXPECT_EQ(report.options.strategies, expected);
}

TEST_F(SaxpyBench, UnknownStrategyAndNonPositiveSettingsAreErrors) {
  BenchOptions options;
  options.strategies = {"random", "nope"};
  try {
    bench_strategies(space, sweep_with_best_at(0), options);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown strategy 'nope'"), std::string::npos) << e.what();
  }
  options.strategies = {"random"};
  options.budget = 0;
  EXPECT_THROW(bench_strategies(space, sweep_with_best_at(0), options), Error);
  options.budget.reset();
  options.seeds = 0;
  EXPECT_THROW(bench_strategies(space, sweep_with_best_at(0), options), Error);
}

TEST_F(SaxpyBench, SweepOfAnotherSpaceIsAnErrorOfAnotherVersionOnlyAWarning) {
  BenchOptions options;
  options.strategies = {"exhaustive"};
  options.seeds = 1;
  RecordedSweep sweep = sweep_with_best_at(2);
  sweep.space_hash = "ffffffffffffffff";
  EXPECT_EQ(bench_strategies(space, sweep, options).strategies[0].stats[0].median, 3.0);
  sweep.space_name = "gemm";
  try {
    bench_strategies(space, sweep, options);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'gemm'"), std::string::npos) << e.what();
  }
}

TEST_F(SaxpyBench, UnrecordedConfigsReplayAsFailuresAndNoOkResultIsAnError) {
  BenchOptions options;
  options.strategies = {"exhaustive"};
  options.seeds = 1;
  const RecordedSweep partial = replay_test::synthetic_sweep(space, [](std::size_t i) {
    return i < 4 ? -1.0 : i == 6 ? 5.0 : 50.0;  // the first four left out
  });
  const auto report = bench_strategies(space, partial, options);
  EXPECT_EQ(report.unrecorded, 4);
  EXPECT_EQ(report.strategies[0].stats[0].median, 7.0);

  RecordedSweep failures = partial;
  for (auto& result : failures.results) result = failed_result(result.params, Status::wrong_result, "off");
  EXPECT_THROW(bench_strategies(space, failures, options), Error);
}

}  // namespace strategy_bench_test
}  // namespace evotune
