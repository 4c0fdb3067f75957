// Store queries: best ordering, resume sets, run listing, config detail, counts.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "store/store.hpp"
#include "store_fixture.hpp"

namespace evotune {
namespace store_query_test {

using store_test::failed_outcome;
using store_test::ok_outcome;
using store_test::StoreTest;
using store_test::test_device;

TEST_F(StoreTest, BestListsOkByMedianThenFailures) {
  const auto slow = config(16), fast = config(32), middle = config(64), broken = config(128),
             wrong = config(256);
  measure(slow, ok_outcome(30.0));
  measure(broken, failed_outcome(Status::resource_error, "too much shared memory"));
  measure(fast, ok_outcome(10.0));
  measure(wrong, failed_outcome(Status::compile_error, "syntax"));
  measure(middle, ok_outcome(20.0));

  const auto ok_only =
      store.best({.space_id = space_id, .problem_id = problem_id, .device_id = device_id, .top_k = 10});
  ASSERT_EQ(ok_only.size(), 3u);
  EXPECT_EQ(ok_only[0].config_id, fast);
  EXPECT_EQ(ok_only[1].config_id, middle);
  EXPECT_EQ(ok_only[2].config_id, slow);
  EXPECT_EQ(ok_only[0].params, (Config{{"BLOCK_M", 32}, {"BLOCK_N", 32}}));
  EXPECT_DOUBLE_EQ(ok_only[0].timing->p80_us, 11.0);
  EXPECT_EQ(ok_only[0].timing->samples, 50);
  EXPECT_DOUBLE_EQ(ok_only[0].tflops, 100.0);
  EXPECT_DOUBLE_EQ(ok_only[0].gbps, 900.0);
  EXPECT_EQ(ok_only[0].device_name, "NVIDIA H100 80GB HBM3");

  const auto all = store.best(
      {.space_id = space_id, .problem_id = problem_id, .device_id = device_id, .include_failed = true});
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[2].config_id, slow);
  EXPECT_EQ(all[3].status, Status::compile_error);
  EXPECT_EQ(all[4].status, Status::resource_error);
  EXPECT_EQ(all[4].message, "too much shared memory");
  EXPECT_FALSE(all[4].timing.has_value());

  const auto top2 = store.best({.space_id = space_id,
                                .problem_id = problem_id,
                                .device_id = device_id,
                                .top_k = 2,
                                .include_failed = true});
  ASSERT_EQ(top2.size(), 2u);
  EXPECT_EQ(top2[1].config_id, middle);
}

TEST_F(StoreTest, BestFiltersByDeviceAndReadsRegisters) {
  const auto h200 = store.upsert_device(test_device("NVIDIA H200"), "12.8");
  CompileInfo info;
  info.registers = 96;
  const auto compile_id = store.put_compile({"abc", "sm_90", "12.8", ""}, Status::ok, "", info, "cubin");
  measure(config(64), ok_outcome(8.0), device_id, compile_id);
  measure(config(64), ok_outcome(6.0), h200);

  const auto h100_only =
      store.best({.space_id = space_id, .problem_id = problem_id, .device_id = device_id, .top_k = 5});
  ASSERT_EQ(h100_only.size(), 1u);
  EXPECT_EQ(h100_only[0].registers, 96);
  const auto both = store.best({.space_id = space_id, .problem_id = problem_id, .top_k = 5});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].device_name, "NVIDIA H200");
  EXPECT_EQ(both[0].registers, 0);
  EXPECT_EQ(store.count_measurements(space_id, problem_id, h200), 1);
  EXPECT_TRUE(
      store.best({.space_id = space_id, .problem_id = problem_id + 1, .top_k = 5, .include_failed = true})
          .empty());
}

