// The wgmma attention backward spaces (fp16 and bf16) on offline device limits: how many configs each
// compile-time shape allows on sm_90 (the counts `evotune check` compiles, every one with no spill), what
// each condition prunes, FlashAttention-3's tiles among the valid configs, the three launches with their
// grids, arguments and scratch, and the problem's defaults, buffers, work and extra problems; where the
// overlaps, the dQ writer warp, the tiled dQ accumulator (DQ_ATOMIC 3) and the third stage are allowed; that
// DS_STMATRIX (how dS^T is written) doubles every config, and HEAD_INTERLEAVE (the grid's block order)
// triples the causal ones; FlashAttention-3's 80-row query tiles at D = 128 (BLOCK_M 80), their conditions,
// launch, shared memory and padded scratch, and their Seeds; ROW_STATS_EARLY, on 64-row tiles with TMA only.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "space/search_space.hpp"

namespace evotune {
namespace attention_bwd_space_test {

const char* const kBwd = "search_spaces/flash_attn_bwd_wgmma.json";
const char* const kBwdBf16 = "search_spaces/flash_attn_bwd_wgmma_bf16.json";

// The configs of `configs` that `keep` holds for, in order.
template <typename Keep>
std::vector<Config> only(std::vector<Config> configs, Keep keep) {
  configs.erase(std::remove_if(configs.begin(), configs.end(), [&](const Config& c) { return !keep(c); }),
                configs.end());
  return configs;
}

// Every valid config, ROW_STATS_EARLY 1 included (EarlyRowStatsPrunesAsIntended counts those).
std::vector<Config> with_early_rows(const SearchSpace& space, const char* problem) {
  return space.enumerate(space.resolve_problem(problem), offline_device("sm_90"));
}
// Every valid config that reads the LSE values where it uses them (ROW_STATS_EARLY 0), as every config did
// before ROW_STATS_EARLY, DQ_ALTERNATE 1 included (AlternateDqPrunesAsIntended counts those).
std::vector<Config> with_alternate_dq(const SearchSpace& space, const char* problem) {
  return only(with_early_rows(space, problem), [](const Config& c) { return !c.at("ROW_STATS_EARLY"); });
}
// Every valid config with both warpgroups computing dQ units (DQ_ALTERNATE 0), as every config did before
// DQ_ALTERNATE, the 80-row tiles included (QueryTile80* count those).
std::vector<Config> with_80_rows(const SearchSpace& space, const char* problem) {
  return only(with_alternate_dq(space, problem), [](const Config& c) { return !c.at("DQ_ALTERNATE"); });
}
// The valid configs with 64- or 128-row tiles, as every config was before the 80-row tiles.
std::vector<Config> every_valid(const SearchSpace& space, const char* problem) {
  return only(with_80_rows(space, problem), [](const Config& c) { return c.at("BLOCK_M") != 80; });
}
// The valid configs in the grid's own block order (HEAD_INTERLEAVE 1), as every config was before the
// interleave (HeadInterleaveOnlyUnderAMask counts the others, each the twin of one of these).
std::vector<Config> all_valid(const SearchSpace& space, const char* problem) {
  return only(every_valid(space, problem), [](const Config& c) { return c.at("HEAD_INTERLEAVE") == 1; });
}
// The valid configs that write dS^T with 4-byte stores (DS_STMATRIX 0), as every config did before stmatrix
// (DsStmatrixPrunesAsIntended counts the configs with stmatrix, each the twin of one of these).
std::vector<Config> valid(const SearchSpace& space, const char* problem) {
  return only(all_valid(space, problem), [](const Config& c) { return !c.at("DS_STMATRIX"); });
}

template <typename Keep>
size_t count_if(const std::vector<Config>& configs, Keep keep) {
  return static_cast<size_t>(std::count_if(configs.begin(), configs.end(), keep));
}

Config config(int block_m, int block_n, int stages, int specialize, int tma, int atomic, int ds_double = 0,
              int next_overlap = 0, int dq_writer = 0, int ds_stmatrix = 0, int alternate = 0,
              int early_rows = 0) {
  return {{"BLOCK_M", block_m},
          {"BLOCK_N", block_n},
          {"STAGES", stages},
          {"WARP_SPECIALIZE", specialize},
          {"TMA_LOADS", tma},
          {"DQ_ATOMIC", atomic},
          {"DS_DOUBLE_BUFFER", ds_double},
          {"NEXT_TILE_OVERLAP", next_overlap},
          {"DQ_WRITER", dq_writer},
          {"DS_STMATRIX", ds_stmatrix},
          {"HEAD_INTERLEAVE", 1},
          {"DQ_ALTERNATE", alternate},
          {"ROW_STATS_EARLY", early_rows}};
}

// Neither overlap nor the dQ writer warp: the configs the space had before DS_DOUBLE_BUFFER,
// NEXT_TILE_OVERLAP and DQ_WRITER.
bool plain(const Config& c) {
  return !c.at("DS_DOUBLE_BUFFER") && !c.at("NEXT_TILE_OVERLAP") && !c.at("DQ_WRITER");
}
bool consumers_write_dq(const Config& c) { return !c.at("DQ_WRITER"); }
// The values the space had before the tiled dQ accumulator (DQ_ATOMIC 3) and the third stage.
bool two_stages_row_strategies(const Config& c) { return c.at("STAGES") <= 2 && c.at("DQ_ATOMIC") <= 2; }

// D = 128: BLOCK_M 64 only (2 x 64 S^T / dP^T and 2 x 64 dK / dV accumulators), with every tile width, stage
// count, loading mode (self-loaded, cp.async producer, TMA producer) and dQ strategy (partials, atomics, bulk
// reduce-adds): 2 x 2 x 3 x 3 = 36. D = 64: those 36 with BLOCK_M 64, and BLOCK_M 128 only as
// FlashAttention-3 has it (BLOCK_N 128, a producer): 2 stages x 2 loaders x 3 strategies = 12. The overlaps
// (see OverlapsPruneAsIntended): D = 64, BLOCK_M 64: each of the 36 with either dS^T buffering (72), and the
// 12 with a producer and 2 stages also with NEXT_TILE_OVERLAP 1 and 2 (48 more); BLOCK_M 128: the 12 plain
// (NEXT_TILE_OVERLAP is serialised there): 132. D = 128: the 36 with either buffering (72; NEXT_TILE_OVERLAP
// is serialised there too). The dQ writer warp (see DqWriterPrunesAsIntended) doubles the configs with bulk
// reduce-adds and a TMA producer: 18 more for D = 64, 8 for D = 128. Those are the configs with 1 or 2 stages
// and DQ_ATOMIC 0 to 2; DQ_ATOMIC 3 and STAGES 3 (see TiledDqAndThirdStagePruneAsIntended) make them 358 and
// 164, of which the plain ones are every plain config above with 4 strategies and 3 stage counts (48 and 36 x
// 4/3 x 3/2: every plain config fits with 3 stages). DS_STMATRIX 1 adds 334 and 158 (see
// DsStmatrixPrunesAsIntended).
TEST(AttentionBwdSpace, ValidCountsOnHopper) {
  for (const char* file : {kBwd, kBwdBf16}) {
    const SearchSpace space = SearchSpace::load(file);
    EXPECT_EQ(space.arch_suffix(), "a");
    EXPECT_EQ(space.total_configs(), 3u * 2 * 3 * 2 * 2 * 4 * 2 * 3 * 2 * 2 * 3 * 2 * 2);
    // Per head dimension: the configs with 1 or 2 stages and DQ_ATOMIC 0 to 2 (all, the consumers writing dQ,
    // plain), then every config (the same three), then with DS_STMATRIX 1 too.
    struct Counts {
      const char* d;
      size_t before, before_consumers, before_plain, all, consumers, all_plain, with_stmatrix;
    };
    for (const Counts& expected : {Counts{"D=64", 132 + 18, 132, 48, 358, 296, 96, 358 + 334},
                                   Counts{"D=128", 72 + 8, 72, 36, 164, 141, 72, 164 + 158}}) {
      for (const std::string& problem : {std::string(expected.d), std::string(expected.d) + ",CAUSAL=1"}) {
        const auto configs = valid(space, problem.c_str());
        const auto before = only(configs, two_stages_row_strategies);
        EXPECT_EQ(before.size(), expected.before) << problem;
        EXPECT_EQ(count_if(before, consumers_write_dq), expected.before_consumers) << problem;
        EXPECT_EQ(count_if(before, plain), expected.before_plain) << problem;
        EXPECT_EQ(configs.size(), expected.all) << problem;
        EXPECT_EQ(count_if(configs, consumers_write_dq), expected.consumers) << problem;
        EXPECT_EQ(count_if(configs, plain), expected.all_plain) << problem;
        EXPECT_EQ(all_valid(space, problem.c_str()).size(), expected.with_stmatrix) << problem;
      }
    }
  }
}

// DQ_ATOMIC 3 stages a unit in 16 KiB a warpgroup (DQ_ATOMIC 2: 18 KiB), so every config with 2 has its twin
// with 3, and 3 has 4 more at D = 128: 64 x 128 tiles with 3 stages and two dS^T tiles, 232,000 bytes (with
// 2: 236,096, over the 232,448 of an H100). A config with 3 stages has its twin with 2; the 2-stage configs
// without a 3-stage twin are those whose third Q/dO stage does not fit: D = 128, 64 x 128 with two dS^T tiles
// and DQ_ATOMIC 2 (the 4 above); at D = 64 none since the 128 x 128 tiles with two dS^T tiles went with their
// serialised NEXT_TILE_OVERLAP (two dS^T tiles with 128 rows take the overlapped loop). NEXT_TILE_OVERLAP
// (D = 64) takes 3 stages as it takes 2 (the next tile is acquired while this one is held).
TEST(AttentionBwdSpace, TiledDqAndThirdStagePruneAsIntended) {
  for (const char* file : {kBwd, kBwdBf16}) {
    const SearchSpace space = SearchSpace::load(file);
    for (const auto& [problem, tiled_only, two_stages_only] :
         {std::tuple{"D=64", 0u, 0u}, std::tuple{"D=64,CAUSAL=1", 0u, 0u}, std::tuple{"D=128", 4u, 4u},
          std::tuple{"D=128,CAUSAL=1", 4u, 4u}}) {
      const auto configs = valid(space, problem);
      const auto has = [&](const Config& c) {
        return std::find(configs.begin(), configs.end(), c) != configs.end();
      };
      const auto with = [](Config c, const char* name, int value) {
        c[name] = value;
        return c;
      };
      size_t tiled_without_twin = 0, two_stages_without_twin = 0;
      for (const Config& c : configs) {
        if (c.at("DQ_ATOMIC") == 2) {
          EXPECT_TRUE(has(with(c, "DQ_ATOMIC", 3))) << problem;
        }
        if (c.at("DQ_ATOMIC") == 3 && !has(with(c, "DQ_ATOMIC", 2))) {
          ++tiled_without_twin;
          EXPECT_EQ(c.at("STAGES"), 3) << problem;
          EXPECT_EQ(c.at("DS_DOUBLE_BUFFER"), 1) << problem;
        }
        if (c.at("STAGES") == 3) {
          EXPECT_TRUE(has(with(c, "STAGES", 2))) << problem;
        }
        if (c.at("STAGES") == 2 && !has(with(c, "STAGES", 3))) {
          ++two_stages_without_twin;
          EXPECT_EQ(c.at("DS_DOUBLE_BUFFER"), 1) << problem;
        }
      }
      EXPECT_EQ(tiled_without_twin, tiled_only) << problem;
      EXPECT_EQ(two_stages_without_twin, two_stages_only) << problem;
      const size_t three_stage_overlaps =
          count_if(configs, [](const Config& c) { return c.at("STAGES") == 3 && c.at("NEXT_TILE_OVERLAP"); });
      if (std::string(problem).rfind("D=64", 0) == 0) {
        EXPECT_GT(three_stage_overlaps, 0u) << problem;
      } else {
        EXPECT_EQ(three_stage_overlaps, 0u) << problem;
      }
    }
  }
}

// NEXT_TILE_OVERLAP only with a producer, 2 stages and one dQ unit a warpgroup, and only with 64-row tiles at
// D = 64, the configs whose wgmmas ptxas does not serialise (next_tile_overlap_unserialised);
// DS_DOUBLE_BUFFER with 128-row tiles only in the overlapped loop (the plain one spills), so nowhere now.
// Counted without the dQ writer warp, which DqWriterPrunesAsIntended counts.
TEST(AttentionBwdSpace, OverlapsPruneAsIntended) {
  const SearchSpace space = SearchSpace::load(kBwd);
  for (const char* problem : {"D=64", "D=128", "D=64,CAUSAL=1", "D=128,CAUSAL=1"}) {
    const auto configs = valid(space, problem);
    EXPECT_EQ(count_if(configs,
                       [](const Config& c) {
                         return c.at("NEXT_TILE_OVERLAP") && (!c.at("WARP_SPECIALIZE") || c.at("STAGES") < 2);
                       }),
              0u)
        << problem << ": the next tile acquired without a producer's two or three stages";
    EXPECT_EQ(count_if(configs,
                       [](const Config& c) {
                         return c.at("DS_DOUBLE_BUFFER") && c.at("BLOCK_M") == 128 &&
                                !c.at("NEXT_TILE_OVERLAP");
                       }),
              0u)
        << problem << ": two dS^T tiles in the plain loop with 128-row tiles";
  }
  const auto before_and_consumers_write = [](const Config& c) {
    return two_stages_row_strategies(c) && consumers_write_dq(c);
  };
  const auto d64 = only(valid(space, "D=64"), before_and_consumers_write);
  const auto d128 = only(valid(space, "D=128"), before_and_consumers_write);
  const auto overlap = [](int value) {
    return [value](const Config& c) { return c.at("NEXT_TILE_OVERLAP") == value; };
  };
  // D = 64: 64-row tiles, 2 widths x 2 loaders x 3 strategies x 2 bufferings with 1 and with 2; never with
  // 128-row tiles.
  EXPECT_EQ(count_if(d64, overlap(1)), 24u);
  EXPECT_EQ(count_if(d64, overlap(2)), 24u);
  EXPECT_EQ(count_if(d64, [](const Config& c) { return c.at("NEXT_TILE_OVERLAP") && c.at("BLOCK_M") != 64; }),
            0u);
  // D = 128: never.
  EXPECT_EQ(count_if(d128, [](const Config& c) { return c.at("NEXT_TILE_OVERLAP") != 0; }), 0u);
  // Two dS^T tiles: every 64-row config once more (36), and the overlaps' 12 of each value.
  EXPECT_EQ(count_if(d64, [](const Config& c) { return c.at("DS_DOUBLE_BUFFER") == 1; }), 36u + 12u + 12u);
  EXPECT_EQ(count_if(d128, [](const Config& c) { return c.at("DS_DOUBLE_BUFFER") == 1; }), 36u);
}

// DQ_WRITER 1 only with bulk reduce-adds (DQ_ATOMIC 2 or 3) and a TMA producer (whose warp 1 is the writer),
// and there with every other parameter its twin with DQ_WRITER 0 allows. With DQ_ATOMIC 2 and 1 or 2 stages:
// D = 64, 64-row tiles: 2 widths x 2 stage counts x 2 bufferings, and with 2 stages NEXT_TILE_OVERLAP 1 and 2
// with either buffering (8 more); 128-row tiles: 2 stage counts: 18. D = 128: 8. DQ_ATOMIC 3 the same; 3
// stages as 2 where they fit (TiledDqAndThirdStagePruneAsIntended): D = 64 all 13 a strategy, D = 128 3 of 4
// with DQ_ATOMIC 2, 4 with 3. The launch is its twin's: the same block, grid and shared memory (the staging
// rows are the strategy's).
TEST(AttentionBwdSpace, DqWriterPrunesAsIntended) {
  const SearchSpace space = SearchSpace::load(kBwd);
  for (const auto& [problem, before, count] :
       {std::tuple{"D=64", 18u, 2 * (18u + 13u)}, std::tuple{"D=64,CAUSAL=1", 18u, 2 * (18u + 13u)},
        std::tuple{"D=128", 8u, 8u + 3u + 8u + 4u}, std::tuple{"D=128,CAUSAL=1", 8u, 8u + 3u + 8u + 4u}}) {
    const auto configs = valid(space, problem);
    const auto writers = only(configs, [](const Config& c) { return c.at("DQ_WRITER") == 1; });
    EXPECT_EQ(writers.size(), count) << problem;
    EXPECT_EQ(count_if(writers, two_stages_row_strategies), before) << problem;
    EXPECT_EQ(count_if(writers,
                       [](const Config& c) {
                         return c.at("DQ_ATOMIC") < 2 || !c.at("WARP_SPECIALIZE") || !c.at("TMA_LOADS");
                       }),
              0u)
        << problem << ": a writer warp without staged units or outside a TMA producer";
    EXPECT_EQ(count_if(configs,
                       [](const Config& c) {
                         return !c.at("DQ_WRITER") && c.at("DQ_ATOMIC") >= 2 && c.at("TMA_LOADS");
                       }),
              count)
        << problem << ": every config with bulk reduce-adds and a TMA producer has its writer-warp twin";
    for (Config writer : writers) {
      Config twin = writer;
      twin["DQ_WRITER"] = 0;
      EXPECT_NE(std::find(configs.begin(), configs.end(), twin), configs.end()) << problem;
    }
  }
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* problem : {"B=2,H=8,HKV=2,S=300,SKV=513,D=128,CAUSAL=1", "B=1,H=4,S=77,D=64"}) {
    const Sizes sizes = space.resolve_problem(problem);
    for (const auto& [atomic, next_overlap] :
         {std::pair{2, 0}, std::pair{2, 1}, std::pair{3, 0}, std::pair{3, 1}}) {
      const auto writer = launch_steps(
          space.variant_launch(config(64, 128, 2, 1, 1, atomic, 1, next_overlap, 1), sizes, hopper));
      const auto twin = launch_steps(
          space.variant_launch(config(64, 128, 2, 1, 1, atomic, 1, next_overlap, 0), sizes, hopper));
      ASSERT_EQ(writer.size(), 3u);
      EXPECT_EQ(writer[1]->grid, twin[1]->grid) << problem;
      EXPECT_EQ(writer[1]->block, (std::array<std::uint32_t, 3>{384, 1, 1})) << problem;
      EXPECT_EQ(writer[1]->dynamic_smem_bytes, twin[1]->dynamic_smem_bytes) << problem;
    }
  }
}

// HEAD_INTERLEAVE (the order of the grid's blocks) changes nothing without a causal mask, where every key
// block does the same work: those problems keep only the grid's own order. Under a mask every config also
// comes with 4 and 8 (batch, K/V head) pairs interleaved, each the twin of a valid config in the grid's
// order.
TEST(AttentionBwdSpace, HeadInterleaveOnlyUnderAMask) {
  for (const char* file : {kBwd, kBwdBf16}) {
    const SearchSpace space = SearchSpace::load(file);
    for (const char* problem : {"D=64", "D=128"})
      EXPECT_EQ(every_valid(space, problem).size(), all_valid(space, problem).size()) << problem;
    for (const char* problem :
         {"D=64,CAUSAL=1", "D=128,CAUSAL=1", "B=2,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=1"}) {
      const auto every = every_valid(space, problem);
      const auto own_order = all_valid(space, problem);
      EXPECT_EQ(every.size(), 3 * own_order.size()) << problem;
      const auto bound = space.resolve_problem(problem);
      for (const Config& c : every) {
        if (c.at("HEAD_INTERLEAVE") == 1) continue;
        Config twin = c;
        twin["HEAD_INTERLEAVE"] = 1;
        EXPECT_TRUE(std::find(own_order.begin(), own_order.end(), twin) != own_order.end()) << problem;
      }
    }
  }
}

// DS_STMATRIX changes only how each consumer thread writes its dS^T into the shared tile (4-byte stores or
// stmatrix, which stores the 16-bit elements of fp16 and bf16 alike), not the tile or the launch: every
// config with stmatrix has its twin with 4-byte stores, with the same grid, block and shared memory, and
// every config with 4-byte stores has its twin with stmatrix except where stmatrix's few more registers spill
// (ds_stmatrix_fits_registers): D = 64, 128-row tiles in the plain loop but with DQ_ATOMIC 3 without the
// writer warp (3 stage counts x 2 loaders x DQ_ATOMIC 0 to 2, and DQ_ATOMIC 2 and 3 with the writer warp: 24
// of 30); D = 128, one consumer warpgroup with the TMA producer and vector atomics (3 stage counts x 2
// bufferings: 6).
TEST(AttentionBwdSpace, DsStmatrixPrunesAsIntended) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : {kBwd, kBwdBf16}) {
    const SearchSpace space = SearchSpace::load(file);
    for (const auto& [problem, without_twin] : {std::pair{"D=64", 24u}, std::pair{"D=64,CAUSAL=1", 24u},
                                                std::pair{"D=128", 6u}, std::pair{"D=128,CAUSAL=1", 6u}}) {
      const auto configs = all_valid(space, problem);
      const auto stores = only(configs, [](const Config& c) { return c.at("DS_STMATRIX") == 0; });
      const auto matrices = only(configs, [](const Config& c) { return c.at("DS_STMATRIX") == 1; });
      EXPECT_EQ(stores.size() + matrices.size(), configs.size()) << problem;
      EXPECT_EQ(stores.size(), matrices.size() + without_twin) << problem;
      for (Config twin : matrices) {
        twin["DS_STMATRIX"] = 0;
        EXPECT_NE(std::find(stores.begin(), stores.end(), twin), stores.end()) << problem;
      }
      size_t pruned = 0;
      for (Config twin : stores) {
        twin["DS_STMATRIX"] = 1;
        if (std::find(matrices.begin(), matrices.end(), twin) != matrices.end()) continue;
        ++pruned;
        const bool plain_loop_128_rows = twin.at("BLOCK_M") == 128 && !twin.at("NEXT_TILE_OVERLAP") &&
                                         (twin.at("DQ_ATOMIC") != 3 || twin.at("DQ_WRITER"));
        const bool one_warpgroup_tma_atomics =
            twin.at("BLOCK_N") == 64 && twin.at("TMA_LOADS") && twin.at("DQ_ATOMIC") == 1;
        EXPECT_TRUE(std::string(problem).rfind("D=64", 0) == 0 ? plain_loop_128_rows
                                                               : one_warpgroup_tma_atomics)
            << problem;
      }
      EXPECT_EQ(pruned, without_twin) << problem;
    }
    const Sizes sizes = space.resolve_problem("B=2,H=8,HKV=2,S=300,SKV=513,D=128,CAUSAL=1");
    for (const Config& c :
         {config(64, 128, 2, 1, 1, 3), config(64, 64, 1, 0, 0, 1), config(64, 128, 3, 1, 0, 2, 1)}) {
      Config with_stmatrix = c;
      with_stmatrix["DS_STMATRIX"] = 1;
      const auto stores = launch_steps(space.variant_launch(c, sizes, hopper));
      const auto matrices = launch_steps(space.variant_launch(with_stmatrix, sizes, hopper));
      ASSERT_EQ(matrices.size(), 3u);
      EXPECT_EQ(matrices[1]->grid, stores[1]->grid);
      EXPECT_EQ(matrices[1]->block, stores[1]->block);
      EXPECT_EQ(matrices[1]->dynamic_smem_bytes, stores[1]->dynamic_smem_bytes);
    }
  }
  // FlashAttention-3's tiles take stmatrix with the tiled accumulator, 2 or 3 stages (D = 128: one or two
  // dS^T tiles).
  for (const int stages : {2, 3}) {
    const SearchSpace space = SearchSpace::load(kBwd);
    const auto d64 = all_valid(space, "D=64,CAUSAL=1");
    const auto d128 = all_valid(space, "D=128,CAUSAL=1");
    EXPECT_NE(std::find(d64.begin(), d64.end(), config(128, 128, stages, 1, 1, 3, 0, 0, 0, 1)), d64.end());
    EXPECT_NE(std::find(d128.begin(), d128.end(), config(64, 128, stages, 1, 1, 3, 0, 0, 0, 1)), d128.end());
    EXPECT_NE(std::find(d128.begin(), d128.end(), config(64, 128, stages, 1, 1, 3, 1, 0, 0, 1)), d128.end());
  }
}

