// The derived per-launch limit (ceiling, reference, best so far, floor) and the whole-job watchdog.
#include "session/launch_timeout.hpp"

#include <gtest/gtest.h>

namespace evotune {
namespace launch_timeout_test {

const TimeoutPolicy kPolicy;  // ceiling 10 s, floor 1 s, 20 x reference, 100 x best

TEST(LaunchLimit, WithoutDataItIsTheCeiling) {
  const LaunchLimit limit = launch_limit(kPolicy, 0, std::nullopt);
  EXPECT_EQ(limit.per_launch_ms, 10000);
  EXPECT_EQ(limit.basis, "the --timeout-ms ceiling");
  EXPECT_EQ(launch_limit(kPolicy, -1, 0.0).per_launch_ms, 10000);  // no usable time either
}

TEST(LaunchLimit, TwentyTimesTheReference) {
  const LaunchLimit limit = launch_limit(kPolicy, 100, std::nullopt);
  EXPECT_EQ(limit.per_launch_ms, 2000);
  EXPECT_EQ(limit.basis, "20 x reference 100 ms");
  EXPECT_EQ(launch_limit(kPolicy, 0.41, std::nullopt).per_launch_ms, 1000);  // 8.2 ms: the floor
}

TEST(LaunchLimit, HundredTimesTheBestWhenTighter) {
  const LaunchLimit tighter = launch_limit(kPolicy, 100, 15.0);
  EXPECT_EQ(tighter.per_launch_ms, 1500);
  EXPECT_EQ(tighter.basis, "100 x best so far 15 ms");
  const LaunchLimit looser = launch_limit(kPolicy, 100, 50.0);  // 5000 ms: the reference's 2000 stays
  EXPECT_EQ(looser.per_launch_ms, 2000);
  EXPECT_EQ(looser.basis, "20 x reference 100 ms");
  const LaunchLimit best_only = launch_limit(kPolicy, 0, 30.0);
  EXPECT_EQ(best_only.per_launch_ms, 3000);
  EXPECT_EQ(best_only.basis, "100 x best so far 30 ms");
}

TEST(LaunchLimit, NeverBelowTheFloorAndSaysSo) {
  const LaunchLimit limit = launch_limit(kPolicy, 0.05, 0.0123);
  EXPECT_EQ(limit.per_launch_ms, 1000);
  EXPECT_EQ(limit.basis, "the 1000 ms floor");
  TimeoutPolicy policy;
  policy.floor_ms = 250;
  const LaunchLimit lower_floor = launch_limit(policy, 1, 0.5);
  EXPECT_EQ(lower_floor.per_launch_ms, 250);
  EXPECT_EQ(lower_floor.basis, "the 250 ms floor");
}

TEST(LaunchLimit, NeverAboveTheCeiling) {
  const LaunchLimit slow = launch_limit(kPolicy, 900, 400.0);  // 18 s and 40 s
  EXPECT_EQ(slow.per_launch_ms, 10000);
  EXPECT_EQ(slow.basis, "the --timeout-ms ceiling");
  TimeoutPolicy tight;  // --timeout-ms below the floor: the user's ceiling wins
  tight.ceiling_ms = 400;
  for (const double reference_ms : {0.0, 0.01, 5.0, 1000.0}) {
    const LaunchLimit limit = launch_limit(tight, reference_ms, 0.001);
    EXPECT_EQ(limit.per_launch_ms, 400) << reference_ms;
    EXPECT_EQ(limit.basis, "the --timeout-ms ceiling") << reference_ms;
  }
}

TEST(LaunchLimit, FormatsFractionalTimes) {
  const LaunchLimit limit = launch_limit(kPolicy, 123.456, std::nullopt);
  EXPECT_DOUBLE_EQ(limit.per_launch_ms, 2469.12);
  EXPECT_EQ(limit.basis, "20 x reference 123 ms");
}

// EvalSettings with `warmup`, `repetitions` and `rounds`, the rest default.
EvalSettings settings(int warmup, int repetitions, int rounds = 2) {
  return EvalSettings{.warmup = warmup, .repetitions = repetitions, .validation_rounds = rounds};
}

TEST(JobDeadline, GrowsWithRepetitionsWarmupAndValidationRounds) {
  const LaunchLimit limit{1000, "the 1000 ms floor"};
  const double few = job_deadline_ms(limit, settings(3, 10));
  const double many = job_deadline_ms(limit, settings(3, 100));
  EXPECT_GT(many, few);
  EXPECT_EQ(many - few, 90 * 1000);  // one launch limit per added repetition
  EXPECT_EQ(job_deadline_ms(limit, settings(13, 10)) - few, 10 * 1000);
  // Per round the reference and the variant, once more the variant for the bitwise repeat.
  EXPECT_EQ(job_deadline_ms(limit, settings(3, 10, 3)) - few, 2 * 1000);
  EXPECT_GE(few, limit.per_launch_ms * (5 + 3 + 10));  // validation, warm-up and every timed launch
  EXPECT_EQ(job_deadline_ms(limit, settings(-5, -5)), job_deadline_ms(limit, settings(0, 0)));
  EXPECT_GT(job_deadline_ms(limit, settings(0, 0)), 5 * limit.per_launch_ms);  // host work on top
  EXPECT_GT(job_deadline_ms({2000, ""}, settings(3, 10)), few);                // and with the launch limit
  // Special-input rounds and extra problems: the reference and the variant each.
  EXPECT_EQ(job_deadline_ms(limit, settings(3, 10), 3) - few, 3 * 2 * 1000);
}

}  // namespace launch_timeout_test
}  // namespace evotune
