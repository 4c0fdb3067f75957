// Store writes: idempotent upserts, runs, the compile cache, measurements that are never duplicated.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "store/noise_band.hpp"
#include "store/store.hpp"
#include "store_fixture.hpp"

namespace evotune {
namespace store_write_test {

using store_test::failed_outcome;
using store_test::ok_outcome;
using store_test::StoreTest;
using store_test::test_device;

TEST_F(StoreTest, UpsertsAreIdempotent) {
  EXPECT_EQ(store.upsert_space("attention", "elsewhere.json", "hash-v1", "{\"changed\":1}"), space_id);
  EXPECT_EQ(store.upsert_problem({{"S", 512}, {"H", 8}, {"B", 1}}), problem_id);
  EXPECT_EQ(store.upsert_device(test_device(), "12.8"), device_id);
  const auto config_id = config(64);
  EXPECT_EQ(config(64), config_id);
  EXPECT_EQ(store.upsert_config(space_id, {{"BLOCK_N", 32}, {"BLOCK_M", 64}}), config_id);
}

TEST_F(StoreTest, DistinctKeysGetDistinctRows) {
  EXPECT_NE(store.upsert_device(test_device(), "13.0"), device_id);
  EXPECT_NE(store.upsert_device(test_device("NVIDIA H200"), "12.8"), device_id);
  EXPECT_NE(store.upsert_space("attention", "a.json", "hash-v2", "{}"), space_id);
  EXPECT_NE(store.upsert_problem({{"B", 2}, {"H", 8}, {"S", 512}}), problem_id);
  const auto other_space = store.upsert_space("gemm", "g.json", "gemm-hash", "{}");
  EXPECT_NE(store.upsert_config(other_space, {{"BLOCK_M", 64}, {"BLOCK_N", 32}}), config(64));
}

TEST_F(StoreTest, FindReportsMissingRows) {
  EXPECT_EQ(store.find_space("hash-v1"), space_id);
  EXPECT_EQ(store.find_space("no-such-hash"), std::nullopt);
  EXPECT_EQ(store.find_problem({{"B", 1}, {"H", 8}, {"S", 512}}), problem_id);
  EXPECT_EQ(store.find_problem({{"B", 1}}), std::nullopt);
}

TEST_F(StoreTest, CompileCacheRoundTripsBinaryCubins) {
  const CompileKey key{"0123456789abcdef", "sm_90a", "12.8", "-std=c++17 -lineinfo"};
  EXPECT_EQ(store.find_compile(key), std::nullopt);
  CompileInfo info;
  info.arch = "sm_90a";
  info.registers = 168;
  info.static_smem_bytes = 49152;
  info.spill_store_bytes = 8;
  info.spill_load_bytes = 12;
  info.stack_frame_bytes = 16;
  info.compile_ms = 812.5;
  info.phases = CompilePhases{47, 110, 108.5};
  info.log = "ptxas info    : Used 168 registers";
  const std::string cubin(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0payload\0end",
      27);
  const auto id = store.put_compile(key, Status::ok, "", info, cubin);

  const auto stored = store.find_compile(key);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->id, id);
  EXPECT_EQ(stored->status, Status::ok);
  EXPECT_EQ(stored->cubin, cubin);
  EXPECT_EQ(stored->cubin.size(), 27u);
  EXPECT_EQ(stored->info.arch, "sm_90a");
  EXPECT_EQ(stored->info.registers, 168);
  EXPECT_EQ(stored->info.static_smem_bytes, 49152);
  EXPECT_EQ(stored->info.spill_store_bytes, 8);
  EXPECT_EQ(stored->info.spill_load_bytes, 12);
  EXPECT_EQ(stored->info.stack_frame_bytes, 16);
  EXPECT_DOUBLE_EQ(stored->info.compile_ms, 812.5);
  ASSERT_TRUE(stored->info.phases);
  EXPECT_DOUBLE_EQ(stored->info.phases->frontend_ms, 47);
  EXPECT_DOUBLE_EQ(stored->info.phases->nvvm_ms, 110);
  EXPECT_DOUBLE_EQ(stored->info.phases->ptxas_ms, 108.5);
  EXPECT_EQ(stored->info.log, info.log);
  EXPECT_TRUE(stored->info.from_cache);