TEST(AttentionBwdSpace, ConditionsPruneAsIntended) {
  const SearchSpace space = SearchSpace::load(kBwd);
  for (const char* problem : {"D=64", "D=128"}) {
    const auto configs = valid(space, problem);
    EXPECT_EQ(
        count_if(configs, [](const Config& c) { return c.at("TMA_LOADS") && !c.at("WARP_SPECIALIZE"); }), 0u)
        << problem << ": TMA without a producer";
    // BLOCK_M 64: every other parameter's every value (2 widths x 3 stage counts x 3 loaders x 4 strategies),
    // without the overlaps.
    EXPECT_EQ(count_if(configs, [](const Config& c) { return plain(c) && c.at("BLOCK_M") == 64; }), 72u)
        << problem;
  }
  EXPECT_EQ(count_if(valid(space, "D=128"), [](const Config& c) { return c.at("BLOCK_M") == 128; }), 0u);
  const auto d64 = valid(space, "D=64");
  EXPECT_EQ(count_if(d64,
                     [](const Config& c) {
                       return c.at("BLOCK_M") == 128 && (!c.at("WARP_SPECIALIZE") || c.at("BLOCK_N") == 64);
                     }),
            0u)
      << "128-row tiles spill unless a producer feeds two consumer warpgroups";
  // The deterministic partials take cdiv(SKV, BLOCK_N) fp32 copies of dQ (1 GiB here): 128 GiB with BLOCK_N
  // 64, 64 with 128, over the 4 GiB limit; the three atomic strategies remain (2 widths x 3 stage counts x 3
  // loaders each). At S = 4096, H = 8: 1 GiB at most, within it.
  const auto large = valid(space, "B=8,H=32,S=8192,D=128");
  EXPECT_EQ(count_if(large, [](const Config& c) { return c.at("DQ_ATOMIC") == 0; }), 0u);
  for (const int atomic : {1, 2, 3})
    EXPECT_EQ(count_if(large, [atomic](const Config& c) { return plain(c) && c.at("DQ_ATOMIC") == atomic; }),
              18u)
        << atomic;
  EXPECT_EQ(count_if(valid(space, "B=1,H=8,S=4096,D=128"),
                     [](const Config& c) { return plain(c) && c.at("DQ_ATOMIC") == 0; }),
            18u);
}

