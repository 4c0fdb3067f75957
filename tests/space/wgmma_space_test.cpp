// The wgmma attention space on offline device limits: how many configs each compile-time shape allows on
// sm_90 (the counts `evotune check` compiles, every one with no spill), per mode of the two step-2 flags and
// of pingpong, FlashAttention-3's tile shapes among them, the interleaved heads of the longest-first causal
// grids, and no config elsewhere.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "space/search_space.hpp"

namespace evotune {
namespace wgmma_space_test {

const char* const kWgmmaSpace = "search_spaces/flash_attn_fwd_wgmma.json";

// The configs with one Q tile (Q_BUFFERS 1), as every config was before the second (QBuffersTwinThePersistent
// Configs counts the others, each the twin of one of these).
std::vector<Config> one_q_tile(std::vector<Config> configs) {
  configs.erase(
      std::remove_if(configs.begin(), configs.end(), [](const Config& c) { return c.at("Q_BUFFERS") != 1; }),
      configs.end());
  return configs;
}
// Those in the grid's own block order (HEAD_INTERLEAVE 1), as every config was before the interleave
// (HeadInterleaveTwinsTheLongestFirstGrids counts the others, each the twin of one of these).
std::vector<Config> own_order(std::vector<Config> configs) {
  configs = one_q_tile(std::move(configs));
  configs.erase(std::remove_if(configs.begin(), configs.end(),
                               [](const Config& c) { return c.at("HEAD_INTERLEAVE") != 1; }),
                configs.end());
  return configs;
}

// Valid configs of `problem` on sm_90, in the grid's own order, that `keep` accepts.
template <typename Keep>
size_t count_if(const SearchSpace& space, const char* problem, Keep keep) {
  const auto configs = own_order(space.enumerate(space.resolve_problem(problem), offline_device("sm_90")));
  return static_cast<size_t>(std::count_if(configs.begin(), configs.end(), keep));
}

// The third step's parameters (TMA_STORE, PERSISTENT, REG_SPLIT, LONGEST_FIRST, CLUSTER) and the later
// LAZY_RESCALE, KV_SPLIT and ROW_SUM_MMA at their first values and STAGES <= 3: the configs before them.
bool before_step_3(const Config& config) {
  return config.at("STAGES") <= 3 && config.at("TMA_STORE") == 0 && config.at("PERSISTENT") == 0 &&
         config.at("REG_SPLIT") == 0 && config.at("LONGEST_FIRST") == 0 && config.at("CLUSTER") == 1 &&
         config.at("LAZY_RESCALE") == 0 && config.at("KV_SPLIT") == 0 && config.at("ROW_SUM_MMA") == 0;
}

bool without_kv_split(const Config& config) { return config.at("KV_SPLIT") == 0; }

// Valid configs of `problem` on sm_90 with the given INTRA_WG_OVERLAP, WARP_SPECIALIZE, PINGPONG, TMA_LOADS,
// before the third step's parameters.
size_t count_mode(const SearchSpace& space, const char* problem, int overlap, int specialize,
                  int pingpong = 0, int tma = 0) {
  return count_if(space, problem, [&](const Config& config) {
    return before_step_3(config) && config.at("INTRA_WG_OVERLAP") == overlap &&
           config.at("WARP_SPECIALIZE") == specialize && config.at("PINGPONG") == pingpong &&
           config.at("TMA_LOADS") == tma;
  });
}

TEST(WgmmaSpace, ValidCountsOnHopper) {
  const SearchSpace space = SearchSpace::load(kWgmmaSpace);
  const DeviceInfo hopper = offline_device("sm_90");
  EXPECT_EQ(space.arch_suffix(), "a");
  EXPECT_EQ(space.total_configs(), 36864u * 4 * 2 * 2 * 2 * 2);
  // LONGEST_FIRST doubles the causal problems' configs only; LAZY_RESCALE (no condition names it) every
  // problem's; ROW_SUM_MMA every problem's too (its 256 bytes a consumer warpgroup of ones push no config
  // past the shared memory at these problems); KV_SPLIT 1 (below) adds the configs loading with TMA on the
  // overlapped path, one block a tile.
  EXPECT_EQ(count_if(space, "D=64", without_kv_split), 1576u * 2 * 2);
  EXPECT_EQ(count_if(space, "D=64,CAUSAL=1", without_kv_split), 3152u * 2 * 2);
  EXPECT_EQ(count_if(space, "D=128", without_kv_split), 979u * 2 * 2);
  EXPECT_EQ(count_if(space, "D=128,CAUSAL=1", without_kv_split), 1958u * 2 * 2);
  for (const char* problem : {"D=64", "D=64,CAUSAL=1", "D=128", "D=128,CAUSAL=1"})
    EXPECT_EQ(count_if(space, problem, [](const Config& c) { return c.at("KV_SPLIT") == 1; }),
              count_if(space, problem,
                       [](const Config& c) {
                         return c.at("KV_SPLIT") == 0 && c.at("TMA_LOADS") == 1 &&
                                c.at("INTRA_WG_OVERLAP") == 1 && c.at("CLUSTER") == 1;
                       }))
        << problem;
  for (const char* problem : {"D=64", "D=128,CAUSAL=1"}) {
    EXPECT_EQ(count_if(space, problem, [](const Config& c) { return c.at("LAZY_RESCALE") == 1; }),
              count_if(space, problem, [](const Config& c) { return c.at("LAZY_RESCALE") == 0; }))
        << problem;
    EXPECT_EQ(count_if(space, problem, [](const Config& c) { return c.at("ROW_SUM_MMA") == 1; }),
              count_if(space, problem, [](const Config& c) { return c.at("ROW_SUM_MMA") == 0; }))
        << problem;
  }
  // CLUSTER 2: every config loading with TMA and not persistent once more.
  auto configs = own_order(space.enumerate(space.resolve_problem("D=64"), hopper));
  configs.erase(
      std::remove_if(configs.begin(), configs.end(), [](const Config& c) { return !without_kv_split(c); }),
      configs.end());
  const auto count = [&](auto keep) { return std::count_if(configs.begin(), configs.end(), keep); };
  EXPECT_EQ(count([](const Config& c) { return c.at("CLUSTER") == 2; }), count([](const Config& c) {
              return c.at("CLUSTER") == 1 && c.at("TMA_LOADS") && !c.at("PERSISTENT");
            }));
  // Before the third step's parameters (STAGES 4, TMA_STORE, PERSISTENT, REG_SPLIT): as then.
  EXPECT_EQ(count_if(space, "D=64", before_step_3), 185u);
  EXPECT_EQ(count_if(space, "D=128", before_step_3), 141u);
}

// The third step: every TMA-loading config once more with TMA_STORE; persistent where the work-tile loop's
// registers fit too; REG_SPLIT only where setmaxnreg runs, losing the configs whose accumulators then no
// longer fit; STAGES 4 where shared memory allows.
TEST(WgmmaSpace, ThirdStepParameters) {
  const SearchSpace space = SearchSpace::load(kWgmmaSpace);
  for (const char* problem : {"D=64", "D=128"}) {
    auto count = [&](int tma_loads, int tma_store, int persistent) {
      return count_if(space, problem, [&](const Config& config) {
        return config.at("TMA_LOADS") == tma_loads && config.at("TMA_STORE") == tma_store &&
               config.at("PERSISTENT") == persistent;
      });
    };
    EXPECT_GT(count(1, 0, 0), 0u) << problem;
    EXPECT_EQ(count(1, 1, 0), count(1, 0, 0)) << problem;
    EXPECT_LT(count(1, 0, 1), count(1, 0, 0)) << problem;
    EXPECT_GT(count(1, 0, 1), 0u) << problem;
    EXPECT_LE(count(1, 1, 1), count(1, 0, 1)) << problem;  // D = 128: the TMA store's registers besides
    EXPECT_EQ(count(0, 1, 0) + count(0, 0, 1) + count(0, 1, 1), 0u) << problem;
    EXPECT_EQ(count_if(space, problem,
                       [](const Config& config) {
                         return config.at("REG_SPLIT") > 0 &&
                                (!config.at("WARP_SPECIALIZE") || config.at("CONSUMER_WARPGROUPS") == 1);
                       }),
              0u)
        << problem;
  }
  auto split = [&](const char* problem, int warpgroups, int reg_split) {
    return count_if(space, problem, [&](const Config& config) {
      return config.at("WARP_SPECIALIZE") == 1 && config.at("CONSUMER_WARPGROUPS") == warpgroups &&
             config.at("REG_SPLIT") == reg_split;
    });
  };
  // D = 64, 2 consumer warpgroups: 224 registers still hold the widest tile but for the persistent loop's.
  auto split_not_persistent = [&](const char* problem, int warpgroups, int reg_split) {
    return count_if(space, problem, [&](const Config& config) {
      return config.at("WARP_SPECIALIZE") == 1 && config.at("CONSUMER_WARPGROUPS") == warpgroups &&
             config.at("REG_SPLIT") == reg_split && config.at("PERSISTENT") == 0;
    });
  };
  EXPECT_EQ(split_not_persistent("D=64", 2, 1), split_not_persistent("D=64", 2, 0));
  EXPECT_EQ(split_not_persistent("D=64", 2, 2), split_not_persistent("D=64", 2, 0));
  EXPECT_LT(split("D=64", 2, 2), split("D=64", 2, 0));
  // D = 128, 3 consumer warpgroups: 144 registers lose BLOCK_N 96 (without the overlap, 48 + 64 + 40 > 144).
  EXPECT_LT(split("D=128", 3, 2), split("D=128", 3, 0));
  EXPECT_GT(split("D=128", 3, 2), 0u);
  // Four stages: D = 64 up to BLOCK_N 176 with 64 rows (2 * 64 * (64 + 8 * 176) bytes), D = 128 not past
  // BLOCK_N 96.
  auto four_stages = [&](const char* problem, int block_n) {
    return count_if(space, problem, [&](const Config& config) {
      return config.at("STAGES") == 4 && config.at("BLOCK_N") == block_n;
    });
  };
  EXPECT_GT(four_stages("D=64", 176), 0u);
  EXPECT_GT(four_stages("D=128", 96), 0u);
  EXPECT_EQ(four_stages("D=128", 128), 0u);
}

TEST(WgmmaSpace, ValidCountsPerMode) {
  const SearchSpace space = SearchSpace::load(kWgmmaSpace);
  // Both flags 0, the first step's path: as before them. D = 64: all 36 (3 warpgroups x 4 tile widths x 3
  // stage counts). D = 128: BLOCK_N 176 with 3 stages and 3 warpgroups with 3 stages overrun shared memory;
  // 3 warpgroups (168 registers each) cannot hold BLOCK_N >= 128 with D = 128 accumulators.
  EXPECT_EQ(count_mode(space, "D=64", 0, 0), 36u);
  EXPECT_EQ(count_mode(space, "D=128", 0, 0), 28u);
  // Producer warpgroup: D = 64 loses BLOCK_N 176 with 3 consumer warpgroups (160 registers after setmaxnreg).
  EXPECT_EQ(count_mode(space, "D=64", 0, 1), 33u);
  EXPECT_EQ(count_mode(space, "D=128", 0, 1), 28u);
  // Overlap without a producer needs 3 stages: 12 at most; D = 64 loses 3 warpgroups with BLOCK_N 176.
  EXPECT_EQ(count_mode(space, "D=64", 1, 0), 11u);
  EXPECT_EQ(count_mode(space, "D=128", 1, 0), 7u);
  // Both: 2 or 3 stages.
  EXPECT_EQ(count_mode(space, "D=64", 1, 1), 22u);
  EXPECT_EQ(count_mode(space, "D=128", 1, 1), 16u);
  // Pingpong: both flags with 2 or 3 consumer warpgroups (the configs of both less those with one).
  EXPECT_EQ(count_mode(space, "D=64", 1, 1, 1), 14u);
  EXPECT_EQ(count_mode(space, "D=128", 1, 1, 1), 9u);
  for (int overlap = 0; overlap <= 1; ++overlap)
    for (int specialize = 0; specialize <= 1; ++specialize)
      if (!overlap || !specialize) {
        EXPECT_EQ(count_mode(space, "D=64", overlap, specialize, 1), 0u);
      }
  // TMA loads: every config with a producer, once more.
  for (int overlap = 0; overlap <= 1; ++overlap)
    for (int pingpong = 0; pingpong <= 1; ++pingpong) {
      EXPECT_EQ(count_mode(space, "D=64", overlap, 1, pingpong, 1),
                count_mode(space, "D=64", overlap, 1, pingpong));
      EXPECT_EQ(count_mode(space, "D=128", overlap, 1, pingpong, 1),
                count_mode(space, "D=128", overlap, 1, pingpong));
      EXPECT_EQ(count_mode(space, "D=64", overlap, 0, pingpong, 1), 0u);
    }
}

TEST(WgmmaSpace, FlashAttention3TilesAreValid) {
  const SearchSpace space = SearchSpace::load(kWgmmaSpace);
  const DeviceInfo hopper = offline_device("sm_90");
  auto valid = [&](const char* problem, int warpgroups, int block_n, int stages, int overlap, int specialize,
                   int pingpong = 0) {
    const Config config{{"CONSUMER_WARPGROUPS", warpgroups},
                        {"BLOCK_N", block_n},
                        {"STAGES", stages},
                        {"INTRA_WG_OVERLAP", overlap},
                        {"WARP_SPECIALIZE", specialize},
                        {"PINGPONG", pingpong},
                        {"TMA_LOADS", 0},
                        {"TMA_STORE", 0},
                        {"PERSISTENT", 0},
                        {"REG_SPLIT", 0},
                        {"LONGEST_FIRST", 0},
                        {"CLUSTER", 1},
                        {"HEAD_INTERLEAVE", 1},
                        {"Q_BUFFERS", 1},
                        {"LAZY_RESCALE", 0},
                        {"KV_SPLIT", 0},
                        {"ROW_SUM_MMA", 0}};
    const auto configs = space.enumerate(space.resolve_problem(problem), hopper);
    return std::find(configs.begin(), configs.end(), config) != configs.end();
  };
  // D = 64: BLOCK_M 192, BLOCK_N 128; D = 128: BLOCK_M 128 with BLOCK_N 128, or 176 with 2 stages; with and
  // without FlashAttention-3's producer warpgroup and overlap.
  for (int flags = 0; flags <= 1; ++flags) {
    EXPECT_TRUE(valid("D=64", 3, 128, 2, flags, flags)) << flags;
    EXPECT_TRUE(valid("D=128", 2, 128, 2, flags, flags)) << flags;
    EXPECT_TRUE(valid("D=128", 2, 176, 2, flags, flags)) << flags;
    EXPECT_FALSE(valid("D=128", 2, 176, 3, flags, flags)) << flags;
  }
  // The same tiles with FlashAttention-3's pingpong (both flags).
  EXPECT_TRUE(valid("D=64", 3, 128, 2, 1, 1, 1));
  EXPECT_TRUE(valid("D=128", 2, 128, 2, 1, 1, 1));
  EXPECT_TRUE(valid("D=128", 2, 176, 2, 1, 1, 1));
  EXPECT_FALSE(valid("D=64", 1, 64, 2, 1, 1, 1));  // one consumer warpgroup has nobody to take turns with
  // Rules of the flags: the overlap deadlocks with one stage and a producer, and needs 3 stages without one.
  EXPECT_FALSE(valid("D=64", 1, 64, 1, 1, 1));
  EXPECT_TRUE(valid("D=64", 1, 64, 2, 1, 1));
  EXPECT_FALSE(valid("D=64", 1, 64, 2, 1, 0));
  EXPECT_TRUE(valid("D=64", 1, 64, 3, 1, 0));
}

// HEAD_INTERLEAVE reorders the longest-first grid of a causal problem (LONGEST_FIRST, one work tile a block,
// no cluster): each such config comes with 4, 8 and 16 heads interleaved; every other config, and every
// config of a problem without the mask, keeps the grid's own order only. Two interleaved Seeds open.
TEST(WgmmaSpace, HeadInterleaveTwinsTheLongestFirstGrids) {
  for (const char* file : {kWgmmaSpace, "search_spaces/flash_attn_fwd_wgmma_bf16.json"}) {
    const SearchSpace space = SearchSpace::load(file);
    const DeviceInfo hopper = offline_device("sm_90");
    for (const char* problem : {"D=64", "D=128"}) {
      const auto every = one_q_tile(space.enumerate(space.resolve_problem(problem), hopper));
      EXPECT_EQ(every.size(), own_order(every).size()) << file << " " << problem;
    }
    for (const char* problem : {"D=64,CAUSAL=1", "D=128,CAUSAL=1"}) {
      const auto every = one_q_tile(space.enumerate(space.resolve_problem(problem), hopper));
      const auto own = own_order(every);
      const auto reorderable = static_cast<size_t>(std::count_if(own.begin(), own.end(), [](const Config& c) {
        return c.at("LONGEST_FIRST") && !c.at("PERSISTENT") && c.at("CLUSTER") == 1;
      }));
      EXPECT_GT(reorderable, 0u) << problem;
      EXPECT_EQ(every.size(), own.size() + 3 * reorderable) << file << " " << problem;
      for (const Config& c : every) {
        if (c.at("HEAD_INTERLEAVE") == 1) continue;
        Config twin = c;
        twin["HEAD_INTERLEAVE"] = 1;
        EXPECT_NE(std::find(own.begin(), own.end(), twin), own.end()) << problem;
        EXPECT_TRUE(c.at("LONGEST_FIRST") && !c.at("PERSISTENT") && c.at("CLUSTER") == 1) << problem;
      }
    }
    const auto& seeds = space.seeds();
    ASSERT_GE(seeds.size(), 2u);
    EXPECT_EQ(seeds[0].at("HEAD_INTERLEAVE"), 4) << file;
    EXPECT_EQ(seeds[1].at("HEAD_INTERLEAVE"), 8) << file;
  }
}

// Q_BUFFERS 2 (a second Q tile, so that a persistent block's next work tile's Q lands while this one runs)
// is the twin of every persistent config whose shared memory holds one more BLOCK_M x D tile, and of no
// other. The Seeds that take it are persistent: two for the space's default problem (2 consumer warpgroups,
// 128-key tiles, pingpong; 3 stages fit at D = 64, 2 at D = 128), and those found at the short shapes, each
// naming its problem, valid there (the grouped 512-key prefills' 64-key tiles with 4 stages, longest first
// with the causal mask; 4,32,1024,64's and 32,16,512,64's cooperative 128-key tiles with 3 stages), and
// the KV_SPLIT seeds' 128-key tiles with 2 stages (one for every problem, one for each grouped 512-key
// prefill); in the fp16 space 32,16,512,64's seed has its ROW_SUM_MMA 1 twin beside it.
TEST(WgmmaSpace, QBuffersTwinThePersistentConfigs) {
  for (const char* file : {kWgmmaSpace, "search_spaces/flash_attn_fwd_wgmma_bf16.json"}) {
    const SearchSpace space = SearchSpace::load(file);
    const DeviceInfo hopper = offline_device("sm_90");
    for (const char* problem : {"D=64", "D=64,CAUSAL=1", "D=128", "D=128,CAUSAL=1"}) {
      const Sizes sizes = space.resolve_problem(problem);
      const auto every = space.enumerate(sizes, hopper);
      const auto one = one_q_tile(every);
      size_t fitting = 0;
      for (const Config& c : one) {
        if (!c.at("PERSISTENT")) continue;
        const int d = sizes.at("D");
        const int block_m = 64 * c.at("CONSUMER_WARPGROUPS");
        const int smem = 2 * d * (2 * block_m + 2 * c.at("STAGES") * c.at("BLOCK_N")) + 128 + 1024;
        if (smem <= 232448) ++fitting;
      }
      EXPECT_GT(fitting, 0u) << problem;
      EXPECT_EQ(every.size(), one.size() + fitting) << file << " " << problem;
      for (const Config& c : every) {
        if (c.at("Q_BUFFERS") == 1) continue;
        EXPECT_EQ(c.at("PERSISTENT"), 1) << problem;
        Config twin = c;
        twin["Q_BUFFERS"] = 1;
        EXPECT_NE(std::find(one.begin(), one.end(), twin), one.end()) << problem;
      }
    }
    const auto& seeds = space.seeds();
    std::vector<Config> two_q_tiles;
    for (const Config& seed : seeds)
      if (seed.at("Q_BUFFERS") == 2) two_q_tiles.push_back(seed);
    // The fp16 space one more: 32,16,512,64's with ROW_SUM_MMA 1 beside it.
    ASSERT_EQ(two_q_tiles.size(), std::string(file) == kWgmmaSpace ? 11u : 10u) << file;
    for (const Config& seed : two_q_tiles) EXPECT_EQ(seed.at("PERSISTENT"), 1) << file;
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(two_q_tiles[i].at("BLOCK_N"), 128) << file;
      EXPECT_EQ(two_q_tiles[i].at("PINGPONG"), 1) << file;
    }
    // Each short shape's search opens with its own seed, valid there.
    const auto opens_with = [&](const char* problem, int block_n, int stages, int pingpong,
                                int longest_first) {
      const Sizes sizes = space.resolve_problem(problem);
      const Config first = space.seeds_for(sizes).front();
      const auto valid = space.enumerate(sizes, hopper);
      return first.at("Q_BUFFERS") == 2 && first.at("BLOCK_N") == block_n && first.at("STAGES") == stages &&
             first.at("PINGPONG") == pingpong && first.at("LONGEST_FIRST") == longest_first &&
             std::find(valid.begin(), valid.end(), first) != valid.end();
    };
    EXPECT_TRUE(opens_with("B=8,H=32,HKV=8,S=512,D=128,CAUSAL=1", 64, 4, 1, 1)) << file;
    EXPECT_TRUE(opens_with("B=8,H=32,HKV=8,S=512,D=128", 64, 4, 1, 0)) << file;
    EXPECT_TRUE(opens_with("B=4,H=32,S=1024,D=64", 128, 3, 0, 0)) << file;
    EXPECT_TRUE(opens_with("B=32,H=16,S=512,D=64", 128, 3, 0, 0)) << file;
    // The grouped prefills' first two seeds hold a KV_SPLIT one (128-key tiles, 2 stages), valid there.
    for (const char* problem : {"B=8,H=32,HKV=8,S=512,D=128", "B=8,H=32,HKV=8,S=512,D=128,CAUSAL=1",
                                "B=8,H=64,HKV=8,S=512,D=128"}) {
      const Sizes sizes = space.resolve_problem(problem);
      const auto opening = space.seeds_for(sizes);
      const auto split = std::find_if(opening.begin(), opening.begin() + 2,
                                      [](const Config& c) { return c.at("KV_SPLIT") == 1; });
      ASSERT_NE(split, opening.begin() + 2) << file << " " << problem;
      EXPECT_EQ(split->at("BLOCK_N"), 128) << problem;
      EXPECT_EQ(split->at("STAGES"), 2) << problem;
      EXPECT_TRUE(space.check(*split, sizes, hopper).valid) << file << " " << problem;
    }
    // The long shapes open with the anchors found there (each Seed naming its problem), not with the short
    // shapes' persistent tiles.
    for (const char* problem :
         {"B=8,H=16,S=4096,D=64", "B=4,H=16,S=4096,D=128", "B=2,H=16,S=8192,D=128,CAUSAL=1"}) {
      const auto opening = space.seeds_for(space.resolve_problem(problem));
      for (size_t i = 0; i < 2; ++i) EXPECT_EQ(opening[i].at("PERSISTENT"), 0) << file << " " << problem;
      EXPECT_EQ(opening[0].at("BLOCK_N") == 64, false) << file << " " << problem;
    }
  }
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

// Grouped heads (HKV) and a key length (SKV) of their own default to H and S: a problem that names neither
// means what it meant before they were declared (sizes, work, extra problems).
TEST(WgmmaSpace, GroupedHeadsAndKeyLengthDefaultToQueries) {
  for (const char* file : {kWgmmaSpace, "search_spaces/flash_attn_fwd_wgmma_bf16.json"}) {
    const SearchSpace space = SearchSpace::load(file);
    const Sizes sizes = space.resolve_problem("B=2,H=16,S=1000,D=128,CAUSAL=1");
    EXPECT_EQ(sizes.at("HKV"), 16);
    EXPECT_EQ(sizes.at("SKV"), 1000);
    EXPECT_DOUBLE_EQ(space.flops(sizes), 4.0 * 2 * 16 * 1000 * 1000 * 128 / 2);
    EXPECT_DOUBLE_EQ(space.bytes(sizes), 2.0 * 4 * 2 * 16 * 1000 * 128 + 4.0 * 2 * 16 * 1000);
    for (const BufferSpec& buffer : space.buffers(sizes))
      EXPECT_EQ(buffer.count, 2 * 16 * 1000 * (buffer.name == "LSE" ? 1 : 128)) << buffer.name;
    const auto extra = space.extra_problems(sizes);
    ASSERT_EQ(extra.size(), 2u);
    EXPECT_EQ(extra[0].at("S"), 1001);  // one past the tiles, as before
    EXPECT_EQ(extra[0].at("SKV"), 1001);
    EXPECT_EQ(extra[1].at("SKV"), 1067);  // fewer queries than keys
    EXPECT_EQ(space.complete_problem({{"B", 2}, {"H", 16}, {"S", 1000}, {"D", 128}, {"CAUSAL", 1}}), sizes);

    const Sizes grouped = space.resolve_problem("B=2,H=32,HKV=8,S=512,SKV=4096,D=128,CAUSAL=1");
    for (const BufferSpec& buffer : space.buffers(grouped)) {
      const std::int64_t rows = buffer.name == "K" || buffer.name == "V" ? 2 * 8 * 4096 : 2 * 32 * 512;
      EXPECT_EQ(buffer.count, rows * (buffer.name == "LSE" ? 1 : 128)) << buffer.name;
    }
    // Causal, bottom-right: the 512 queries see 4096 - 512 keys each, then a triangle.
    EXPECT_DOUBLE_EQ(space.flops(grouped), 4.0 * 2 * 32 * 128 * (512.0 * 4096 - 512.0 * 512 / 2));
    EXPECT_GT(
        count_if(space, "B=2,H=32,HKV=8,S=512,SKV=4096,D=128,CAUSAL=1", [](const Config&) { return true; }),
        0u);
  }
}

// Every config writes the rows' log-sum-exps: LSE, fp32 [B, H, S], an output compared with the reference's,
// passed right after O (pointer or tensor map) by every launch and to the reference, whose arguments the
// backward space's reference also follows.
TEST(WgmmaSpace, EveryConfigWritesLse) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : {kWgmmaSpace, "search_spaces/flash_attn_fwd_wgmma_bf16.json"}) {
    const SearchSpace space = SearchSpace::load(file);
    for (const char* problem : {"B=2,H=8,HKV=2,S=300,SKV=77,D=64,CAUSAL=1", "B=1,H=4,S=513,D=128,CAUSAL=0"}) {
      const Sizes sizes = space.resolve_problem(problem);
      std::vector<std::string> outputs;
      for (const BufferSpec& buffer : space.buffers(sizes)) {
        if (!buffer.is_output) continue;
        outputs.push_back(buffer.name);
        if (buffer.name != "LSE") continue;
        EXPECT_EQ(buffer.dtype, DType::f32);
        EXPECT_FALSE(buffer.is_input);
        EXPECT_EQ(buffer.count, sizes.at("B") * sizes.at("H") * sizes.at("S"));
      }
      EXPECT_EQ(outputs, (std::vector<std::string>{"O", "LSE"}));
      const auto names = [](const LaunchSpec& launch) {
        std::vector<std::string> list;
        for (const ArgSpec& arg : launch.args) list.push_back(arg.name);
        return list;
      };
      const std::vector<std::string> sizes_and_scale{"B", "H", "HKV", "S", "SKV", "scale"};
      std::vector<std::string> expected{"Q", "K", "V", "O", "LSE"};
      expected.insert(expected.end(), sizes_and_scale.begin(), sizes_and_scale.end());
      EXPECT_EQ(names(space.reference_launch(sizes, hopper)), expected);
      for (const Config& config : space.enumerate(sizes, hopper)) {
        const std::vector<std::string> args = names(space.variant_launch(config, sizes, hopper));
        ASSERT_EQ(args.size(), 11u);
        EXPECT_EQ(args[3], config.at("TMA_STORE") ? "O_map" : "O");
        EXPECT_EQ(args[4], "LSE") << canonical_json(config);
        EXPECT_EQ(std::vector<std::string>(args.begin() + 5, args.end()), sizes_and_scale);
      }
    }
  }
}

TEST(WgmmaSpace, QueryHeadsAreAMultipleOfKvHeads) {
  const SearchSpace space = SearchSpace::load(kWgmmaSpace);
  try {
    space.enumerate(space.resolve_problem("H=12,HKV=8"), offline_device("sm_90"));
    FAIL() << "H=12, HKV=8 allowed a config";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("heads_grouped"), std::string::npos) << error.what();
  }
}

}  // namespace wgmma_space_test
}  // namespace evotune
