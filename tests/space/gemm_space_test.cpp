// The GEMM spaces: the cuBLASLt baseline they name, the template's headers inlined into their version, and
// the swapped product (SWAP_AB): which tiles it allows at which M, the Seeds each problem opens with, the
// D map's box of its TMA epilogue, the staging of operands whose rows TMA cannot address (odd K or N), and
// stream-K (STREAM_K).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "space/search_space.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace gemm_space_test {

// The names of a launch's arguments, in order.
std::vector<std::string> argument_names(const LaunchSpec& launch) {
  std::vector<std::string> names;
  for (const ArgSpec& arg : launch.args) names.push_back(arg.name);
  return names;
}

// The name, clearing and element count of a scratch buffer of a launch.
void expect_scratch(const ScratchSpec& scratch, const std::string& name, bool zeroed, std::int64_t count) {
  EXPECT_EQ(scratch.name, name);
  EXPECT_EQ(scratch.zeroed, zeroed) << name;
  EXPECT_EQ(scratch.count, count) << name;
}

using testing::TempSpaces;

TEST(GemmSpace, NamesTheCublasLtBaselineOfThePlainProduct) {
  for (const char* file : {"search_spaces/gemm_wgmma.json", "search_spaces/gemm_wgmma_bf16.json"}) {
    const SearchSpace space = SearchSpace::load(file);
    const auto baseline = space.baseline(space.resolve_problem("M=77,N=5000,K=4096,B_KMAJOR=1"));
    ASSERT_TRUE(baseline) << file;
    EXPECT_EQ(baseline->library, "cublasLt");
    EXPECT_EQ(baseline->m, 77);
    EXPECT_EQ(baseline->n, 5000);
    EXPECT_EQ(baseline->k, 4096);
    EXPECT_TRUE(baseline->b_kmajor);
    EXPECT_EQ(baseline->a, "A");
    EXPECT_EQ(baseline->d, "D");
    EXPECT_EQ(baseline->input,
              std::string(file).find("bf16") != std::string::npos ? DType::bf16 : DType::f16);
    EXPECT_EQ(baseline->output, baseline->input);
    EXPECT_FALSE(space.baseline(space.resolve_problem("B_KMAJOR=0")).value().b_kmajor);
    // The library's plain product is no baseline for a product with a bias or an activation.
    EXPECT_FALSE(space.baseline(space.resolve_problem("BIAS=1")));
    EXPECT_FALSE(space.baseline(space.resolve_problem("ACT=2")));
  }
}

TEST(GemmSpace, ASpaceWithoutBaselineHasNone) {
  const SearchSpace space = SearchSpace::load("tests/data/spaces/saxpy.json");
  EXPECT_FALSE(space.baseline(space.resolve_problem("")));
}

TEST(GemmSpace, BaselineErrorsNameTheField) {
  TempSpaces temp;
  const auto expect_error = [&](const std::string& baseline, const std::string& expected) {
    const auto file = temp.write([&](auto& json) { json["Baseline"] = baseline; });
    try {
      SearchSpace::load(file);
      ADD_FAILURE() << "no error for " << baseline;
    } catch (const SpaceError& error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("Baseline"), std::string::npos) << error.what();
    }
  };
  expect_error("cuDNN", "unknown baseline 'cuDNN' (known: cublasLt)");
  // saxpy has no A [M, K]: the library's product does not fit it.
  expect_error("cublasLt", "needs a Vector argument 'A'");
}

TEST(GemmSpace, TheVersionCoversTheTemplatesOwnHeaders) {
  // A template's own headers (kernels/common/sm90/*.cuh for the GEMM template) are part of what every variant
  // compiles, so of the space's version: a changed header makes a new version, whose results are its own.
  TempSpaces temp;
  std::ifstream saxpy(testing::kSpaces / "saxpy.cu");
  const std::string kernel((std::istreambuf_iterator<char>(saxpy)), std::istreambuf_iterator<char>());
  const auto header = temp.write_text("helpers.cuh", "#pragma once\n// version 1\n");
  const auto templ = temp.write_text("t.cu", "#include \"helpers.cuh\"\n" + kernel);
  const auto file =
      temp.write([&](auto& json) { json["KernelSpecification"]["KernelFile"] = templ.string(); });
  const std::string before = SearchSpace::load(file).hash();
  EXPECT_EQ(SearchSpace::load(file).hash(), before);
  temp.write_text("helpers.cuh", "#pragma once\n// version 2\n");
  EXPECT_NE(SearchSpace::load(file).hash(), before);
  (void)header;
}

// The GEMM spaces of a 16-bit D (their fp32-D twins: AnFp32DHoldsHalfTheColumnsOfABoxAndIsOtherwiseItsTwin).
const char* const kGemmSpaces[] = {"search_spaces/gemm_wgmma.json", "search_spaces/gemm_wgmma_bf16.json"};

