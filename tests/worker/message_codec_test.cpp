// The worker protocol's messages: each decodes, after a trip through CBOR, to exactly what was encoded, and a
// malformed one is one line naming the message and the field.
#include "worker/message_codec.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/core_fixture.hpp"

namespace evotune {
namespace message_codec_test {

using nlohmann::json;

// What the pipe does to a message: CBOR out and back.
json through_cbor(const json& message) { return json::from_cbor(json::to_cbor(message)); }

BufferSpec buffer(std::string name, FillSpec fill) {
  BufferSpec b;
  b.name = std::move(name);
  b.dtype = DType::f16;
  b.count = std::int64_t{3} << 32;
  b.is_input = false;
  b.is_output = true;
  b.fill = fill;
  return b;
}

void expect_same(const BufferSpec& a, const BufferSpec& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.is_input, b.is_input);
  EXPECT_EQ(a.is_output, b.is_output);
  EXPECT_EQ(a.fill.kind, b.fill.kind);
  EXPECT_EQ(a.fill.low, b.fill.low);
  EXPECT_EQ(a.fill.high, b.fill.high);
  EXPECT_EQ(a.fill.value, b.fill.value);
}

LaunchSpec attention_launch() {
  LaunchSpec l;
  l.kernel_name = "flash_attn_fwd";
  l.grid = {4, 8, 4000000000u};
  l.block = {128, 2, 1};
  l.dynamic_smem_bytes = 232448;
  l.cluster = {2, 1, 1};
  l.args = {{ArgSpec::Kind::buffer, "Q", DType::bf16, 0.0, {}},
            {ArgSpec::Kind::scalar, "scale", DType::f32, 0.1 + 0.2, {}},
            {ArgSpec::Kind::scalar, "S", DType::i32, 512, {}},
            {ArgSpec::Kind::tensor_map,
             "K_map",
             DType::bf16,
             0.0,
             {"K", {64, 4097, 96}, {128, 524416}, {64, 176, 1}, 128}}};
  return l;
}

void expect_same(const LaunchSpec& a, const LaunchSpec& b) {
  EXPECT_EQ(a.kernel_name, b.kernel_name);
  EXPECT_EQ(a.grid, b.grid);
  EXPECT_EQ(a.block, b.block);
  EXPECT_EQ(a.dynamic_smem_bytes, b.dynamic_smem_bytes);
  EXPECT_EQ(a.cluster, b.cluster);
  ASSERT_EQ(a.args.size(), b.args.size());
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    EXPECT_EQ(a.args[i].kind, b.args[i].kind) << i;
    EXPECT_EQ(a.args[i].name, b.args[i].name) << i;
    EXPECT_EQ(a.args[i].dtype, b.args[i].dtype) << i;
    EXPECT_EQ(a.args[i].value, b.args[i].value) << i;
    EXPECT_EQ(a.args[i].map, b.args[i].map) << i;
  }
  ASSERT_EQ(a.then.size(), b.then.size());
  for (std::size_t i = 0; i < a.then.size(); ++i) expect_same(a.then[i], b.then[i]);
  ASSERT_EQ(a.scratch.size(), b.scratch.size());
  for (std::size_t i = 0; i < a.scratch.size(); ++i) {
    EXPECT_EQ(a.scratch[i].name, b.scratch[i].name) << i;
    EXPECT_EQ(a.scratch[i].dtype, b.scratch[i].dtype) << i;
    EXPECT_EQ(a.scratch[i].count, b.scratch[i].count) << i;
    EXPECT_EQ(a.scratch[i].zeroed, b.scratch[i].zeroed) << i;
  }
}

const std::string kCubin(
    "\x7f"
    "ELF\0\0\x01\xff\0tail\0",
    14);