TEST_F(StoreTest, MeasuredConfigsAreCanonicalTextPerSpaceProblemDevice) {
  measure(config(64), ok_outcome(1.0));
  measure(config(128), failed_outcome(Status::timeout, "slow"));
  const auto other_problem = store.upsert_problem({{"S", 4096}});
  store.record_measurement(
      {run_id, config(256), other_problem, device_id, std::nullopt, ok_outcome(2.0), 0, 0});

  EXPECT_EQ(store.measured_configs(space_id, problem_id, device_id),
            (std::set<std::string>{R"({"BLOCK_M":128,"BLOCK_N":32})", R"({"BLOCK_M":64,"BLOCK_N":32})"}));
  EXPECT_EQ(store.measured_configs(space_id, other_problem, device_id).size(), 1u);
  const auto other_space = store.upsert_space("attention", "a.json", "hash-v2", "{}");
  EXPECT_TRUE(store.measured_configs(other_space, problem_id, device_id).empty());
}

TEST_F(StoreTest, RunsAreNewestFirst) {
  const auto second =
      store.begin_run({space_id, problem_id, device_id, "evolve", 9, 50, "evotune tune -s evolve"});
  const auto runs = store.runs(0);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, second);
  EXPECT_EQ(runs[1].id, run_id);
  EXPECT_EQ(runs[0].space_name, "attention");
  EXPECT_EQ(runs[0].space_hash, "hash-v1");
  EXPECT_EQ(runs[0].problem, "B=1,H=8,S=512");
  EXPECT_EQ(runs[0].device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(runs[0].budget, 50);
  EXPECT_EQ(runs[0].seed, 9u);
  EXPECT_EQ(runs[0].started_at.size(), std::string("2025-01-01T00:00:00.000Z").size()) << runs[0].started_at;
  EXPECT_EQ(runs[0].started_at.back(), 'Z');
  EXPECT_EQ(store.runs(1).size(), 1u);
}

