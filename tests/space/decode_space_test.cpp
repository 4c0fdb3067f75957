// The decode spaces' COMBINE: with splits, the block that arrives last weighs them in the kernel (one launch,
// a zeroed counter a row block of each KV head and sequence), only where there are splits to weigh, and the
// small problems it is for open with it among their first Seeds. Their PDL: the combine kernel launched as a
// programmatic dependent of the split kernel, only where there is a combine kernel, on sm_90 and later.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/known_devices.hpp"
#include "space/search_space.hpp"

namespace evotune {
namespace decode_space_test {

const char* const kDecodeSpaces[] = {"search_spaces/decode_attn.json", "search_spaces/decode_attn_bf16.json"};

Config decode_config(ParamValue splits, ParamValue combine, ParamValue pdl = 0) {
  return {{"BLOCK_N", 64},        {"WARPS", 4},         {"STAGES", 3},  {"M_TILES", 1},
          {"NUM_SPLITS", splits}, {"COMBINE", combine}, {"L2_256B", 1}, {"PDL", pdl}};
}

// MQA with 32 query heads a KV head: two 16-row blocks share each split, each with its own counter.
TEST(DecodeSpace, CombiningInTheKernelIsOneLaunchWithAZeroedCounterPerRowBlock) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : kDecodeSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const Sizes sizes = space.resolve_problem("B=3,HKV=2,G=32,SQ=1,SKV=3000,D=128");
    const Config config = decode_config(4, 1);
    ASSERT_TRUE(space.check(config, sizes, hopper).valid)
        << file << ": " << space.check(config, sizes, hopper).reason;
    const LaunchSpec launch = space.variant_launch(config, sizes, hopper);
    EXPECT_EQ(launch.kernel_name, "decode_attn_split_combine");
    EXPECT_TRUE(launch.then.empty()) << "no combine kernel";
    EXPECT_EQ(launch.grid, (std::array<std::uint32_t, 3>{2 * 4, 2, 3}));  // row blocks x splits, HKV, B
    EXPECT_EQ(launch.block, (std::array<std::uint32_t, 3>{128, 1, 1}));
    std::vector<std::string> names;
    for (const ArgSpec& arg : launch.args) names.push_back(arg.name);
    EXPECT_EQ(names,
              (std::vector<std::string>{"q", "k_cache", "v_cache", "cache_seqlens", "block_table", "O_part",
                                        "L_part", "arrivals", "o", "batch", "hkv", "skv", "scale"}));
    ASSERT_EQ(launch.scratch.size(), 3u);
    EXPECT_EQ(launch.scratch[0].name, "O_part");
    EXPECT_FALSE(launch.scratch[0].zeroed) << "every split writes its partials before it arrives";
    EXPECT_EQ(launch.scratch[0].count, 4 * 3 * 64 * 128);  // splits x B * HQ * SQ rows x D
    EXPECT_EQ(launch.scratch[1].count, 4 * 3 * 64);
    EXPECT_EQ(launch.scratch[2].name, "arrivals");
    EXPECT_TRUE(launch.scratch[2].zeroed);
    EXPECT_EQ(launch.scratch[2].dtype, DType::i32);
    EXPECT_EQ(launch.scratch[2].count, 3 * 2 * 2);  // B x HKV x row blocks

    // COMBINE 0 keeps the two kernels and never sees the counters.
    const LaunchSpec two = space.variant_launch(decode_config(4, 0), sizes, hopper);
    EXPECT_EQ(two.kernel_name, "decode_attn_split");
    ASSERT_EQ(two.then.size(), 1u);
    EXPECT_EQ(two.then[0].kernel_name, "decode_attn_combine");
    EXPECT_FALSE(two.then[0].programmatic) << "PDL 0";
    ASSERT_EQ(two.scratch.size(), 2u);
    EXPECT_EQ(two.scratch[1].name, "L_part");
  }
}

TEST(DecodeSpace, CombiningInTheKernelNeedsSplits) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : kDecodeSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const Sizes sizes = space.resolve_problem("B=1,HKV=8,G=4,SQ=1,SKV=4096,D=128");
    const auto one = space.check(decode_config(1, 1), sizes, hopper);
    EXPECT_FALSE(one.valid) << file;
    EXPECT_NE(one.reason.find("COMBINE 1 weighs the splits in the last split's block"), std::string::npos)
        << one.reason;
    EXPECT_TRUE(space.check(decode_config(1, 0), sizes, hopper).valid) << file;
    EXPECT_TRUE(space.check(decode_config(2, 1), sizes, hopper).valid) << file;
  }
}

// The condition removes only COMBINE 1 without splits: each valid config with splits has its valid twin of
// the other COMBINE, at a small problem (many split counts) and a large one (few).
TEST(DecodeSpace, EverySplitConfigHasBothCombines) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : kDecodeSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    for (const char* problem : {"B=1,HKV=8,G=4,SQ=1,SKV=4096,D=128", "B=8,HKV=8,G=4,SQ=1,SKV=32768,D=128"}) {
      const Sizes sizes = space.resolve_problem(problem);
      const auto configs = space.enumerate(sizes, hopper);
      std::size_t one_split = 0, combine0 = 0, combine1 = 0;
      for (const Config& config : configs) {
        if (config.at("PDL") == 1) continue;  // PDL 1 is COMBINE 0's twin (below)
        if (config.at("NUM_SPLITS") == 1) {
          ++one_split;
          EXPECT_EQ(config.at("COMBINE"), 0) << problem;
          continue;
        }
        (config.at("COMBINE") == 0 ? combine0 : combine1) += 1;
        Config twin = config;
        twin["COMBINE"] = 1 - config.at("COMBINE");
        EXPECT_NE(std::find(configs.begin(), configs.end(), twin), configs.end()) << file << " " << problem;
      }
      EXPECT_GT(one_split, 0u) << problem;
      EXPECT_GT(combine1, 0u) << problem;
      EXPECT_EQ(combine0, combine1) << problem;
      EXPECT_EQ(configs.size(), one_split + 3 * combine1)
          << problem << ": and a PDL 1 twin of each COMBINE 0";
    }
  }
}