// FlashAttention-3's backward tiles (D = 128: 64 query rows by 128 keys, D = 64: 128 by 128, two consumer
// warpgroups and a producer) are valid with TMA, every dQ strategy and 2 or 3 stages, and are the space's
// seeds: first with the tiled accumulator's one bulk reduce-add a unit, the measured best first (H100: D = 64
// with 3 stages 3101 us, D = 128 with 2 stages 2910 us, against 3837 and 3468 with a bulk reduce-add a row),
// the 64-row ones with a tile's whole dQ by alternating warpgroups (DQ_ALTERNATE; H100, 4,16,4096,128: 2770
// us against 2888-2915, and 4.5% less under a mask at 2,16,8192,128) and their twins without it after them,
// then with bulk reduce-adds a row at a time, then with vector atomics.
TEST(AttentionBwdSpace, FlashAttention3TilesAreValid) {
  const SearchSpace space = SearchSpace::load(kBwd);
  const auto d128 = valid(space, "D=128,CAUSAL=1");
  const auto d64 = valid(space, "D=64,CAUSAL=1");
  for (const int stages : {2, 3})
    for (const int atomic : {0, 1, 2, 3}) {
      EXPECT_NE(std::find(d128.begin(), d128.end(), config(64, 128, stages, 1, 1, atomic)), d128.end())
          << atomic;
      EXPECT_NE(std::find(d64.begin(), d64.end(), config(128, 128, stages, 1, 1, atomic)), d64.end())
          << atomic;
    }
  // Under a causal mask the first Seeds interleave heads (HEAD_INTERLEAVE, which problems without a mask do
  // not allow: there the Seeds below open); each is the twin of a Seed in the grid's own order, the second
  // with its LSE values read early (ROW_STATS_EARLY: H100, 2,16,8192,128 causal, 2843 us against 2875-2896).
  const auto& every_seed = space.seeds();
  ASSERT_GE(every_seed.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NE(every_seed[i].at("HEAD_INTERLEAVE"), 1) << i;
    Config twin = every_seed[i];
    twin["HEAD_INTERLEAVE"] = 1;
    twin["ROW_STATS_EARLY"] = 0;
    EXPECT_NE(std::find(every_seed.begin(), every_seed.end(), twin), every_seed.end()) << i;
  }
  Config early = every_seed[0];
  early["ROW_STATS_EARLY"] = 1;
  EXPECT_EQ(every_seed[1], early);
  EXPECT_EQ(count_if(every_seed, [](const Config& c) { return c.at("HEAD_INTERLEAVE") != 1; }), 4u);
  EXPECT_EQ(count_if(every_seed, [](const Config& c) { return c.at("ROW_STATS_EARLY"); }), 1u);
  const std::vector<Config> seeds(every_seed.begin() + 4, every_seed.end());
  ASSERT_GE(seeds.size(), 4u);
  EXPECT_EQ(seeds[0], config(128, 128, 3, 1, 1, 3));
  EXPECT_EQ(seeds[1], config(64, 128, 2, 1, 1, 3, 0, 0, 0, 0, 1));
  EXPECT_EQ(seeds[2], config(128, 128, 2, 1, 1, 3));
  EXPECT_EQ(seeds[3], config(64, 128, 3, 1, 1, 3, 0, 0, 0, 0, 1));
  // The 64-row tiles' interleaved seeds alternate warpgroups for dQ too.
  EXPECT_EQ(every_seed[0].at("DQ_ALTERNATE"), 1);
  EXPECT_EQ(every_seed[3].at("DQ_ALTERNATE"), 1);
  // Two dS^T tiles with the alternation, then the 64-row seeds without it.
  ASSERT_GE(seeds.size(), 11u);
  EXPECT_EQ(seeds[8], config(64, 128, 2, 1, 1, 3, 1, 0, 0, 0, 1));
  EXPECT_EQ(seeds[9], config(64, 128, 2, 1, 1, 3));
  EXPECT_EQ(seeds[10], config(64, 128, 3, 1, 1, 3));
  // Their twins with the dS^T tile written by stmatrix, right after them.
  ASSERT_GE(seeds.size(), 8u);
  for (size_t i = 0; i < 4; ++i) {
    Config twin = seeds[i];
    twin["DS_STMATRIX"] = 1;
    EXPECT_EQ(seeds[4 + i], twin) << i;
  }
  EXPECT_EQ(count_if(seeds, [](const Config& c) { return c.at("DS_STMATRIX"); }), 4u);
  EXPECT_NE(std::find(seeds.begin(), seeds.end(), config(64, 128, 2, 1, 1, 1)), seeds.end());
  EXPECT_NE(std::find(seeds.begin(), seeds.end(), config(128, 128, 2, 1, 1, 1)), seeds.end());
  EXPECT_NE(std::find(seeds.begin(), seeds.end(), config(64, 128, 2, 1, 1, 2)), seeds.end());
  EXPECT_NE(std::find(seeds.begin(), seeds.end(), config(128, 128, 2, 1, 1, 2)), seeds.end());
  // The overlaps on FlashAttention-3's tiles: two dS^T tiles valid at D = 128 (not with 128 rows, whose plain
  // loop spills), the next tile's scores on neither (ptxas serialises their wgmmas:
  // next_tile_overlap_unserialised); the overlaps with 64-row tiles at D = 64 are seeds with both dQ atomic
  // strategies.
  for (const int atomic : {0, 1, 2}) {
    EXPECT_NE(std::find(d128.begin(), d128.end(), config(64, 128, 2, 1, 1, atomic, 1, 0)), d128.end())
        << atomic;
    EXPECT_EQ(std::find(d128.begin(), d128.end(), config(64, 128, 2, 1, 1, atomic, 1, 1)), d128.end())
        << atomic;
    EXPECT_EQ(std::find(d64.begin(), d64.end(), config(128, 128, 2, 1, 1, atomic, 1, 1)), d64.end())
        << atomic;
    EXPECT_NE(std::find(d64.begin(), d64.end(), config(64, 128, 2, 1, 1, atomic, 1, 1)), d64.end()) << atomic;
  }
  for (const int atomic : {1, 2})
    EXPECT_NE(std::find(seeds.begin(), seeds.end(), config(64, 128, 2, 1, 1, atomic, 1, 1)), seeds.end());
  // The dQ writer warp with 64-row tiles, with both overlaps, NEXT_TILE_OVERLAP alone and neither; with
  // FlashAttention-3's 128-row tiles without them.
  for (const auto& [ds_double, next_overlap] : {std::pair{0, 0}, std::pair{1, 1}, std::pair{0, 1}})
    EXPECT_NE(std::find(seeds.begin(), seeds.end(), config(64, 128, 2, 1, 1, 2, ds_double, next_overlap, 1)),
              seeds.end());
  EXPECT_NE(std::find(seeds.begin(), seeds.end(), config(128, 128, 2, 1, 1, 2, 0, 0, 1)), seeds.end());
  EXPECT_EQ(count_if(every_seed,
                     [](const Config& c) { return c.at("NEXT_TILE_OVERLAP") && c.at("BLOCK_M") != 64; }),
            0u);
  // Every seed is valid for one of the head dimensions.
  const auto all_d128 = with_early_rows(space, "D=128,CAUSAL=1");
  const auto all_d64 = with_early_rows(space, "D=64,CAUSAL=1");
  for (const Config& seed : every_seed)
    EXPECT_TRUE(std::find(all_d128.begin(), all_d128.end(), seed) != all_d128.end() ||
                std::find(all_d64.begin(), all_d64.end(), seed) != all_d64.end());
}