TEST(GemmSpace, SwappedTilesServeFewRowsOnly) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : kGemmSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const auto swapped = [](const Config& config) { return config.at("SWAP_AB") == 1; };
    // Large M (4096^3): none swapped, none split (split_k_for_few_tiles), no 64 x 64 tile (4096 of them:
    // small_tiles_for_few_tiles), no stream-K (STREAM_K 1: 512 tiles and more are three waves and more,
    // stream_k_for_partial_waves, so the counts are those from before the parameter); rings up to 16 stages
    // where they fit; B [K, N] in 2 x 1 clusters with tiles of any number of 64-column slabs (each block
    // multicasts half of a stage's k rows), 5480 before; every config with PDL 0 and 1.
    for (const auto& [problem, count] : {std::pair{"B_KMAJOR=0", 13080u}, std::pair{"B_KMAJOR=1", 30840u}}) {
      const auto configs = space.enumerate(space.resolve_problem(problem), hopper);
      EXPECT_EQ(configs.size(), count) << file << " " << problem;
      EXPECT_EQ(std::count_if(configs.begin(), configs.end(), swapped), 0) << file << " " << problem;
    }
    for (const char* problem : {"M=1,B_KMAJOR=0", "M=16,B_KMAJOR=1", "M=77,B_KMAJOR=0", "M=128,B_KMAJOR=1"}) {
      const auto sizes = space.resolve_problem(problem);
      const auto configs = space.enumerate(sizes, hopper);
      EXPECT_GT(std::count_if(configs.begin(), configs.end(), swapped), 0) << file << " " << problem;
      for (const Config& config : configs) {
        const auto block_m = config.at("BLOCK_M"), block_n = config.at("BLOCK_N");
        const auto warpgroups = config.at("CONSUMER_WARPGROUPS");
        if (!swapped(config)) {
          EXPECT_EQ(block_m % 64, 0) << "unswapped, BLOCK_M is wgmma's m: " << canonical_json(config);
          continue;
        }
        // Swapped: BLOCK_N is wgmma's m (64 or 128 rows a consumer warpgroup), BLOCK_M its n, under 128 rows
        // and at most two tiles covering M.
        EXPECT_TRUE(block_n / warpgroups == 64 || block_n / warpgroups == 128) << canonical_json(config);
        EXPECT_LT(block_m, 128) << canonical_json(config);
        EXPECT_LE(sizes.at("M"), 2 * block_m) << canonical_json(config);
        EXPECT_LE(block_n / warpgroups / 64 * block_m / 2, 128) << "accumulators: " << canonical_json(config);
        if (config.at("CLUSTER_N") == 2) {
          EXPECT_EQ(block_m % 16, 0) << "A halves: " << canonical_json(config);
        }
      }
    }
    // M = 77: two swapped tiles of 48 or 64 rows, or one of 80, 96 or 112.
    const auto configs = space.enumerate(space.resolve_problem("M=77"), hopper);
    for (const Config& config : configs) {
      if (swapped(config)) {
        EXPECT_GE(config.at("BLOCK_M"), 48) << canonical_json(config);
      }
    }
    for (const int block_m : {48, 80, 112})
      EXPECT_TRUE(std::any_of(
          configs.begin(), configs.end(),
          [&](const Config& config) { return swapped(config) && config.at("BLOCK_M") == block_m; }))
          << file << " swapped BLOCK_M " << block_m;
  }
}

// Split-K only where the tiles alone leave SMs idle: at M = 77, N = 5000 the swapped 80 x 128 tile (40 tiles)
// splits K in three (120 blocks), at 4096^3 nothing splits. Swapped tiles take B in either layout.
TEST(GemmSpace, SplitKOnlyWhereTheTilesLeaveSmsIdle) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : kGemmSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    for (const char* problem : {"M=77,N=5000,K=4096,B_KMAJOR=0", "M=77,N=5000,K=4096,B_KMAJOR=1",
                                "M=128,N=14336,K=4096,B_KMAJOR=1", "M=4096,N=4096,K=4096,B_KMAJOR=0"}) {
      const auto sizes = space.resolve_problem(problem);
      const auto configs = space.enumerate(sizes, hopper);
      std::size_t split = 0;
      for (const Config& config : configs) {
        if (config.at("SPLIT_K") == 1) continue;
        ++split;
        const auto tiles = (sizes.at("M") + config.at("BLOCK_M") - 1) / config.at("BLOCK_M") *
                           ((sizes.at("N") + config.at("BLOCK_N") - 1) / config.at("BLOCK_N"));
        EXPECT_LT(tiles, hopper.sm_count) << problem << " " << canonical_json(config);
      }
      EXPECT_EQ(split == 0, std::string(problem).find("M=4096") == 0) << problem;
    }
    for (const char* problem : {"M=77,N=5000,K=4096,B_KMAJOR=0", "M=77,N=5000,K=4096,B_KMAJOR=1"}) {
      const auto configs = space.enumerate(space.resolve_problem(problem), hopper);
      EXPECT_TRUE(std::any_of(configs.begin(), configs.end(),
                              [](const Config& config) {
                                return config.at("SWAP_AB") == 1 && config.at("BLOCK_M") == 80 &&
                                       config.at("BLOCK_N") == 128 && config.at("SPLIT_K") == 3;
                              }))
          << file << " " << problem;
    }
    // 112- and 224-column tiles cut N = 14336 and 28672 into 128 tiles; only B [N, K] is loaded in rows of
    // any count (B [K, N] in 64-column slabs).
    for (const auto& [problem, wanted] : {std::pair{"M=128,N=14336,K=4096,B_KMAJOR=1", true},
                                          std::pair{"M=128,N=14336,K=4096,B_KMAJOR=0", false}}) {
      const auto configs = space.enumerate(space.resolve_problem(problem), hopper);
      EXPECT_EQ(std::any_of(configs.begin(), configs.end(),
                            [](const Config& config) { return config.at("BLOCK_N") == 112; }),
                wanted)
          << file << " " << problem;
    }
  }
}

