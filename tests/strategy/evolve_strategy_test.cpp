// The genetic algorithm: no repeats, determinism, seeding from the database, failures, stopping.
#include "strategy/evolve_strategy.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "strategy/synthetic_landscape.hpp"
#include "strategy/timed_outcome.hpp"

namespace evotune {
namespace evolve_strategy_test {

using testing::AttentionLandscape;
using testing::drive;

using test::timed;

// The stored results of the n fastest configs of the landscape, as the database hands them over.
std::vector<PastResult> fastest_history(const AttentionLandscape& land, std::size_t n) {
  std::vector<PastResult> history;
  for (const Config& config : land.candidates())
    if (auto t = AttentionLandscape::time_us(config)) history.push_back({config, Status::ok, t});
  std::sort(history.begin(), history.end(), [](const auto& a, const auto& b) { return *a.value < *b.value; });
  history.resize(n);
  return history;
}

TEST(Evolve, NeverProposesAKnownConfigNorOneTwice) {
  const AttentionLandscape land;
  StrategyInput input = land.input(3);
  input.history = fastest_history(land, 40);
  for (const PastResult& past : input.history) input.already_measured.insert(canonical_json(past.config));
  for (std::size_t i = 0; i < land.candidates().size(); i += 7)
    input.already_measured.insert(canonical_json(land.candidates()[i]));
  input.patience = 1000;
  const std::set<std::string> measured = input.already_measured;
  const std::set<Config> valid(land.candidates().begin(), land.candidates().end());
  EvolveStrategy strategy(input, {});
  const auto evaluated = drive(strategy, AttentionLandscape::outcome, 100000);
  std::set<Config> unique;
  for (const Config& config : evaluated) {
    EXPECT_FALSE(measured.contains(canonical_json(config)));
    EXPECT_TRUE(valid.contains(config));
    EXPECT_TRUE(unique.insert(config).second);
  }
  // With endless patience it ends only when every candidate is known.
  std::size_t unmeasured = 0;
  for (const Config& config : land.candidates())
    unmeasured += measured.contains(canonical_json(config)) ? 0 : 1;
  EXPECT_EQ(evaluated.size(), unmeasured);
  EXPECT_FALSE(strategy.next().has_value());
}

TEST(Evolve, SameSeedSameProposalsOtherSeedOthers) {
  const AttentionLandscape land;
  auto run = [&](std::uint64_t seed) {
    StrategyInput input = land.input(seed);
    input.patience = 100;
    EvolveStrategy strategy(input, {});
    return drive(strategy, AttentionLandscape::outcome, 300);
  };
  const auto first = run(17);
  EXPECT_EQ(first.size(), 300u);
  EXPECT_EQ(first, run(17));
  EXPECT_NE(first, run(18));
}

TEST(Evolve, ProposalsDoNotDependOnTheOrderOutcomesArrive) {
  const AttentionLandscape land;
  auto run = [&](bool reversed) {
    EvolveStrategy strategy(land.input(5), {});
    std::vector<Config> proposed;
    for (int generation = 0; generation < 6; ++generation) {
      std::vector<Config> batch;
      while (auto config = strategy.next()) batch.push_back(*config);
      proposed.insert(proposed.end(), batch.begin(), batch.end());
      if (reversed) std::reverse(batch.begin(), batch.end());
      for (const Config& config : batch) strategy.observe(config, AttentionLandscape::outcome(config));
    }
    return proposed;
  };
  EXPECT_EQ(run(false), run(true));
}

TEST(Evolve, ProposesAGenerationThenWaitsForItsOutcomes) {
  const AttentionLandscape land;
  EvolveStrategy strategy(land.input(1), {});
  EXPECT_EQ(strategy.describe_start(), "evolve: population 16, seeded 0 from the database, 8 random");
  std::vector<Config> generation;
  while (auto config = strategy.next()) generation.push_back(*config);
  ASSERT_EQ(generation.size(), 8u);
  for (std::size_t i = 0; i + 1 < generation.size(); ++i) strategy.observe(generation[i], timed(10));
  EXPECT_FALSE(strategy.next().has_value());  // one outcome still outstanding
  strategy.observe(generation.back(), timed(10));
  EXPECT_TRUE(strategy.next().has_value());
}

TEST(Evolve, SeedsThePopulationWithTheFastestStoredConfigs) {
  const AttentionLandscape land;
  // The database holds the 8 next fastest configs, but not the optimum itself.
  auto stored = fastest_history(land, 9);
  const Config optimum = stored.front().config;
  stored.erase(stored.begin());
  std::vector<std::size_t> with_history, without;
  for (std::uint64_t seed = 1; seed <= 11; ++seed) {
    StrategyInput input = land.input(seed);
    input.history = stored;
    for (const PastResult& past : stored) input.already_measured.insert(canonical_json(past.config));
    EvolveStrategy seeded(input, {});
    if (seed == 1) {
      EXPECT_EQ(seeded.describe_start(), "evolve: population 16, seeded 8 from the database (best stored " +
                                             fmt::format("{:.2f}", *stored.front().value) + " us), 8 random");
    }
    const auto evaluated = drive(seeded, AttentionLandscape::outcome, 2000);
    const auto found = std::find(evaluated.begin(), evaluated.end(), optimum);
    with_history.push_back(static_cast<std::size_t>(found - evaluated.begin()) + 1);
    EvolveStrategy fresh(land.input(seed), {});
    const auto fresh_run = drive(fresh, AttentionLandscape::outcome, 2000);
    without.push_back(
        static_cast<std::size_t>(std::find(fresh_run.begin(), fresh_run.end(), optimum) - fresh_run.begin()) +
        1);
  }
  std::sort(with_history.begin(), with_history.end());
  std::sort(without.begin(), without.end());
  // Bred from the stored configs, the second or third generation finds their missing neighbour.
  EXPECT_LE(with_history[5], 24u);
  EXPECT_LT(with_history[5], without[5]);
}

// Configs carried over from nearby problems open the first generation (half of it), in their order; the
// rest is random. An invalid or already measured one is skipped, and the run still finds the optimum sooner.
TEST(Evolve, TheFirstGenerationStartsWithTheConfigsOfNearbyProblems) {
  const AttentionLandscape land;
  const auto fastest = fastest_history(land, 7);
  StrategyInput input = land.input(4);
  input.transferred = {fastest[1].config, fastest[2].config, fastest[3].config,
                       fastest[4].config, fastest[5].config, fastest[6].config};
  input.transferred.insert(input.transferred.begin() + 1, Config{{"BLOCK_M", 7}});  // not a candidate
  input.already_measured.insert(canonical_json(fastest[2].config));
  EvolveStrategy strategy(input, {});
  EXPECT_EQ(strategy.describe_start(),
            "evolve: population 16, seeded 0 from the database, 4 from nearby problems, 4 random");
  std::vector<Config> generation;
  while (auto config = strategy.next()) generation.push_back(*config);
  ASSERT_EQ(generation.size(), 8u);
  const std::vector<Config> first(generation.begin(), generation.begin() + 4);
  EXPECT_EQ(first, (std::vector<Config>{fastest[1].config, fastest[3].config, fastest[4].config,
                                        fastest[5].config}));
  for (std::size_t i = 4; i < 8; ++i) EXPECT_NE(generation[i], fastest[6].config);
}

// The space's Seeds open the first generation before the configs of nearby problems, an invalid seed skipped.
TEST(Evolve, TheSpacesSeedsComeFirst) {
  const AttentionLandscape land;
  const auto fastest = fastest_history(land, 7);
  StrategyInput input = land.input(4);
  input.seeds = {fastest[5].config, Config{{"BLOCK_M", 7}}, fastest[6].config};
  input.transferred = {fastest[1].config, fastest[6].config, fastest[3].config, fastest[4].config};
  EvolveStrategy strategy(input, {});
  EXPECT_EQ(strategy.describe_start(),
            "evolve: population 16, seeded 0 from the database, 2 from the space's "
            "Seeds, 2 from nearby problems, 4 random");
  std::vector<Config> generation;
  while (auto config = strategy.next()) generation.push_back(*config);
  ASSERT_EQ(generation.size(), 8u);
  const std::vector<Config> first(generation.begin(), generation.begin() + 4);
  EXPECT_EQ(first, (std::vector<Config>{fastest[5].config, fastest[6].config, fastest[1].config,
                                        fastest[3].config}));
}

TEST(Evolve, BreedsTheFirstOffspringFromTheStoredConfigs) {
  const AttentionLandscape land;
  StrategyInput input = land.input(9);
  input.history = fastest_history(land, 8);
  const ParamGrid grid(land.parameter_values(), land.candidates());
  std::vector<Genome> stored;
  for (const PastResult& past : input.history) stored.push_back(*grid.encode(past.config));
  EvolveStrategy strategy(input, {});
  auto distance_to_stored = [&](const Config& config) {
    std::size_t nearest = SIZE_MAX;
    for (const Genome& genome : stored)
      nearest = std::min(nearest, index_distance(*grid.encode(config), genome));
    return nearest;
  };
  std::vector<Config> first;
  while (auto config = strategy.next()) first.push_back(*config);
  ASSERT_EQ(first.size(), 8u);  // random: the stored configs are in the population, not proposed again
  for (const Config& config : first) {
    EXPECT_GT(distance_to_stored(config), 0u);
    strategy.observe(config, AttentionLandscape::outcome(config));
  }
  std::size_t near = 0, offspring = 0;
  while (auto config = strategy.next()) {
    ++offspring;
    EXPECT_GT(distance_to_stored(*config), 0u);
    near += distance_to_stored(*config) <= 2 ? 1 : 0;
  }
  EXPECT_EQ(offspring, 8u);
  EXPECT_GE(near, 6u);
}

TEST(Evolve, FailuresSteerTheSearchAway) {
  // Half of the space fails on top of the landscape's own failures: every config with PAD = 0 or WARPS = 1.
  const auto [failing_share, later_share] =
      failure_shares(AttentionLandscape(), Status::compile_error, [](StrategyInput input) {
        return std::make_unique<EvolveStrategy>(std::move(input), EvolveSettings{});
      });
  ASSERT_GT(failing_share, 0.4);
  // After two generations, far fewer proposals fail than in a random draw (the failing region borders the
  // optimum, so some exploration there remains).
  EXPECT_LT(later_share, failing_share / 2);
}

TEST(Evolve, PatienceEndsASearchThatStopsImproving) {
  const AttentionLandscape land;
  for (int patience : {2, 5}) {
    StrategyInput input = land.input(4);
    input.patience = patience;
    EvolveStrategy strategy(input, {});
    // Flat: nothing beats the first generation's best.
    const auto evaluated = drive(
        strategy, [](const Config&) { return timed(10); }, 100000);
    EXPECT_EQ(evaluated.size(), 8u * static_cast<std::size_t>(1 + patience));
    EXPECT_FALSE(strategy.next().has_value());
  }
}

TEST(Evolve, TinySpacesGetASmallPopulationAndEveryConfigOnce) {
  StrategyInput input;
  for (ParamValue x = 0; x < 3; ++x)
    for (ParamValue y = 0; y < 3; ++y) input.candidates.push_back({{"X", x}, {"Y", y}});
  input.parameter_values = {{"X", {0, 1, 2}}, {"Y", {0, 1, 2}}};
  input.already_measured = {canonical_json(input.candidates[4])};
  input.patience = 100;
  EvolveStrategy strategy(input, {});
  EXPECT_EQ(strategy.describe_start(), "evolve: population 2, seeded 0 from the database, 2 random");
  const auto evaluated = drive(
      strategy, [](const Config& c) { return timed(1.0 + c.at("X") + c.at("Y")); }, 100);
  EXPECT_EQ(std::set<Config>(evaluated.begin(), evaluated.end()).size(), 8u);
  EXPECT_EQ(evaluated.size(), 8u);
}

TEST(Evolve, NoCandidatesNoProposals) {
  EvolveStrategy strategy(StrategyInput{}, {});
  EXPECT_FALSE(strategy.next().has_value());
}

}  // namespace evolve_strategy_test
}  // namespace evotune
