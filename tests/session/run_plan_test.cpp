// Planning a run: the store's keys, what was measured before, the budget, the strategy.
#include "session/run_plan.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "session/saxpy_replay_fixture.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace run_plan_test {

class RunPlanTest : public session_test::SaxpyReplay {
 protected:
  RunPlanTest()
      : target(find_target(options, space, sizes)), candidates(space.enumerate(sizes, target->device())) {}

  std::unique_ptr<TuneTarget> target;
  std::vector<Config> candidates;
};

TEST_F(RunPlanTest, ANewStorePlansTheSpacesBudgetOverEveryCandidate) {
  Store store(dir / "a.db");
  const RunPlan plan = plan_run(options, space, sizes, *target, store, candidates);
  EXPECT_GT(plan.keys.space_id, 0);
  EXPECT_GT(plan.keys.device_id, 0);
  EXPECT_EQ(plan.keys.run_id, 0);
  EXPECT_EQ(plan.arch, "sm_90");
  EXPECT_EQ(plan.candidates, static_cast<std::int64_t>(candidates.size()));
  EXPECT_EQ(plan.skipped, 0);
  EXPECT_EQ(plan.remaining(), plan.candidates);
  EXPECT_EQ(plan.budget, 20);  // the space's Budget
  EXPECT_FALSE(plan.nothing_to_do());
  ASSERT_NE(plan.strategy, nullptr);
  EXPECT_EQ(plan.strategy->next(), candidates.front());  // exhaustive, the default
}

TEST_F(RunPlanTest, AnExplicitBudgetMustBePositive) {
  Store store(dir / "b.db");
  options.budget = 5;
  EXPECT_EQ(plan_run(options, space, sizes, *target, store, candidates).budget, 5);
  options.budget = 0;
  EXPECT_THROW(plan_run(options, space, sizes, *target, store, candidates), Error);
}

// The strategy opens with the seed found for the problem nearest the run's: at N = 1024 the seed named for
// it, at the default N = 4096 the seed without a Problem, though it comes first in the file.
TEST_F(RunPlanTest, TheStrategyOpensWithTheSeedOfTheNearestProblem) {
  testing::TempSpaces temp;
  const SearchSpace seeded = SearchSpace::load(temp.write([](auto& json) {
    json["Seeds"] = nlohmann::ordered_json::parse(R"([{"BLOCK": 64, "ITEMS": 1, "VECTOR": 0},
      {"BLOCK": 32, "ITEMS": 2, "VECTOR": 0, "Problem": {"N": 1024}}])");
  }));
  const Config for_default{{"BLOCK", 64}, {"ITEMS", 1}, {"VECTOR", 0}};
  const Config for_1024{{"BLOCK", 32}, {"ITEMS", 2}, {"VECTOR", 0}};
  options.strategy = "evolve";
  for (const auto& [problem, first, second] :
       {std::tuple{"N=1024", for_1024, for_default}, std::tuple{"", for_default, for_1024}}) {
    Store store(dir / ("seeded" + std::string(problem) + ".db"));
    const Sizes problem_sizes = seeded.resolve_problem(problem);
    const RunPlan plan = plan_run(options, seeded, problem_sizes, *target, store,
                                  seeded.enumerate(problem_sizes, target->device()));
    EXPECT_NE(plan.strategy->describe_start().find("2 from the space's Seeds"), std::string::npos)
        << problem << ": " << plan.strategy->describe_start();
    EXPECT_EQ(plan.strategy->next(), first) << problem;
    EXPECT_EQ(plan.strategy->next(), second) << problem;
  }
}

}  // namespace run_plan_test
}  // namespace evotune
