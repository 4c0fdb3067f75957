// `evotune bench-strategies`: the table, its JSON form, and the checks of the sweep against the space.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "replay/sweep_fixture.hpp"
#include "store/store_fixture.hpp"
#include "support/run_command.hpp"

namespace evotune {
namespace bench_strategies_command_test {

const std::string kSpaceFile = "tests/data/spaces/saxpy.json";

// A synthetic sweep of saxpy's valid configs on sm_90, the best (5 us) at enumeration position 10.
class BenchStrategiesCommand : public ::testing::Test {
 protected:
  BenchStrategiesCommand() : space(SearchSpace::load(kSpaceFile)) {
    sweep = replay_test::synthetic_sweep(space, [](std::size_t i) { return i == 10 ? 5.0 : 100.0 + i; });
    save_sweep(sweep, sweep_file());
  }
  std::filesystem::path sweep_file() const { return dir.file("sweep.json"); }
  test::CommandResult bench(const std::string& extra) const {
    return test::run_evotune("bench-strategies " + kSpaceFile + " --replay " + sweep_file().string() + extra);
  }

  store_test::TempDir dir;
  SearchSpace space;
  RecordedSweep sweep;
};

TEST_F(BenchStrategiesCommand, PrintsATableRowPerStrategyAndThreshold) {
  const auto result = bench(" --seeds 4 --strategies random,exhaustive");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string& out = result.out;
  EXPECT_NE(out.find(std::to_string(sweep.results.size()) + " valid configs, best 5 us"), std::string::npos)
      << out;
  EXPECT_NE(out.find("strategy"), std::string::npos) << out;
  EXPECT_NE(out.find("median %"), std::string::npos) << out;
  for (const char* within : {"1%", "2%", "5%"}) {
    EXPECT_NE(out.find("random           " + std::string(within) + "      4/4"), std::string::npos) << out;
    EXPECT_NE(out.find("exhaustive       " + std::string(within) + "      4/4       11       11       11"),
              std::string::npos)
        << out;
  }
  EXPECT_NE(out.find("never"), std::string::npos) << out;  // the legend says how unreached seeds count
}

TEST_F(BenchStrategiesCommand, SeedsThatNeverGetThereReadNever) {
  const auto result = bench(" --seeds 2 --strategies exhaustive --budget 5");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find(
                "exhaustive       1%      0/2    never    never    never     never     never     never"),
            std::string::npos)
      << result.out;
}

TEST_F(BenchStrategiesCommand, JsonHasTheSameNumbers) {
  const auto result = bench(" --seeds 3 --strategies exhaustive,random --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = nlohmann::json::parse(result.out);
  const auto valid = static_cast<double>(sweep.results.size());
  EXPECT_EQ(report["space"], "saxpy");
  EXPECT_EQ(report["space_hash"], space.hash());
  EXPECT_EQ(report["valid_configs"], sweep.results.size());
  EXPECT_EQ(report["best_us"], 5.0);
  EXPECT_EQ(report["seeds"], 3);
  EXPECT_EQ(report["budget"], sweep.results.size());
  EXPECT_EQ(report["in_flight"], 16);
  ASSERT_EQ(report["strategies"].size(), 2u);
  const auto& exhaustive = report["strategies"][0];
  EXPECT_EQ(exhaustive["strategy"], "exhaustive");
  ASSERT_EQ(exhaustive["thresholds"].size(), 3u);
  const auto& within_1 = exhaustive["thresholds"][0];
  EXPECT_EQ(within_1["within"], 0.01);
  EXPECT_EQ(within_1["reached"], 3);
  EXPECT_EQ(within_1["seeds"], 3);
  EXPECT_EQ(within_1["median"], 11.0);
  EXPECT_EQ(within_1["q1"], 11.0);
  EXPECT_EQ(within_1["q3"], 11.0);
  EXPECT_DOUBLE_EQ(within_1["median_pct"].get<double>(), 100.0 * 11 / valid);
  ASSERT_EQ(exhaustive["runs"].size(), 3u);
  EXPECT_EQ(exhaustive["runs"][1]["seed"], 2);
  EXPECT_EQ(exhaustive["runs"][1]["reached"], nlohmann::json::parse("[11, 11, 11]"));
  EXPECT_EQ(report["strategies"][1]["strategy"], "random");
}

TEST_F(BenchStrategiesCommand, JsonSaysNullForNeverReached) {
  const auto result = bench(" --seeds 1 --strategies exhaustive --budget 3 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto within_1 = nlohmann::json::parse(result.out)["strategies"][0]["thresholds"][0];
  EXPECT_EQ(within_1["reached"], 0);
  EXPECT_TRUE(within_1["median"].is_null());
  EXPECT_TRUE(within_1["median_pct"].is_null());
}

TEST_F(BenchStrategiesCommand, UnknownStrategyIsAnErrorLine) {
  const auto result = bench(" --strategies random,hillclimb");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err.rfind("evotune: error: unknown strategy 'hillclimb'", 0), 0u) << result.err;
}

TEST_F(BenchStrategiesCommand, AnotherVersionWarnsAnotherSpaceFails) {
  sweep.space_hash = "ffffffffffffffff";
  save_sweep(sweep, sweep_file());
  const auto warned = bench(" --seeds 1");
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("recorded with version ffffffffffffffff"), std::string::npos) << warned.err;

  sweep.space_name = "gemm";
  save_sweep(sweep, sweep_file());
  const auto failed = bench(" --seeds 1");
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_NE(failed.err.find("the sweep records space 'gemm', not 'saxpy'"), std::string::npos) << failed.err;
}

TEST_F(BenchStrategiesCommand, MalformedSweepNamesTheFileAndField) {
  store_test::write_bytes(sweep_file(), "{\"format\": \"evotune-sweep-v1\", \"space\": 3}");
  const auto result = bench("");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("sweep.json: space: expected a string"), std::string::npos) << result.err;
}

}  // namespace bench_strategies_command_test
}  // namespace evotune
