// Planning a run: the store's keys, what was measured before, the budget, the strategy.
#include "session/run_plan.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "session/saxpy_replay_fixture.hpp"

namespace evotune {
namespace {

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

}  // namespace
}  // namespace evotune