  CompileInfo other = info;
  other.registers = 1;
  EXPECT_EQ(store.put_compile(key, Status::compile_error, "changed", other, "x"), id);
  EXPECT_EQ(store.find_compile(key)->info.registers, 168);
  EXPECT_EQ(store.find_compile({key.source_hash, "sm_80", key.nvrtc_version, key.options}), std::nullopt);
}

TEST_F(StoreTest, FailedCompilesAreCachedWithTheirLog) {
  const CompileKey key{"feedfacefeedface", "sm_90", "12.8", ""};
  CompileInfo info;
  info.log = "error: identifier \"BLOCK_K\" is undefined";
  store.put_compile(key, Status::compile_error, "NVRTC_ERROR_COMPILATION", info, "");
  const auto stored = store.find_compile(key);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->status, Status::compile_error);
  EXPECT_EQ(stored->message, "NVRTC_ERROR_COMPILATION");
  EXPECT_EQ(stored->info.log, info.log);
  EXPECT_EQ(stored->cubin, "");
  EXPECT_FALSE(stored->info.phases);  // not measured: NULL, not zeros
}

TEST_F(StoreTest, MeasurementsAreNeverDuplicatedOrOverwritten) {
  const auto config_id = config(64);
  measure(config_id, ok_outcome(10.0));
  measure(config_id, ok_outcome(5.0));
  measure(config_id, failed_outcome(Status::launch_error, "illegal address"));
  const auto results = store.best(
      {.space_id = space_id, .problem_id = problem_id, .device_id = device_id, .include_failed = true});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::ok);
  EXPECT_DOUBLE_EQ(results[0].timing->median_us, 10.0);
  EXPECT_EQ(store.count_measurements(space_id, problem_id, device_id), 1);
  EXPECT_EQ(store.runs(1).at(0).evaluated, 1);

  const auto other_device = store.upsert_device(test_device("NVIDIA H200"), "12.8");
  measure(config_id, ok_outcome(7.0), other_device);
  EXPECT_EQ(store.count_measurements(space_id, problem_id, std::nullopt), 2);
}

TEST_F(StoreTest, OkWithoutTimingIsRefused) {
  Outcome outcome;
  outcome.status = Status::ok;
  EXPECT_THROW(measure(config(64), outcome), Error);
  EXPECT_EQ(store.count_measurements(space_id, problem_id, device_id), 0);
  EXPECT_EQ(store.runs(1).at(0).evaluated, 0);
}

TEST_F(StoreTest, MeasurementForUnknownRunRollsBack) {
  MeasurementRecord record{run_id + 99,  config(64),      problem_id, device_id,
                           std::nullopt, ok_outcome(1.0), 0,          0};
  EXPECT_THROW(store.record_measurement(record), Error);
  EXPECT_EQ(store.count_measurements(space_id, problem_id, device_id), 0);
  measure(config(64), ok_outcome(1.0));
  EXPECT_EQ(store.count_measurements(space_id, problem_id, device_id), 1);
}

TEST_F(StoreTest, RunsCountAndFinish) {
  measure(config(16), ok_outcome(3.0));
  measure(config(32), failed_outcome(Status::compile_error, "bad"));
  RunSummary running = store.runs(1).at(0);
  EXPECT_EQ(running.status, "running");
  EXPECT_EQ(running.evaluated, 2);
  EXPECT_EQ(running.failed, 1);
  EXPECT_EQ(running.finished_at, "");

  store.finish_run(run_id, "interrupted", 5, 2);
  const RunSummary done = store.runs(1).at(0);
  EXPECT_EQ(done.status, "interrupted");
  EXPECT_EQ(done.evaluated, 5);
  EXPECT_EQ(done.failed, 2);
  EXPECT_NE(done.finished_at, "");
  EXPECT_THROW(store.finish_run(run_id, "bogus", 0, 0), Error);
  EXPECT_THROW(store.finish_run(run_id + 99, "finished", 0, 0), Error);
}

