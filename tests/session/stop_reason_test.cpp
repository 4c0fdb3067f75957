// The stop reasons' names: the log's last word and the runs table's status.
#include "session/stop_reason.hpp"

#include <gtest/gtest.h>

namespace evotune {
namespace stop_reason_test {

TEST(StopReason, NamesAreTheLogsAndTheRunsTables) {
  EXPECT_EQ(to_string(StopReason::finished), "finished");
  EXPECT_EQ(to_string(StopReason::budget), "budget");
  EXPECT_EQ(to_string(StopReason::time_limit), "time limit");
  EXPECT_EQ(to_string(StopReason::interrupted), "interrupted");
  EXPECT_EQ(to_string(StopReason::failed), "failed");
}

}  // namespace stop_reason_test
}  // namespace evotune