GpuSetup gpu_setup() {
  GpuSetup setup;
  setup.device_ordinal = 3;
  setup.buffers = {buffer("out", {FillSpec::Kind::random_uniform, -0.125, 3.5, 0.0}),
                   buffer("mask", {FillSpec::Kind::constant, 0.0, 0.0, -2.75})};
  setup.reference = {kCubin, attention_launch()};
  setup.tolerances = {1e-3, 0.1 + 0.2};
  setup.settings = {.warmup = 7,
                    .repetitions = 101,
                    .flush_l2 = false,
                    .timeout_ms = 1234.5,
                    .reset_in_process = false,
                    .validation_rounds = 2,
                    .timing = TimingMode::graph};
  setup.include_dirs = {"/usr/local/cuda/include", "/usr/local/cuda/include/cccl"};
  setup.extra_problems = {
      {"S=513", {buffer("out", {FillSpec::Kind::random_uniform, -1, 1, 0})}, attention_launch()}};
  return setup;
}

Outcome full_outcome() {
  Outcome o;
  o.status = Status::wrong_result;
  o.message = "max_abs 0.5 > 0.02\nsecond line";
  o.compile = {"sm_90a", 168, 49152, 8, 12, 16, 1234.5, true, "ptxas info: Used 168 registers"};
  o.error = ErrorStats{0.5, 0.1 + 0.2, 7, std::int64_t{1} << 40};
  o.timing = TimingStats{85.536, 84.03, 85.43, 0.54, 85.04, 85.78, 30, TimingMethod{true, 12, false}};
  o.validation_seed = std::numeric_limits<std::uint64_t>::max();
  o.validate_ms = 12.25;
  o.bench_ms = 3.0 / 7.0;
  return o;
}

// The outcome a ResultAnswer carries after encoding, CBOR and decoding.
Outcome sent(const Outcome& outcome) {
  const WorkerAnswer answer =
      decode_answer(through_cbor(encode(WorkerAnswer{ResultAnswer{5, outcome, true}})));
  return std::get<ResultAnswer>(answer).outcome;
}

using core_test::expect_error;

TEST(MessageCodec, GpuSetupRoundTripsBuffersOfEachFillKindTheReferenceTolerancesAndSettings) {
  const GpuSetup original = gpu_setup();
  const json message = encode(WorkerSetup{original});
  EXPECT_TRUE(message.at("reference").at("cubin").is_binary());  // not text: CBOR carries it as raw bytes
  const GpuSetup s = std::get<GpuSetup>(decode_setup(through_cbor(message)));
  EXPECT_EQ(s.device_ordinal, 3);
  ASSERT_EQ(s.buffers.size(), 2u);
  expect_same(s.buffers[0], original.buffers[0]);
  expect_same(s.buffers[1], original.buffers[1]);
  EXPECT_EQ(s.reference.cubin, kCubin);
  expect_same(s.reference.launch, original.reference.launch);
  EXPECT_EQ(s.tolerances.max_abs, 1e-3);
  EXPECT_EQ(s.tolerances.rel_l2, 0.1 + 0.2);
  EXPECT_EQ(s.settings.warmup, 7);
  EXPECT_EQ(s.settings.repetitions, 101);
  EXPECT_FALSE(s.settings.flush_l2);
  EXPECT_EQ(s.settings.timeout_ms, 1234.5);
  EXPECT_FALSE(s.settings.reset_in_process);
  EXPECT_EQ(s.settings.timing, TimingMode::graph);
  EXPECT_EQ(s.include_dirs, original.include_dirs);
  ASSERT_EQ(s.extra_problems.size(), 1u);
  EXPECT_EQ(s.extra_problems[0].label, "S=513");
  ASSERT_EQ(s.extra_problems[0].buffers.size(), 1u);
  expect_same(s.extra_problems[0].buffers[0], original.extra_problems[0].buffers[0]);
  expect_same(s.extra_problems[0].reference_launch, attention_launch());
  const GpuSetup defaults = std::get<GpuSetup>(decode_setup(encode(WorkerSetup{GpuSetup{}})));
  EXPECT_TRUE(defaults.settings.reset_in_process);
  EXPECT_EQ(defaults.settings.timing, TimingMode::automatic);
  expect_same(defaults.reference.launch, LaunchSpec{});
}

