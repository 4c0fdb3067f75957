// A GPU's state: naming clock reasons, telling throttling from idling, one-line descriptions, JSON.
#include "core/gpu_state.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace evotune {
namespace gpu_state_test {

GpuState h100_state() {
  GpuState s;
  s.uuid = "GPU-1";
  s.pci_bus_id = "00000000:18:00.0";
  s.sm_clock_mhz = 1755;
  s.max_sm_clock_mhz = 1980;
  s.memory_clock_mhz = 2619;
  s.max_memory_clock_mhz = 2619;
  s.power_mw = 312400;
  s.power_limit_mw = 700000;
  s.temperature_c = 61;
  s.ecc = true;
  s.mig = false;
  s.clock_reasons = 0x1 | 0x20;
  return s;
}

TEST(GpuState, ClockReasonsAreNamedAndOnlySlowdownsCountAsThrottling) {
  EXPECT_EQ(clock_reason_names(0), std::vector<std::string>{});
  EXPECT_EQ(clock_reason_names(0x1 | 0x4 | 0x100 | 0x1000),
            (std::vector<std::string>{"idle", "sw_power_cap", "display_clocks", "0x1000"}));
  EXPECT_EQ(throttle_text(0x1 | 0x2 | 0x10 | 0x100), "");  // idle, app clocks, sync boost, display
  EXPECT_EQ(throttle_text(0x1 | 0x4 | 0x40), "sw_power_cap,hw_thermal");
  EXPECT_EQ(throttle_text(0x8 | 0x20 | 0x80), "hw_slowdown,sw_thermal,power_brake");
}

TEST(GpuState, DescribeSaysWhatIsKnown) {
  EXPECT_EQ(
      describe(h100_state()),
      "SM 1755/1980 MHz, memory 2619/2619 MHz, 61 C, 312/700 W, ECC on, MIG off, clocks: idle,sw_thermal");
  GpuState sparse;
  sparse.sm_clock_mhz = 1000;
  sparse.clock_reasons = 0;
  EXPECT_EQ(describe(sparse), "SM 1000/? MHz, memory ?/? MHz, clocks: not held down");
}

TEST(GpuState, JsonRoundTripsAndLeavesUnknownFieldsOut) {
  const GpuState s = h100_state();
  const auto json = to_json(s);
  EXPECT_FALSE(json.contains("app_sm_clock_mhz"));
  EXPECT_EQ(json.at("clock_reasons"), 0x21);
  const GpuState back = gpu_state_from_json(json);
  EXPECT_EQ(to_json(back), json);
  EXPECT_FALSE(back.app_sm_clock_mhz.has_value());
  EXPECT_THROW(gpu_state_from_json(nlohmann::json{{"uuid", 3}}), Error);
}

TEST(GpuState, SeveralGpusAreAJsonArrayDescribedOneByOne) {
  const std::string json = gpu_states_json({h100_state(), h100_state()});
  EXPECT_EQ(json.front(), '[');
  EXPECT_EQ(describe_gpu_states(json),
            (std::vector<std::string>{describe(h100_state()), describe(h100_state())}));
  EXPECT_TRUE(describe_gpu_states("[]").empty());
  EXPECT_THROW(describe_gpu_states("{}"), Error);
  EXPECT_THROW(describe_gpu_states("[{"), Error);
}

}  // namespace gpu_state_test
}  // namespace evotune
