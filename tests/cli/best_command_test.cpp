// `evotune best` on a database made through the store: how each config was timed, in the table and the JSON.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "space/search_space.hpp"
#include "store/store.hpp"
#include "store/store_fixture.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace {

const std::string kSaxpy = "tests/data/spaces/saxpy.json";

// The saxpy space's default problem on one device, with one run; measure() adds an ok config.
class BestCommand : public ::testing::Test {
 protected:
  BestCommand()
      : space(SearchSpace::load(kSaxpy)),
        db(dir.file("results.db")),
        store(db),
        space_id(store.upsert_space(space.name(), space.path().string(), space.hash(), space.json_text())),
        problem_id(store.upsert_problem(space.resolve_problem(""))),
        device_id(store.upsert_device(store_test::test_device(), "13.0")),
        run_id(store.begin_run({space_id, problem_id, device_id, "exhaustive", 1, 10, "evotune tune"})) {}

  std::int64_t measure(std::int64_t block, double median_us, std::optional<TimingMethod> method) {
    Outcome outcome = store_test::ok_outcome(median_us);
    outcome.timing->method = std::move(method);
    const std::int64_t config =
        store.upsert_config(space_id, {{"BLOCK", block}, {"ITEMS", 1}, {"VECTOR", 0}});
    store.record_measurement({run_id, config, problem_id, device_id, std::nullopt, outcome, 0.1, 10});
    return config;
  }

  test::CommandResult best(const std::string& options = "") const {
    return test::run_evotune("best " + kSaxpy + " --db " + db.string() + " " + options);
  }

  store_test::TempDir dir;
  SearchSpace space;
  std::filesystem::path db;
  Store store;
  std::int64_t space_id, problem_id, device_id, run_id;
};

// The line of `text` that contains `needle`; "" when none.
std::string line_with(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) return "";
  const auto start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  return text.substr(start, text.find('\n', at) - start);
}

TEST_F(BestCommand, ShowsHowEachConfigWasTimed) {
  measure(128, 2.5, TimingMethod{true, 20, true});
  measure(256, 3.5,
          TimingMethod{false, 0, false, "cuStreamEndCapture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"});
  measure(512, 4.5, std::nullopt);  // from a database that did not record it
  const auto table = best();
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(line_with(table.out, "rank").find("timing"), std::string::npos) << table.out;
  EXPECT_NE(line_with(table.out, "BLOCK=128").find("graph x20 flush"), std::string::npos) << table.out;
  EXPECT_NE(line_with(table.out, "BLOCK=256").find("single* no-flush"), std::string::npos) << table.out;
  EXPECT_NE(line_with(table.out, "BLOCK=512").find("  -  "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("single*: a CUDA graph could not be captured"), std::string::npos) << table.out;

  const auto json = best("--json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto results = nlohmann::json::parse(json.out);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].at("timing_mode"), "graph");
  EXPECT_EQ(results[0].at("graph_executions"), 20);
  EXPECT_EQ(results[0].at("flush_l2"), true);
  EXPECT_EQ(results[1].at("timing_mode"), "single");
  EXPECT_EQ(results[1].at("flush_l2"), false);
  EXPECT_NE(results[1].at("timing_fallback").get<std::string>().find("INVALIDATED"), std::string::npos);
  EXPECT_TRUE(results[2].at("timing_mode").is_null());
}

}  // namespace
}  // namespace evotune