TEST(MessageCodec, ADerivedInputsKernelTravelsWithItsLaunchForEachProblem) {
  GpuSetup original = gpu_setup();
  original.buffers.push_back(buffer("lse", {FillSpec::Kind::derived, -1, 1, 0}));
  LaunchSpec derive = attention_launch();
  derive.kernel_name = "forward";
  original.derived_inputs = CompiledKernel{kCubin, derive};
  derive.grid[0] = 77;
  original.extra_problems[0].derived_launch = derive;
  const GpuSetup s = std::get<GpuSetup>(decode_setup(through_cbor(encode(WorkerSetup{original}))));
  ASSERT_EQ(s.buffers.size(), 3u);
  EXPECT_EQ(s.buffers[2].fill.kind, FillSpec::Kind::derived);
  ASSERT_TRUE(s.derived_inputs.has_value());
  EXPECT_EQ(s.derived_inputs->cubin, kCubin);
  expect_same(s.derived_inputs->launch, original.derived_inputs->launch);
  ASSERT_TRUE(s.extra_problems[0].derived_launch.has_value());
  expect_same(*s.extra_problems[0].derived_launch, derive);
  // Absent from the messages of a space without one, which keep their fields.
  const json plain = encode(WorkerSetup{gpu_setup()});
  EXPECT_FALSE(plain.contains("derived_inputs"));
  EXPECT_FALSE(plain.at("extra_problems")[0].contains("derived_launch"));
  const GpuSetup without = std::get<GpuSetup>(decode_setup(plain));
  EXPECT_FALSE(without.derived_inputs.has_value());
  EXPECT_FALSE(without.extra_problems[0].derived_launch.has_value());
}

TEST(MessageCodec, AJobSaysWhetherItsConfigMustRepeatBitForBit) {
  JobMessage original;
  EXPECT_FALSE(encode(original).contains("deterministic"));
  EXPECT_FALSE(decode_job(through_cbor(encode(original))).deterministic.has_value());
  for (const bool deterministic : {false, true}) {
    original.deterministic = deterministic;
    const JobMessage job = decode_job(through_cbor(encode(original)));
    ASSERT_TRUE(job.deterministic.has_value());
    EXPECT_EQ(*job.deterministic, deterministic);
  }
}

TEST(MessageCodec, ReplaySetupRoundTrips) {
  const WorkerSetup setup =
      decode_setup(through_cbor(encode(WorkerSetup{ReplaySetup{"runs/sweep.json", 12.5}})));
  const auto& replay = std::get<ReplaySetup>(setup);
  EXPECT_EQ(replay.sweep_file, "runs/sweep.json");
  EXPECT_EQ(replay.delay_ms, 12.5);
}

TEST(MessageCodec, AJobOfSeveralLaunchesKeepsThemAndTheirScratch) {
  LaunchSpec split = attention_launch();
  split.then.push_back(attention_launch());
  split.then.back().kernel_name = "combine";
  split.scratch = {{"O_part", DType::f32, (std::int64_t{1} << 40) + 3},
                   {"L_part", DType::f32, 0},
                   {"arrivals", DType::i32, 96, true}};
  JobMessage original;
  original.kernel = CompiledKernel{kCubin, split};
  original.extra_launches = {split};
  const json message = encode(original);
  EXPECT_EQ(message.at("kernel").at("launch").at("then").size(), 1u);
  // "zeroed" only where it is true, so that the messages of earlier scratch keep their bytes.
  EXPECT_FALSE(message.at("kernel").at("launch").at("scratch").at(0).contains("zeroed"));
  EXPECT_EQ(message.at("kernel").at("launch").at("scratch").at(2).at("zeroed"), true);
  const JobMessage job = decode_job(through_cbor(message));
  ASSERT_TRUE(job.kernel);
  expect_same(job.kernel->launch, split);
  ASSERT_EQ(job.extra_launches.size(), 1u);
  expect_same(job.extra_launches[0], split);
  // A single launch has neither field, so its messages keep their bytes.
  EXPECT_FALSE(encode(JobMessage{0, {}, 0, 0, "", CompiledKernel{kCubin, attention_launch()}, {}})
                   .at("kernel")
                   .at("launch")
                   .contains("then"));
}

