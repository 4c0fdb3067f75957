// Fitness bookkeeping: history, configs measured before, ordering of failures.
#include "strategy/known_configs.hpp"

#include <gtest/gtest.h>

namespace evotune {
namespace known_configs_test {

StrategyInput line_input() {
  StrategyInput input;
  for (ParamValue x = 0; x < 6; ++x) input.candidates.push_back({{"X", x}});
  input.parameter_values = {{"X", {0, 1, 2, 3, 4, 5}}};
  input.history = {{{{"X", 3}}, Status::ok, 5.0},
                   {{{"X", 1}}, Status::ok, 7.0},
                   {{{"X", 3}}, Status::ok, 9.0},
                   {{{"X", 4}}, Status::compile_error, std::nullopt},
                   {{{"X", 9}}, Status::ok, 1.0}};
  input.already_measured = {canonical_json({{"X", 0}}), "not json"};
  return input;
}

TEST(KnownConfigs, FailuresAreWorseThanAnyTime) {
  EXPECT_TRUE(better(1.0, 2.0));
  EXPECT_FALSE(better(2.0, 2.0));
  EXPECT_TRUE(better(100.0, std::nullopt));
  EXPECT_FALSE(better(std::nullopt, 100.0));
  EXPECT_FALSE(better(std::nullopt, std::nullopt));
}

TEST(KnownConfigs, RecordsHistoryAndTakesWhatWasMeasured) {
  KnownConfigs known(line_input());
  ASSERT_NE(known.fitness({3}), nullptr);
  EXPECT_EQ(*known.fitness({3}), 5.0);  // the first (fastest) record wins
  ASSERT_NE(known.fitness({4}), nullptr);
  EXPECT_FALSE(known.fitness({4})->has_value());
  EXPECT_EQ(known.fitness({0}), nullptr);  // measured, no result at hand
  EXPECT_TRUE(known.taken({0}));
  EXPECT_FALSE(known.taken({2}));
  EXPECT_EQ(known.untaken_count(), 2u);
  EXPECT_EQ(known.untaken(), (std::vector<Genome>{{2}, {5}}));
  EXPECT_EQ(known.best(), 5.0);  // X = 9 is outside the grid
}

TEST(KnownConfigs, FastestListsOkConfigsInOrder) {
  KnownConfigs known(line_input());
  known.record({2}, 6.0);
  known.take({5});
  const auto fastest = known.fastest(10);
  ASSERT_EQ(fastest.size(), 3u);
  EXPECT_EQ(fastest[0].genome, (Genome{3}));
  EXPECT_EQ(fastest[1].genome, (Genome{2}));
  EXPECT_EQ(fastest[2].genome, (Genome{1}));
  EXPECT_EQ(known.fastest(1).size(), 1u);
  EXPECT_EQ(known.untaken_count(), 0u);
}

}  // namespace known_configs_test
}  // namespace evotune