TEST_F(StoreTest, CompileStatsAreSavedWithTheRun) {
  EXPECT_FALSE(store.runs(1).at(0).compile);  // none saved yet
  CompileStats stats = store_test::sweep_compile_stats();
  stats.per_compiler.resize(16);
  store.save_compile_stats(run_id, stats);
  store.finish_run(run_id, "finished", 1968, 0);
  const auto saved = store.runs(1).at(0).compile;
  ASSERT_TRUE(saved);
  EXPECT_EQ(saved->compilers, stats.compilers);
  EXPECT_EQ(saved->compiles, stats.compiles);
  EXPECT_DOUBLE_EQ(saved->busy_ms, stats.busy_ms);
  EXPECT_DOUBLE_EQ(saved->idle_ms, stats.idle_ms);
  EXPECT_DOUBLE_EQ(saved->queue_wait_ms, stats.queue_wait_ms);
  EXPECT_DOUBLE_EQ(saved->queue_mean, stats.queue_mean);
  EXPECT_EQ(saved->queue_max, stats.queue_max);
  EXPECT_TRUE(saved->per_compiler.empty());

  stats.compiles = 2000;  // a second save replaces the first
  store.save_compile_stats(run_id, stats);
  EXPECT_EQ(store.runs(1).at(0).compile->compiles, 2000);
  EXPECT_THROW(store.save_compile_stats(run_id + 99, stats), Error);
}

TEST_F(StoreTest, WorkerIdleTimeIsSavedWithTheRun) {
  EXPECT_EQ(store.runs(1).at(0).workers, 0);  // none saved yet
  store.save_worker_idle(run_id, 2, 1234.5);
  const RunSummary run = store.runs(1).at(0);
  EXPECT_EQ(run.workers, 2);
  EXPECT_DOUBLE_EQ(run.worker_idle_ms, 1234.5);
  EXPECT_THROW(store.save_worker_idle(run_id + 99, 1, 0), Error);
}

TEST_F(StoreTest, ReferenceTimeIsSavedWithTheRun) {
  EXPECT_FALSE(store.runs(1).at(0).reference_ms);  // none saved yet
  store.save_reference_time(run_id, 0.094);
  EXPECT_DOUBLE_EQ(*store.runs(1).at(0).reference_ms, 0.094);
  EXPECT_THROW(store.save_reference_time(run_id + 99, 1), Error);
}

TEST_F(StoreTest, TheNewestRunsBaselineIsFoundByDeviceName) {
  EXPECT_FALSE(store.latest_baseline(space_id, problem_id, test_device().name));  // none saved yet
  store.save_baseline(run_id, BaselineTiming{"cublasLt 13.0.2", 812.5, 790.25, 3, 8, "graph x1", 0});
  const std::int64_t later =
      store.begin_run({space_id, problem_id, device_id, "evolve", 8, 100, "evotune tune"});
  store.save_baseline(later, BaselineTiming{"cublasLt 13.0.2", 800, 780, 0, 8, "single", 795.5});
  store.begin_run({space_id, problem_id, device_id, "evolve", 9, 100, "evotune tune"});  // times none
  const auto baseline = store.latest_baseline(space_id, problem_id, test_device().name);
  ASSERT_TRUE(baseline);
  EXPECT_EQ(baseline->library, "cublasLt 13.0.2");
  EXPECT_EQ(baseline->heuristic_us, 800);
  EXPECT_EQ(baseline->best_us, 780);
  EXPECT_EQ(baseline->best_index, 0);
  EXPECT_EQ(baseline->timing_mode, "single");
  EXPECT_EQ(baseline->reranked_us, 795.5);
  EXPECT_FALSE(store.latest_baseline(space_id, problem_id, "another GPU"));
  EXPECT_FALSE(store.latest_baseline(space_id, problem_id + 99, test_device().name));
  EXPECT_THROW(store.save_baseline(run_id + 99, *baseline), Error);
}

TEST_F(StoreTest, GpuStatesAreSavedWithTheRunAtItsStartAndEnd) {
  EXPECT_EQ(store.runs(1).at(0).gpu_state_start, "");  // none saved yet
  store.save_gpu_states(run_id, false, R"([{"uuid":"GPU-1","pci_bus_id":"0","clock_reasons":1}])");
  store.save_gpu_states(run_id, true, R"([{"uuid":"GPU-1","pci_bus_id":"0","clock_reasons":32}])");
  const RunSummary run = store.runs(1).at(0);
  EXPECT_EQ(run.gpu_state_start, R"([{"uuid":"GPU-1","pci_bus_id":"0","clock_reasons":1}])");
  EXPECT_EQ(run.gpu_state_end, R"([{"uuid":"GPU-1","pci_bus_id":"0","clock_reasons":32}])");
  EXPECT_THROW(store.save_gpu_states(run_id + 99, true, "[]"), Error);
}

