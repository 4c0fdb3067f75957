// The GPU's state through the real NVML: plausible clocks, power and temperature for GPU 0.
#include <gtest/gtest.h>

#include "eval/device_query.hpp"

namespace evotune {
namespace gpu_state_test {

TEST(GpuStateOnTheGpu, ClocksPowerAndTemperatureArePlausible) {
  if (gpu_count() == 0) GTEST_SKIP() << no_gpu_reason();
  if (!no_gpu_state_reason().empty()) GTEST_SKIP() << no_gpu_state_reason();
  const auto state = read_gpu_state(0);
  ASSERT_TRUE(state.has_value()) << "NVML does not know GPU 0 by its PCI bus id";
  std::printf("GPU 0: %s\n", describe(*state).c_str());
  EXPECT_EQ(state->uuid.rfind("GPU-", 0), 0u) << state->uuid;
  ASSERT_TRUE(state->sm_clock_mhz && state->max_sm_clock_mhz);
  EXPECT_GT(*state->sm_clock_mhz, 0u);
  EXPECT_LE(*state->sm_clock_mhz, *state->max_sm_clock_mhz);
  ASSERT_TRUE(state->power_mw && state->power_limit_mw);
  EXPECT_GT(*state->power_mw, 10000u) << "an idle GPU still draws more than 10 W";
  EXPECT_LT(*state->power_mw, *state->power_limit_mw + 50000u);
  ASSERT_TRUE(state->temperature_c);
  EXPECT_GT(*state->temperature_c, 10u);
  EXPECT_LT(*state->temperature_c, 100u);
  EXPECT_TRUE(state->clock_reasons.has_value());
}

}  // namespace gpu_state_test
}  // namespace evotune