// evolve's first generation opens with the first four Seeds valid for the problem, in the order a search on
// it gets them (seeds_for: the Seed found for the nearest Problem first, the Seeds that name none at the
// default problem, 4096^3). The small-M Seeds name their problems, so that each M of the LLM table opens with
// the configs a kernel engineer tries first: swapped tiles with split-K for M = 1 and 16, swapped 80-row
// tiles for M = 77 (one 80 x 64 tile a 64-column slab ran 16.6 us at 77 x 5000 x 4096 where a search that
// opened with 64 x 64, 128 x 128 split-K 4 and 2 and swapped 80 x 128 split-K 3 found 21.6), one 128-row tile
// with split-K or a width dividing N into about 128 tiles for M = 128, the 128 x 256 and 256 x 128 persistent
// tiles for large M.
TEST(GemmSpace, SeedsOpenEachMBucketWithItsOwn) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : kGemmSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const auto first_valid = [&](const char* problem) {
      std::vector<Config> valid;
      const auto sizes = space.resolve_problem(problem);
      for (const Config& seed : space.seeds_for(sizes))
        if (valid.size() < 4 && space.check(seed, sizes, hopper).valid) valid.push_back(seed);
      return valid;
    };
    struct Tile {
      int block_m, block_n, swap, split_k;
    };
    const auto expect_tiles = [&](const char* problem, const std::vector<Tile>& tiles) {
      const auto seeds = first_valid(problem);
      ASSERT_EQ(seeds.size(), tiles.size()) << file << " " << problem;
      for (std::size_t i = 0; i < seeds.size(); ++i) {
        EXPECT_EQ(seeds[i].at("BLOCK_M"), tiles[i].block_m) << problem << " " << i;
        EXPECT_EQ(seeds[i].at("BLOCK_N"), tiles[i].block_n) << problem << " " << i;
        EXPECT_EQ(seeds[i].at("SWAP_AB"), tiles[i].swap) << problem << " " << i;
        EXPECT_EQ(seeds[i].at("SPLIT_K"), tiles[i].split_k) << problem << " " << i;
      }
    };
    expect_tiles("M=1,N=4096,K=4096,B_KMAJOR=1",
                 {{8, 64, 1, 1}, {16, 64, 1, 1}, {16, 128, 1, 4}, {16, 256, 1, 8}});
    // The M = 77 Seeds lie nearer (in log2 of the sizes) than the M = 128 ones: a swapped 80 x 64 fourth.
    for (const char* problem : {"M=16,N=4096,K=4096,B_KMAJOR=1", "M=16,N=4096,K=4096,B_KMAJOR=0"})
      expect_tiles(problem, {{8, 64, 1, 1}, {16, 64, 1, 1}, {16, 128, 1, 4}, {80, 64, 1, 1}});
    // A long K or N: the Seeds found for 16 x 28672 x 8192 (112 tiles of 256 columns take split-K 8) first.
    for (const char* problem : {"M=16,N=28672,K=8192,B_KMAJOR=1", "M=16,N=8192,K=28672,B_KMAJOR=1"})
      expect_tiles(problem, {{16, 256, 1, 8}, {16, 256, 1, 1}, {8, 64, 1, 1}, {16, 64, 1, 1}});
    // 64 x 64 tiles (128 of them at 128 x 4096) where they are at most two waves; N = 14336 in 128 tiles of
    // 112, then the Seeds of 128 x 8192 x 8192 (64 x 128 in pairs sharing B) and 128 x 28672 x 8192.
    expect_tiles("M=128,N=4096,K=4096,B_KMAJOR=1",
                 {{64, 64, 0, 1}, {128, 128, 0, 4}, {80, 64, 1, 1}, {80, 128, 1, 3}});
    expect_tiles("M=128,N=14336,K=4096,B_KMAJOR=1",
                 {{128, 112, 0, 1}, {64, 128, 0, 1}, {128, 224, 0, 1}, {128, 128, 0, 4}});
    expect_tiles("M=77,N=5000,K=4096,B_KMAJOR=0",
                 {{80, 64, 1, 1}, {80, 128, 1, 3}, {64, 64, 0, 1}, {128, 128, 0, 4}});
    for (const char* problem :
         {"M=4096,B_KMAJOR=1", "M=16384,N=28672,K=8192,B_KMAJOR=1", "M=8192,N=8192,K=8192,B_KMAJOR=0"})
      expect_tiles(problem, {{128, 256, 0, 1}, {256, 128, 0, 1}, {128, 256, 0, 1}, {128, 256, 0, 1}});
    // 1024 x 4096 x 4096 lies nearer 1000 x 3000 x 2000 than 4096^3: its Seed (128 x 192 in 2 x 1 pairs)
    // first.
    expect_tiles("M=1024,B_KMAJOR=0",
                 {{128, 192, 0, 1}, {128, 256, 0, 1}, {256, 128, 0, 1}, {128, 256, 0, 1}});
    const auto large = first_valid("M=8192,N=8192,K=8192,B_KMAJOR=0");
    EXPECT_EQ(large[3].at("CLUSTER_M"), 2) << "the fourth: 128 x 256 in clusters of 2 x 1 sharing B";
    // N odd refuses the TMA store of D: the large tiles' register-epilogue forms (the last Seeds) open.
    for (const char* problem : {"M=4095,N=4097,K=4093,B_KMAJOR=0", "M=4095,N=4097,K=4093,B_KMAJOR=1"})
      expect_tiles(problem, {{128, 256, 0, 1}, {256, 128, 0, 1}, {128, 256, 0, 1}, {128, 256, 0, 1}});
    for (const char* problem : {"M=4095,N=4097,K=4093,B_KMAJOR=0", "M=4095,N=4097,K=4093,B_KMAJOR=1"})
      for (const Config& seed : first_valid(problem)) EXPECT_EQ(seed.at("EPILOGUE"), 0) << problem;
  }
}

// 128 x 128 tiles, two consumer warpgroups, 6 stages, split-K 4 reduced by `epilogue` (128 blocks at 128 x
// 4096 x 4096, the shape the reductions were measured at).
Config split_k_4_tile(int epilogue) {
  return {
      {"BLOCK_M", 128},  {"BLOCK_N", 128}, {"SWAP_AB", 0},         {"STAGES", 6},  {"CONSUMER_WARPGROUPS", 2},
      {"PERSISTENT", 0}, {"RASTER", 0},    {"SWIZZLE", 1},         {"SPLIT_K", 4}, {"STREAM_K", 0},
      {"CLUSTER_M", 1},  {"CLUSTER_N", 1}, {"EPILOGUE", epilogue}, {"PDL", 0}};
}

