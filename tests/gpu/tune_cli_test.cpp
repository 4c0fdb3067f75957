// End to end on a GPU: tune a small space with the CLI, query it, tune again (nothing re-measured), export
// it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "cuda/driver.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace tune_cli_test {

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

std::vector<nlohmann::json> best_results(const std::string& space, const std::string& db) {
  const auto best =
      test::run_evotune("best " + space + " --problem N=100000 --db " + db + " --json --top 1000");
  EXPECT_EQ(best.exit_code, 0) << best.err;
  return nlohmann::json::parse(best.out).get<std::vector<nlohmann::json>>();
}

// The order `best` lists: by the search's medians, the configs a rerank re-timed (tune --rerank) permuted
// among their places by their re-measured medians. Expects it of `results` (every stored result).
void expect_best_order(const std::vector<nlohmann::json>& results) {
  std::vector<nlohmann::json> by_search = results;
  std::stable_sort(by_search.begin(), by_search.end(), [](const auto& a, const auto& b) {
    return a["time_us"].template get<double>() < b["time_us"].template get<double>();
  });
  double previous_remeasured = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const bool remeasured = !results[i]["remeasured"].is_null();
    EXPECT_EQ(remeasured, !by_search[i]["remeasured"].is_null()) << i;  // a re-measured config's place
    if (!remeasured) {
      EXPECT_EQ(results[i]["config_id"], by_search[i]["config_id"]) << i;
      continue;
    }
    const double median = results[i]["remeasured"]["median_us"].get<double>();
    EXPECT_GE(median, previous_remeasured) << i;  // the re-measured ones in their rerank's order
    previous_remeasured = median;
  }
}

// The saxpy space has 36 valid configs for N=100000 and a default budget of 20; the 10 fastest are re-timed
// after each search (the default --rerank 10).
TEST_F(TuneCli, TuneContinueBestExport) {
  const std::string space = "tests/data/spaces/saxpy.json";
  const auto first = test::run_evotune("tune " + space + " --problem N=100000 --db " + db_ + " --reps 10");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto results = best_results(space, db_);
  ASSERT_EQ(results.size(), 20u);
  expect_best_order(results);
  int remeasured = 0;
  for (const auto& r : results) {
    EXPECT_EQ(r["status"], "ok") << r.dump();
    EXPECT_GT(r["time_us"].get<double>(), 0.0);
    remeasured += r["remeasured"].is_null() ? 0 : 1;
    EXPECT_TRUE(r["timing_mode"] == "graph" || r["timing_mode"] == "single") << r.dump();
    EXPECT_TRUE(r["params"].contains("BLOCK"));
    EXPECT_TRUE(r.contains("config_id"));
    EXPECT_GT(r["tflops"].get<double>(), 0.0);
  }
  EXPECT_EQ(remeasured, 10);
  EXPECT_FALSE(results[0]["remeasured"].is_null());
  EXPECT_EQ(results[0]["remeasured"]["rounds"], 5);

  const auto second = test::run_evotune("tune " + space + " --problem N=100000 --db " + db_ + " --reps 10");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("20 already measured"), std::string::npos) << second.err;
  EXPECT_NE(second.err.find(": 16 evaluated"), std::string::npos) << second.err;
  EXPECT_EQ(best_results(space, db_).size(), 36u);

  const auto third = test::run_evotune("tune " + space + " --problem N=100000 --db " + db_);
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_NE(third.err.find(": 0 evaluated"), std::string::npos) << third.err;
  EXPECT_EQ(best_results(space, db_).size(), 36u);

  const std::string exported = (dir_ / "best.cu").string();
  const auto export_run =
      test::run_evotune("export " + space + " --problem N=100000 --db " + db_ + " -o " + exported);
  ASSERT_EQ(export_run.exit_code, 0) << export_run.err;
  EXPECT_TRUE(std::filesystem::exists(exported));
}

}  // namespace tune_cli_test
}  // namespace evotune
