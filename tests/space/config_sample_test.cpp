// sample_configs: deterministic, bounded, and every parameter's smallest and largest value included.
#include "space/config_sample.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace evotune {
namespace config_sample_test {

std::vector<Config> grid() {
  std::vector<Config> configs;
  for (ParamValue m : {16, 32, 64, 128})
    for (ParamValue n : {16, 32, 64})
      for (ParamValue w : {1, 2, 4, 8})
        if (m >= 16 * w) configs.push_back({{"BLOCK_M", m}, {"BLOCK_N", n}, {"WARPS", w}});
  return configs;
}

TEST(ConfigSample, AllConfigsWhenTheSampleIsLargeEnough) {
  const auto configs = grid();
  EXPECT_EQ(sample_configs(configs, configs.size()), configs);
  EXPECT_EQ(sample_configs(configs, 1000), configs);
}

TEST(ConfigSample, BoundedDeterministicDistinctAndInEnumerationOrder) {
  const auto configs = grid();
  const auto sample = sample_configs(configs, 12);
  EXPECT_EQ(sample.size(), 12u);
  EXPECT_EQ(sample, sample_configs(configs, 12));
  std::vector<std::size_t> positions;
  for (const auto& config : sample) {
    const auto it = std::find(configs.begin(), configs.end(), config);
    ASSERT_NE(it, configs.end());
    positions.push_back(static_cast<std::size_t>(it - configs.begin()));
  }
  EXPECT_TRUE(std::is_sorted(positions.begin(), positions.end()));
  EXPECT_EQ(std::set<std::size_t>(positions.begin(), positions.end()).size(), positions.size());
}

TEST(ConfigSample, EveryParametersCornersAreIn) {
  const auto configs = grid();
  for (std::size_t count : {1u, 6u, 20u}) {
    const auto sample = sample_configs(configs, count);
    for (const char* name : {"BLOCK_M", "BLOCK_N", "WARPS"}) {
      std::set<ParamValue> all, seen;
      for (const auto& c : configs) all.insert(c.at(name));
      for (const auto& c : sample) seen.insert(c.at(name));
      EXPECT_TRUE(seen.contains(*all.begin())) << name << " smallest missing at count " << count;
      EXPECT_TRUE(seen.contains(*all.rbegin())) << name << " largest missing at count " << count;
    }
  }
}

}  // namespace config_sample_test
}  // namespace evotune