// DQ_ALTERNATE 1 is the twin of every config with 64- or 128-row tiles, two consumer warpgroups (BLOCK_N 128)
// and the tiled accumulator without the writer warp, in the plain tile loop, whose staging of the tile's
// BLOCK_M / 64 x D / 64 units fits: at D = 64 with 64 rows (one unit, as before) every such config, 3 stage
// counts x 3 loaders x 1 or 2 dS^T tiles x 2 ways to write them = 36, with 128 rows (two units, 32 KiB a
// warpgroup) 1 or 2 stages x 2 producers with one dS^T tile written by 4-byte stores, 4 (3 stages take
// 233,536 bytes, over the 232,448 of an H100; stmatrix spills under a causal mask); at D = 128 (two units)
// those with 64 rows and 1 or 2 stages, 24 (3 stages take 248,384 bytes); three times as many under a causal
// mask (HEAD_INTERLEAVE). Its launch and scratch are its twin's; its shared memory is 32 KiB more where it
// stages two units.
TEST(AttentionBwdSpace, AlternateDqPrunesAsIntended) {
  for (const char* file : {kBwd, kBwdBf16}) {
    const SearchSpace space = SearchSpace::load(file);
    for (const auto& [d, expected] : {std::pair{"D=64", 36u + 4}, std::pair{"D=128", 24u}}) {
      for (const char* mask : {"", ",CAUSAL=1"}) {
        const std::string problem = std::string(d) + mask;
        const auto every = with_alternate_dq(space, problem.c_str());
        const auto alternate = only(every, [](const Config& c) { return c.at("DQ_ALTERNATE") == 1; });
        EXPECT_EQ(alternate.size(), expected * (*mask ? 3 : 1)) << problem;
        for (const Config& c : alternate) {
          EXPECT_TRUE(c.at("BLOCK_M") == 64 || c.at("BLOCK_M") == 128) << problem;
          EXPECT_EQ(c.at("BLOCK_N"), 128) << problem;
          EXPECT_EQ(c.at("DQ_ATOMIC"), 3) << problem;
          EXPECT_EQ(c.at("DQ_WRITER"), 0) << problem;
          EXPECT_EQ(c.at("NEXT_TILE_OVERLAP"), 0) << problem;
          Config twin = c;
          twin["DQ_ALTERNATE"] = 0;
          EXPECT_NE(std::find(every.begin(), every.end(), twin), every.end()) << problem;
        }
        EXPECT_EQ(count_if(alternate, [](const Config& c) { return c.at("STAGES") == 3; }),
                  std::string(d) == "D=64" ? 12u * (*mask ? 3 : 1) : 0u)
            << problem;
      }
    }
    const DeviceInfo hopper = offline_device("sm_90");
    struct Twins {
      const char* problem;
      int block_m, stages;
      unsigned more;
    };
    for (const auto& [problem, block_m, stages, more] :
         {Twins{"B=2,H=8,HKV=2,S=300,SKV=513,D=128,CAUSAL=1", 64, 2, 32768u},
          Twins{"B=1,H=4,S=1000,D=64", 64, 2, 0u}, Twins{"B=1,H=4,S=1000,D=64", 128, 2, 32768u}}) {
      const Sizes sizes = space.resolve_problem(problem);
      const LaunchSpec twin_launch =
          space.variant_launch(config(block_m, 128, stages, 1, 1, 3), sizes, hopper);
      const LaunchSpec alternate_launch =
          space.variant_launch(config(block_m, 128, stages, 1, 1, 3, 0, 0, 0, 0, 1), sizes, hopper);
      const auto twin = launch_steps(twin_launch);
      const auto alternate = launch_steps(alternate_launch);
      ASSERT_EQ(alternate.size(), 3u);
      EXPECT_EQ(alternate[1]->grid, twin[1]->grid) << problem;
      EXPECT_EQ(alternate[1]->block, twin[1]->block) << problem;
      EXPECT_EQ(alternate[1]->dynamic_smem_bytes, twin[1]->dynamic_smem_bytes + more) << problem;
    }
  }
}

