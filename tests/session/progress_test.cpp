// Durations read the way people read them; counts add up.
#include "session/progress.hpp"

#include <gtest/gtest.h>

namespace evotune {
namespace progress_test {

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

// A throttling GPU shows in the progress line as a warning; the source (NVML reads) is asked at most every 2
// s.
TEST(Progress, ANoteFromTheGpuIsAWarningInTheLine) {
  Progress progress(3, true);
  int asked = 0;
  progress.set_note_source([&asked] {
    ++asked;
    return std::string("GPU 0 throttled (sw_thermal)");
  });
  testing::internal::CaptureStderr();
  progress.update(true, 12.5, "A=1");
  progress.update(true, std::nullopt, "");
  progress.finish();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("2/3 evaluated, 0 failed, best 12.50 us (A=1)"), std::string::npos) << err;
  EXPECT_NE(err.find("; WARNING: GPU 0 throttled (sw_thermal)"), std::string::npos) << err;
  EXPECT_EQ(asked, 1);
}

}  // namespace progress_test
}  // namespace evotune