// EPILOGUE 2 reduces split-K's slices in the kernel: one launch, the fp32 partial sums and a zeroed counter
// a consumer warp of each tile as scratch; only with slices, and only where the reduction's loads fit the
// registers beside the accumulators. Its Seeds follow the two-kernel forms' (measured twice as fast on an
// H100), so a few-tile problem's search still meets it.
TEST(GemmSpace, SplitKReducedInTheKernelIsOneLaunchWithZeroedCounters) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : kGemmSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const auto sizes = space.resolve_problem("M=128,N=4096,K=4096,B_KMAJOR=1");
    Config config = split_k_4_tile(2);
    ASSERT_TRUE(space.check(config, sizes, hopper).valid) << file;
    const LaunchSpec launch = space.variant_launch(config, sizes, hopper);
    EXPECT_EQ(launch.kernel_name, "gemm_wgmma");
    EXPECT_TRUE(launch.then.empty()) << "no reduction kernel";
    EXPECT_EQ(launch.grid[0], 32u * 4u);
    EXPECT_EQ(argument_names(launch), (std::vector<std::string>{"A_map", "B_map", "D", "bias", "partial",
                                                                "arrivals", "M", "N", "K"}));
    ASSERT_EQ(launch.scratch.size(), 2u);
    expect_scratch(launch.scratch[0], "partial", false, 4 * 128 * 4096);
    expect_scratch(launch.scratch[1], "arrivals", true,
                   32 * 2 * 4);  // a counter a consumer warp of each tile
    EXPECT_EQ(launch.scratch[1].dtype, DType::i32);

    // The two-kernel form keeps its launches and never sees the counters.
    config["EPILOGUE"] = 0;
    const LaunchSpec two = space.variant_launch(config, sizes, hopper);
    ASSERT_EQ(two.then.size(), 1u);
    EXPECT_EQ(two.then[0].kernel_name, "gemm_splitk_reduce");
    ASSERT_EQ(two.scratch.size(), 1u);
    EXPECT_EQ(two.scratch[0].name, "partial");

    config["SPLIT_K"] = 1;
    config["EPILOGUE"] = 2;
    EXPECT_FALSE(space.check(config, sizes, hopper).valid) << "nothing to reduce";
    config = {
        {"BLOCK_M", 128},  {"BLOCK_N", 192}, {"SWAP_AB", 0},  {"STAGES", 4},  {"CONSUMER_WARPGROUPS", 2},
        {"PERSISTENT", 0}, {"RASTER", 0},    {"SWIZZLE", 1},  {"SPLIT_K", 2}, {"STREAM_K", 0},
        {"CLUSTER_M", 1},  {"CLUSTER_N", 1}, {"EPILOGUE", 2}, {"PDL", 0}};
    EXPECT_FALSE(space.check(config, space.resolve_problem("M=128,N=2048,K=4096,B_KMAJOR=1"), hopper).valid)
        << "96 accumulators a thread: the reduction would spill";

    for (const char* problem : {"M=128,N=4096,K=4096,B_KMAJOR=1", "M=16,N=8192,K=8192,B_KMAJOR=1",
                                "M=77,N=5000,K=4096,B_KMAJOR=0", "M=77,N=5000,K=4096,B_KMAJOR=1"}) {
      const auto problem_sizes = space.resolve_problem(problem);
      const auto seed =
          std::find_if(space.seeds().begin(), space.seeds().end(), [&](const Config& candidate) {
            return candidate.at("EPILOGUE") == 2 && space.check(candidate, problem_sizes, hopper).valid;
          });
      EXPECT_NE(seed, space.seeds().end()) << file << " " << problem << ": a Seed reduces in the kernel";
    }
  }
}

// EPILOGUE 3 sums split-K's slices in L2: one launch, every slice adding into one zeroed fp32 tile [M, N]
// beside the zeroed counters, no partial sums; only with slices; any accumulator count (the sums replace the
// accumulators, no register condition); the bitwise repeat skipped for it alone (the additions' order
// varies). Its seeds come after the first four of every problem, which the tests above pin.
TEST(GemmSpace, SplitKSummedInL2IsOneLaunchWithZeroedSumsAndCounters) {
  const DeviceInfo hopper = offline_device("sm_90");
  for (const char* file : kGemmSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const auto sizes = space.resolve_problem("M=128,N=4096,K=4096,B_KMAJOR=1");
    Config config = split_k_4_tile(3);
    ASSERT_TRUE(space.check(config, sizes, hopper).valid) << file;
    EXPECT_FALSE(space.deterministic(config, sizes, hopper)) << "the additions' order varies";
    const LaunchSpec launch = space.variant_launch(config, sizes, hopper);
    EXPECT_EQ(launch.kernel_name, "gemm_wgmma");
    EXPECT_TRUE(launch.then.empty()) << "no reduction kernel";
    EXPECT_EQ(launch.grid[0], 32u * 4u);
    EXPECT_EQ(argument_names(launch), (std::vector<std::string>{"A_map", "B_map", "D", "bias", "acc_sum",
                                                                "arrivals", "M", "N", "K"}));
    ASSERT_EQ(launch.scratch.size(), 2u) << "no partial sums";
    expect_scratch(launch.scratch[0], "arrivals", true, 32 * 2 * 4);  // in the order the space declares them
    expect_scratch(launch.scratch[1], "acc_sum", true, 128 * 4096);   // one fp32 tile of D, whatever SPLIT_K
    EXPECT_EQ(launch.scratch[1].dtype, DType::f32);

    for (const int epilogue : {0, 2}) {  // the other split-K forms stay bitwise repeatable
      config["EPILOGUE"] = epilogue;
      EXPECT_TRUE(space.deterministic(config, sizes, hopper)) << file << " EPILOGUE " << epilogue;
    }
    config["SPLIT_K"] = 1;
    config["EPILOGUE"] = 1;
    EXPECT_TRUE(space.deterministic(config, sizes, hopper)) << file;
    config["EPILOGUE"] = 3;
    EXPECT_FALSE(space.check(config, sizes, hopper).valid) << "nothing to sum";

    // 128 accumulators a thread: EPILOGUE 2 would spill, EPILOGUE 3 does not.
    config = {
        {"BLOCK_M", 128},  {"BLOCK_N", 256}, {"SWAP_AB", 0},  {"STAGES", 4},  {"CONSUMER_WARPGROUPS", 2},
        {"PERSISTENT", 0}, {"RASTER", 0},    {"SWIZZLE", 1},  {"SPLIT_K", 2}, {"STREAM_K", 0},
        {"CLUSTER_M", 1},  {"CLUSTER_N", 1}, {"EPILOGUE", 3}, {"PDL", 0}};
    const auto wide = space.resolve_problem("M=128,N=2048,K=4096,B_KMAJOR=1");
    EXPECT_TRUE(space.check(config, wide, hopper).valid) << file;
    config["EPILOGUE"] = 2;
    EXPECT_FALSE(space.check(config, wide, hopper).valid) << file;

    // Each few-tile problem has its EPILOGUE 3 seed among the valid ones.
    struct Expected {
      const char* problem;
      int block_m, block_n, swap, split_k;
    };
    for (const Expected& expected : {Expected{"M=128,N=4096,K=4096,B_KMAJOR=1", 128, 128, 0, 4},
                                     Expected{"M=16,N=4096,K=4096,B_KMAJOR=1", 16, 128, 1, 4},
                                     Expected{"M=77,N=5000,K=4096,B_KMAJOR=0", 80, 128, 1, 3}}) {
      const auto problem_sizes = space.resolve_problem(expected.problem);
      const auto seed =
          std::find_if(space.seeds().begin(), space.seeds().end(), [&](const Config& candidate) {
            return candidate.at("EPILOGUE") == 3 && candidate.at("BLOCK_M") == expected.block_m &&
                   candidate.at("BLOCK_N") == expected.block_n && candidate.at("SWAP_AB") == expected.swap &&
                   candidate.at("SPLIT_K") == expected.split_k;
          });
      ASSERT_NE(seed, space.seeds().end()) << file << " " << expected.problem;
      EXPECT_TRUE(space.check(*seed, problem_sizes, hopper).valid) << file << " " << expected.problem;
      EXPECT_FALSE(space.deterministic(*seed, problem_sizes, hopper)) << file << " " << expected.problem;
    }
  }
}