// ROW_STATS_EARLY 1 is the twin of every config with 64-row tiles, two consumer warpgroups and the TMA
// producer, but for the alternating dQ with two dS^T tiles at D = 128, and of no other: the LSE values it
// holds from the S^T wgmma's issue (BLOCK_M / 4 registers) spill in the others (NVRTC, sm_90a). 180 and 72
// twins at D = 64 and 128 (no NEXT_TILE_OVERLAP at D = 128), three times as many under a causal mask. Its
// launch and shared memory are its twin's.
TEST(AttentionBwdSpace, EarlyRowStatsPrunesAsIntended) {
  for (const char* file : {kBwd, kBwdBf16}) {
    const SearchSpace space = SearchSpace::load(file);
    const DeviceInfo hopper = offline_device("sm_90");
    for (const char* problem : {"D=64", "D=64,CAUSAL=1", "D=128", "D=128,CAUSAL=1"}) {
      const auto every = with_early_rows(space, problem);
      const auto early = only(every, [](const Config& c) { return c.at("ROW_STATS_EARLY") == 1; });
      const auto late = with_alternate_dq(space, problem);
      const bool d128 = std::string(problem).find("D=128") != std::string::npos;
      const auto takes_it = [&](const Config& c) {
        return c.at("BLOCK_M") == 64 && c.at("BLOCK_N") == 128 && c.at("TMA_LOADS") == 1 &&
               !(d128 && c.at("DQ_ALTERNATE") && c.at("DS_DOUBLE_BUFFER"));
      };
      EXPECT_EQ(early.size(), count_if(late, takes_it)) << problem;
      const bool causal = std::string(problem).find("CAUSAL") != std::string::npos;
      EXPECT_EQ(early.size(), (d128 ? 72u : 180u) * (causal ? 3 : 1)) << problem;
      const Sizes sizes = space.resolve_problem(problem);
      for (const Config& c : early) {
        EXPECT_EQ(c.at("BLOCK_M"), 64) << problem;
        EXPECT_EQ(c.at("BLOCK_N"), 128) << problem;
        EXPECT_EQ(c.at("TMA_LOADS"), 1) << problem;
        Config twin = c;
        twin["ROW_STATS_EARLY"] = 0;
        ASSERT_NE(std::find(late.begin(), late.end(), twin), late.end()) << problem;
      }
      const LaunchSpec early_launch = space.variant_launch(early.front(), sizes, hopper);
      Config twin = early.front();
      twin["ROW_STATS_EARLY"] = 0;
      const auto early_steps = launch_steps(early_launch);
      const auto twin_steps = launch_steps(space.variant_launch(twin, sizes, hopper));
      ASSERT_EQ(early_steps.size(), twin_steps.size());
      for (size_t i = 0; i < early_steps.size(); ++i) {
        EXPECT_EQ(early_steps[i]->grid, twin_steps[i]->grid) << problem;
        EXPECT_EQ(early_steps[i]->dynamic_smem_bytes, twin_steps[i]->dynamic_smem_bytes) << problem;
      }
    }
  }
}

