// The rounds of the population strategies: a round waits for all of its outcomes, patience, stray outcomes.
#include "strategy/round_strategy.hpp"

#include <gtest/gtest.h>

#include "strategy/timed_outcome.hpp"

namespace evotune {
namespace round_strategy_test {

using test::timed;

StrategyInput line(int n, int patience) {
  StrategyInput input;
  for (ParamValue x = 0; x < n; ++x) input.candidates.push_back({{"X", x}});
  for (ParamValue x = 0; x < n; ++x) input.parameter_values["X"].push_back(x);
  input.patience = patience;
  return input;
}

// Proposes the untaken configs two at a time, in order; remembers the rounds it finished.
class PairWalk final : public RoundStrategy {
 public:
  explicit PairWalk(const StrategyInput& input) : RoundStrategy(input, 100) { begin(plan_round(), "pairs"); }
  std::vector<std::vector<Genome>> finished;
  Fitness best() const { return known_.best(); }

 private:
  void finish_round(const std::vector<Genome>& round) override { finished.push_back(round); }
  std::vector<Genome> plan_round() override {
    std::vector<Genome> round;
    for (const Genome& genome : known_.untaken())
      if (round.size() < 2) round.push_back(genome);
    return round;
  }
};

Config x(ParamValue value) { return {{"X", value}}; }

TEST(RoundStrategy, ANewRoundWaitsForEveryOutcomeOfTheLast) {
  PairWalk walk(line(10, 0));
  EXPECT_EQ(walk.describe_start(), "pairs");
  EXPECT_EQ(walk.next(), x(0));
  EXPECT_EQ(walk.next(), x(1));
  EXPECT_FALSE(walk.next().has_value());
  walk.observe(x(1), timed(5));
  EXPECT_FALSE(walk.next().has_value());
  EXPECT_TRUE(walk.finished.empty());
  walk.observe(x(0), timed(4));
  EXPECT_EQ(walk.next(), x(2));
  ASSERT_EQ(walk.finished.size(), 1u);
  EXPECT_EQ(walk.finished[0], (std::vector<Genome>{{0}, {1}}));
}

TEST(RoundStrategy, EndsAfterPatienceRoundsWithoutABetterBest) {
  PairWalk walk(line(10, 2));
  int proposed = 0;
  while (auto config = walk.next()) {
    ++proposed;
    walk.observe(*config, timed(5));  // the first round sets the best; no later one beats it
  }
  EXPECT_EQ(proposed, 6);
  EXPECT_FALSE(walk.next().has_value());
}

TEST(RoundStrategy, EndsWhenEveryCandidateIsTakenAndIgnoresStrayOutcomes) {
  PairWalk walk(line(3, 0));
  walk.observe(x(2), timed(1));  // never proposed: not recorded, so still proposed later
  std::vector<Config> proposed;
  while (auto config = walk.next()) {
    proposed.push_back(*config);
    walk.observe(*config, timed(10.0 - static_cast<double>(proposed.size())));
    walk.observe(*config, timed(0.5));  // a second outcome of the same config is ignored too
  }
  EXPECT_EQ(proposed, (std::vector<Config>{x(0), x(1), x(2)}));
}

// The objective decides what is learnt: energy or edp read the outcome's energy, and an outcome without one
// counts as a failure for them.
TEST(RoundStrategy, LearnsTheObjectiveItWasGiven) {
  const auto with_energy = [](double us, double uj) {
    Outcome outcome = timed(us);
    outcome.energy = EnergyStats{uj, uj / us, 200, 100};
    return outcome;
  };
  for (const auto& [objective, expected] : std::vector<std::pair<Objective, double>>{
           {Objective::time, 1.0}, {Objective::energy, 50.0}, {Objective::edp, 100.0}}) {
    StrategyInput input = line(4, 0);
    input.objective = objective;
    PairWalk walk(input);
    walk.next();
    walk.next();
    walk.observe(x(0), with_energy(1, 400));  // fast, costly
    walk.observe(x(1), with_energy(2, 50));   // slower, frugal
    EXPECT_EQ(walk.best(), expected) << to_string(objective);
  }
  StrategyInput input = line(4, 0);
  input.objective = Objective::energy;
  PairWalk walk(input);
  walk.next();
  walk.next();
  walk.observe(x(0), timed(1));
  walk.observe(x(1), timed(2));
  EXPECT_FALSE(walk.best().has_value());
}

}  // namespace round_strategy_test
}  // namespace evotune
