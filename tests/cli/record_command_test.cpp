// `evotune record`: a store populated here becomes the expected sweep file; device choice and its errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "replay/recorded_sweep.hpp"
#include "space/search_space.hpp"
#include "store/store_fixture.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace record_command_test {

using store_test::failed_outcome;
using store_test::ok_outcome;
using store_test::read_bytes;
using store_test::test_device;

const std::string kSpaceFile = "tests/data/spaces/saxpy.json";

// saxpy's default problem measured on an H100 (three configs) and an A100 (one).
class RecordCommand : public ::testing::Test {
 protected:
  RecordCommand() : space(SearchSpace::load(kSpaceFile)), sizes(space.resolve_problem("")) {
    Store store(db());
    const auto space_id = store.upsert_space(space.name(), kSpaceFile, space.hash(), space.json_text());
    const auto problem_id = store.upsert_problem(sizes);
    const auto h100 = store.upsert_device(test_device(), "12.8");
    DeviceInfo a100 = test_device("NVIDIA A100-SXM4-80GB");
    a100.cc_major = 8;
    const auto a100_id = store.upsert_device(a100, "12.4");
    const auto run = store.begin_run({space_id, problem_id, h100, "exhaustive", 0, 10, "evotune tune"});
    auto measure = [&](const Config& config, const Outcome& outcome, std::int64_t device) {
      store.record_measurement(
          {run, store.upsert_config(space_id, config), problem_id, device, std::nullopt, outcome});
    };
    measure(fast, ok_outcome(2.5), h100);
    measure(slow, ok_outcome(7.0), h100);
    measure(broken, failed_outcome(Status::launch_error, "illegal address"), h100);
    measure(slow, ok_outcome(9.0), a100_id);
  }

  std::filesystem::path db() const { return dir.file("results.db"); }
  std::string args(const std::string& extra) const {
    return "record " + kSpaceFile + " --db " + db().string() + " -o " + dir.file("sweep.json").string() +
           extra;
  }

  store_test::TempDir dir;
  SearchSpace space;
  Sizes sizes;
  const Config fast{{"BLOCK", 256}, {"ITEMS", 4}, {"VECTOR", 1}};
  const Config slow{{"BLOCK", 32}, {"ITEMS", 1}, {"VECTOR", 0}};
  const Config broken{{"BLOCK", 1024}, {"ITEMS", 1}, {"VECTOR", 0}};
};

// --t4: the same results in the T4 format Kernel Tuner writes, for the community's analysis tools.
TEST_F(RecordCommand, WritesT4Results) {
  const auto result = test::run_evotune(args(" --t4"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("(T4): 3 results (2 ok)"), std::string::npos) << result.out;
  const auto t4 = nlohmann::json::parse(read_bytes(dir.file("sweep.json")));
  EXPECT_EQ(t4["schema_version"], "1.0.0");
  EXPECT_EQ(t4["metadata"]["timeunit"], "milliseconds");
  EXPECT_EQ(t4["metadata"]["benchmark"], "saxpy");
  ASSERT_EQ(t4["results"].size(), 3u);
  int correct = 0;
  for (const auto& entry : t4["results"]) {
    EXPECT_EQ(entry["objectives"], nlohmann::json::array({"time"}));
    EXPECT_TRUE(entry["times"]["runtimes"].is_array());
    const auto& time = entry["measurements"][0];
    EXPECT_EQ(time["name"], "time");
    if (entry["configuration"] == nlohmann::json(broken)) {
      EXPECT_EQ(entry["invalidity"], "runtime");
      EXPECT_EQ(time["value"], "launch_error");
      continue;
    }
    ++correct;
    EXPECT_EQ(entry["invalidity"], "correct");
    EXPECT_EQ(entry["correctness"], 1);
    EXPECT_GT(time["value"].template get<double>(), 0.0);
    EXPECT_EQ(time["unit"], "ms");
  }
  EXPECT_EQ(correct, 2);
}

TEST_F(RecordCommand, WritesTheMostMeasuredDevicesResultsAsTheExpectedFile) {
  const auto result = test::run_evotune(args(""));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("3 results (2 ok)"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("2 devices have measurements"), std::string::npos) << result.err;

  RecordedSweep expected;
  expected.space_name = "saxpy";
  expected.space_hash = space.hash();
  expected.problem = sizes;
  expected.device = with_offline_limits(test_device());
  expected.nvrtc_version = "12.8";
  expected.results = {{fast, Status::ok, "", ok_outcome(2.5).timing},
                      {slow, Status::ok, "", ok_outcome(7.0).timing},
                      {broken, Status::launch_error, "illegal address", std::nullopt}};
  EXPECT_EQ(read_bytes(dir.file("sweep.json")), sweep_text(expected));

  const RecordedSweep loaded = load_sweep(dir.file("sweep.json"));
  EXPECT_EQ(loaded.device.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(loaded.device.driver_version, 13000);
  EXPECT_EQ(loaded.device.max_threads_per_block, 1024);  // not in the store: from sm_90's limits
  EXPECT_EQ(loaded.problem, sizes);
  EXPECT_EQ(loaded.results.size(), 3u);
}

TEST_F(RecordCommand, DeviceOptionPicksAnother) {
  const auto result = test::run_evotune(args(" --device 'NVIDIA A100-SXM4-80GB'"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const RecordedSweep loaded = load_sweep(dir.file("sweep.json"));
  EXPECT_EQ(loaded.device.arch(), "sm_80");
  EXPECT_EQ(loaded.nvrtc_version, "12.4");
  ASSERT_EQ(loaded.results.size(), 1u);
  EXPECT_EQ(loaded.results[0].params, slow);
  EXPECT_EQ(loaded.results[0].timing->median_us, 9.0);
}

TEST_F(RecordCommand, UnknownDeviceListsTheChoices) {
  const auto result = test::run_evotune(args(" --device 'NVIDIA B200'"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err.rfind("evotune: error: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find("'NVIDIA B200'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("'NVIDIA H100 80GB HBM3' (sm_90, driver 13000, NVRTC 12.8): 3 measurements"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("'NVIDIA A100-SXM4-80GB'"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("sweep.json")));
}

TEST_F(RecordCommand, ProblemWithoutResultsIsAnError) {
  const auto result = test::run_evotune(args(" --problem N=8192"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("N=8192"), std::string::npos) << result.err;
}

}  // namespace record_command_test
}  // namespace evotune