// A tile whose D goes out through the TMA epilogue's staging boxes (EPILOGUE 1), 4 stages, one block a tile.
Config staged_tile(int block_m, int block_n, int swap, int consumer_warpgroups) {
  return {{"BLOCK_M", block_m},
          {"BLOCK_N", block_n},
          {"SWAP_AB", swap},
          {"STAGES", 4},
          {"CONSUMER_WARPGROUPS", consumer_warpgroups},
          {"PERSISTENT", 0},
          {"RASTER", 0},
          {"SWIZZLE", 1},
          {"SPLIT_K", 1},
          {"STREAM_K", 0},
          {"CLUSTER_M", 1},
          {"CLUSTER_N", 1},
          {"EPILOGUE", 1},
          {"PDL", 0}};
}

// EPILOGUE 1 stores D through staging boxes of the D map's box: 64 rows unswapped; swapped, the largest of
// 64, 32, 16 and 8 that divides BLOCK_M (96 rows: three boxes of 32).
TEST(GemmSpace, TheSwappedStagingBoxTilesTheBlocksRows) {
  const SearchSpace space = SearchSpace::load("search_spaces/gemm_wgmma.json");
  const DeviceInfo hopper = offline_device("sm_90");
  const auto box_rows = [&](int block_m, int block_n, int swap) {
    const Config config = staged_tile(block_m, block_n, swap, 1);
    const auto launch = space.variant_launch(config, space.resolve_problem("M=16,B_KMAJOR=1"), hopper);
    for (const ArgSpec& arg : launch.args)
      if (arg.kind == ArgSpec::Kind::tensor_map && arg.map.buffer == "D") {
        EXPECT_EQ(arg.map.box.at(0), 64);
        return arg.map.box.at(1);
      }
    ADD_FAILURE() << "no D map in the launch";
    return std::int64_t{0};
  };
  EXPECT_EQ(box_rows(64, 128, 0), 64);
  EXPECT_EQ(box_rows(128, 128, 0), 64);
  EXPECT_EQ(box_rows(8, 128, 1), 8);
  EXPECT_EQ(box_rows(16, 64, 1), 16);
  EXPECT_EQ(box_rows(32, 128, 1), 32);
  EXPECT_EQ(box_rows(64, 128, 1), 64);
  EXPECT_EQ(box_rows(96, 128, 1), 32);
  EXPECT_EQ(box_rows(48, 128, 1), 16);
  EXPECT_EQ(box_rows(80, 128, 1), 16);
  EXPECT_EQ(box_rows(112, 128, 1), 16);
}

// The kernels a variant launches, in order.
std::vector<std::string> kernels_of(const LaunchSpec& launch) {
  std::vector<std::string> names;
  for (const LaunchSpec* step : launch_steps(launch)) names.push_back(step->kernel_name);
  return names;
}

const TensorMapSpec& map_named(const LaunchSpec& launch, const std::string& name) {
  for (const LaunchSpec* step : launch_steps(launch))
    for (const ArgSpec& arg : step->args)
      if (arg.kind == ArgSpec::Kind::tensor_map && arg.name == name) return arg.map;
  throw Error("no tensor map " + name);
}

// An fp32 D (the _out_f32 spaces, -DOUT_FLOAT=1): its staging boxes are the same 128 bytes wide, so 32
// columns where a 16-bit D's hold 64 (unswapped tiles whose row of D is a multiple of 128 bytes, and every
// swapped tile: two boxes an m64 atom), and 16 at 176 columns (704 bytes: boxes of 64 bytes) as a 16-bit D's;
// TMA stores rows a multiple of 16 bytes apart, so N = 4100 takes the TMA epilogue in fp32 only; otherwise
// the twins are one space: the same valid configs, D float, and a bound on the error that a D rounded through
// 16 bits on the way would exceed.
TEST(GemmSpace, AnFp32DHoldsHalfTheColumnsOfABoxAndIsOtherwiseItsTwin) {
  const DeviceInfo hopper = offline_device("sm_90");
  const auto box_cols = [&](const SearchSpace& space, int block_m, int block_n, int swap) {
    const Config config = staged_tile(block_m, block_n, swap, !swap && block_m == 128 ? 2 : 1);
    const char* problem = swap ? "M=16,B_KMAJOR=1" : "M=1024,B_KMAJOR=1";
    const ConstraintCheck check = space.check(config, space.resolve_problem(problem), hopper);
    EXPECT_TRUE(check.valid) << block_m << "x" << block_n << ": " << check.condition;
    return map_named(space.variant_launch(config, space.resolve_problem(problem), hopper), "D_map").box.at(0);
  };
  for (const auto& [narrow, wide] :
       {std::pair{"search_spaces/gemm_wgmma.json", "search_spaces/gemm_wgmma_out_f32.json"},
        std::pair{"search_spaces/gemm_wgmma_bf16.json", "search_spaces/gemm_wgmma_bf16_out_f32.json"}}) {
    const SearchSpace half = SearchSpace::load(narrow), full = SearchSpace::load(wide);
    for (const auto& [block_m, block_n, swap, half_cols, full_cols] :
         std::vector<std::tuple<int, int, int, int, int>>{{128, 128, 0, 64, 32},
                                                          {128, 256, 0, 64, 32},
                                                          {64, 96, 0, 32, 32},
                                                          {128, 112, 0, 16, 16},
                                                          {128, 176, 0, 16, 16},
                                                          {128, 224, 0, 32, 32},
                                                          {16, 128, 1, 64, 32},
                                                          {80, 64, 1, 64, 32}}) {
      EXPECT_EQ(box_cols(half, block_m, block_n, swap), half_cols)
          << narrow << " " << block_m << "x" << block_n;
      EXPECT_EQ(box_cols(full, block_m, block_n, swap), full_cols)
          << wide << " " << block_m << "x" << block_n;
    }
    const auto tma_epilogue = [&](const SearchSpace& space, const char* problem) {
      const auto configs = space.enumerate(space.resolve_problem(problem), hopper);
      return std::any_of(configs.begin(), configs.end(),
                         [](const Config& c) { return c.at("EPILOGUE") == 1; });
    };
    EXPECT_FALSE(tma_epilogue(half, "M=1024,N=4100,K=1024,B_KMAJOR=1")) << "4100 halves: 8200 bytes a row";
    EXPECT_TRUE(tma_epilogue(full, "M=1024,N=4100,K=1024,B_KMAJOR=1")) << "4100 floats: 16400 bytes a row";
    EXPECT_FALSE(tma_epilogue(full, "M=1024,N=4102,K=1024,B_KMAJOR=1")) << "4102 floats: 16408 bytes a row";
    for (const char* problem : {"M=4096,B_KMAJOR=0", "M=16,B_KMAJOR=1", "M=4095,N=4097,K=4093,B_KMAJOR=1"})
      EXPECT_EQ(full.enumerate(full.resolve_problem(problem), hopper).size(),
                half.enumerate(half.resolve_problem(problem), hopper).size())
          << wide << " " << problem;
    const auto d_type = [](const SearchSpace& space) {
      for (const auto& argument : space.arguments())
        if (argument.name == "D") return argument.dtype;
      throw Error("no D");
    };
    EXPECT_EQ(d_type(full), DType::f32);
    const auto baseline = full.baseline(full.resolve_problem("M=1024,B_KMAJOR=1"));
    ASSERT_TRUE(baseline.has_value());
    EXPECT_EQ(baseline->output, DType::f32) << "cuBLASLt timed writing fp32 too";
    EXPECT_EQ(baseline->input, d_type(half));
    EXPECT_NE(d_type(half), DType::f32);
    const auto& options = full.compiler_options();
    EXPECT_NE(std::find(options.begin(), options.end(), "-DOUT_FLOAT=1"), options.end());
    EXPECT_LT(full.tolerances().rel_l2, 2.8e-4) << "a D rounded to fp16: about 2.8e-4";
  }
}

