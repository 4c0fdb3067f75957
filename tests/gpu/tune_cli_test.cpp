// End to end on a GPU: tune a small space with the CLI, query it, tune again (nothing re-measured), export it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cuda/driver.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace {

class TuneCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
    dir_ = std::filesystem::temp_directory_path() / ("evotune_tune_cli_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    db_ = (dir_ / "results.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string db_;
};

TEST_F(TuneCli, TuneBestRetuneExport) {
  const std::string space = "tests/data/spaces/saxpy.json";
  const auto tune = test::run_evotune("tune " + space + " --problem N=100000 --db " + db_ + " --reps 10");
  ASSERT_EQ(tune.exit_code, 0) << tune.err;

  const auto best = test::run_evotune("best " + space + " --problem N=100000 --db " + db_ + " --json --top 100");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  const auto results = nlohmann::json::parse(best.out);
  ASSERT_GT(results.size(), 10u);
  double previous = 0;
  for (const auto& r : results) {
    EXPECT_EQ(r["status"], "ok") << r.dump();
    EXPECT_GT(r["time_us"].get<double>(), 0.0);
    EXPECT_GE(r["time_us"].get<double>(), previous);  // best first
    previous = r["time_us"].get<double>();
    EXPECT_TRUE(r["params"].contains("BLOCK"));
    EXPECT_TRUE(r.contains("config_id"));
    EXPECT_TRUE(r.contains("tflops"));
  }

  const auto again = test::run_evotune("tune " + space + " --problem N=100000 --db " + db_);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find(std::to_string(results.size()) + " already measured"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("0 evaluated"), std::string::npos) << again.err;

  const std::string exported = (dir_ / "best.cu").string();
  const auto export_run = test::run_evotune("export " + space + " --problem N=100000 --db " + db_ + " -o " + exported);
  ASSERT_EQ(export_run.exit_code, 0) << export_run.err;
  EXPECT_TRUE(std::filesystem::exists(exported));
}

}  // namespace
}  // namespace evotune