TEST_F(StoreTest, HowARunTimedItsVariantsIsStoredWithIt) {
  EXPECT_EQ(store.runs(1).at(0).timing, "");  // none given
  store.begin_run({space_id, problem_id, device_id, "random", 7, 100, "evotune tune --flush-l2 off",
                   R"({"warmup":3,"repetitions":30,"flush_l2":false})"});
  EXPECT_EQ(store.runs(1).at(0).timing, R"({"warmup":3,"repetitions":30,"flush_l2":false})");
}

TEST_F(StoreTest, LargeSeedsRoundTrip) {
  const std::uint64_t seed = 0xfedcba9876543210ULL;
  store.begin_run({space_id, problem_id, std::nullopt, "evolve", seed, 10, "evotune tune --seed"});
  const RunSummary run = store.runs(1).at(0);
  EXPECT_EQ(run.seed, seed);
  EXPECT_EQ(run.device_name, "");
  EXPECT_EQ(run.strategy, "evolve");
}

TEST_F(StoreTest, EachMeasurementKeepsHowItWasTimed) {
  Outcome graph = ok_outcome(3.5);
  graph.timing->method = TimingMethod{true, 20, false};
  Outcome fallback = ok_outcome(4.5);
  fallback.timing->method =
      TimingMethod{false, 0, true, "cuStreamEndCapture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"};
  const Outcome unknown = ok_outcome(5.5);  // a replayed sweep that did not record it
  measure(config(16), graph);
  measure(config(32), fallback);
  measure(config(64), unknown);
  const auto best = store.best({.space_id = space_id, .problem_id = problem_id, .device_id = device_id});
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best[0].timing->method, graph.timing->method);
  EXPECT_EQ(best[1].timing->method, fallback.timing->method);
  EXPECT_FALSE(best[2].timing->method);
  EXPECT_EQ(store.config_detail(config(16))->measurements.at(0).outcome.timing->method, graph.timing->method);
  const auto history = store.measurement_history(space_id, problem_id);
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[1].result.timing->method, fallback.timing->method);
  EXPECT_EQ(history[1].run_id, run_id);
}

// A variant cut short (timed from its warm-up executions, far slower than the best so far) says so when read
// back, and a graph's fallback stays a fallback.
TEST_F(StoreTest, AMeasurementCutShortKeepsWhy) {
  Outcome cut = ok_outcome(9.5);
  cut.timing->method = TimingMethod{false, 0, false, "", "the fastest of 3 warm-up executions took 9.1 us"};
  Outcome fallback = ok_outcome(4.5);
  fallback.timing->method = TimingMethod{false, 0, true, "cuStreamEndCapture: not permitted"};
  measure(config(16), cut);
  measure(config(32), fallback);
  const auto best = store.best({.space_id = space_id, .problem_id = problem_id, .device_id = device_id});
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].timing->method, fallback.timing->method);
  EXPECT_EQ(best[1].timing->method, cut.timing->method);
  EXPECT_TRUE(best[0].timing->method->cut.empty());
  EXPECT_EQ(store.config_detail(config(16))->measurements.at(0).outcome.timing->method, cut.timing->method);
}

TEST_F(StoreTest, EachMeasurementKeepsItsEnergy) {
  Outcome measured = ok_outcome(3.5);
  measured.energy = EnergyStats{812.5, 232.1, 201.4, 57000};
  const Outcome unmeasured = ok_outcome(4.5);
  Outcome failed = failed_outcome(Status::wrong_result, "max |error| 3");
  failed.energy = EnergyStats{1, 1, 1, 1};  // a failure's energy is never stored
  measure(config(16), measured);
  measure(config(32), unmeasured);
  measure(config(64), failed);
  const auto best = store.best(
      {.space_id = space_id, .problem_id = problem_id, .device_id = device_id, .include_failed = true});
  ASSERT_EQ(best.size(), 3u);
  ASSERT_TRUE(best[0].energy.has_value());
  EXPECT_EQ(best[0].energy->uj_per_execution, 812.5);
  EXPECT_EQ(best[0].energy->avg_power_w, 232.1);
  EXPECT_EQ(best[0].energy->window_ms, 201.4);
  EXPECT_EQ(best[0].energy->executions, 57000);
  EXPECT_FALSE(best[1].energy.has_value());
  EXPECT_FALSE(best[2].energy.has_value());
  const auto detail = store.config_detail(config(16));
  ASSERT_TRUE(detail->measurements.at(0).outcome.energy.has_value());
  EXPECT_EQ(detail->measurements.at(0).outcome.energy->executions, 57000);
  const auto history = store.measurement_history(space_id, problem_id);
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0].result.energy->uj_per_execution, 812.5);
  EXPECT_EQ(history[0].run_id, run_id);
}