// Sizes whose rows TMA cannot address: the operand whose rows are K (A, B [N, K]) or N (B [K, N]) elements
// long, where that is not a multiple of 8, is staged by a first launch into scratch rows padded to a
// multiple of 8, and its map describes the copy (same dims, the padded stride); only D's TMA store is
// refused where N is odd. Aligned sizes launch as before.
TEST(GemmSpace, OddSizesStageTheOperandsWhoseRowsTmaCannotAddress) {
  const DeviceInfo hopper = offline_device("sm_90");
  const Config config{
      {"BLOCK_M", 128},  {"BLOCK_N", 256}, {"SWAP_AB", 0},  {"STAGES", 4},  {"CONSUMER_WARPGROUPS", 2},
      {"PERSISTENT", 1}, {"RASTER", 1},    {"SWIZZLE", 8},  {"SPLIT_K", 1}, {"STREAM_K", 0},
      {"CLUSTER_M", 1},  {"CLUSTER_N", 1}, {"EPILOGUE", 0}, {"PDL", 0}};
  for (const char* file : kGemmSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const auto epilogue_1 = [](const Config& c) { return c.at("EPILOGUE") == 1; };
    for (const char* problem : {"M=4095,N=4097,K=4093,B_KMAJOR=0", "M=4095,N=4097,K=4093,B_KMAJOR=1",
                                "M=1000,N=3000,K=2000,B_KMAJOR=0", "M=1000,N=3000,K=2000,B_KMAJOR=1"}) {
      const auto configs = space.enumerate(space.resolve_problem(problem), hopper);
      EXPECT_GT(configs.size(), 1000u) << file << " " << problem;
      const bool odd_n = std::string(problem).find("N=4097") != std::string::npos;
      EXPECT_EQ(std::any_of(configs.begin(), configs.end(), epilogue_1), !odd_n)
          << file << " " << problem << ": D's TMA store only where N is a multiple of 8";
    }
    const std::int64_t k_pitch = 4096, n_pitch = 4104;  // 4093 and 4097 rounded up to multiples of 8

    // B [K, N], K and N odd: A's rows (K) and B's rows (N) both staged.
    auto launch =
        space.variant_launch(config, space.resolve_problem("M=4095,N=4097,K=4093,B_KMAJOR=0"), hopper);
    EXPECT_EQ(kernels_of(launch), (std::vector<std::string>{"gemm_stage_a", "gemm_stage_b", "gemm_wgmma"}));
    const TensorMapSpec& a = map_named(launch, "A_map");
    EXPECT_EQ(a.buffer, "A_staged");
    EXPECT_EQ(a.dims, (std::vector<std::int64_t>{4093, 4095})) << "TMA's zeros past K, as before";
    EXPECT_EQ(a.strides, (std::vector<std::int64_t>{2 * k_pitch}));
    const TensorMapSpec& b = map_named(launch, "B_map");
    EXPECT_EQ(b.buffer, "B_staged");
    EXPECT_EQ(b.dims, (std::vector<std::int64_t>{4097, 4093}));
    EXPECT_EQ(b.strides, (std::vector<std::int64_t>{2 * n_pitch}));
    ASSERT_EQ(launch.scratch.size(), 2u);
    EXPECT_EQ(launch.scratch[0].name, "A_staged");
    EXPECT_EQ(launch.scratch[0].count, 4095 * k_pitch);
    EXPECT_EQ(launch.scratch[1].name, "B_staged");
    EXPECT_EQ(launch.scratch[1].count, 4093 * n_pitch);
    // The staging launch: A, its copy, then its rows and columns; 256 threads a block, a grid of at most 32
    // blocks an SM walking the 16-byte chunks.
    EXPECT_EQ(launch.args.at(0).name, "A");
    EXPECT_EQ(launch.args.at(1).name, "A_staged");
    EXPECT_EQ(launch.args.at(2).value, 4095);
    EXPECT_EQ(launch.args.at(3).value, 4093);
    EXPECT_EQ(launch.block[0], 256u);
    EXPECT_EQ(launch.grid[0], std::min<std::uint32_t>((4095 * 4096 / 8 + 255) / 256, 32 * hopper.sm_count));

    // B [N, K], K odd: both rows are K long, both staged, B's rows padded like A's.
    launch = space.variant_launch(config, space.resolve_problem("M=4095,N=4097,K=4093,B_KMAJOR=1"), hopper);
    EXPECT_EQ(kernels_of(launch), (std::vector<std::string>{"gemm_stage_a", "gemm_stage_b", "gemm_wgmma"}));
    EXPECT_EQ(map_named(launch, "B_map").dims, (std::vector<std::int64_t>{4093, 4097}));
    EXPECT_EQ(map_named(launch, "B_map").strides, (std::vector<std::int64_t>{2 * k_pitch}));
    EXPECT_EQ(launch.scratch.at(1).count, 4097 * k_pitch);

    // Only N odd: B [K, N] is staged, A is not; B [N, K] needs nothing (D is stored from registers).
    launch = space.variant_launch(config, space.resolve_problem("M=4096,N=4097,K=4096,B_KMAJOR=0"), hopper);
    EXPECT_EQ(kernels_of(launch), (std::vector<std::string>{"gemm_stage_b", "gemm_wgmma"}));
    EXPECT_EQ(map_named(launch, "A_map").buffer, "A");
    EXPECT_EQ(map_named(launch, "A_map").strides, (std::vector<std::int64_t>{2 * 4096}));
    ASSERT_EQ(launch.scratch.size(), 1u);
    EXPECT_EQ(launch.scratch[0].name, "B_staged");
    launch = space.variant_launch(config, space.resolve_problem("M=4096,N=4097,K=4096,B_KMAJOR=1"), hopper);
    EXPECT_EQ(kernels_of(launch), (std::vector<std::string>{"gemm_wgmma"}));
    EXPECT_TRUE(launch.scratch.empty());

    // Aligned sizes: one launch over the caller's buffers, as before.
    for (const char* problem : {"B_KMAJOR=0", "M=1000,N=3000,K=2000,B_KMAJOR=1", "M=77,N=5000,K=4096"}) {
      launch = space.variant_launch(config, space.resolve_problem(problem), hopper);
      EXPECT_EQ(kernels_of(launch), (std::vector<std::string>{"gemm_wgmma"})) << problem;
      EXPECT_EQ(map_named(launch, "A_map").buffer, "A") << problem;
      EXPECT_EQ(map_named(launch, "B_map").buffer, "B") << problem;
      EXPECT_TRUE(launch.scratch.empty()) << problem;
    }

    // The extra problem every variant must also get right is one past in M and K: an aligned problem's
    // variants are validated once more with A staged (K + 1 odd), an odd one's with K still odd; N + 8 keeps
    // the TMA store's alignment.
    const auto extra = space.extra_problems(space.resolve_problem("M=4096,N=4096,K=4096,B_KMAJOR=1"));
    ASSERT_EQ(extra.size(), 1u);
    EXPECT_EQ(extra[0].at("M"), 4097);
    EXPECT_EQ(extra[0].at("N"), 4104);
    EXPECT_EQ(extra[0].at("K"), 4097);
    launch = space.variant_launch(config, extra[0], hopper);
    EXPECT_EQ(kernels_of(launch), (std::vector<std::string>{"gemm_stage_a", "gemm_stage_b", "gemm_wgmma"}));
  }
}

