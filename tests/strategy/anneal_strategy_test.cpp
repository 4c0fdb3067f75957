// Simulated annealing: no repeats, determinism, rounds of one proposal per chain, seeding, stopping.
#include "strategy/anneal_strategy.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "strategy/synthetic_landscape.hpp"
#include "strategy/timed_outcome.hpp"

namespace evotune {
namespace anneal_strategy_test {

using testing::AttentionLandscape;
using testing::drive;

using test::timed;

TEST(Anneal, NeverProposesAKnownConfigNorOneTwice) {
  const AttentionLandscape land;
  StrategyInput input = land.input(8);
  for (std::size_t i = 0; i < land.candidates().size(); i += 5) {
    const Config& config = land.candidates()[i];
    input.history.push_back({config, Status::ok, AttentionLandscape::time_us(config).value_or(50)});
    input.already_measured.insert(canonical_json(config));
  }
  std::stable_sort(input.history.begin(), input.history.end(),
                   [](const auto& a, const auto& b) { return *a.value < *b.value; });
  input.patience = 1000;
  const std::set<std::string> measured = input.already_measured;
  AnnealStrategy strategy(input, {});
  const auto evaluated = drive(strategy, AttentionLandscape::outcome, 100000, 8);
  std::set<Config> unique;
  for (const Config& config : evaluated) {
    EXPECT_FALSE(measured.contains(canonical_json(config)));
    EXPECT_TRUE(unique.insert(config).second);
  }
  EXPECT_EQ(evaluated.size(), land.candidates().size() - measured.size());
}

TEST(Anneal, SameSeedSameProposalsOtherSeedOthers) {
  const AttentionLandscape land;
  auto run = [&](std::uint64_t seed) {
    StrategyInput input = land.input(seed);
    input.patience = 100;
    AnnealStrategy strategy(input, {});
    return drive(strategy, AttentionLandscape::outcome, 200, 3);
  };
  const auto first = run(21);
  EXPECT_EQ(first.size(), 200u);
  EXPECT_EQ(first, run(21));
  EXPECT_NE(first, run(22));
}

TEST(Anneal, EachChainHasOneProposalInFlightAndOutcomeOrderDoesNotMatter) {
  const AttentionLandscape land;
  auto run = [&](bool reversed) {
    AnnealStrategy strategy(land.input(2), {});
    EXPECT_EQ(strategy.describe_start(), "anneal: 8 chains, 0 started from the database, 8 random");
    std::vector<Config> proposed;
    for (int round = 0; round < 6; ++round) {
      std::vector<Config> batch;
      while (auto config = strategy.next()) batch.push_back(*config);
      EXPECT_EQ(batch.size(), 8u);
      proposed.insert(proposed.end(), batch.begin(), batch.end());
      if (reversed) std::reverse(batch.begin(), batch.end());
      for (const Config& config : batch) strategy.observe(config, AttentionLandscape::outcome(config));
    }
    return proposed;
  };
  EXPECT_EQ(run(false), run(true));
}

TEST(Anneal, ChainsStartAtTheFastestStoredConfigs) {
  const AttentionLandscape land;
  StrategyInput input = land.input(6);
  for (const Config& config : land.candidates())
    if (auto t = AttentionLandscape::time_us(config)) input.history.push_back({config, Status::ok, t});
  std::sort(input.history.begin(), input.history.end(),
            [](const auto& a, const auto& b) { return *a.value < *b.value; });
  input.history.erase(input.history.begin() + 4, input.history.end());
  AnnealStrategy strategy(input, {});
  EXPECT_EQ(strategy.describe_start(), "anneal: 8 chains, 4 started from the database (best stored " +
                                           fmt::format("{:.2f}", *input.history.front().value) +
                                           " us), 4 random");
  // The first round steps away from each stored config: four proposals are its neighbours.
  const ParamGrid grid(land.parameter_values(), land.candidates());
  std::size_t near_stored = 0;
  while (auto config = strategy.next()) {
    std::size_t nearest = SIZE_MAX;
    for (const PastResult& past : input.history)
      nearest = std::min(nearest, index_distance(*grid.encode(*config), *grid.encode(past.config)));
    EXPECT_GT(nearest, 0u);
    near_stored += nearest <= 3 ? 1 : 0;
  }
  EXPECT_GE(near_stored, 4u);
}

// Up to half the chains start at the configs of nearby problems: the first round proposes them as they are.
TEST(Anneal, HalfTheChainsStartAtTheConfigsOfNearbyProblems) {
  const AttentionLandscape land;
  StrategyInput input = land.input(6);
  for (std::size_t i = 0; i < 6; ++i) input.transferred.push_back(land.candidates()[10 * i]);
  AnnealStrategy strategy(input, {});
  EXPECT_EQ(strategy.describe_start(),
            "anneal: 8 chains, 0 started from the database, 4 from nearby problems, 4 random");
  std::vector<Config> round;
  while (auto config = strategy.next()) round.push_back(*config);
  ASSERT_EQ(round.size(), 8u);
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_NE(std::find(round.begin(), round.end(), input.transferred[i]), round.end()) << i;
  for (std::size_t i = 4; i < 6; ++i)
    EXPECT_EQ(std::find(round.begin(), round.end(), input.transferred[i]), round.end()) << i;
}

// The space's Seeds take the first of those chains.
TEST(Anneal, TheSpacesSeedsStartChainsFirst) {
  const AttentionLandscape land;
  StrategyInput input = land.input(6);
  for (std::size_t i = 0; i < 6; ++i) input.transferred.push_back(land.candidates()[10 * i]);
  input.seeds = {land.candidates()[7]};
  AnnealStrategy strategy(input, {});
  EXPECT_EQ(strategy.describe_start(),
            "anneal: 8 chains, 0 started from the database, 1 from the space's Seeds, "
            "3 from nearby problems, 4 random");
  std::vector<Config> round;
  while (auto config = strategy.next()) round.push_back(*config);
  EXPECT_NE(std::find(round.begin(), round.end(), land.candidates()[7]), round.end());
  EXPECT_EQ(std::find(round.begin(), round.end(), input.transferred[3]), round.end());
}

TEST(Anneal, PatienceEndsASearchThatStopsImproving) {
  const AttentionLandscape land;
  StrategyInput input = land.input(4);
  input.patience = 2;
  AnnealStrategy strategy(input, {});
  const auto evaluated = drive(
      strategy, [](const Config&) { return timed(10); }, 100000, 8);
  // The first round sets the best; then two rounds of 8 chains bring nothing better.
  EXPECT_EQ(evaluated.size(), 8u + 2 * 8u);
  EXPECT_FALSE(strategy.next().has_value());
}

TEST(Anneal, FailuresSteerTheSearchAway) {
  const auto [failing_share, later_share] =
      failure_shares(AttentionLandscape(), Status::launch_error, [](StrategyInput input) {
        return std::make_unique<AnnealStrategy>(std::move(input), AnnealSettings{});
      });
  EXPECT_LT(later_share, failing_share / 2);
}

TEST(Anneal, TinySpaceIsCoveredOnce) {
  StrategyInput input;
  for (ParamValue x = 0; x < 4; ++x)
    for (ParamValue y = 0; y < 4; ++y) input.candidates.push_back({{"X", x}, {"Y", y}});
  input.parameter_values = {{"X", {0, 1, 2, 3}}, {"Y", {0, 1, 2, 3}}};
  input.patience = 100;
  AnnealStrategy strategy(input, {});
  EXPECT_EQ(strategy.describe_start(), "anneal: 2 chains, 0 started from the database, 2 random");
  const auto evaluated = drive(
      strategy, [](const Config& c) { return timed(1.0 + c.at("X") * c.at("Y")); }, 100);
  EXPECT_EQ(std::set<Config>(evaluated.begin(), evaluated.end()).size(), 16u);
  EXPECT_EQ(evaluated.size(), 16u);
}

}  // namespace anneal_strategy_test
}  // namespace evotune
