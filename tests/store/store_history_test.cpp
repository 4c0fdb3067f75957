// The report's queries: runs of a space and problem with their device, measurements in storing order with
// compile details and time into the run, and the ok times of every problem.
#include <gtest/gtest.h>

#include "store/store_fixture.hpp"

namespace evotune {
namespace store_history_test {

using store_test::failed_outcome;
using store_test::ok_outcome;

class StoreHistory : public store_test::StoreTest {};

TEST_F(StoreHistory, MeasurementsComeInStoringOrderWithTheirRunAndCompile) {
  CompileInfo info;
  info.arch = "sm_90";
  info.registers = 96;
  info.spill_store_bytes = 8;
  info.spill_load_bytes = 4;
  const auto compile_id = store.put_compile({"src", "sm_90", "12.8", ""}, Status::ok, "", info, "cubin");
  measure(config(64), ok_outcome(9.0), std::nullopt, compile_id);
  measure(config(16), failed_outcome(Status::launch_error, "illegal address"));
  measure(config(32), ok_outcome(4.0));

  const auto history = store.measurement_history(space_id, problem_id);
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0].result.params.at("BLOCK_M"), 64);
  EXPECT_TRUE(history[0].compiled);
  EXPECT_EQ(history[0].result.registers, 96);
  EXPECT_EQ(history[0].spill_bytes, 12);
  EXPECT_EQ(history[1].result.status, Status::launch_error);
  EXPECT_EQ(history[1].result.message, "illegal address");
  EXPECT_FALSE(history[1].compiled);
  EXPECT_FALSE(history[1].result.timing.has_value());
  EXPECT_EQ(history[2].result.timing->median_us, 4.0);
  for (const auto& row : history) {
    EXPECT_EQ(row.run_id, run_id);
    EXPECT_GE(row.seconds_into_run, 0.0);
    EXPECT_LT(row.seconds_into_run, 60.0);
  }
  EXPECT_TRUE(store.measurement_history(space_id, problem_id + 1).empty());
}

TEST_F(StoreHistory, RunsOfASpaceAndProblemCarryTheCommandAndDeviceVersions) {
  const auto other_problem = store.upsert_problem({{"B", 2}});
  store.begin_run({space_id, other_problem, device_id, "evolve", 1, 5, "evotune tune --problem B=2"});
  const auto second = store.begin_run({space_id, problem_id, device_id, "evolve", 3, 50, "evotune tune x"});
  store.finish_run(second, "finished", 0, 0);

  const auto runs = store.runs_of(space_id, problem_id);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, run_id);  // oldest first
  EXPECT_EQ(runs[1].id, second);
  EXPECT_EQ(runs[1].command, "evotune tune x");
  EXPECT_EQ(runs[1].seed, 3u);
  EXPECT_EQ(runs[1].driver_version, 13000);
  EXPECT_EQ(runs[1].nvrtc_version, "12.8");
  EXPECT_EQ(runs[1].device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(runs[1].finished_at.empty());
}

TEST_F(StoreHistory, OkTimesByProblemTakeTheFastestDeviceAndSkipFailures) {
  const auto a100 = store.upsert_device(store_test::test_device("NVIDIA A100"), "12.8");
  const auto other_problem = store.upsert_problem({{"B", 2}});
  const auto fast = config(64);
  measure(fast, ok_outcome(9.0));
  measure(fast, ok_outcome(7.0), a100);
  measure(config(16), failed_outcome(Status::timeout, "too slow"));
  store.record_measurement({run_id, fast, other_problem, device_id, std::nullopt, ok_outcome(30.0)});

  const auto times = store.ok_times_by_problem(space_id);
  ASSERT_EQ(times.size(), 2u);
  EXPECT_EQ(times[0].problem, (Sizes{{"B", 1}, {"H", 8}, {"S", 512}}));
  EXPECT_EQ(times[0].config_id, fast);
  EXPECT_EQ(times[0].median_us, 7.0);
  EXPECT_EQ(times[1].problem, (Sizes{{"B", 2}}));
  EXPECT_EQ(times[1].median_us, 30.0);
}

}  // namespace store_history_test
}  // namespace evotune