// A stream-K config (STREAM_K 1): persistent, unsplit, without clusters, summed in L2 (EPILOGUE 3).
Config stream_k_tile(int block_m, int block_n, int swap, int stages, int warpgroups) {
  return {{"BLOCK_M", block_m},
          {"BLOCK_N", block_n},
          {"SWAP_AB", swap},
          {"STAGES", stages},
          {"CONSUMER_WARPGROUPS", warpgroups},
          {"PERSISTENT", 1},
          {"RASTER", 0},
          {"SWIZZLE", 1},
          {"SPLIT_K", 1},
          {"STREAM_K", 1},
          {"CLUSTER_M", 1},
          {"CLUSTER_N", 1},
          {"EPILOGUE", 3},
          {"PDL", 0}};
}

// STREAM_K 1 (issue 24): one launch of min(SMs, tiles x k steps) blocks, EPILOGUE 3's arguments and zeroed
// scratch (acc_sum for the shared tiles' sums, a counter a consumer warp of each tile), not bitwise
// repeatable; only unsplit, persistent, without clusters, with EPILOGUE 3, and only where the tiles leave
// part of a wave idle and are fewer than three waves (so that the large problems' candidates, which the test
// above pins, are unchanged).
TEST(GemmSpace, StreamKIsOneLaunchOfAtMostOneBlockAnSm) {
  const DeviceInfo hopper = offline_device("sm_90");
  ASSERT_EQ(hopper.sm_count, 132);
  for (const char* file : kGemmSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const auto sizes = space.resolve_problem("M=77,N=5000,K=4096,B_KMAJOR=0");
    Config config = stream_k_tile(80, 64, 1, 8, 1);
    ASSERT_TRUE(space.check(config, sizes, hopper).valid)
        << file << " " << space.check(config, sizes, hopper).reason;
    EXPECT_FALSE(space.deterministic(config, sizes, hopper)) << "the shared tiles' additions vary in order";
    const LaunchSpec launch = space.variant_launch(config, sizes, hopper);
    EXPECT_EQ(kernels_of(launch), (std::vector<std::string>{"gemm_wgmma"}));
    EXPECT_EQ(launch.grid[0], 132u) << "79 tiles x 64 k steps over 132 SMs";
    EXPECT_EQ(launch.cluster[0], 1u);
    EXPECT_EQ(argument_names(launch), (std::vector<std::string>{"A_map", "B_map", "D", "bias", "acc_sum",
                                                                "arrivals", "M", "N", "K"}));
    ASSERT_EQ(launch.scratch.size(), 2u);
    expect_scratch(launch.scratch[0], "arrivals", true, 79 * 1 * 4);
    expect_scratch(launch.scratch[1], "acc_sum", true, 77 * 5000);
    // Fewer iterations than SMs: a block each (K = 64: 48 tiles of one k step, every tile whole).
    const Config small = stream_k_tile(128, 64, 0, 4, 1);
    const auto one_step = space.resolve_problem("M=300,N=1000,K=64,B_KMAJOR=0");
    ASSERT_TRUE(space.check(small, one_step, hopper).valid) << file;
    EXPECT_EQ(space.variant_launch(small, one_step, hopper).grid[0], 48u);

    // What stream-K needs, each refusal by its own condition.
    const auto refused_by = [&](Config changed, const char* problem) {
      return space.check(changed, space.resolve_problem(problem), hopper).condition;
    };
    const char* const skinny = "M=77,N=5000,K=4096,B_KMAJOR=0";
    Config changed = config;
    changed["SPLIT_K"] = 2;
    EXPECT_EQ(refused_by(changed, skinny), "stream_k_alone");
    changed = config;
    changed["PERSISTENT"] = 0;
    EXPECT_EQ(refused_by(changed, skinny), "stream_k_persistent");
    changed = config;
    changed["CLUSTER_N"] = 2;
    EXPECT_EQ(refused_by(changed, skinny), "stream_k_without_clusters");
    for (const int epilogue : {0, 1}) {
      changed = config;
      changed["EPILOGUE"] = epilogue;
      EXPECT_EQ(refused_by(changed, skinny), "stream_k_sums_in_l2") << epilogue;
    }
    changed["EPILOGUE"] = 2;  // refused without slices before stream-K's own condition is reached
    EXPECT_FALSE(space.check(changed, space.resolve_problem(skinny), hopper).valid);
    // 512 tiles of 128 x 256 at 4096^3 (three waves and more); 132 tiles of 128 x 128 (a whole wave).
    const Config wide = stream_k_tile(128, 256, 0, 4, 2);
    EXPECT_EQ(refused_by(wide, "M=4096,N=4096,K=4096,B_KMAJOR=1"), "stream_k_for_partial_waves");
    EXPECT_EQ(refused_by(stream_k_tile(128, 128, 0, 6, 2), "M=1536,N=1408,K=4096,B_KMAJOR=1"),
              "stream_k_for_partial_waves");
    EXPECT_TRUE(space.check(wide, space.resolve_problem("M=1000,N=3000,K=2000,B_KMAJOR=1"), hopper).valid);
    // STREAM_K 1 makes EPILOGUE 3 valid without slices; STREAM_K 0 does not.
    changed = config;
    changed["STREAM_K"] = 0;
    EXPECT_EQ(refused_by(changed, skinny), "l2_reduction_of_slices");

    // Every stream-K candidate of the skinny problem obeys the conditions; there are some in both layouts,
    // and none at 4096^3.
    for (const char* problem : {"M=77,N=5000,K=4096,B_KMAJOR=0", "M=77,N=5000,K=4096,B_KMAJOR=1"}) {
      const auto configs = space.enumerate(space.resolve_problem(problem), hopper);
      std::size_t stream_k = 0;
      for (const Config& candidate : configs) {
        if (candidate.at("STREAM_K") == 0) continue;
        ++stream_k;
        EXPECT_EQ(candidate.at("SPLIT_K"), 1) << canonical_json(candidate);
        EXPECT_EQ(candidate.at("PERSISTENT"), 1) << canonical_json(candidate);
        EXPECT_EQ(candidate.at("EPILOGUE"), 3) << canonical_json(candidate);
        EXPECT_EQ(candidate.at("CLUSTER_M") * candidate.at("CLUSTER_N"), 1) << canonical_json(candidate);
      }
      EXPECT_GT(stream_k, 0u) << file << " " << problem;
    }
    const auto large = space.enumerate(space.resolve_problem("M=4096,N=4096,K=4096,B_KMAJOR=1"), hopper);
    EXPECT_EQ(std::count_if(large.begin(), large.end(),
                            [](const Config& candidate) { return candidate.at("STREAM_K") == 1; }),
              0);
  }
}

