// Worker messages' parts: every to_json/from_json pair round-trips exactly, through CBOR too.
#include "eval/wire_format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace evotune {
namespace {

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
  l.args = {{ArgSpec::Kind::buffer, "Q", DType::bf16, 0.0},
            {ArgSpec::Kind::scalar, "scale", DType::f32, 0.1 + 0.2},
            {ArgSpec::Kind::scalar, "S", DType::i32, 512}};
  return l;
}

void expect_same(const LaunchSpec& a, const LaunchSpec& b) {
  EXPECT_EQ(a.kernel_name, b.kernel_name);
  EXPECT_EQ(a.grid, b.grid);
  EXPECT_EQ(a.block, b.block);
  EXPECT_EQ(a.dynamic_smem_bytes, b.dynamic_smem_bytes);
  ASSERT_EQ(a.args.size(), b.args.size());
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    EXPECT_EQ(a.args[i].kind, b.args[i].kind) << i;
    EXPECT_EQ(a.args[i].name, b.args[i].name) << i;
    EXPECT_EQ(a.args[i].dtype, b.args[i].dtype) << i;
    EXPECT_EQ(a.args[i].value, b.args[i].value) << i;
  }
}

Outcome full_outcome() {
  Outcome o;
  o.status = Status::wrong_result;
  o.message = "max_abs 0.5 > 0.02\nsecond line";
  o.compile = {"sm_90a", 168, 49152, 8, 12, 16, 1234.5, true, "ptxas info: Used 168 registers"};
  o.error = ErrorStats{0.5, 0.1 + 0.2, 7, std::int64_t{1} << 40};
  o.timing = TimingStats{85.536, 84.03, 85.43, 0.54, 85.04, 85.78, 30};
  o.validation_seed = std::numeric_limits<std::uint64_t>::max();
  o.validate_ms = 12.25;
  o.bench_ms = 3.0 / 7.0;
  return o;
}

TEST(WireFormat, BufferSpecRoundTripsWithEachFillKind) {
  const FillSpec random{FillSpec::Kind::random_uniform, -0.125, 3.5, 0.0};
  const FillSpec constant{FillSpec::Kind::constant, 0.0, 0.0, -2.75};
  for (const BufferSpec& original : {buffer("out", random), buffer("mask", constant)}) {
    SCOPED_TRACE(original.name);
    expect_same(buffer_from_json(to_json(original)), original);
    expect_same(buffer_from_json(through_cbor(to_json(original))), original);
  }
}

TEST(WireFormat, LaunchSpecRoundTripsBufferAndScalarArgs) {
  const LaunchSpec original = attention_launch();
  expect_same(launch_from_json(to_json(original)), original);
  expect_same(launch_from_json(through_cbor(to_json(original))), original);
  expect_same(launch_from_json(to_json(LaunchSpec{})), LaunchSpec{});
}

TEST(WireFormat, CompiledKernelKeepsEveryCubinByte) {
  const std::string cubin(
      "\x7f"
      "ELF\0\0\x01\xff\0tail\0",
      14);
  const CompiledKernel original{cubin, attention_launch()};
  const json message = to_json(original);
  EXPECT_TRUE(message.at("cubin").is_binary());  // not text: CBOR carries it as raw bytes
  const CompiledKernel back = kernel_from_json(through_cbor(message));
  EXPECT_EQ(back.cubin.size(), 14u);
  EXPECT_EQ(back.cubin, cubin);
  expect_same(back.launch, original.launch);
}

TEST(WireFormat, TolerancesAndSettingsRoundTrip) {
  const Tolerances tolerances{1e-3, 0.1 + 0.2};
  const Tolerances t = tolerances_from_json(through_cbor(to_json(tolerances)));
  EXPECT_EQ(t.max_abs, tolerances.max_abs);
  EXPECT_EQ(t.rel_l2, tolerances.rel_l2);

  const EvalSettings settings{7, 101, false, 1234.5, false};
  const EvalSettings s = settings_from_json(through_cbor(to_json(settings)));
  EXPECT_EQ(s.warmup, 7);
  EXPECT_EQ(s.repetitions, 101);
  EXPECT_FALSE(s.flush_l2);
  EXPECT_EQ(s.timeout_ms, 1234.5);
  EXPECT_FALSE(s.reset_in_process);
  EXPECT_TRUE(settings_from_json(to_json(EvalSettings{})).reset_in_process);
}

