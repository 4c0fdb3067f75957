// The core serialiser: every type round-trips exactly (through CBOR too), keys keep their written order, and
// a malformed object is one line naming the field.
#include "core/core_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/core_fixture.hpp"

namespace evotune {
namespace {

using json = nlohmann::json;

// What a pipe does to a message: CBOR out and back.
json through_cbor(const json& message) { return json::from_cbor(json::to_cbor(message)); }

// Reads `value` back with `read` after a trip through CBOR.
template <typename Read>
auto round_trip(const nlohmann::ordered_json& value, Read read) {
  const json received = through_cbor(json(value));
  return read(Fields(received, "", "test"));
}

using core_test::expect_error;
using core_test::h100;

TEST(CoreJson, DeviceInfoRoundTripsWithItsArchInTheSweepFilesOrder) {
  const nlohmann::ordered_json written = to_json(h100());
  EXPECT_EQ(written.dump().substr(0, 60), R"({"name":"NVIDIA H100 80GB HBM3","arch":"sm_90","cc_major":9,)");
  EXPECT_EQ(written.begin().key(), "name");
  EXPECT_EQ(std::prev(written.end()).key(), "warp_size");
  core_test::expect_same_device(round_trip(written, device_from_json), h100());
}

TEST(CoreJson, DeviceLimitsTheStoreDoesNotKeepMayBeAbsent) {
  json device = json(to_json(h100()));
  for (const char* limit : {"global_mem_bytes", "max_threads_per_block", "smem_per_sm", "regs_per_block",
                            "regs_per_sm", "warp_size"})
    device.erase(limit);
  const DeviceInfo d = device_from_json(Fields(device, "device", "sweep.json"));
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.global_mem_bytes, 0);
  EXPECT_EQ(d.smem_per_sm, 0);
  EXPECT_EQ(d.warp_size, 32);
  device["arch"] = "sm_80";
  expect_error([&] { device_from_json(Fields(device, "device", "sweep.json")); },
               "sweep.json: device.arch: 'sm_80' does not match cc_major/cc_minor (sm_90)");
}

TEST(CoreJson, TimingSettingsAreDescribedForRuns) {
  EvalSettings settings;
  EXPECT_EQ(describe_timing(to_json(settings)),
            "CUDA events, 3 warm-up + 30 timed launches, L2 flushed before each, 2 validation rounds");
  settings.flush_l2 = false;
  settings.repetitions = 100;
  EXPECT_EQ(describe_timing(to_json(settings)),
            "CUDA events, 3 warm-up + 100 timed launches, L2 not flushed, 2 validation rounds");
}

TEST(CoreJson, CompileInfoRoundTrips) {
  const CompileInfo info{"sm_90a",
                         96,
                         16384,
                         4,
                         8,
                         24,
                         0.1 + 0.2,
                         true,
                         "ptxas info : Used 96 registers\nline",
                         CompilePhases{47, 110.5, 108}};
  for (const CompileInfo& original : {info, CompileInfo{}}) {
    const CompileInfo back = round_trip(to_json(original), compile_info_from_json);
    core_test::expect_same_compile(back, original);
    ASSERT_EQ(back.phases.has_value(), original.phases.has_value());
    if (original.phases) {
      EXPECT_EQ(back.phases->frontend_ms, 47);
      EXPECT_EQ(back.phases->nvvm_ms, 110.5);
      EXPECT_EQ(back.phases->ptxas_ms, 108);
    }
  }
}

TEST(CoreJson, TimingKeepsTheSweepFilesOrderAndRefusesANegativeMedian) {
  const TimingStats timing{85.536, 84.03, 85.43, 0.54, 85.04, 85.78, 30};
  EXPECT_EQ(to_json(timing).dump(),
            R"({"median_us":85.536,"min_us":84.03,"mean_us":85.43,"stddev_us":0.54,"p20_us":85.04,)"
            R"("p80_us":85.78,"samples":30})");
  const TimingStats t = round_trip(to_json(timing), timing_from_json);
  EXPECT_EQ(t.median_us, 85.536);
  EXPECT_EQ(t.p80_us, 85.78);
  EXPECT_EQ(t.samples, 30);
  TimingStats negative = timing;
  negative.median_us = -1;
  EXPECT_THROW(round_trip(to_json(negative), timing_from_json), Error);
}

TEST(CoreJson, NonFiniteErrorStatsSurviveCbor) {
  const ErrorStats original{std::numeric_limits<double>::quiet_NaN(),
                            -std::numeric_limits<double>::infinity(), 4096, std::int64_t{1} << 40};
  const ErrorStats e = round_trip(to_json(original), error_stats_from_json);
  EXPECT_TRUE(std::isnan(e.max_abs));
  EXPECT_EQ(e.rel_l2, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(e.non_finite, 4096);
  EXPECT_EQ(e.elements, std::int64_t{1} << 40);
}

TEST(CoreJson, ToleranceAndSettingsRoundTrip) {
  const Tolerances t = round_trip(to_json(Tolerances{1e-3, 0.1 + 0.2, false}), tolerances_from_json);
  EXPECT_EQ(t.max_abs, 1e-3);
  EXPECT_EQ(t.rel_l2, 0.1 + 0.2);
  EXPECT_FALSE(t.deterministic);
  const EvalSettings s =
      round_trip(to_json(EvalSettings{-1, 101, false, 1234.5, false, 3}), settings_from_json);
  EXPECT_EQ(s.validation_rounds, 3);
  EXPECT_EQ(s.warmup, -1);  // the evaluator clamps; the serialiser carries what it is given
  EXPECT_EQ(s.repetitions, 101);
  EXPECT_FALSE(s.flush_l2);
  EXPECT_EQ(s.timeout_ms, 1234.5);
  EXPECT_FALSE(s.reset_in_process);
}

TEST(CoreJson, BufferSpecialFillsRoundTripAndAreLeftOutWhenNone) {
  BufferSpec buffer{"q", DType::f16, 4096, true, false, {FillSpec::Kind::random_uniform, -1, 1, 0},
                    {{FillSpec::Kind::random_uniform, -10, 10, 0}, {FillSpec::Kind::constant, 0, 0, 0.5}}};
  const BufferSpec back = round_trip(to_json(buffer), buffer_from_json);
  ASSERT_EQ(back.special_fills.size(), 2u);
  EXPECT_EQ(back.special_fills[0].low, -10);
  EXPECT_EQ(back.special_fills[0].high, 10);
  EXPECT_EQ(back.special_fills[1].kind, FillSpec::Kind::constant);
  EXPECT_EQ(back.special_fills[1].value, 0.5);
  buffer.special_fills.clear();
  EXPECT_FALSE(json(to_json(buffer)).contains("special_fills"));
  EXPECT_TRUE(round_trip(to_json(buffer), buffer_from_json).special_fills.empty());
}

TEST(CoreJson, StatusAndDtypeNamesAreChecked) {
  json outcome = json(to_json(Outcome{}));
  outcome["status"] = "exploded";
  EXPECT_THROW(outcome_from_json(Fields(outcome, "", "test")), Error);
  BufferSpec buffer;
  json bad = json(to_json(buffer));
  bad["dtype"] = "f128";
  expect_error([&] { buffer_from_json(Fields(bad, "buffers[0]", "setup")); },
               "setup: buffers[0].dtype: unknown dtype 'f128'");
  bad = json(to_json(buffer));
  bad["fill_kind"] = "gaussian";
  EXPECT_THROW(buffer_from_json(Fields(bad, "", "setup")), Error);
}

}  // namespace
}  // namespace evotune
