// `evotune eval` on a GPU: kernel files from outside judged by the same checks as tuned variants (the fault
// space's template with FAULT fixed stands in for kernels written elsewhere).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cuda/driver.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace {

nlohmann::json eval_fault(int fault) {
  const auto result = test::run_evotune(
      "eval tests/data/spaces/faults.cu --space tests/data/spaces/faults.json --json --timeout-ms 2000 "
      "--params FAULT=" +
      std::to_string(fault));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

class EvalCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  }
};

TEST_F(EvalCli, ACorrectKernelIsOkWithItsTimeAndResources) {
  const auto ok = eval_fault(0);
  EXPECT_EQ(ok.at("status"), "ok") << ok.dump(2);
  EXPECT_GT(ok.at("time_us").get<double>(), 0.0);
  EXPECT_EQ(ok.at("validation").at("rounds"), 2 + 1) << "two random rounds, then the extra problem N + 1";
  EXPECT_GT(ok.at("resources").at("registers").get<int>(), 0);
  EXPECT_EQ(ok.at("kernel"), "faults");
}

TEST_F(EvalCli, WritesOutsideTheOutputOrIntoTheInputAreCaught) {
  const auto after = eval_fault(13);
  EXPECT_EQ(after.at("status"), "out_of_bounds") << after.dump(2);
  EXPECT_NE(after.at("message").get<std::string>().find("buffer 'out'"), std::string::npos);
  EXPECT_EQ(eval_fault(14).at("status"), "out_of_bounds");
  const auto input = eval_fault(15);
  EXPECT_EQ(input.at("status"), "wrong_result") << input.dump(2);
  EXPECT_NE(input.at("message").get<std::string>().find("'x'"), std::string::npos);
}

TEST_F(EvalCli, ReplayingAnEarlierResultFailsOnTheSecondRoundsFreshInputs) {
  const auto replay = eval_fault(18);
  EXPECT_EQ(replay.at("status"), "wrong_result") << replay.dump(2);
  EXPECT_NE(replay.at("message").get<std::string>().find("round 2 of 2"), std::string::npos);
}

TEST_F(EvalCli, AnOrderDependentSumIsNondeterministic) {
  EXPECT_EQ(eval_fault(16).at("status"), "nondeterministic");
}

}  // namespace
}  // namespace evotune
