// NVML loaded at run time, here a stand-in library with fixed answers (tests/support/fake_nvml.cpp): the
// state it reads, a GPU it does not know, and libraries that are missing or are not NVML.
#include "cuda/nvml.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

namespace evotune::cuda {
namespace nvml_test {

TEST(Nvml, ReadsEveryFieldTheLibraryGivesAndLeavesTheRestEmpty) {
  const auto nvml = Nvml::load(EVOTUNE_FAKE_NVML);
  ASSERT_TRUE(nvml->available()) << nvml->failure();
  const auto state = nvml->read("00000000:18:00.0");
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->uuid, "GPU-00000000-1111-2222-3333-444444444444");
  EXPECT_EQ(state->pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(state->sm_clock_mhz, 1755u);
  EXPECT_EQ(state->max_sm_clock_mhz, 1980u);
  EXPECT_EQ(state->memory_clock_mhz, 2619u);
  EXPECT_EQ(state->power_mw, 312400u);
  EXPECT_EQ(state->power_limit_mw, 700000u);
  EXPECT_EQ(state->temperature_c, 61u);
  EXPECT_EQ(state->ecc, true);
  EXPECT_EQ(state->mig, false);
  EXPECT_EQ(state->clock_reasons, 0x1u);
  EXPECT_EQ(state->energy_mj, 123456789u);
  EXPECT_FALSE(state->app_sm_clock_mhz.has_value());  // the library says NOT_SUPPORTED
}

TEST(Nvml, EnergyAndPowerAloneAreReadForAKnownGpuOnly) {
  const auto nvml = Nvml::load(EVOTUNE_FAKE_NVML);
  ASSERT_TRUE(nvml->available()) << nvml->failure();
  EXPECT_EQ(nvml->energy_mj("00000000:18:00.0"), 123456789u);
  EXPECT_EQ(nvml->power_mw("00000000:18:00.0"), 312400u);
  EXPECT_FALSE(nvml->energy_mj("00000000:3b:00.0").has_value());
  EXPECT_FALSE(nvml->power_mw("00000000:3b:00.0").has_value());
}

TEST(Nvml, ClockReasonsAreReadEachTime) {
  const auto nvml = Nvml::load(EVOTUNE_FAKE_NVML);
  void* library = dlopen(EVOTUNE_FAKE_NVML, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(library, nullptr);
  auto set_reasons =
      reinterpret_cast<void (*)(unsigned long long)>(dlsym(library, "fake_nvml_set_clock_reasons"));
  ASSERT_NE(set_reasons, nullptr);
  set_reasons(0x20);
  EXPECT_EQ(throttle_text(*nvml->read("00000000:18:00.0")->clock_reasons), "sw_thermal");
  set_reasons(0x1);
  EXPECT_EQ(throttle_text(*nvml->read("00000000:18:00.0")->clock_reasons), "");
  dlclose(library);
}

TEST(Nvml, AnUnknownGpuReadsNothing) {
  const auto nvml = Nvml::load(EVOTUNE_FAKE_NVML);
  EXPECT_FALSE(nvml->read("00000000:99:00.0").has_value());
}

TEST(Nvml, AMissingLibraryOrOneThatIsNotNvmlIsUnavailableWithTheReason) {
  const auto missing = Nvml::load("/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(missing->available());
  EXPECT_EQ(missing->failure(), "NVML not found (/nonexistent/libnvidia-ml.so.1)");
  EXPECT_FALSE(missing->read("00000000:18:00.0").has_value());
  const auto other = Nvml::load("libm.so.6");
  EXPECT_FALSE(other->available());
  EXPECT_EQ(other->failure().rfind("NVML in libm.so.6 lacks nvmlInit_v2, nvmlShutdown", 0), 0u)
      << other->failure();
}

}  // namespace nvml_test
}  // namespace evotune::cuda
