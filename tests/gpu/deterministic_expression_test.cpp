// Validation.Deterministic as an expression on a GPU (tests/data/spaces/deterministic_expression.json,
// "MODE != 2"): MODE 1 and 2 are one kernel whose float atomics add in whatever order they run; the config
// the expression holds for gets the bitwise repeat and fails it, the other skips it and passes, in `eval` and
// in a tune's workers alike.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cuda/driver.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace deterministic_expression_test {

const std::string kSpace = "tests/data/spaces/deterministic_expression.json";

nlohmann::json eval_mode(int mode) {
  const auto result =
      test::run_evotune("eval tests/data/spaces/deterministic_expression.cu --space " + kSpace +
                        " --json --timeout-ms 5000 --params MODE=" + std::to_string(mode));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.exit_code == 0 ? nlohmann::json::parse(result.out) : nlohmann::json{};
}

class DeterministicExpressionGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  }
};

TEST_F(DeterministicExpressionGpu, APlainKernelPassesTheRepeat) {
  const auto json = eval_mode(0);
  EXPECT_EQ(json.value("status", ""), "ok") << json.dump(2);
}

TEST_F(DeterministicExpressionGpu, TheConfigTheExpressionHoldsForGetsTheRepeatAndFailsIt) {
  const auto json = eval_mode(1);
  EXPECT_EQ(json.value("status", ""), "nondeterministic") << json.dump(2);
  EXPECT_NE(json.value("message", "").find("two launches on the same inputs differ"), std::string::npos)
      << json.dump(2);
}

TEST_F(DeterministicExpressionGpu, TheConfigItDoesNotHoldForSkipsTheRepeat) {
  // The same atomics as MODE 1: right within the tolerance, so only the repeat could fail them.
  const auto json = eval_mode(2);
  EXPECT_EQ(json.value("status", ""), "ok") << json.dump(2);
  EXPECT_EQ(json.at("validation").at("rounds"), 2) << json.dump(2);
}

TEST_F(DeterministicExpressionGpu, ATuneAsksItPerConfig) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("evotune_deterministic_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "results.db").string();
  const auto tune = test::run_evotune("tune " + kSpace + " --db " + db +
                                      " --strategy exhaustive --reps 5 --rerank 0 --timeout-ms 5000");
  EXPECT_EQ(tune.exit_code, 0) << tune.err;
  const auto best = test::run_evotune("best " + kSpace + " --db " + db + " --json --failed --top 100");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  const auto results = nlohmann::json::parse(best.out);
  EXPECT_EQ(results.size(), 3u) << best.out;
  for (const auto& result : results) {
    const int mode = result.at("params").at("MODE").get<int>();
    EXPECT_EQ(result.at("status"), mode == 1 ? "nondeterministic" : "ok") << result.dump();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace deterministic_expression_test
}  // namespace evotune
