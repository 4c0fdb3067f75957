// The wgmma attention space on offline device limits: how many configs each compile-time shape allows on
// sm_90 (the counts `evotune check` compiles), FlashAttention-3's tile shapes among them, and no config
// elsewhere.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "space/search_space.hpp"

namespace evotune {
namespace {

const char* const kWgmmaSpace = "search_spaces/flash_attn_fwd_wgmma.json";

TEST(WgmmaSpace, ValidCountsOnHopper) {
  const SearchSpace space = SearchSpace::load(kWgmmaSpace);
  const DeviceInfo hopper = offline_device("sm_90");
  EXPECT_EQ(space.arch_suffix(), "a");
  EXPECT_EQ(space.total_configs(), 36u);
  // D = 64: all 36 (3 warpgroups x 4 tile widths x 3 stage counts) fit.
  EXPECT_EQ(space.enumerate(space.resolve_problem("D=64"), hopper).size(), 36u);
  EXPECT_EQ(space.enumerate(space.resolve_problem("D=64,CAUSAL=1"), hopper).size(), 36u);
  // D = 128: BLOCK_N 176 with 3 stages and 3 warpgroups with 3 stages overrun shared memory; 3 warpgroups
  // (168 registers each) cannot hold BLOCK_N >= 128 with D = 128 accumulators.
  EXPECT_EQ(space.enumerate(space.resolve_problem("D=128"), hopper).size(), 28u);
  EXPECT_EQ(space.enumerate(space.resolve_problem("D=128,CAUSAL=1"), hopper).size(), 28u);
}

TEST(WgmmaSpace, FlashAttention3TilesAreValid) {
  const SearchSpace space = SearchSpace::load(kWgmmaSpace);
  const DeviceInfo hopper = offline_device("sm_90");
  auto valid = [&](const char* problem, const Config& config) {
    const auto configs = space.enumerate(space.resolve_problem(problem), hopper);
    return std::find(configs.begin(), configs.end(), config) != configs.end();
  };
  // D = 64: BLOCK_M 192, BLOCK_N 128; D = 128: BLOCK_M 128 with BLOCK_N 128, or 176 with 2 stages.
  EXPECT_TRUE(valid("D=64", Config{{"CONSUMER_WARPGROUPS", 3}, {"BLOCK_N", 128}, {"STAGES", 2}}));
  EXPECT_TRUE(valid("D=128", Config{{"CONSUMER_WARPGROUPS", 2}, {"BLOCK_N", 128}, {"STAGES", 2}}));
  EXPECT_TRUE(valid("D=128", Config{{"CONSUMER_WARPGROUPS", 2}, {"BLOCK_N", 176}, {"STAGES", 2}}));
  EXPECT_FALSE(valid("D=128", Config{{"CONSUMER_WARPGROUPS", 2}, {"BLOCK_N", 176}, {"STAGES", 3}}));
}

TEST(WgmmaSpace, NoConfigBeforeHopper) {
  const SearchSpace space = SearchSpace::load(kWgmmaSpace);
  try {
    space.enumerate(space.resolve_problem(""), offline_device("sm_80"));
    FAIL() << "an sm_80 device allowed a wgmma config";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("wgmma_arch"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace evotune