// Preprocess, main kernel, conversion; the main kernel's grid is a block per BLOCK_N keys of each K/V head of
// each batch, its block 128 threads per 64 keys (plus the producer's), and it takes tensor maps with
// TMA_LOADS; the scratch is the padded LSE and Dsum rows and one fp32 dQ (atomics), one per key block
// (partials) or one over the padded rows (the tiled accumulator); the bulk reduce-adds stage 64 rows of 64 +
// 8 floats (DQ_ATOMIC 2) or of 64 floats (3) per consumer warpgroup in shared memory.
TEST(AttentionBwdSpace, ThreeLaunchesAndTheirScratch) {
  const SearchSpace space = SearchSpace::load(kBwd);
  const DeviceInfo hopper = offline_device("sm_90");
  const Sizes sizes = space.resolve_problem("B=2,H=8,HKV=2,S=300,SKV=513,D=128,CAUSAL=1");
  const auto arg_names = [](const LaunchSpec& launch) {
    std::vector<std::string> names;
    for (const ArgSpec& arg : launch.args) names.push_back(arg.name);
    return names;
  };
  for (const int atomic : {0, 1, 2, 3}) {
    const LaunchSpec launch = space.variant_launch(config(64, 128, 2, 1, 0, atomic), sizes, hopper);
    const auto steps = launch_steps(launch);
    ASSERT_EQ(steps.size(), 3u);
    EXPECT_EQ(steps[0]->kernel_name, "flash_attn_bwd_preprocess");
    EXPECT_EQ(steps[1]->kernel_name, "flash_attn_bwd_wgmma");
    EXPECT_EQ(steps[2]->kernel_name, "flash_attn_bwd_convert_dq");
    // 384 padded rows of 16 a block (D = 128: 16 threads a row), H, B.
    EXPECT_EQ(steps[0]->grid, (std::array<std::uint32_t, 3>{24, 8, 2}));
    EXPECT_EQ(steps[1]->grid, (std::array<std::uint32_t, 3>{5, 2, 2}));  // cdiv(513, 128) key blocks
    EXPECT_EQ(steps[1]->block, (std::array<std::uint32_t, 3>{384, 1, 1}));
    // K, V, 2 stages of Q, dO, LSE, Dsum, dS^T, the mbarriers, (bulk) the staged dQ rows, the alignment.
    EXPECT_EQ(steps[1]->dynamic_smem_bytes, 4u * 128 * 128 + 2 * (4 * 64 * 128 + 8 * 64) + 2 * 128 * 64 + 64 +
                                                (atomic == 2   ? 2 * 64 * 72 * 4
                                                 : atomic == 3 ? 2 * 64 * 64 * 4
                                                               : 0) +
                                                1024);
    EXPECT_EQ(steps[2]->grid, (std::array<std::uint32_t, 3>{19, 8, 2}));  // cdiv(300, 16)
    EXPECT_EQ(arg_names(*steps[1]),
              (std::vector<std::string>{"Q", "K", "V", "dO", "LSE_log2", "Dsum", "dQ_accum", "dK", "dV", "B",
                                        "H", "HKV", "S", "SKV", "scale"}));
    std::map<std::string, std::int64_t> scratch;
    for (const ScratchSpec& buffer : launch.scratch) scratch[buffer.name] = buffer.count;
    EXPECT_EQ(scratch.at("Dsum"), 2 * 8 * 384);
    EXPECT_EQ(scratch.at("LSE_log2"), 2 * 8 * 384);
    EXPECT_EQ(scratch.at("dQ_accum"),
              atomic == 3 ? 2 * 8 * 384 * 128 : (atomic != 0 ? 1 : 5) * 2 * 8 * 300 * 128);
  }
  const LaunchSpec tma = space.variant_launch(config(64, 128, 2, 1, 1, 1), sizes, hopper);
  const std::vector<std::string> names = arg_names(*launch_steps(tma)[1]);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 4),
            (std::vector<std::string>{"Q_map", "K_map", "V_map", "dO_map"}));
  EXPECT_EQ(launch_steps(tma)[1]->args[1].map.box, (std::vector<std::int64_t>{64, 128, 1}));
  EXPECT_EQ(launch_steps(tma)[1]->args[3].map.box, (std::vector<std::int64_t>{64, 64, 1}));
  // A third Q/dO stage: 4 * 64 * 128 + 8 * 64 bytes more. FlashAttention-3's D = 128 tiles with 3 stages and
  // the tiled accumulator: 215,616 bytes; with two dS^T tiles too 232,000, under the 232,448 of an H100.
  EXPECT_EQ(
      launch_steps(space.variant_launch(config(64, 128, 3, 1, 1, 3), sizes, hopper))[1]->dynamic_smem_bytes,
      215616u);
  EXPECT_EQ(launch_steps(space.variant_launch(config(64, 128, 3, 1, 1, 3, 1), sizes, hopper))[1]
                ->dynamic_smem_bytes,
            232000u);
}

