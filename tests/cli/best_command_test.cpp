// `evotune best` on a database made through the store: how each config was timed, its rerank and whether it
// is within noise of the winner, in the table and the JSON; `tune --rerank` on a replayed sweep.
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
namespace best_command_test {

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

  std::int64_t measure(std::int64_t block, double median_us, std::optional<TimingMethod> method,
                       std::optional<EnergyStats> energy = std::nullopt) {
    Outcome outcome = store_test::ok_outcome(median_us);
    outcome.timing->method = std::move(method);
    outcome.energy = energy;
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
  const auto graph = measure(128, 2.5, TimingMethod{true, 20, true});
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

  const auto shown = test::run_evotune("show " + std::to_string(graph) + " --db " + db.string());
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(
      shown.out.find("timed as a CUDA graph of 20 executions per replay, L2 flushed before each replay"),
      std::string::npos)
      << shown.out;
}

// With energies stored: the table gains energy columns, the JSON an energy object, and --objective ranks by
// energy or energy x time (configs without an energy after those with one).
TEST_F(BestCommand, ShowsEnergiesAndRanksByTheObjectiveAskedFor) {
  measure(128, 2.0, std::nullopt, EnergyStats{900, 450, 200, 100000});  // fastest, costliest
  measure(256, 3.0, std::nullopt, EnergyStats{400, 133, 200, 66667});   // edp 1200: the best product
  measure(512, 6.0, std::nullopt, EnergyStats{250, 42, 200, 33333});    // most frugal, edp 1500
  measure(1024, 1.5, std::nullopt);                                     // fastest of all, no energy
  const auto table = best();
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(line_with(table.out, "rank").find("uJ/exec"), std::string::npos) << table.out;
  EXPECT_NE(line_with(table.out, "BLOCK=256").find("400.0"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("uJ/exec, W: energy per execution"), std::string::npos) << table.out;

  const auto order = [&](const std::string& objective) {
    const auto json = best("--json --objective " + objective);
    EXPECT_EQ(json.exit_code, 0) << json.err;
    std::vector<long long> blocks;
    for (const auto& item : nlohmann::json::parse(json.out)) blocks.push_back(item.at("params").at("BLOCK"));
    return blocks;
  };
  EXPECT_EQ(order("time"), (std::vector<long long>{1024, 128, 256, 512}));
  EXPECT_EQ(order("energy"), (std::vector<long long>{512, 256, 128, 1024}));  // 250, 400, 900 uJ
  EXPECT_EQ(order("edp"), (std::vector<long long>{256, 512, 128, 1024}));     // 1200, 1500, 1800 uJ*us
  const auto json = nlohmann::json::parse(best("--json").out);
  EXPECT_EQ(json[1].at("energy").at("uj_per_execution"), 900);
  EXPECT_EQ(json[1].at("energy").at("executions"), 100000);
  EXPECT_TRUE(json[0].at("energy").is_null());
  const auto top = best("--objective energy --top 1");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("ranked by energy (uJ)"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("BLOCK=512"), std::string::npos) << top.out;
  EXPECT_EQ(top.out.find("BLOCK=256"), std::string::npos) << top.out;
}

// A rerank of `config` at `median_us`, its rounds spread +-`half_spread`.
RerankRecord remeasured(std::int64_t config, int position, double median_us, double half_spread) {
  RerankRecord record{config, {}};
  record.remeasured = {position,
                       median_us,
                       median_us - half_spread,
                       median_us + half_spread,
                       {median_us - half_spread, median_us, median_us + half_spread},
                       TimingMethod{true, 20, true}};
  return record;
}

TEST_F(BestCommand, RanksByTheRerankAndMarksConfigsWithinNoiseOfTheWinner) {
  const auto a = measure(128, 2.5, TimingMethod{true, 20, true});
  const auto b = measure(256, 2.6, TimingMethod{true, 20, true});
  const auto c = measure(512, 2.7, TimingMethod{true, 20, true});
  measure(1024, 2.8, TimingMethod{true, 20, true});  // not re-measured; p20..p80 2.66..3.08
  // Re-measured: b is the winner (2.40..2.50), a overlaps it (2.45..2.55), c does not (2.60..2.64).
  store.save_rerank(
      run_id, problem_id, device_id,
      {remeasured(b, 1, 2.45, 0.05), remeasured(a, 2, 2.50, 0.05), remeasured(c, 3, 2.62, 0.02)});
  const auto table = best();
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const std::string first = line_with(table.out, "BLOCK=256"), second = line_with(table.out, "BLOCK=128");
  const std::string third = line_with(table.out, "BLOCK=512"), fourth = line_with(table.out, "BLOCK=1024");
  EXPECT_EQ(first.rfind("    1 ", 0), 0u) << table.out;
  EXPECT_EQ(second.rfind("   ~2 ", 0), 0u) << table.out;
  EXPECT_EQ(third.rfind("    3 ", 0), 0u) << table.out;
  EXPECT_EQ(fourth.rfind("    4 ", 0), 0u) << table.out;
  EXPECT_NE(first.find("2.45r"), std::string::npos) << table.out;
  EXPECT_NE(first.find("2.40..2.50"), std::string::npos) << table.out;
  EXPECT_NE(fourth.find("2.80 "), std::string::npos) << table.out;
  EXPECT_NE(line_with(table.out, "rank").find("spread_us"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("~: within noise of the winner"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("r: re-measured after the search"), std::string::npos) << table.out;

  const auto json = best("--json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto results = nlohmann::json::parse(json.out);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].at("config_id"), b);
  EXPECT_EQ(results[0].at("remeasured").at("median_us"), 2.45);
  EXPECT_EQ(results[0].at("remeasured").at("rounds"), 3);
  EXPECT_EQ(results[0].at("time_us"), 2.6);  // the measurement's own median
  EXPECT_FALSE(results[0].at("within_noise"));
  EXPECT_TRUE(results[1].at("within_noise"));
  EXPECT_FALSE(results[2].at("within_noise"));
  EXPECT_TRUE(results[3].at("remeasured").is_null());
}

TEST_F(BestCommand, WithoutReranksTheSpreadIsP20ToP80AndCloseConfigsAreStillMarked) {
  measure(128, 2.50, std::nullopt);  // p20..p80: 2.375..2.75
  measure(256, 2.60, std::nullopt);  // 2.47..2.86: overlaps
  measure(512, 4.00, std::nullopt);  // 3.8..4.4: does not
  const auto table = best();
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(line_with(table.out, "rank").find("p20..p80_us"), std::string::npos) << table.out;
  EXPECT_EQ(line_with(table.out, "BLOCK=256").rfind("   ~2 ", 0), 0u) << table.out;
  EXPECT_EQ(line_with(table.out, "BLOCK=512").rfind("    3 ", 0), 0u) << table.out;
  EXPECT_EQ(table.out.find("r: re-measured"), std::string::npos) << table.out;
}

// tune --rerank on the saxpy sweep: the fastest configs re-timed (a replay answers with the recorded times,
// so every round agrees) and ranked; --rerank 0 re-times nothing.
TEST(TuneRerank, StoresTheRerankOfTheFastestConfigs) {
  store_test::TempDir dir;
  const std::string tune = "tune " + kSaxpy + " --replay tests/data/sweeps/saxpy_synthetic.json --budget 20 ";
  const auto reranked =
      test::run_evotune(tune + "--rerank 3 --rerank-rounds 2 --db " + dir.file("a.db").string());
  ASSERT_EQ(reranked.exit_code, 0) << reranked.err;
  EXPECT_NE(reranked.err.find("rerank: re-timing the 3 fastest configs in 2 interleaved rounds"),
            std::string::npos)
      << reranked.err;
  const auto best = test::run_evotune("best " + kSaxpy + " --json --db " + dir.file("a.db").string());
  ASSERT_EQ(best.exit_code, 0) << best.err;
  const auto results = nlohmann::json::parse(best.out);
  ASSERT_GE(results.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_FALSE(results[i].at("remeasured").is_null()) << results.dump(2);
    EXPECT_EQ(results[i].at("remeasured").at("position"), i + 1);
    EXPECT_EQ(results[i].at("remeasured").at("rounds"), 2);
    EXPECT_EQ(results[i].at("remeasured").at("median_us"), results[i].at("time_us"));
  }
  EXPECT_TRUE(results[3].at("remeasured").is_null());
  // The two fastest recorded configs take the same time: within noise of each other.
  EXPECT_TRUE(results[1].at("within_noise"));

  const auto plain = test::run_evotune(tune + "--rerank 0 --db " + dir.file("b.db").string());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("rerank"), std::string::npos) << plain.err;
  const auto plain_best = test::run_evotune("best " + kSaxpy + " --json --db " + dir.file("b.db").string());
  EXPECT_TRUE(nlohmann::json::parse(plain_best.out).at(0).at("remeasured").is_null());
}

}  // namespace best_command_test
}  // namespace evotune