TEST(MessageCodec, JobKeepsEveryCubinByteAndItsSeedAndLimit) {
  const JobMessage original{std::int64_t{1} << 40,
                            {{"BLOCK_M", 128}, {"STAGES", -1}},
                            std::numeric_limits<std::uint64_t>::max(),
                            2000.5,
                            "20 x reference 0.41 ms",
                            CompiledKernel{kCubin, attention_launch()},
                            {attention_launch(), LaunchSpec{}}};
  const json message = encode(original);
  EXPECT_TRUE(message.at("kernel").at("cubin").is_binary());
  const JobMessage job = decode_job(through_cbor(message));
  EXPECT_EQ(job.ticket, std::int64_t{1} << 40);
  EXPECT_EQ(job.config, original.config);
  EXPECT_EQ(job.validation_seed, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(job.launch_limit_ms, 2000.5);
  EXPECT_EQ(job.limit_basis, original.limit_basis);
  ASSERT_TRUE(job.kernel);
  EXPECT_EQ(job.kernel->cubin.size(), 14u);
  EXPECT_EQ(job.kernel->cubin, kCubin);
  expect_same(job.kernel->launch, original.kernel->launch);
  ASSERT_EQ(job.extra_launches.size(), 2u);
  expect_same(job.extra_launches[0], attention_launch());
  expect_same(job.extra_launches[1], LaunchSpec{});

  EXPECT_FALSE(job.timing_only);

  JobMessage replay = original;
  replay.kernel.reset();
  EXPECT_FALSE(encode(replay).contains("kernel"));
  EXPECT_FALSE(decode_job(through_cbor(encode(replay))).kernel);
}

TEST(MessageCodec, ARetimingJobSaysSo) {
  JobMessage retime;
  retime.kernel = CompiledKernel{kCubin, attention_launch()};
  retime.timing_only = true;
  EXPECT_TRUE(decode_job(through_cbor(encode(retime))).timing_only);
}

TEST(MessageCodec, ReadyAnswerCarriesTheDeviceAndTheReferenceTime) {
  const WorkerAnswer answer =
      decode_answer(through_cbor(encode(WorkerAnswer{ReadyAnswer{core_test::h100(), 0.41}})));
  const auto& ready = std::get<ReadyAnswer>(answer);
  EXPECT_EQ(ready.reference_ms, 0.41);
  core_test::expect_same_device(ready.device, core_test::h100());
}

TEST(MessageCodec, TheBaselineTravelsInTheSetupAndItsJobs) {
  GpuSetup setup = gpu_setup();
  EXPECT_FALSE(std::get<GpuSetup>(decode_setup(through_cbor(encode(WorkerSetup{setup})))).baseline);
  setup.baseline = GemmBaselineSpec{"cublasLt", 77, 5000, 4096, true, "A", "W", "D", DType::bf16, DType::f32};
  const GpuSetup s = std::get<GpuSetup>(decode_setup(through_cbor(encode(WorkerSetup{setup}))));
  ASSERT_TRUE(s.baseline);
  EXPECT_EQ(s.baseline->library, "cublasLt");
  EXPECT_EQ(s.baseline->m, 77);
  EXPECT_EQ(s.baseline->n, 5000);
  EXPECT_EQ(s.baseline->k, 4096);
  EXPECT_TRUE(s.baseline->b_kmajor);
  EXPECT_EQ(s.baseline->b, "W");
  EXPECT_EQ(s.baseline->input, DType::bf16);
  EXPECT_EQ(s.baseline->output, DType::f32);

  JobMessage job;
  job.ticket = 4;
  EXPECT_EQ(decode_job(through_cbor(encode(job))).baseline_algorithm, -1);  // a variant's job
  job.baseline_algorithm = 3;
  EXPECT_EQ(decode_job(through_cbor(encode(job))).baseline_algorithm, 3);
}

TEST(MessageCodec, TheCutOfSlowVariantsTravelsBothWays) {
  JobMessage job;
  job.ticket = 5;
  EXPECT_FALSE(encode(job).contains("cut_slow_us"));  // no cut: timed in full
  EXPECT_EQ(decode_job(through_cbor(encode(job))).cut_slow_us, 0);
  job.cut_slow_us = 812.25;
  EXPECT_EQ(decode_job(through_cbor(encode(job))).cut_slow_us, 812.25);

  Outcome cut = full_outcome();
  cut.timing->method =
      TimingMethod{false, 0, false, "", "the fastest of 3 warm-up executions took 2000.0 us"};
  const Outcome o = sent(cut);
  ASSERT_TRUE(o.timing && o.timing->method);
  EXPECT_EQ(o.timing->method, cut.timing->method);
  EXPECT_EQ(short_text(*o.timing->method), "warm-up no-flush");
  EXPECT_NE(describe(*o.timing->method).find("warm-up executions only"), std::string::npos);
}

TEST(MessageCodec, SetupErrorAndHealthTravel) {
  const WorkerAnswer error =
      decode_answer(through_cbor(encode(WorkerAnswer{SetupErrorAnswer{"no CUDA device"}})));
  EXPECT_EQ(std::get<SetupErrorAnswer>(error).message, "no CUDA device");
  const WorkerAnswer result = decode_answer(through_cbor(encode(WorkerAnswer{ResultAnswer{-7, {}, false}})));
  EXPECT_EQ(std::get<ResultAnswer>(result).ticket, -7);
  EXPECT_FALSE(std::get<ResultAnswer>(result).healthy);
}

TEST(MessageCodec, OutcomeWithErrorAndTimingRoundTrips) {
  const Outcome original = full_outcome();
  const Outcome o = sent(original);
  EXPECT_EQ(o.status, Status::wrong_result);
  EXPECT_EQ(o.message, original.message);
  core_test::expect_same_compile(o.compile, original.compile);
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->max_abs, 0.5);
  EXPECT_EQ(o.error->rel_l2, 0.1 + 0.2);
  EXPECT_EQ(o.error->non_finite, 7);
  EXPECT_EQ(o.error->elements, std::int64_t{1} << 40);
  ASSERT_TRUE(o.timing);
  EXPECT_EQ(o.timing->median_us, 85.536);
  EXPECT_EQ(o.timing->min_us, 84.03);
  EXPECT_EQ(o.timing->mean_us, 85.43);
  EXPECT_EQ(o.timing->stddev_us, 0.54);
  EXPECT_EQ(o.timing->p20_us, 85.04);
  EXPECT_EQ(o.timing->p80_us, 85.78);
  EXPECT_EQ(o.timing->samples, 30);
  EXPECT_EQ(o.timing->method, (TimingMethod{true, 12, false}));
  EXPECT_EQ(o.validation_seed, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(o.validate_ms, 12.25);
  EXPECT_EQ(o.bench_ms, 3.0 / 7.0);
}

TEST(MessageCodec, OutcomeWithoutErrorOrTimingStaysWithout) {
  Outcome original;
  original.status = Status::compile_error;
  original.message = "kernel.cu(3): error: identifier \"y\" is undefined";
  const json message = encode(WorkerAnswer{ResultAnswer{1, original, true}});
  EXPECT_FALSE(message.at("outcome").contains("error"));
  EXPECT_FALSE(message.at("outcome").contains("timing"));
  const Outcome o = sent(original);
  EXPECT_EQ(o.status, Status::compile_error);
  EXPECT_EQ(o.message, original.message);
  EXPECT_FALSE(o.error);
  EXPECT_FALSE(o.timing);
}

TEST(MessageCodec, NonFiniteErrorStatsSurviveCbor) {
  Outcome original;
  original.status = Status::nan;
  original.error = ErrorStats{std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::infinity(), 4096, 4096};
  const Outcome o = sent(original);
  ASSERT_TRUE(o.error);
  EXPECT_TRUE(std::isnan(o.error->max_abs));
  EXPECT_TRUE(std::isinf(o.error->rel_l2));
  EXPECT_GT(o.error->rel_l2, 0);
  EXPECT_EQ(o.error->non_finite, 4096);
  original.error->rel_l2 = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(sent(original).error->rel_l2, -std::numeric_limits<double>::infinity());
}

TEST(MessageCodec, MalformedAnswersAreOneLineNamingTheField) {
  const json good = encode(WorkerAnswer{ResultAnswer{1, full_outcome(), true}});
  json missing = good;
  missing["outcome"].erase("status");
  expect_error([&] { decode_answer(missing); }, "worker answer: outcome.status: missing required field");
  json unknown_status = good;
  unknown_status["outcome"]["status"] = "exploded";
  expect_error([&] { decode_answer(unknown_status); },
               "worker answer: outcome.status: unknown status 'exploded'");
  json short_timing = good;
  short_timing["outcome"]["timing"].erase("p80_us");
  expect_error([&] { decode_answer(short_timing); },
               "worker answer: outcome.timing.p80_us: missing required field");
  json unknown_type = good;
  unknown_type["type"] = "gossip";
  expect_error([&] { decode_answer(unknown_type); }, "worker answer: type: unknown answer type 'gossip'");
  json extra = good;
  extra["mood"] = "fine";
  expect_error([&] { decode_answer(extra); },
               "worker answer: mood: unknown field (known: type, ticket, outcome, healthy)");
  json no_device = encode(WorkerAnswer{ReadyAnswer{}});
  no_device["device"] = json::object();
  expect_error([&] { decode_answer(no_device); }, "worker answer: device.name: missing required field");
}

TEST(MessageCodec, MalformedSetupsAndJobsAreOneLineNamingTheField) {
  const json good = encode(WorkerSetup{gpu_setup()});
  json bad_dtype = good;
  bad_dtype["buffers"][1]["dtype"] = "f128";
  expect_error([&] { decode_setup(bad_dtype); }, "setup message: buffers[1].dtype: unknown dtype 'f128'");
  json wrong_type = good;
  wrong_type["buffers"][0]["count"] = "many";
  expect_error([&] { decode_setup(wrong_type); },
               "setup message: buffers[0].count: expected an integer, got \"many\"");
  json text_cubin = good;
  text_cubin["reference"]["cubin"] = "ELF";
  expect_error([&] { decode_setup(text_cubin); },
               "setup message: reference.cubin: expected binary data, got \"ELF\"");
  json short_grid = good;
  short_grid["reference"]["launch"]["grid"] = {1, 2};
  expect_error([&] { decode_setup(short_grid); },
               "setup message: reference.launch.grid: expected 3 items, got 2");
  json settings = good;
  settings["settings"] = json::array();
  expect_error([&] { decode_setup(settings); }, "setup message: settings: expected an object, got a list");
  expect_error(
      [] {
        decode_setup({{"engine", "quantum"}});
      },
      "setup message: engine: unknown engine 'quantum'");

  json job = encode(JobMessage{1, {{"BLOCK", 64}}, 9, 1000, "", std::nullopt, {}});
  job["config"]["BLOCK"] = 1.5;
  expect_error([&] { decode_job(job); }, "job message: config.BLOCK: expected an integer, got 1.5");
}

}  // namespace message_codec_test
}  // namespace evotune