// FlashAttention-3's D = 128 tiles of 80 query rows (BLOCK_M 80): only at D = 128, with two consumer
// warpgroups, the TMA producer, the tiled dQ accumulator and the plain loop with 4-byte dS^T stores, 1 or 2
// stages (3 do not fit shared memory: 252,864 bytes), each order of the blocks under a causal mask; every
// other value of each parameter pruned by the condition that names it.
TEST(AttentionBwdSpace, QueryTile80PrunesAsIntended) {
  const DeviceInfo hopper = offline_device("sm_90");
  const auto rows_80 = [](const Config& c) { return c.at("BLOCK_M") == 80; };
  for (const char* file : {kBwd, kBwdBf16}) {
    const SearchSpace space = SearchSpace::load(file);
    for (const char* problem : {"D=64", "D=64,CAUSAL=1"})
      EXPECT_EQ(count_if(with_80_rows(space, problem), rows_80), 0u) << problem;
    const auto plain_order = only(with_80_rows(space, "D=128"), rows_80);
    EXPECT_EQ(plain_order.size(), 2u);
    for (const int stages : {1, 2})
      EXPECT_NE(std::find(plain_order.begin(), plain_order.end(), config(80, 128, stages, 1, 1, 3)),
                plain_order.end())
          << stages;
    const auto causal = only(with_80_rows(space, "D=128,CAUSAL=1"), rows_80);
    EXPECT_EQ(causal.size(), 3 * plain_order.size());
    for (const int interleave : {1, 4, 8})
      for (const int stages : {1, 2}) {
        Config c = config(80, 128, stages, 1, 1, 3);
        c["HEAD_INTERLEAVE"] = interleave;
        EXPECT_NE(std::find(causal.begin(), causal.end(), c), causal.end()) << interleave << " " << stages;
      }
    const auto pruned_by = [&](const Config& c, const char* problem) {
      const ConstraintCheck check = space.check(c, space.resolve_problem(problem), hopper);
      EXPECT_FALSE(check.valid) << problem;
      return check.condition;
    };
    EXPECT_EQ(pruned_by(config(80, 128, 2, 1, 1, 3), "D=64"), "query_tile_80_shape");
    EXPECT_EQ(pruned_by(config(80, 64, 2, 1, 1, 3), "D=128"), "query_tile_80_shape");
    EXPECT_EQ(pruned_by(config(80, 128, 2, 1, 0, 3), "D=128"), "query_tile_80_shape");
    EXPECT_EQ(pruned_by(config(80, 128, 2, 0, 0, 3), "D=128"), "query_tile_80_shape");
    for (const int atomic : {0, 1, 2})
      EXPECT_EQ(pruned_by(config(80, 128, 2, 1, 1, atomic), "D=128"), "query_tile_80_tiled_dq") << atomic;
    EXPECT_EQ(pruned_by(config(80, 128, 2, 1, 1, 3, 1), "D=128"), "query_tile_80_plain_loop");
    // (The next tile's scores: pruned first as serialised at D = 128.)
    EXPECT_EQ(pruned_by(config(80, 128, 2, 1, 1, 3, 0, 1), "D=128"), "next_tile_overlap_unserialised");
    EXPECT_EQ(pruned_by(config(80, 128, 2, 1, 1, 3, 0, 0, 1), "D=128"), "query_tile_80_plain_loop");
    EXPECT_EQ(pruned_by(config(80, 128, 2, 1, 1, 3, 0, 0, 0, 1), "D=128"), "query_tile_80_plain_loop");
    EXPECT_EQ(pruned_by(config(80, 128, 3, 1, 1, 3), "D=128"), "smem_fits");
  }
}

// The 80-row tiles' launches: the preprocess over rows padded to a multiple of 640 (of 80 and of 128), the
// main kernel's grid and block as with 64-row tiles, its shared memory (K, V, 2 stages of 80-row Q and dO
// tiles with their LSE and Dsum rows, the 128 x 80 dS^T tile, the mbarriers, 80 staged dQ rows of 64 floats a
// consumer warpgroup, the alignment), Q and dO boxes of 80 rows, and the tiled accumulator over the padded
// rows.
TEST(AttentionBwdSpace, QueryTile80LaunchAndScratch) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : {kBwd, kBwdBf16}) {
    const SearchSpace space = SearchSpace::load(file);
    const Sizes sizes = space.resolve_problem("B=2,H=8,HKV=2,S=300,SKV=513,D=128,CAUSAL=1");
    const LaunchSpec launch = space.variant_launch(config(80, 128, 2, 1, 1, 3), sizes, hopper);
    const auto steps = launch_steps(launch);
    ASSERT_EQ(steps.size(), 3u);
    EXPECT_EQ(steps[0]->grid, (std::array<std::uint32_t, 3>{40, 8, 2}));  // 640 padded rows, 16 a block
    EXPECT_EQ(steps[1]->grid, (std::array<std::uint32_t, 3>{5, 2, 2}));   // cdiv(513, 128) key blocks
    EXPECT_EQ(steps[1]->block, (std::array<std::uint32_t, 3>{384, 1, 1}));
    EXPECT_EQ(steps[1]->dynamic_smem_bytes,
              4u * 128 * 128 + 2 * (4 * 80 * 128 + 8 * 80) + 2 * 128 * 80 + 64 + 2 * 80 * 64 * 4 + 1024);
    EXPECT_EQ(steps[1]->dynamic_smem_bytes, 211264u);
    EXPECT_EQ(steps[2]->grid, (std::array<std::uint32_t, 3>{19, 8, 2}));            // cdiv(300, 16)
    EXPECT_EQ(steps[1]->args[0].map.box, (std::vector<std::int64_t>{64, 80, 1}));   // Q
    EXPECT_EQ(steps[1]->args[1].map.box, (std::vector<std::int64_t>{64, 128, 1}));  // K
    EXPECT_EQ(steps[1]->args[3].map.box, (std::vector<std::int64_t>{64, 80, 1}));   // dO
    std::map<std::string, std::int64_t> scratch;
    for (const ScratchSpec& buffer : launch.scratch) scratch[buffer.name] = buffer.count;
    EXPECT_EQ(scratch.at("Dsum"), 2 * 8 * 640);
    EXPECT_EQ(scratch.at("LSE_log2"), 2 * 8 * 640);
    EXPECT_EQ(scratch.at("dQ_accum"), 2 * 8 * 640 * 128);
    EXPECT_EQ(
        launch_steps(space.variant_launch(config(80, 128, 1, 1, 1, 3), sizes, hopper))[1]->dynamic_smem_bytes,
        211264u - (4 * 80 * 128 + 8 * 80));
    // S = 4096: 4480 padded rows (7 x 640), 280 preprocess blocks; the 64-row tiles keep 4096.
    const Sizes long_rows = space.resolve_problem("B=4,H=16,S=4096,D=128");
    const auto padded = [&](int block_m) {
      const LaunchSpec l = space.variant_launch(config(block_m, 128, 2, 1, 1, 3), long_rows, hopper);
      std::int64_t rows = 0;
      for (const ScratchSpec& buffer : l.scratch)
        if (buffer.name == "Dsum") rows = buffer.count / (4 * 16);
      return std::pair{rows, launch_steps(l)[0]->grid[0]};
    };
    EXPECT_EQ(padded(80), (std::pair<std::int64_t, std::uint32_t>{4480, 280}));
    EXPECT_EQ(padded(64), (std::pair<std::int64_t, std::uint32_t>{4096, 256}));
  }
}

