// A variant of several launches on a GPU, through `evotune eval`: the row-sum space's split kernels and their
// scratch buffer validate like any variant (main problem, COLS + 1), a split left unwritten reads the NaN the
// scratch is poisoned with, and a write past the scratch buffer's end trips its guard.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cuda/driver.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace launches_test {

nlohmann::json eval_row_sum(const std::string& kernel_file, const std::string& params,
                            const std::string& problem) {
  const auto result = test::run_evotune(
      "eval " + kernel_file + " --space tests/data/spaces/row_sum.json --json --timeout-ms 5000 --params " +
      params + " --problem " + problem);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

class Launches : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  }
};

TEST_F(Launches, EverySplitCountMatchesTheReference) {
  for (const char* params : {"BLOCK=64,SPLITS=1", "BLOCK=128,SPLITS=2", "BLOCK=256,SPLITS=4"})
    for (const char* problem : {"ROWS=100,COLS=1000", "ROWS=7,COLS=3"}) {
      const auto json = eval_row_sum("tests/data/spaces/row_sum.cu", params, problem);
      EXPECT_EQ(json.at("status"), "ok") << params << " " << problem << ": " << json.dump(2);
      EXPECT_EQ(json.at("validation").at("rounds"), 2 + 1) << "two random rounds, COLS + 1";
      EXPECT_GT(json.at("time_us").get<double>(), 0.0);
      EXPECT_EQ(json.at("kernel"), "row_sum");  // KernelSpecification.KernelName names the variant
      const auto& launches = json.at("launches");
      if (std::string(params).find("SPLITS=1") != std::string::npos) {
        ASSERT_EQ(launches.size(), 1u) << json.dump(2);
        EXPECT_EQ(launches[0].at("kernel"), "row_sum");
      } else {
        ASSERT_EQ(launches.size(), 2u) << json.dump(2);
        EXPECT_EQ(launches[0].at("kernel"), "row_sum_part");
        EXPECT_EQ(launches[1].at("kernel"), "row_sum_combine");
        EXPECT_GT(launches[1].at("registers").get<int>(), 0);
      }
    }
}

TEST_F(Launches, AnUnwrittenSplitReadsThePoisonedScratch) {
  const auto json = eval_row_sum("tests/data/spaces/row_sum_fault_unwritten.cu", "BLOCK=128,SPLITS=2",
                                 "ROWS=100,COLS=1000");
  EXPECT_EQ(json.at("status"), "nan") << json.dump(2);
  EXPECT_NE(json.at("message").get<std::string>().find("100 of 100 output elements are NaN/Inf"),
            std::string::npos)
      << json.dump(2);
  // With one split, row_sum_part does not run: the same file is correct.
  EXPECT_EQ(
      eval_row_sum("tests/data/spaces/row_sum_fault_unwritten.cu", "BLOCK=128,SPLITS=1", "ROWS=100,COLS=1000")
          .at("status"),
      "ok");
}

TEST_F(Launches, AWritePastTheScratchIsOutOfBounds) {
  const auto json =
      eval_row_sum("tests/data/spaces/row_sum_fault_overrun.cu", "BLOCK=128,SPLITS=4", "ROWS=100,COLS=1000");
  EXPECT_EQ(json.at("status"), "out_of_bounds") << json.dump(2);
  EXPECT_NE(json.at("message").get<std::string>().find("wrote outside buffer 'partial'"), std::string::npos)
      << json.dump(2);
  // At byte 1600, unless the float's first bytes happen to equal the canary's.
  EXPECT_NE(json.at("message").get<std::string>().find("after its end changed"), std::string::npos)
      << json.dump(2);
  EXPECT_NE(json.at("message").get<std::string>().find("of its 1600 bytes)"), std::string::npos)
      << json.dump(2);
}

}  // namespace launches_test
}  // namespace evotune
