// The core serialiser: every type round-trips exactly (through CBOR too), keys keep their written order, and
// a malformed object is one line naming the field.
#include "core/core_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/core_fixture.hpp"

namespace evotune {
namespace core_json_test {

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
  EvalSettings settings{.timing = TimingMode::single};
  EXPECT_EQ(describe_timing(to_json(settings)),
            "CUDA events, 3 warm-up + 30 timed launches, L2 flushed before each, 2 validation rounds");
  settings.flush_l2 = false;
  settings.repetitions = 100;
  EXPECT_EQ(describe_timing(to_json(settings)),
            "CUDA events, 3 warm-up + 100 timed launches, L2 not flushed, 2 validation rounds");
  settings.timing = TimingMode::graph;
  EXPECT_EQ(describe_timing(to_json(settings)),
            "CUDA graphs of up to 20 executions, 3 warm-up + 100 timed replays, L2 not flushed, 2 validation "
            "rounds");
  EXPECT_EQ(
      describe_timing(to_json(EvalSettings{})),
      "CUDA graphs for variants under 50 us, else CUDA events, 3 warm-up + 30 timed replays or launches, "
      "L2 flushed before each, 2 validation rounds");
  settings.warmup_ms = 500;
  EXPECT_EQ(
      describe_timing(to_json(settings)),
      "CUDA graphs of up to 20 executions, 3 warm-up + 500 ms sustained warm-up + 100 timed replays, L2 not "
      "flushed, 2 validation rounds");
  // A run stored before the timing modes: single launches.
  EXPECT_EQ(
      describe_timing(json::parse(R"({"warmup":3,"repetitions":30,"flush_l2":false,"validation_rounds":2})")),
      "CUDA events, 3 warm-up + 30 timed launches, L2 not flushed, 2 validation rounds");
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
  EXPECT_FALSE(t.method);
  TimingStats negative = timing;
  negative.median_us = -1;
  EXPECT_THROW(round_trip(to_json(negative), timing_from_json), Error);
}

TEST(CoreJson, TimingMethodRoundTripsAfterTheSamples) {
  TimingStats timing{2.5, 2.4, 2.5, 0.1, 2.45, 2.55, 30, TimingMethod{true, 20, true}};
  EXPECT_EQ(to_json(timing).dump(),
            R"({"median_us":2.5,"min_us":2.4,"mean_us":2.5,"stddev_us":0.1,"p20_us":2.45,"p80_us":2.55,)"
            R"("samples":30,"method":{"mode":"graph","graph_executions":20,"flush_l2":true}})");
  EXPECT_EQ(round_trip(to_json(timing), timing_from_json).method, timing.method);
  timing.method = TimingMethod{false, 0, false, "cuStreamEndCapture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"};
  EXPECT_EQ(round_trip(to_json(timing), timing_from_json).method, timing.method);
  json automatic = json(to_json(timing));
  automatic["method"]["mode"] = "auto";
  expect_error([&] { timing_from_json(Fields(automatic, "timing", "sweep.json")); },
               "sweep.json: timing.method.mode: a measurement is timed single or graph, not auto");
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
  const EvalSettings s = round_trip(to_json(EvalSettings{.warmup = -1,
                                                         .repetitions = 101,
                                                         .flush_l2 = false,
                                                         .timeout_ms = 1234.5,
                                                         .reset_in_process = false,
                                                         .validation_rounds = 3}),
                                    settings_from_json);
  EXPECT_EQ(s.validation_rounds, 3);
  EXPECT_EQ(s.warmup, -1);  // the evaluator clamps; the serialiser carries what it is given
  EXPECT_EQ(s.repetitions, 101);
  EXPECT_FALSE(s.flush_l2);
  EXPECT_EQ(s.timeout_ms, 1234.5);
  EXPECT_FALSE(s.reset_in_process);
  EXPECT_EQ(s.timing, TimingMode::automatic);
  for (const TimingMode mode : {TimingMode::single, TimingMode::graph, TimingMode::automatic}) {
    const EvalSettings settings{.timing = mode};
    EXPECT_EQ(round_trip(to_json(settings), settings_from_json).timing, mode) << to_string(mode);
  }
  json unknown = json(to_json(EvalSettings{}));
  unknown["timing"] = "cupti";
  expect_error([&] { settings_from_json(Fields(unknown, "settings", "setup")); },
               "setup: settings.timing: unknown timing mode 'cupti' (single, graph or auto)");
  unknown.erase("timing");  // settings from before the modes timed single launches
  EXPECT_EQ(settings_from_json(Fields(unknown, "settings", "setup")).timing, TimingMode::single);
}

TEST(CoreJson, EnergyRoundTripsWithTheOutcomeAndIsLeftOutWhenNotMeasured) {
  Outcome outcome;
  outcome.timing = TimingStats{2.5, 2.4, 2.5, 0.1, 2.45, 2.55, 30};
  const Outcome plain = round_trip(to_json(outcome), outcome_from_json);
  EXPECT_FALSE(plain.energy.has_value());
  EXPECT_FALSE(to_json(outcome).contains("energy"));
  outcome.energy = EnergyStats{812.5, 232.125, 201.5, 57000};
  EXPECT_EQ(to_json(*outcome.energy).dump(),
            R"({"uj_per_execution":812.5,"avg_power_w":232.125,"window_ms":201.5,"executions":57000})");
  const Outcome back = round_trip(to_json(outcome), outcome_from_json);
  ASSERT_TRUE(back.energy.has_value());
  EXPECT_EQ(back.energy->uj_per_execution, 812.5);
  EXPECT_EQ(back.energy->avg_power_w, 232.125);
  EXPECT_EQ(back.energy->window_ms, 201.5);
  EXPECT_EQ(back.energy->executions, 57000);
  json negative = json(to_json(*outcome.energy));
  negative["uj_per_execution"] = -1;
  EXPECT_THROW(energy_from_json(Fields(negative, "energy", "test")), Error);
}

TEST(CoreJson, EnergySettingsRoundTripAndOlderSettingsMeasureNone) {
  const EvalSettings settings{.measure_energy = true, .energy_window_ms = 350};
  const EvalSettings back = round_trip(to_json(settings), settings_from_json);
  EXPECT_TRUE(back.measure_energy);
  EXPECT_EQ(back.energy_window_ms, 350);
  json older = json(to_json(settings));
  older.erase("measure_energy");
  older.erase("energy_window_ms");
  const EvalSettings old = settings_from_json(Fields(older, "settings", "setup"));
  EXPECT_FALSE(old.measure_energy);
  EXPECT_EQ(old.energy_window_ms, EvalSettings{}.energy_window_ms);
}

TEST(CoreJson, SustainedWarmupRoundTripsAndOlderSettingsHaveNone) {
  const EvalSettings settings{.warmup_ms = 750};
  EXPECT_EQ(round_trip(to_json(settings), settings_from_json).warmup_ms, 750);
  json older = json(to_json(settings));
  older.erase("warmup_ms");
  EXPECT_EQ(settings_from_json(Fields(older, "settings", "setup")).warmup_ms, 0);
}

// evotune sanitize's exact buffers reach the worker; settings written before them had guard margins.
TEST(CoreJson, ExactBuffersRoundTripAndOlderSettingsHaveGuardMargins) {
  const EvalSettings settings{.guard_margins = false};
  EXPECT_FALSE(round_trip(to_json(settings), settings_from_json).guard_margins);
  json older = json(to_json(settings));
  older.erase("guard_margins");
  EXPECT_TRUE(settings_from_json(Fields(older, "settings", "setup")).guard_margins);
}

TEST(CoreJson, BufferSpecialFillsRoundTripAndAreLeftOutWhenNone) {
  BufferSpec buffer{"q",
                    DType::f16,
                    4096,
                    true,
                    false,
                    {FillSpec::Kind::random_uniform, -1, 1, 0},
                    {{FillSpec::Kind::random_uniform, -10, 10, 0}, {FillSpec::Kind::constant, 0, 0, 0.5}},
                    "d_q"};
  const BufferSpec back = round_trip(to_json(buffer), buffer_from_json);
  EXPECT_EQ(back.constant_symbol, "d_q");
  ASSERT_EQ(back.special_fills.size(), 2u);
  EXPECT_EQ(back.special_fills[0].low, -10);
  EXPECT_EQ(back.special_fills[0].high, 10);
  EXPECT_EQ(back.special_fills[1].kind, FillSpec::Kind::constant);
  EXPECT_EQ(back.special_fills[1].value, 0.5);
  buffer.special_fills.clear();
  EXPECT_FALSE(json(to_json(buffer)).contains("special_fills"));
  EXPECT_TRUE(round_trip(to_json(buffer), buffer_from_json).special_fills.empty());
}

// A programmatic launch says so in the job message (the worker launches it that way); the others, as before,
// carry no such key.
TEST(CoreJson, ProgrammaticLaunchesRoundTripAndOthersLeaveTheKeyOut) {
  LaunchSpec first;
  first.kernel_name = "split";
  LaunchSpec combine;
  combine.kernel_name = "combine";
  combine.programmatic = true;
  first.then.push_back(combine);
  const nlohmann::ordered_json written = to_json(first);
  EXPECT_FALSE(json(written).contains("programmatic"));
  EXPECT_EQ(json(written).at("then")[0].at("programmatic"), true);
  const LaunchSpec back = round_trip(written, launch_from_json);
  EXPECT_FALSE(back.programmatic);
  ASSERT_EQ(back.then.size(), 1u);
  EXPECT_TRUE(back.then[0].programmatic);
  EXPECT_EQ(back.then[0].kernel_name, "combine");
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
  expect_error([&] { buffer_from_json(Fields(bad, "buffers[0]", "setup")); },
               "setup: buffers[0].fill_kind: expected \"random_uniform\", \"constant\" or \"derived\", got "
               "\"gaussian\"");
  buffer.fill.kind = FillSpec::Kind::derived;
  EXPECT_EQ(json(to_json(buffer)).at("fill_kind"), "derived");
  EXPECT_EQ(buffer_from_json(Fields(json(to_json(buffer)), "", "setup")).fill.kind, FillSpec::Kind::derived);
}

}  // namespace core_json_test
}  // namespace evotune
