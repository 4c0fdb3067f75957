// Index form of configs and the moves on it: neighbours, mutation, crossover, repair, spread sampling.
#include "strategy/config_moves.hpp"

#include <gtest/gtest.h>

#include <set>

namespace evotune {
namespace config_moves_test {

// A has the values 4, 1, 2 in that (file) order; B has 0..4. Valid: index(A) + index(B) <= 3.
ParamGrid small_grid() {
  std::vector<Config> candidates;
  const std::vector<ParamValue> a_values{4, 1, 2};
  for (std::size_t a = 0; a < 3; ++a)
    for (ParamValue b = 0; b <= 4; ++b)
      if (a + static_cast<std::size_t>(b) <= 3) candidates.push_back({{"A", a_values[a]}, {"B", b}});
  return ParamGrid({{"A", a_values}, {"B", {0, 1, 2, 3, 4}}}, candidates);
}

TEST(ConfigMoves, IndexOfFindsThePositionInFileOrder) {
  EXPECT_EQ(index_of({4, 1, 2}, 1), 1u);
  EXPECT_EQ(index_of({4, 1, 2}, 4), 0u);
  EXPECT_FALSE(index_of({4, 1, 2}, 3).has_value());
}

TEST(ConfigMoves, GridKeepsFileOrderAndAppendsValuesOnlyCandidatesHave) {
  const ParamGrid grid({{"A", {8, 2}}}, {{{"A", 2}}, {{"A", 8}}, {{"A", 5}}});
  ASSERT_EQ(grid.dimensions(), 1u);
  EXPECT_EQ(grid.value_count(0), 3u);
  EXPECT_EQ(grid.encode({{"A", 8}}), (Genome{0}));
  EXPECT_EQ(grid.encode({{"A", 5}}), (Genome{2}));
  EXPECT_FALSE(grid.encode({{"A", 3}}).has_value());
  EXPECT_FALSE(grid.encode({{"B", 8}}).has_value());
  EXPECT_EQ(grid.decode({1}), (Config{{"A", 2}}));
  EXPECT_EQ(grid.candidates(), (std::vector<Genome>{{1}, {0}, {2}}));
}

TEST(ConfigMoves, NeighbourIndexStepsOneAndStaysInRange) {
  SeededRng rng(3);
  EXPECT_EQ(neighbour_index(0, 5, rng), 1u);
  EXPECT_EQ(neighbour_index(4, 5, rng), 3u);
  std::set<std::size_t> seen;
  for (int i = 0; i < 100; ++i) seen.insert(neighbour_index(2, 5, rng));
  EXPECT_EQ(seen, (std::set<std::size_t>{1, 3}));
}

TEST(ConfigMoves, MutationMovesGenesToNeighbouringValues) {
  const ParamGrid grid = small_grid();
  SeededRng rng(11);
  const Genome parent{1, 2};
  std::set<Genome> children;
  for (int i = 0; i < 500; ++i) {
    const Genome child = mutate(parent, grid, {.gene = 0.3, .jump = 0}, rng);
    EXPECT_NE(child, parent);
    for (std::size_t gene = 0; gene < parent.size(); ++gene)
      EXPECT_LE(index_distance({child[gene]}, {parent[gene]}), 1u);
    children.insert(child);
  }
  // Every combination of single steps around (1, 2) appears: (0|1|2) x (1|2|3) minus the parent.
  EXPECT_EQ(children.size(), 8u);
}

TEST(ConfigMoves, MutationJumpsToAnyValueSometimes) {
  const ParamGrid grid = small_grid();
  SeededRng rng(5);
  std::set<std::size_t> b_values;
  for (int i = 0; i < 500; ++i) b_values.insert(mutate({0, 0}, grid, {.gene = 1, .jump = 1}, rng)[1]);
  EXPECT_EQ(b_values, (std::set<std::size_t>{1, 2, 3, 4}));
}

TEST(ConfigMoves, CrossoverTakesEachGeneFromAParent) {
  SeededRng rng(9);
  const Genome a{0, 0, 0, 0, 0, 0}, b{1, 2, 3, 4, 5, 6};
  std::set<Genome> children;
  for (int i = 0; i < 200; ++i) {
    const Genome child = crossover(a, b, rng);
    for (std::size_t gene = 0; gene < a.size(); ++gene)
      EXPECT_TRUE(child[gene] == a[gene] || child[gene] == b[gene]);
    children.insert(child);
  }
  EXPECT_GT(children.size(), 30u);  // of 64 possible mixes: genes come from both parents independently
}

TEST(ConfigMoves, RepairKeepsAValidConfigAndMovesAnInvalidOneToTheNearestValid) {
  const ParamGrid grid = small_grid();
  SeededRng rng(2);
  EXPECT_EQ(repair({1, 2}, grid, rng), (Genome{1, 2}));
  for (const Genome& invalid : {Genome{2, 4}, Genome{1, 4}, Genome{2, 2}}) {
    ASSERT_FALSE(grid.valid(invalid));
    std::size_t nearest = SIZE_MAX;
    for (const Genome& candidate : grid.candidates())
      nearest = std::min(nearest, index_distance(invalid, candidate));
    for (int i = 0; i < 20; ++i) {
      auto repaired = repair(invalid, grid, rng);
      ASSERT_TRUE(repaired.has_value());
      EXPECT_TRUE(grid.valid(*repaired));
      EXPECT_EQ(index_distance(invalid, *repaired), nearest);
    }
  }
  EXPECT_FALSE(repair({0}, ParamGrid({{"A", {1, 2}}}, {}), rng).has_value());
}

TEST(ConfigMoves, SpreadSamplePicksDistinctConfigsOfThePool) {
  const ParamGrid grid = small_grid();
  SeededRng rng(4);
  const auto picked = spread_sample(grid.candidates(), 5, {{0, 0}}, rng);
  ASSERT_EQ(picked.size(), 5u);
  EXPECT_EQ(std::set<Genome>(picked.begin(), picked.end()).size(), 5u);
  for (const Genome& genome : picked) EXPECT_TRUE(grid.valid(genome));
  EXPECT_EQ(spread_sample(grid.candidates(), 100, {}, rng).size(), grid.candidates().size());
}

}  // namespace config_moves_test
}  // namespace evotune
