// A space of 19,440,000 candidates (ten parameters, five conditions, the last reading the last parameter):
// counted and sampled without holding the candidates, within the time a search's start can afford.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "core/config.hpp"
#include "core/known_devices.hpp"
#include "space/search_space.hpp"

namespace evotune {
namespace large_space_test {

TEST(LargeSpace, CountsAndSamplesWithoutEnumerating) {
  const auto start = std::chrono::steady_clock::now();
  const auto space = SearchSpace::load("tests/data/t1/large.json");
  const Sizes sizes = space.resolve_problem("");
  EXPECT_EQ(space.total_configs(), 19'440'000u);
  EXPECT_EQ(space.count_valid(sizes, DeviceInfo{}), 4'684'680u);  // Python's count of the same conditions
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0) << "loading and counting took " << seconds << " s";

  const auto sample = space.sample_valid(2000, 7, sizes, DeviceInfo{});
  EXPECT_EQ(sample.size(), 2000u);
  EXPECT_EQ(std::set<Config>(sample.begin(), sample.end()).size(), sample.size());
  for (const auto& config : sample) ASSERT_TRUE(space.check(config, sizes, DeviceInfo{}).valid);
  EXPECT_EQ(space.sample_valid(2000, 7, sizes, DeviceInfo{}), sample);  // seeded
  const auto candidates = space.search_candidates(sizes, DeviceInfo{}, 3, 500);
  EXPECT_EQ(candidates.size(), 500u);
  std::set<ParamValue> p9;
  for (const auto& config : space.sample_valid(500, 1, sizes, DeviceInfo{})) p9.insert(config.at("P9"));
  EXPECT_EQ(p9.size(), 4u);  // every value of the deepest parameter comes

