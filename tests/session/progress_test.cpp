// Durations read the way people read them; counts add up.
#include "session/progress.hpp"

#include <gtest/gtest.h>

namespace evotune {
namespace {

TEST(FormatDuration, SecondsMinutesHours) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(59.4), "59s");
  EXPECT_EQ(format_duration(187), "3m07s");
  EXPECT_EQ(format_duration(3720), "1h02m");
}

TEST(Progress, CountsDoneAndFailed) {
  Progress progress(3, false);
  progress.update(true, 12.5, "A=1");
  progress.update(false, std::nullopt, "");
  EXPECT_EQ(progress.done(), 2);
  EXPECT_EQ(progress.failed(), 1);
}

}  // namespace
}  // namespace evotune