// A rerank's record: `rounds` medians of `median_us` spread by +-`half_spread` (the first and last rounds).
RerankRecord rerank_record(std::int64_t config_id, int position, double median_us, double half_spread) {
  RerankRecord record{config_id, {}};
  record.remeasured.position = position;
  record.remeasured.median_us = median_us;
  record.remeasured.min_us = median_us - half_spread;
  record.remeasured.max_us = median_us + half_spread;
  record.remeasured.round_medians_us = {median_us - half_spread, median_us, median_us + half_spread};
  record.remeasured.method = TimingMethod{true, 20, true};
  return record;
}

TEST_F(StoreTest, BestPermutesTheReMeasuredConfigsAmongTheirPlacesByTheNewestRerank) {
  const auto a = config(16), b = config(32), c = config(64), d = config(128);
  measure(a, ok_outcome(10.0));
  measure(b, ok_outcome(10.5));
  measure(c, ok_outcome(11.0));
  measure(d, ok_outcome(10.8));  // never re-measured
  store.save_rerank(run_id, problem_id, device_id,
                    {rerank_record(b, 1, 9.0, 0.5), rerank_record(a, 2, 9.4, 0.1)});
  // A later rerank of c and a: a's newer figures replace the older ones.
  store.save_rerank(run_id, problem_id, device_id,
                    {rerank_record(a, 1, 9.2, 0.1), rerank_record(c, 2, 9.6, 0.2)});
  // The search's medians place a (10.0), b (10.5), d (10.8), c (11.0); the re-measured b, a and c take the
  // 1st, 2nd and 4th places in the order of their newest reranks (b 9.0, a 9.2, c 9.6). d stays 3rd though
  // c's re-measured median is below its search median: a rerank's medians order its own configs only.
  const auto best = store.best({.space_id = space_id, .problem_id = problem_id, .device_id = device_id});
  ASSERT_EQ(best.size(), 4u);
  EXPECT_EQ(best[0].config_id, b);
  EXPECT_EQ(best[1].config_id, a);
  EXPECT_EQ(best[2].config_id, d);
  EXPECT_EQ(best[3].config_id, c);
  const auto top_two =
      store.best({.space_id = space_id, .problem_id = problem_id, .device_id = device_id, .top_k = 2});
  ASSERT_EQ(top_two.size(), 2u);
  EXPECT_EQ(top_two[0].config_id, b);
  EXPECT_EQ(top_two[1].config_id, a);
  ASSERT_TRUE(best[1].remeasured);
  EXPECT_EQ(best[1].remeasured->median_us, 9.2);
  EXPECT_EQ(best[1].remeasured->position, 1);
  EXPECT_EQ(best[1].remeasured->round_medians_us, (std::vector<double>{9.2 - 0.1, 9.2, 9.2 + 0.1}));
  EXPECT_EQ(best[1].remeasured->method, (TimingMethod{true, 20, true}));
  EXPECT_EQ(best[1].timing->median_us, 10.0);  // the measurement itself stays as it was
  EXPECT_FALSE(best[2].remeasured);
  // Within noise of the winner b (8.5..9.5): a (9.1..9.3) is, c (9.4..9.8) is, d (its p20..p80) is not.
  EXPECT_TRUE(within_noise(best[1], best[0]));
  EXPECT_TRUE(within_noise(best[3], best[0]));
  EXPECT_EQ(noise_band(best[2]), std::make_pair(10.8 * 0.95, 10.8 * 1.1));
  EXPECT_FALSE(within_noise(best[2], best[0]));
  EXPECT_THROW(store.save_rerank(run_id + 100, problem_id, device_id, {rerank_record(a, 1, 9, 0)}), Error);
}

}  // namespace store_write_test
}  // namespace evotune