// The stream-K Seeds (after the first four of every problem, which SeedsOpenEachMBucketWithItsOwn pins) are
// valid at the shapes they are for: swapped 80 x 64 and 80 x 128 at M = 77, swapped 16 x 64 and 16 x 128 at M
// = 16, 128 x 128 at 128 x 4096 x 4096, 128 x 8192 x 8192 and 1000 x 3000 x 2000, 128 x 256 at 1000 x 3000 x
// 2000, 64 x 64 at 128 x 8192 x 8192.
TEST(GemmSpace, StreamKSeedsServeTheShapesTheTilesLeaveIdle) {
  const DeviceInfo hopper = offline_device("sm_90");
  struct Expected {
    const char* problem;
    int block_m, block_n, swap;
  };
  const Expected expected[] = {
      {"M=77,N=5000,K=4096,B_KMAJOR=0", 80, 64, 1},     {"M=77,N=5000,K=4096,B_KMAJOR=1", 80, 64, 1},
      {"M=77,N=5000,K=4096,B_KMAJOR=0", 80, 128, 1},    {"M=16,N=4096,K=4096,B_KMAJOR=1", 16, 64, 1},
      {"M=16,N=8192,K=8192,B_KMAJOR=1", 16, 128, 1},    {"M=128,N=4096,K=4096,B_KMAJOR=1", 128, 128, 0},
      {"M=128,N=8192,K=8192,B_KMAJOR=1", 128, 128, 0},  {"M=1000,N=3000,K=2000,B_KMAJOR=0", 128, 128, 0},
      {"M=1000,N=3000,K=2000,B_KMAJOR=1", 128, 256, 0}, {"M=128,N=8192,K=8192,B_KMAJOR=1", 64, 64, 0}};
  for (const char* file : kGemmSpaces) {
    const SearchSpace space = SearchSpace::load(file);
    const auto& seeds = space.seeds();
    for (const Expected& want : expected) {
      const auto seed = std::find_if(seeds.begin(), seeds.end(), [&](const Config& candidate) {
        return candidate.at("STREAM_K") == 1 && candidate.at("BLOCK_M") == want.block_m &&
               candidate.at("BLOCK_N") == want.block_n && candidate.at("SWAP_AB") == want.swap;
      });
      ASSERT_NE(seed, seeds.end()) << file << " " << want.block_m << " x " << want.block_n;
      const auto check = space.check(*seed, space.resolve_problem(want.problem), hopper);
      EXPECT_TRUE(check.valid) << file << " " << want.problem << " " << canonical_json(*seed) << ": "
                               << check.condition;
    }
    // They follow every other Seed: the first four of each problem are the ones pinned above.
    const auto first_stream_k =
        std::find_if(seeds.begin(), seeds.end(), [](const Config& seed) { return seed.at("STREAM_K") == 1; });
    EXPECT_TRUE(std::all_of(first_stream_k, seeds.end(), [](const Config& seed) {
      return seed.at("STREAM_K") == 1;
    })) << file;
  }
}

}  // namespace gemm_space_test
}  // namespace evotune