// FlashAttention-3's D = 128 configuration with 80-row tiles (2 stages) and its 1-stage variant close the
// Seeds, after every Seed of the 64- and 128-row tiles.
TEST(AttentionBwdSpace, QueryTile80Seeds) {
  for (const char* file : {kBwd, kBwdBf16}) {
    const SearchSpace space = SearchSpace::load(file);
    const auto& seeds = space.seeds();
    ASSERT_GE(seeds.size(), 2u);
    EXPECT_EQ(seeds[seeds.size() - 2], config(80, 128, 2, 1, 1, 3));
    EXPECT_EQ(seeds.back(), config(80, 128, 1, 1, 1, 3));
    EXPECT_EQ(count_if(seeds, [](const Config& c) { return c.at("BLOCK_M") == 80; }), 2u);
    for (const char* problem : {"D=128", "D=128,CAUSAL=1"}) {
      const auto configs = with_80_rows(space, problem);
      for (size_t i = seeds.size() - 2; i < seeds.size(); ++i)
        EXPECT_NE(std::find(configs.begin(), configs.end(), seeds[i]), configs.end()) << problem << " " << i;
    }
  }
}

// HKV and SKV default to H and S; the work is 2.5 times the forward's (five matrix products to its two), the
// same causal expression; the extra problems are the forward's.
TEST(AttentionBwdSpace, ProblemWorkAndExtraProblems) {
  const SearchSpace forward = SearchSpace::load("search_spaces/flash_attn_fwd_wgmma.json");
  for (const char* file : {kBwd, kBwdBf16}) {
    const SearchSpace space = SearchSpace::load(file);
    for (const char* problem :
         {"B=2,H=16,S=1000,D=128,CAUSAL=1", "B=2,H=32,HKV=8,S=512,SKV=4096,D=64,CAUSAL=1",
          "B=1,H=8,HKV=1,S=4096,SKV=512,D=128,CAUSAL=1", "B=1,H=4,S=300,SKV=77,D=64"}) {
      const Sizes sizes = space.resolve_problem(problem);
      EXPECT_DOUBLE_EQ(space.flops(sizes), 2.5 * forward.flops(forward.resolve_problem(problem))) << problem;
    }
    const Sizes sizes = space.resolve_problem("B=2,H=16,S=1000,D=128,CAUSAL=1");
    EXPECT_EQ(sizes.at("HKV"), 16);
    EXPECT_EQ(sizes.at("SKV"), 1000);
    const auto extra = space.extra_problems(sizes);
    ASSERT_EQ(extra.size(), 2u);
    EXPECT_EQ(extra[0].at("S"), 1001);
    EXPECT_EQ(extra[0].at("SKV"), 1001);
    EXPECT_EQ(extra[1].at("SKV"), 1067);

    const Sizes grouped = space.resolve_problem("B=2,H=32,HKV=8,S=512,SKV=4096,D=128,CAUSAL=1");
    for (const BufferSpec& buffer : space.buffers(grouped)) {
      const bool kv = buffer.name == "K" || buffer.name == "V" || buffer.name == "dK" || buffer.name == "dV";
      const std::int64_t rows = kv ? 2 * 8 * 4096 : 2 * 32 * 512;
      EXPECT_EQ(buffer.count, buffer.name == "LSE" ? rows : rows * 128) << buffer.name;
      EXPECT_EQ(buffer.dtype, buffer.name == "LSE"        ? DType::f32
                              : std::string(file) == kBwd ? DType::f16
                                                          : DType::bf16)
          << buffer.name;
      const bool output = buffer.name == "dQ" || buffer.name == "dK" || buffer.name == "dV";
      EXPECT_EQ(buffer.is_output, output) << buffer.name;
      EXPECT_EQ(buffer.is_input, !output) << buffer.name;
    }
  }
}

TEST(AttentionBwdSpace, NoConfigBeforeHopperOrWithUngroupedHeads) {
  const SearchSpace space = SearchSpace::load(kBwd);
  for (const auto& [problem, arch, condition] :
       {std::tuple{"", "sm_80", "wgmma_arch"}, std::tuple{"H=12,HKV=8", "sm_90", "heads_grouped"}}) {
    try {
      space.enumerate(space.resolve_problem(problem), offline_device(arch));
      FAIL() << problem << " on " << arch << " allowed a config";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(condition), std::string::npos) << error.what();
    }
  }
}

// The float64 reference and the DerivedInputs kernel: 32 rows a block (query blocks, then key blocks for the
// reference), and the dynamic shared memory their layouts take (static_asserts in the kernels: 1024 D + 17920
// and 768 D + 9216 bytes); only the partials (DQ_ATOMIC 0) repeat bit for bit.
TEST(AttentionBwdSpace, ReferenceAndDerivedInputsLaunches) {
  for (const char* file : {kBwd, kBwdBf16})
    for (const int d : {64, 128}) {
      const SearchSpace space = SearchSpace::load(file);
      const Sizes sizes =
          space.resolve_problem("B=2,H=8,HKV=2,S=513,SKV=300,CAUSAL=1,D=" + std::to_string(d));
      const DeviceInfo hopper = offline_device("sm_90");
      const LaunchSpec reference = space.reference_launch(sizes, hopper);
      EXPECT_EQ(reference.grid, (std::array<std::uint32_t, 3>{17 * 8 * 2 + 10 * 2 * 2, 1, 1}));
      EXPECT_EQ(reference.block, (std::array<std::uint32_t, 3>{256, 1, 1}));
      EXPECT_EQ(reference.dynamic_smem_bytes, 1024u * d + 17920);
      const auto derived = space.derived_inputs_launch(sizes, hopper);
      ASSERT_TRUE(derived.has_value());
      EXPECT_EQ(derived->kernel_name, "flash_attn_ref_blocked");
      EXPECT_EQ(derived->grid, (std::array<std::uint32_t, 3>{17, 8, 2}));
      EXPECT_EQ(derived->dynamic_smem_bytes, 768u * d + 9216);
      EXPECT_TRUE(space.deterministic(config(64, 128, 2, 1, 1, 0), sizes, hopper));
      EXPECT_FALSE(space.deterministic(config(64, 128, 2, 1, 1, 1), sizes, hopper));
      EXPECT_FALSE(space.deterministic(config(64, 128, 2, 1, 1, 2), sizes, hopper));
      EXPECT_FALSE(space.deterministic(config(64, 128, 2, 1, 1, 3), sizes, hopper));
    }
}

}  // namespace attention_bwd_space_test
}  // namespace evotune