// B = 1 with 4k keys (8 MB of K/V, a few microseconds, where the second launch weighs most): among the first
// 8 valid Seeds (the most that evolve's first generation of 16 takes) are three split counts with COMBINE 1.
TEST(DecodeSpace, SmallProblemsOpenWithSeedsThatCombineInTheKernel) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : kDecodeSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const Sizes sizes = space.resolve_problem("B=1,HKV=8,G=4,SQ=1,SKV=4096,D=128");
    std::vector<ParamValue> splits_combined;
    std::size_t valid = 0;
    for (const Config& seed : space.seeds()) {
      if (!space.check(seed, sizes, hopper).valid) continue;
      if (++valid > 8) break;
      if (seed.at("COMBINE") == 1) splits_combined.push_back(seed.at("NUM_SPLITS"));
    }
    EXPECT_EQ(splits_combined, (std::vector<ParamValue>{16, 32, 8})) << file;
  }
}

// PDL 1 keeps PDL 0's two launches, geometry and arguments, with the combine (and only it) programmatic.
TEST(DecodeSpace, PdlLaunchesTheCombineProgrammatically) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : kDecodeSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const Sizes sizes = space.resolve_problem("B=1,HKV=8,G=4,SQ=1,SKV=4096,D=128");
    const Config config = decode_config(16, 0, 1);
    ASSERT_TRUE(space.check(config, sizes, hopper).valid)
        << file << ": " << space.check(config, sizes, hopper).reason;
    const LaunchSpec pdl = space.variant_launch(config, sizes, hopper);
    const LaunchSpec plain = space.variant_launch(decode_config(16, 0, 0), sizes, hopper);
    EXPECT_EQ(pdl.kernel_name, "decode_attn_split");
    EXPECT_FALSE(pdl.programmatic) << "the first launch never is";
    ASSERT_EQ(pdl.then.size(), 1u);
    ASSERT_EQ(plain.then.size(), 1u);
    EXPECT_TRUE(pdl.then[0].programmatic);
    EXPECT_FALSE(plain.then[0].programmatic);
    EXPECT_EQ(pdl.then[0].kernel_name, "decode_attn_combine");
    EXPECT_EQ(pdl.then[0].grid, plain.then[0].grid);
    EXPECT_EQ(pdl.then[0].block, plain.then[0].block);
    EXPECT_EQ(pdl.then[0].args.size(), plain.then[0].args.size());
    EXPECT_EQ(pdl.grid, plain.grid);
    EXPECT_EQ(pdl.scratch.size(), plain.scratch.size());
    EXPECT_EQ(space.compile_time_constants(config, sizes).at("PDL"), 1) << "the kernel sees PDL";
  }
}

// PDL 1 only with a combine kernel to launch (splits, COMBINE 0), and only where griddepcontrol exists.
TEST(DecodeSpace, PdlNeedsACombineKernelAndSm90) {
  const DeviceInfo hopper = offline_device("sm_90");
  const DeviceInfo ampere = offline_device("sm_80");
  for (const char* file : kDecodeSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const Sizes sizes = space.resolve_problem("B=1,HKV=8,G=4,SQ=1,SKV=4096,D=128");
    for (const Config& config : {decode_config(1, 0, 1), decode_config(16, 1, 1)}) {
      const auto check = space.check(config, sizes, hopper);
      EXPECT_FALSE(check.valid) << file;
      EXPECT_EQ(check.condition, "pdl_needs_combine_kernel") << check.reason;
      EXPECT_NE(check.reason.find("PDL 1 changes only how the combine kernel is launched"), std::string::npos)
          << check.reason;
    }
    const auto old_device = space.check(decode_config(16, 0, 1), sizes, ampere);
    EXPECT_FALSE(old_device.valid) << file;
    EXPECT_EQ(old_device.condition, "pdl_needs_sm90") << old_device.reason;
    EXPECT_TRUE(space.check(decode_config(16, 0, 0), sizes, ampere).valid) << file;
  }
}

// The Seeds after the others: the small problem's split counts with a combine kernel, launched with PDL 1.
TEST(DecodeSpace, TheLastSeedsLaunchTheCombineProgrammatically) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : kDecodeSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const Sizes sizes = space.resolve_problem("B=1,HKV=8,G=4,SQ=1,SKV=4096,D=128");
    const auto& seeds = space.seeds();
    ASSERT_GE(seeds.size(), 3u);
    std::vector<ParamValue> pdl_splits;
    for (std::size_t i = 0; i < seeds.size(); ++i) {
      if (seeds[i].at("PDL") == 0) {
        EXPECT_TRUE(pdl_splits.empty()) << file << ": Seed " << i << " with PDL 0 after one with PDL 1";
        continue;
      }
      EXPECT_TRUE(space.check(seeds[i], sizes, hopper).valid) << file << ": Seed " << i;
      EXPECT_EQ(seeds[i].at("COMBINE"), 0);
      pdl_splits.push_back(seeds[i].at("NUM_SPLITS"));
    }
    EXPECT_EQ(pdl_splits, (std::vector<ParamValue>{16, 8})) << file;
  }
}

}  // namespace decode_space_test
}  // namespace evotune
