// ReplayObjective: recorded outcomes back, a failure for a config the sweep lacks, the fastest ok time.
#include "replay/replay_objective.hpp"

#include <gtest/gtest.h>

#include "replay/sweep_fixture.hpp"
#include "strategy/strategy.hpp"  // objective(): what a strategy reads of a replayed outcome

namespace evotune {
namespace replay_objective_test {

TEST(ReplayObjective, ReturnsTheRecordedOutcomes) {
  const ReplayObjective replay(replay_test::small_sweep());
  EXPECT_EQ(replay.size(), 4u);
  const Outcome ok = replay.evaluate({{"BLOCK", 128}, {"ITEMS", 1}});
  EXPECT_EQ(ok.status, Status::ok);
  ASSERT_TRUE(ok.timing.has_value());
  EXPECT_EQ(ok.timing->median_us, 7.25);
  EXPECT_EQ(ok.timing->p80_us, 7.25 * 1.125);
  EXPECT_EQ(ok.timing->samples, 50);
  EXPECT_EQ(objective(ok), 7.25);

  const Outcome failed = replay.evaluate({{"ITEMS", 8}, {"BLOCK", 1024}});
  EXPECT_EQ(failed.status, Status::resource_error);
  EXPECT_EQ(failed.message, "too many \"threads\"\nsecond line");
  EXPECT_FALSE(failed.timing.has_value());
  EXPECT_FALSE(objective(failed).has_value());
}

TEST(ReplayObjective, AConfigNotRecordedIsALaunchError) {
  const ReplayObjective replay(replay_test::small_sweep());
  const Config unknown{{"BLOCK", 32}, {"ITEMS", 1}};
  EXPECT_FALSE(replay.contains(unknown));
  EXPECT_TRUE(replay.contains({{"BLOCK", 64}, {"ITEMS", 2}}));
  const Outcome outcome = replay.evaluate(unknown);
  EXPECT_EQ(outcome.status, Status::launch_error);
  EXPECT_EQ(outcome.message, "not in the recorded sweep: {\"BLOCK\":32,\"ITEMS\":1}");
  EXPECT_FALSE(outcome.timing.has_value());
}

TEST(ReplayObjective, BestIsTheFastestOkTime) {
  RecordedSweep sweep = replay_test::small_sweep();
  EXPECT_EQ(ReplayObjective(sweep).best_time_us(), 0.1 + 0.2);
  sweep.results = {replay_test::failed_result({{"BLOCK", 1}}, Status::nan, "unwritten")};
  EXPECT_FALSE(ReplayObjective(sweep).best_time_us().has_value());
  sweep.results.clear();
  EXPECT_EQ(ReplayObjective(sweep).size(), 0u);
}

}  // namespace replay_objective_test
}  // namespace evotune