TEST_F(StoreTest, ConfigDetailHasEveryMeasurementWithCompileInfo) {
  CompileInfo info;
  info.arch = "sm_90";
  info.registers = 128;
  info.static_smem_bytes = 32768;
  info.spill_store_bytes = 4;
  info.phases = CompilePhases{47, 110, 108};
  info.log = "ptxas log";
  const auto compile_id = store.put_compile({"src", "sm_90", "12.8", "-O3"}, Status::ok, "", info, "bin");
  const auto config_id = config(64);
  measure(config_id, ok_outcome(12.0), device_id, compile_id);
  const auto big = store.upsert_problem({{"B", 4}, {"H", 8}, {"S", 512}});
  store.record_measurement({run_id, config_id, big, device_id, std::nullopt,
                            failed_outcome(Status::wrong_result, "max abs 0.5"), 0, 0});

  const auto detail = store.config_detail(config_id);
  ASSERT_TRUE(detail.has_value());
  EXPECT_EQ(detail->space_name, "attention");
  EXPECT_EQ(detail->space_hash, "hash-v1");
  EXPECT_EQ(detail->space_path, "search_spaces/attention.json");
  EXPECT_EQ(detail->params, (Config{{"BLOCK_M", 64}, {"BLOCK_N", 32}}));
  ASSERT_EQ(detail->measurements.size(), 2u);

  const MeasurementDetail& ok = detail->measurements[0];
  EXPECT_EQ(ok.problem, (Sizes{{"B", 1}, {"H", 8}, {"S", 512}}));
  EXPECT_EQ(ok.device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(ok.compile_id, compile_id);
  EXPECT_EQ(ok.run_id, run_id);
  EXPECT_EQ(ok.outcome.status, Status::ok);
  EXPECT_DOUBLE_EQ(ok.outcome.timing->median_us, 12.0);
  ASSERT_TRUE(ok.outcome.error.has_value());
  EXPECT_EQ(ok.outcome.error->elements, 4096);
  EXPECT_DOUBLE_EQ(ok.outcome.error->max_abs, 1e-3);
  EXPECT_EQ(ok.outcome.validation_seed, 42u);
  EXPECT_DOUBLE_EQ(ok.outcome.compile.compile_ms, 120.5);
  EXPECT_DOUBLE_EQ(ok.outcome.validate_ms, 3.25);
  EXPECT_EQ(ok.outcome.compile.registers, 128);
  EXPECT_EQ(ok.outcome.compile.static_smem_bytes, 32768);
  EXPECT_EQ(ok.outcome.compile.spill_store_bytes, 4);
  EXPECT_EQ(ok.outcome.compile.log, "ptxas log");
  ASSERT_TRUE(ok.outcome.compile.phases);
  EXPECT_DOUBLE_EQ(ok.outcome.compile.phases->nvvm_ms, 110);
  EXPECT_FALSE(ok.created_at.empty());

  const MeasurementDetail& wrong = detail->measurements[1];
  EXPECT_EQ(wrong.outcome.status, Status::wrong_result);
  EXPECT_EQ(wrong.outcome.message, "max abs 0.5");
  EXPECT_EQ(wrong.problem.at("B"), 4);
  EXPECT_FALSE(wrong.outcome.timing.has_value());
  EXPECT_EQ(wrong.compile_id, std::nullopt);
  EXPECT_FALSE(wrong.outcome.compile.phases);

  EXPECT_EQ(store.config_detail(config_id + 1000), std::nullopt);
}

TEST_F(StoreTest, OlderVersionsShareTheName) {
  EXPECT_EQ(store.count_older_versions("attention", "hash-v1"), 0);
  store.upsert_space("attention", "search_spaces/attention.json", "hash-v2", "{}");
  store.upsert_space("gemm", "search_spaces/gemm.json", "gemm-1", "{}");
  EXPECT_EQ(store.count_older_versions("attention", "hash-v2"), 1);
  EXPECT_EQ(store.count_older_versions("attention", "hash-v3"), 2);
}

TEST_F(StoreTest, SanitizerFindingsAreKeptWithTheConfigInOrder) {
  const auto config_id = config(64);
  SanitizerFinding race;
  race.tool = "racecheck";
  race.verdict = "findings";
  race.errors = 2;
  race.warnings = 1;
  race.summary = "Error: Race reported between Write access at k+0x90 / and Read access at k+0x110";
  race.report = "COMPUTE-SANITIZER\nError: Race reported ...\nRACECHECK SUMMARY: 3 hazards displayed\n";
  race.eval_status = "ok";
  race.seconds = 31.5;
  SanitizerFinding clean = race;
  clean.tool = "memcheck";
  clean.verdict = "clean";
  clean.errors = clean.warnings = 0;
  clean.summary = "";
  store.save_sanitizer_finding(config_id, problem_id, "NVIDIA H100 80GB HBM3", race);
  store.save_sanitizer_finding(config_id, problem_id, "NVIDIA H100 80GB HBM3", clean);
  EXPECT_THROW(store.save_sanitizer_finding(config_id, problem_id, "GPU", SanitizerFinding{}), Error)
      << "a finding without a tool or verdict breaks the table's CHECKs";

  const auto detail = store.config_detail(config_id);
  ASSERT_TRUE(detail.has_value());
  ASSERT_EQ(detail->sanitizer_findings.size(), 2u);
  const StoredSanitizerFinding& first = detail->sanitizer_findings[0];
  EXPECT_EQ(first.problem, (Sizes{{"B", 1}, {"H", 8}, {"S", 512}}));
  EXPECT_EQ(first.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(first.finding.tool, "racecheck");
  EXPECT_EQ(first.finding.verdict, "findings");
  EXPECT_EQ(first.finding.errors, 2);
  EXPECT_EQ(first.finding.warnings, 1);
  EXPECT_EQ(first.finding.summary, race.summary);
  EXPECT_EQ(first.finding.report, race.report);
  EXPECT_EQ(first.finding.eval_status, "ok");
  EXPECT_DOUBLE_EQ(first.finding.seconds, 31.5);
  EXPECT_FALSE(first.created_at.empty());
  EXPECT_EQ(detail->sanitizer_findings[1].finding.verdict, "clean");
  EXPECT_TRUE(store.config_detail(config(128))->sanitizer_findings.empty());
}

}  // namespace store_query_test
}  // namespace evotune