TEST(WireFormat, DeviceInfoRoundTrips) {
  const DeviceInfo original{"NVIDIA H100 80GB HBM3",
                            9,
                            0,
                            13000,
                            132,
                            52428800,
                            std::int64_t{85} << 30,
                            1024,
                            232448,
                            233472,
                            65536,
                            65536,
                            32};
  const DeviceInfo d = device_from_json(through_cbor(to_json(original)));
  EXPECT_EQ(d.name, original.name);
  EXPECT_EQ(d.arch(), "sm_90");
  EXPECT_EQ(d.driver_version, 13000);
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.l2_bytes, 52428800);
  EXPECT_EQ(d.global_mem_bytes, std::int64_t{85} << 30);
  EXPECT_EQ(d.max_threads_per_block, 1024);
  EXPECT_EQ(d.max_smem_per_block, 232448);
  EXPECT_EQ(d.smem_per_sm, 233472);
  EXPECT_EQ(d.regs_per_block, 65536);
  EXPECT_EQ(d.regs_per_sm, 65536);
  EXPECT_EQ(d.warp_size, 32);
}

TEST(WireFormat, OutcomeWithErrorAndTimingRoundTrips) {
  const Outcome original = full_outcome();
  const Outcome o = outcome_from_json(through_cbor(to_json(original)));
  EXPECT_EQ(o.status, Status::wrong_result);
  EXPECT_EQ(o.message, original.message);
  EXPECT_EQ(o.compile.arch, "sm_90a");
  EXPECT_EQ(o.compile.registers, 168);
  EXPECT_EQ(o.compile.static_smem_bytes, 49152);
  EXPECT_EQ(o.compile.spill_store_bytes, 8);
  EXPECT_EQ(o.compile.spill_load_bytes, 12);
  EXPECT_EQ(o.compile.stack_frame_bytes, 16);
  EXPECT_EQ(o.compile.compile_ms, 1234.5);
  EXPECT_TRUE(o.compile.from_cache);
  EXPECT_EQ(o.compile.log, original.compile.log);
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
  EXPECT_EQ(o.validation_seed, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(o.validate_ms, 12.25);
  EXPECT_EQ(o.bench_ms, 3.0 / 7.0);
}

TEST(WireFormat, OutcomeWithoutErrorOrTimingStaysWithout) {
  Outcome original;
  original.status = Status::compile_error;
  original.message = "kernel.cu(3): error: identifier \"y\" is undefined";
  const json message = to_json(original);
  EXPECT_FALSE(message.contains("error"));
  EXPECT_FALSE(message.contains("timing"));
  const Outcome o = outcome_from_json(through_cbor(message));
  EXPECT_EQ(o.status, Status::compile_error);
  EXPECT_EQ(o.message, original.message);
  EXPECT_FALSE(o.error);
  EXPECT_FALSE(o.timing);
}

TEST(WireFormat, NonFiniteErrorStatsSurviveCbor) {
  Outcome original;
  original.status = Status::nan;
  original.error = ErrorStats{std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::infinity(), 4096, 4096};
  const Outcome o = outcome_from_json(through_cbor(to_json(original)));
  ASSERT_TRUE(o.error);
  EXPECT_TRUE(std::isnan(o.error->max_abs));
  EXPECT_TRUE(std::isinf(o.error->rel_l2));
  EXPECT_GT(o.error->rel_l2, 0);
  EXPECT_EQ(o.error->non_finite, 4096);
  original.error->rel_l2 = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(outcome_from_json(through_cbor(to_json(original))).error->rel_l2,
            -std::numeric_limits<double>::infinity());
}

TEST(WireFormat, MalformedMessagesThrow) {
  json missing = to_json(full_outcome());
  missing.erase("status");
  EXPECT_THROW(outcome_from_json(missing), Error);
  json unknown_status = to_json(full_outcome());
  unknown_status["status"] = "exploded";
  EXPECT_THROW(outcome_from_json(unknown_status), Error);
  json short_timing = to_json(full_outcome());
  short_timing["timing"].erase("p80_us");
  EXPECT_THROW(outcome_from_json(short_timing), Error);

  json bad_dtype = to_json(buffer("x", {}));
  bad_dtype["dtype"] = "f128";
  EXPECT_THROW(buffer_from_json(bad_dtype), Error);
  json wrong_type = to_json(buffer("x", {}));
  wrong_type["count"] = "many";
  EXPECT_THROW(buffer_from_json(wrong_type), Error);

  json text_cubin = to_json(CompiledKernel{"ELF", attention_launch()});
  text_cubin["cubin"] = "ELF";
  EXPECT_THROW(kernel_from_json(text_cubin), Error);
  json short_grid = to_json(attention_launch());
  short_grid["grid"] = {1, 2};
  EXPECT_ANY_THROW(launch_from_json(short_grid));
  EXPECT_THROW(device_from_json(json::object()), Error);
  EXPECT_THROW(settings_from_json(json::array()), Error);
}

}  // namespace
}  // namespace evotune
