// `evotune eval` on a GPU: kernel files from outside judged by the same checks as tuned variants (the fault
// space's template with FAULT fixed stands in for kernels written elsewhere).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cuda/driver.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace eval_cli_test {

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

// saxpy of the default 4096 elements: a kernel of a few microseconds, where a launch's overhead shows.
nlohmann::json eval_saxpy(const std::string& timing) {
  const auto result = test::run_evotune(
      "eval tests/data/spaces/saxpy.cu --space tests/data/spaces/saxpy.json --json --reps 50 "
      "--params BLOCK=256,ITEMS=4,VECTOR=1 --timing " +
      timing);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

TEST_F(EvalCli, AGraphOfATinyKernelTimesItWithoutTheLaunchOverhead) {
  const auto single = eval_saxpy("single");
  const auto graph = eval_saxpy("graph");
  ASSERT_EQ(single.at("status"), "ok") << single.dump(2);
  ASSERT_EQ(graph.at("status"), "ok") << graph.dump(2);
  EXPECT_EQ(single.at("timing_mode"), "single");
  EXPECT_TRUE(single.at("graph_executions").is_null());
  EXPECT_EQ(graph.at("timing_mode"), "graph") << graph.dump(2);
  const int executions = graph.at("graph_executions").get<int>();
  EXPECT_GE(executions, 1);
  EXPECT_LE(executions, 20);
  EXPECT_EQ(graph.at("timing").at("method").at("graph_executions"), executions);
  EXPECT_EQ(graph.at("timing").at("method").at("flush_l2"), true);
  const double single_us = single.at("time_us").get<double>(), graph_us = graph.at("time_us").get<double>();
  EXPECT_GT(graph_us, 0.0);
  EXPECT_LE(graph_us, single_us * 1.05) << "graph " << graph_us << " us per execution, single " << single_us;
  // auto takes the graph for a kernel this short.
  EXPECT_EQ(eval_saxpy("auto").at("timing_mode"), "graph");
}

TEST_F(EvalCli, AnOrderDependentSumIsNondeterministic) {
  EXPECT_EQ(eval_fault(16).at("status"), "nondeterministic");
}

}  // namespace eval_cli_test
}  // namespace evotune