  // With extremes: every parameter's first and last value that some valid config holds (P5=5 never is:
  // no power of two is a multiple of 5) among the drawn configs, all of them valid.
  const auto checked = space.sample_valid(4, 2, sizes, DeviceInfo{}, true);
  EXPECT_GE(checked.size(), 4u);
  for (const auto& parameter : space.parameters()) {
    std::set<ParamValue> possible, seen;
    for (const auto& config : sample) possible.insert(config.at(parameter.name));
    for (const auto& config : checked) seen.insert(config.at(parameter.name));
    EXPECT_TRUE(seen.count(*possible.begin()) && seen.count(*possible.rbegin())) << parameter.name;
  }
  for (const auto& config : checked) ASSERT_TRUE(space.check(config, sizes, DeviceInfo{}).valid);
}

// A space too large to enumerate candidate by candidate whose valid configs are fewer than a search's sample
// (the GEMM space at a large M: most tiles, splits and swaps are ruled out) starts from every valid config,
// walked with the conditions cutting dead branches, at once; drawing the sample's 50,000 distinct configs
// from about 10,000 had taken 14 to 22 s of every such tune on the H100 host.
TEST(LargeSpace, FewValidConfigsAreWalkedNotDrawn) {
  const auto space = SearchSpace::load("search_spaces/gemm_wgmma.json");
  ASSERT_GT(space.total_configs(), SearchSpace::kEnumerableCandidates);
  const DeviceInfo hopper = offline_device("sm_90");
  const Sizes sizes = space.resolve_problem("M=4096,N=14336,K=4096,B_KMAJOR=1");
  const std::uint64_t valid = space.count_valid(sizes, hopper);
  ASSERT_GT(valid, 0u);
  ASSERT_LE(valid, 50'000u);
  const auto start = std::chrono::steady_clock::now();
  const auto candidates = space.search_candidates(sizes, hopper, 12);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0) << "the walk took " << seconds << " s";
  EXPECT_EQ(candidates.size(), valid);
  EXPECT_EQ(std::set<Config>(candidates.begin(), candidates.end()).size(), candidates.size());
  for (const auto& config : candidates) ASSERT_TRUE(space.check(config, sizes, hopper).valid);
  EXPECT_EQ(space.search_candidates(sizes, hopper, 99), candidates);  // all of them, whatever the seed
}

// A drawn sample holds the space's Seeds valid for the problem, which a strategy opens with only if they
// are candidates: 50,000 of the GEMM space's 248,640 valid configs at 128 x 4096 x 4096 held a few of them at
// best, and on the H100 host the tunes there opened with whichever Seeds the draws happened to hold.
TEST(LargeSpace, DrawnCandidatesHoldTheValidSeeds) {
  const auto space = SearchSpace::load("search_spaces/gemm_wgmma.json");
  const DeviceInfo hopper = offline_device("sm_90");
  const Sizes sizes = space.resolve_problem("M=128,N=4096,K=4096,B_KMAJOR=1");
  ASSERT_GT(space.count_valid(sizes, hopper), 50'000u) << "the candidates must be drawn";
  const auto candidates = space.search_candidates(sizes, hopper, 12, 2000);
  const std::set<Config> pool(candidates.begin(), candidates.end());
  EXPECT_EQ(pool.size(), candidates.size());
  std::size_t valid_seeds = 0;
  for (const Config& seed : space.seeds()) {
    if (!space.check(seed, sizes, hopper).valid) {
      EXPECT_FALSE(pool.count(seed)) << canonical_json(seed);
      continue;
    }
    ++valid_seeds;
    EXPECT_TRUE(pool.count(seed)) << canonical_json(seed);
  }
  EXPECT_GE(valid_seeds, 4u);
  EXPECT_GE(candidates.size(), 2000u);
  EXPECT_LE(candidates.size(), 2000u + valid_seeds);
}

// A sample of a large part of the valid configs (50,000 of the GEMM space's 142,700 at 256 x 256 x 512, the
// torch-export tests' problem; 71,350 of them before PDL doubled it): drawn config by config until 50,000
// distinct ones came, the repeats made it 18 s of every such tune; positions drawn among the valid configs
// and picked in one walk take well under one.
TEST(LargeSpace, ASampleNearlyAsLargeAsTheValidConfigsIsPickedInOneWalk) {
  const auto space = SearchSpace::load("search_spaces/gemm_wgmma.json");
  const DeviceInfo hopper = offline_device("sm_90");
  const Sizes sizes = space.resolve_problem("M=256,N=256,K=512,B_KMAJOR=0,BIAS=0,ACT=0");
  const std::uint64_t valid = space.count_valid(sizes, hopper);
  ASSERT_GT(valid, 50'000u);
  ASSERT_LT(valid, 160'000u);
  const auto start = std::chrono::steady_clock::now();
  const auto candidates = space.search_candidates(sizes, hopper, 12);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0) << "sampling took " << seconds << " s";
  EXPECT_GE(candidates.size(), 50'000u);
  EXPECT_EQ(std::set<Config>(candidates.begin(), candidates.end()).size(), candidates.size());
  for (std::size_t i = 0; i < candidates.size(); i += 499)
    ASSERT_TRUE(space.check(candidates[i], sizes, hopper).valid) << i;
  EXPECT_EQ(space.search_candidates(sizes, hopper, 12), candidates);  // seeded
  EXPECT_NE(space.search_candidates(sizes, hopper, 13), candidates);
}

// The sample is uniform over the valid configs: drawing 4 of a small space's valid configs with 3,000 seeds,
// each valid config comes about 3,000 * 4 / valid times, and only valid ones come.
TEST(LargeSpace, SampledConfigsAreUniformOverTheValidOnes) {
  const auto space = SearchSpace::load("tests/data/t1/stencil.json");
  const Sizes sizes = space.resolve_problem("");
  DeviceInfo device;
  device.max_threads_per_block = 512;
  const auto all = space.enumerate(sizes, device);
  ASSERT_GE(all.size(), 20u);
  std::map<Config, double> times;
  for (const auto& config : all) times[config] = 0;
  const int seeds = 3000;
  for (int seed = 0; seed < seeds; ++seed) {
    const auto sample = space.sample_valid(4, static_cast<std::uint64_t>(seed), sizes, device);
    ASSERT_EQ(sample.size(), 4u);
    ASSERT_EQ(std::set<Config>(sample.begin(), sample.end()).size(), 4u);
    for (const auto& config : sample) {
      ASSERT_TRUE(times.count(config)) << canonical_json(config);
      times[config] += 1;
    }
  }
  const double expected = seeds * 4.0 / static_cast<double>(all.size());
  for (const auto& [config, count] : times)  // about 6 standard deviations of a binomial count
    EXPECT_NEAR(count, expected, 6 * std::sqrt(expected)) << canonical_json(config) << " of " << all.size();
}

// enumerate() of a space too large to test candidate by candidate walks it instead (the GEMM space's tests
// enumerated its 7.9 M candidates in 50-100 s each) and returns the same list: every valid config once, in
// the candidates' order (file order, the last parameter fastest).
TEST(LargeSpace, EnumerationOfALargeSpaceIsTheWalkInCandidateOrder) {
  const auto space = SearchSpace::load("search_spaces/gemm_wgmma.json");
  ASSERT_GT(space.total_configs(), SearchSpace::kEnumerableCandidates);
  const DeviceInfo hopper = offline_device("sm_90");
  const Sizes sizes = space.resolve_problem("M=128,N=4096,K=4096,B_KMAJOR=1");
  const auto start = std::chrono::steady_clock::now();
  const auto all = space.enumerate(sizes, hopper);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 20.0) << "enumerating took " << seconds << " s";
  EXPECT_EQ(all.size(), space.count_valid(sizes, hopper));
  const auto position = [&](const Config& config) {
    std::vector<std::size_t> digits;
    for (const auto& parameter : space.parameters()) {
      const auto& values = parameter.values;
      digits.push_back(static_cast<std::size_t>(
          std::find(values.begin(), values.end(), config.at(parameter.name)) - values.begin()));
    }
    return digits;
  };
  for (std::size_t i = 1; i < all.size(); ++i) ASSERT_LT(position(all[i - 1]), position(all[i])) << i;
  for (std::size_t i = 0; i < all.size(); i += 997)
    ASSERT_TRUE(space.check(all[i], sizes, hopper).valid) << i;
}

// The walk's count agrees with enumeration on small spaces, named expressions and device limits included.
TEST(LargeSpace, CountMatchesEnumeration) {
  for (const char* file :
       {"tests/data/spaces/saxpy.json", "tests/data/t1/transpose.json", "tests/data/t1/stencil.json"}) {
    const auto space = SearchSpace::load(file);
    const Sizes sizes = space.resolve_problem("");
    DeviceInfo device;
    device.max_threads_per_block = 512;
    const auto all = space.enumerate(sizes, device);
    EXPECT_EQ(space.count_valid(sizes, device), all.size()) << file;
    const auto drawn = space.sample_valid(all.size() + 10, 5, sizes, device);
    EXPECT_EQ(std::set<Config>(drawn.begin(), drawn.end()), std::set<Config>(all.begin(), all.end())) << file;
  }
}

}  // namespace large_space_test
}  // namespace evotune
