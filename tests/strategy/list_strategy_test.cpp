// Exhaustive and random search: coverage, skipping, determinism by seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "strategy/seeded_rng.hpp"
#include "strategy/strategy_table.hpp"

namespace evotune {
namespace list_strategy_test {

std::vector<Config> grid(int n) {
  std::vector<Config> configs;
  for (int i = 0; i < n; ++i) configs.push_back({{"A", i}, {"B", i % 3}});
  return configs;
}

StrategyInput input_of(std::vector<Config> candidates, std::set<std::string> already_measured = {},
                       std::uint64_t seed = 0) {
  StrategyInput input;
  input.candidates = std::move(candidates);
  input.already_measured = std::move(already_measured);
  input.seed = seed;
  return input;
}

std::vector<Config> drain(Strategy& strategy) {
  std::vector<Config> seen;
  while (auto config = strategy.next()) seen.push_back(*config);
  return seen;
}

TEST(Exhaustive, ProposesEveryCandidateInOrderOnce) {
  auto strategy = make_strategy("exhaustive", input_of(grid(10)));
  EXPECT_EQ(drain(*strategy), grid(10));
  EXPECT_FALSE(strategy->next().has_value());
}

TEST(Exhaustive, SkipsConfigsAlreadyMeasured) {
  const auto configs = grid(5);
  auto strategy = make_strategy("exhaustive",
                                input_of(configs, {canonical_json(configs[1]), canonical_json(configs[3])}));
  EXPECT_EQ(drain(*strategy), (std::vector<Config>{configs[0], configs[2], configs[4]}));
}

TEST(Random, IsAPermutationOfTheUnmeasuredCandidates) {
  const auto configs = grid(50);
  auto strategy = make_strategy("random", input_of(configs, {canonical_json(configs[7])}, 42));
  const auto seen = drain(*strategy);
  ASSERT_EQ(seen.size(), 49u);
  std::set<std::string> unique;
  for (const auto& c : seen) unique.insert(canonical_json(c));
  EXPECT_EQ(unique.size(), 49u);
  EXPECT_FALSE(unique.contains(canonical_json(configs[7])));
  EXPECT_NE(seen, std::vector<Config>(configs.begin(), configs.begin() + 49));
}

TEST(Random, SameSeedSameOrderOtherSeedOtherOrder) {
  auto a = make_strategy("random", input_of(grid(30), {}, 7));
  auto b = make_strategy("random", input_of(grid(30), {}, 7));
  auto c = make_strategy("random", input_of(grid(30), {}, 8));
  const auto order_a = drain(*a);
  EXPECT_EQ(order_a, drain(*b));
  EXPECT_NE(order_a, drain(*c));
}

TEST(SeededRng, KnownSequenceForSeed) {
  // mt19937_64 is fully specified by the standard: its 10000th output for the default seed is fixed.
  std::mt19937_64 engine;
  engine.discard(9999);
  EXPECT_EQ(engine(), 9981545732273789042ULL);
  SeededRng rng(1);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(rng.below(7), 7u);
}

TEST(SeededRng, UnitIsInRangeAndChanceFollowsItsProbability) {
  SeededRng rng(12);
  int hits = 0;
  for (int i = 0; i < 10000; ++i) {
    const double u = rng.unit();
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    hits += rng.chance(0.25) ? 1 : 0;
  }
  EXPECT_NEAR(hits, 2500, 200);
  EXPECT_FALSE(rng.chance(0));
  EXPECT_TRUE(rng.chance(1));
  SeededRng a(99), b(99);
  EXPECT_EQ(a.unit(), b.unit());
}

TEST(StrategyTable, EveryStrategyProposesACandidate) {
  const auto configs = grid(40);
  for (const StrategyEntry& entry : strategy_table()) {
    auto strategy = entry.make(input_of(configs, {}, 1));
    auto config = strategy->next();
    ASSERT_TRUE(config.has_value()) << entry.name;
    EXPECT_NE(std::find(configs.begin(), configs.end(), *config), configs.end()) << entry.name;
    EXPECT_FALSE(entry.description.empty()) << entry.name;
  }
  EXPECT_EQ(strategy_names(), (std::vector<std::string>{"exhaustive", "random", "evolve", "anneal"}));
  EXPECT_EQ(find_strategy("anneal").name, "anneal");
}

TEST(StrategyTable, UnknownNameIsAnErrorNamingTheKnownOnes) {
  try {
    make_strategy("annealing-ish", {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown strategy 'annealing-ish' (known: exhaustive, random, evolve, anneal)");
  }
}

}  // namespace list_strategy_test
}  // namespace evotune
