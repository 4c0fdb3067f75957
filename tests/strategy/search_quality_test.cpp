// End to end on a synthetic attention-like landscape: learning strategies reach within 2% of the optimum
// in far fewer evaluations than random search.
#include <gtest/gtest.h>

#include <algorithm>

#include "strategy/strategy_table.hpp"
#include "strategy/synthetic_landscape.hpp"

namespace evotune {
namespace search_quality_test {

using testing::AttentionLandscape;

// Median over 21 seeds of the evaluations a strategy needs to reach within 2% of the optimum (a run that
// never does counts as all candidates).
std::size_t median_evaluations_to_near_optimum(const std::string& name) {
  static const AttentionLandscape land;
  std::vector<std::size_t> needed;
  for (std::uint64_t seed = 1; seed <= 21; ++seed) {
    auto strategy = make_strategy(name, land.input(seed));
    const auto evaluated = testing::drive(*strategy, AttentionLandscape::outcome, land.candidates().size());
    needed.push_back(testing::first_within(evaluated, land.best_us()).value_or(land.candidates().size()));
  }
  std::nth_element(needed.begin(), needed.begin() + 10, needed.end());
  return needed[10];
}

TEST(StrategyQuality, EvolveAndAnnealBeatRandomOnASyntheticLandscape) {
  const AttentionLandscape land;
  const std::size_t random = median_evaluations_to_near_optimum("random");
  const std::size_t evolve = median_evaluations_to_near_optimum("evolve");
  const std::size_t anneal = median_evaluations_to_near_optimum("anneal");
  RecordProperty("random", static_cast<int>(random));
  RecordProperty("evolve", static_cast<int>(evolve));
  RecordProperty("anneal", static_cast<int>(anneal));
  std::printf(
      "median evaluations to within 2%% of the optimum (%zu valid configs): random %zu, evolve %zu, anneal "
      "%zu\n",
      land.candidates().size(), random, evolve, anneal);
  const double valid = static_cast<double>(land.candidates().size());
  EXPECT_LE(static_cast<double>(evolve), 0.5 * static_cast<double>(random));
  EXPECT_LE(static_cast<double>(evolve), 0.15 * valid);
  EXPECT_LE(static_cast<double>(anneal), 0.5 * static_cast<double>(random));
  EXPECT_LE(static_cast<double>(anneal), 0.15 * valid);
}

}  // namespace search_quality_test
}  // namespace evotune
