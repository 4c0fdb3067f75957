// The decode template (kernels/attention/decode_attn.cu, fp16 and bf16) on a GPU, through `evotune eval`
// against the space's reference (which tests/gpu/decode_reference_test.cpp checks against float64):
// contiguous and paged caches (pages of 16, 64 and 256 keys, tiles spanning pages and pages spanning tiles),
// g = 1, 4, 8 and 32 (MQA), Sq = 1 and Sq > 1, causal and not, D = 64 and 128, one and two 16-row query tiles
// a block, one split (no combine) and several (with splits left empty by short sequences), combined by a
// second kernel (COMBINE=0) or by the split block that arrives last (COMBINE=1: one launch, its counters
// cleared before every execution; up to 64 splits, two rounds of 32 in its combine). Each runs the space's
// rounds: full caches (the timed case), then special inputs: ragged lengths with scores far past fp32's exp
// range, lengths of 0 to 2 * Sq + 1 (rows that see no key) with K = 0, every length 0; and the extra problem
// SKV + 37 (a length past the last tile, not a multiple of a page). PDL=1 launches the combine kernel as a
// programmatic dependent of the split kernel (sm_90: it waits in the kernel for the splits' partials), which
// eval's JSON reports on the combine's launch.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "support/eval_variant.hpp"

namespace evotune {
namespace decode_attn_test {

struct Case {
  const char* problem;
  const char* params;
  const char* space = "search_spaces/decode_attn.json";
};

class DecodeAttn : public ::testing::TestWithParam<Case> {};

TEST_P(DecodeAttn, MatchesTheReference) {
  if (const std::string why = test::missing_gpu(false); !why.empty()) GTEST_SKIP() << why;
  const auto json =
      test::eval_variant("kernels/attention/decode_attn.cu", GetParam().space, GetParam().problem,
                         GetParam().params, 2 + 3 + 1, "two random rounds, three special ones, SKV + 37");
  if (json.is_null()) return;
  const std::string params = GetParam().params;
  const bool split = params.find("NUM_SPLITS=1,") == std::string::npos;
  const bool in_kernel = params.find("COMBINE=1") != std::string::npos;
  std::vector<std::string> kernels{"decode_attn"};
  if (split) kernels = {"decode_attn_split", "decode_attn_combine"};
  if (in_kernel) kernels = {"decode_attn_split_combine"};
  ASSERT_EQ(json.at("launches").size(), kernels.size()) << json.dump(2);
  for (std::size_t i = 0; i < kernels.size(); ++i) EXPECT_EQ(json.at("launches")[i].at("kernel"), kernels[i]);
  const bool pdl = params.find("PDL=1") != std::string::npos;
  for (std::size_t i = 0; i < kernels.size(); ++i)
    EXPECT_EQ(json.at("launches")[i].value("programmatic", false), pdl && i == 1) << "launch " << i;
  std::printf("  launches %s\n", json.at("launches").dump().c_str());
}

// Every params string names NUM_SPLITS followed by a comma and COMBINE (the launch check above reads them).
INSTANTIATE_TEST_SUITE_P(
    Shapes, DecodeAttn,
    ::testing::Values(
        // Contiguous, g = 4, one query: one kernel, then 4 splits of 4 tiles.
        Case{"B=4,HKV=2,G=4,SQ=1,SKV=1000,D=128,CAUSAL=1,PAGED=0",
             "BLOCK_N=64,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=1,COMBINE=0,L2_256B=1"},
        Case{"B=4,HKV=2,G=4,SQ=1,SKV=1000,D=128,CAUSAL=1,PAGED=0",
             "BLOCK_N=64,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=4,COMBINE=0,L2_256B=1"},
        // Paged, pages of 16: a tile spans 4 pages.
        Case{"B=4,HKV=2,G=4,SQ=1,SKV=1000,D=128,CAUSAL=1,PAGED=1,PAGE=16",
             "BLOCK_N=64,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=4,COMBINE=0,L2_256B=0"},
        // Pages of 16 under tiles of 128 (8 page entries a tile, copied a tile ahead) through a 2-slot ring
        // that goes round 8 times in one split; and tiles of 32 over pages of 16 in a 4-slot ring, 4 splits
        // of ragged lengths, D = 64.
        Case{"B=2,HKV=2,G=4,SQ=1,SKV=2000,D=128,CAUSAL=1,PAGED=1,PAGE=16",
             "BLOCK_N=128,WARPS=4,STAGES=2,M_TILES=1,NUM_SPLITS=1,COMBINE=0,L2_256B=0"},
        Case{"B=3,HKV=2,G=4,SQ=2,SKV=1500,D=64,CAUSAL=1,PAGED=1,PAGE=16",
             "BLOCK_N=32,WARPS=2,STAGES=4,M_TILES=1,NUM_SPLITS=4,COMBINE=0,L2_256B=1"},
        // Paged, pages of 256 holding two tiles; g = 8 and 4 queries: 32 rows, two 16-row tiles a block.
        Case{"B=3,HKV=2,G=8,SQ=4,SKV=2000,D=128,CAUSAL=1,PAGED=1,PAGE=256",
             "BLOCK_N=128,WARPS=8,STAGES=2,M_TILES=2,NUM_SPLITS=2,COMBINE=0,L2_256B=1"},
        // g = 1, 16 queries (the causal corner spans a tile), D = 64, pages of 64 over tiles of 32, 8 splits.
        Case{"B=3,HKV=3,G=1,SQ=16,SKV=777,D=64,CAUSAL=1,PAGED=1,PAGE=64",
             "BLOCK_N=32,WARPS=2,STAGES=4,M_TILES=1,NUM_SPLITS=8,COMBINE=0,L2_256B=0"},
        // MQA: one KV head for 32 query heads, two row blocks sharing each tile.
        Case{"B=2,HKV=1,G=32,SQ=1,SKV=3000,D=128,CAUSAL=1,PAGED=0",
             "BLOCK_N=128,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=4,COMBINE=0,L2_256B=1"},
        // Not causal, 3 queries, 16 splits of 3 tiles of which the last is short.
        Case{"B=2,HKV=2,G=4,SQ=3,SKV=4133,D=128,CAUSAL=0,PAGED=0",
             "BLOCK_N=128,WARPS=2,STAGES=2,M_TILES=1,NUM_SPLITS=16,COMBINE=0,L2_256B=0"},
        // D = 64, g = 8, 4 queries in two tiles, one kernel.
        Case{"B=2,HKV=4,G=8,SQ=4,SKV=1500,D=64,CAUSAL=1,PAGED=0",
             "BLOCK_N=64,WARPS=2,STAGES=3,M_TILES=2,NUM_SPLITS=1,COMBINE=0,L2_256B=1"},
        Case{"B=4,HKV=2,G=8,SQ=1,SKV=2049,D=128,CAUSAL=1,PAGED=0",
             "BLOCK_N=64,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=8,COMBINE=0,L2_256B=1",
             "search_spaces/decode_attn_bf16.json"},
        Case{"B=3,HKV=2,G=4,SQ=2,SKV=999,D=64,CAUSAL=1,PAGED=1,PAGE=16",
             "BLOCK_N=64,WARPS=2,STAGES=2,M_TILES=1,NUM_SPLITS=1,COMBINE=0,L2_256B=0",
             "search_spaces/decode_attn_bf16.json"},
        // COMBINE=1: the cases above with splits, combined in the kernel. Contiguous, g = 4, 4 splits.
        Case{"B=4,HKV=2,G=4,SQ=1,SKV=1000,D=128,CAUSAL=1,PAGED=0",
             "BLOCK_N=64,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=4,COMBINE=1,L2_256B=1"},
        // Paged, pages of 16.
        Case{"B=4,HKV=2,G=4,SQ=1,SKV=1000,D=128,CAUSAL=1,PAGED=1,PAGE=16",
             "BLOCK_N=64,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=4,COMBINE=1,L2_256B=0"},
        // Paged, pages of 256; g = 8 and 4 queries in two 16-row tiles, 2 splits.
        Case{"B=3,HKV=2,G=8,SQ=4,SKV=2000,D=128,CAUSAL=1,PAGED=1,PAGE=256",
             "BLOCK_N=128,WARPS=8,STAGES=2,M_TILES=2,NUM_SPLITS=2,COMBINE=1,L2_256B=1"},
        // g = 1, 16 queries, D = 64 (two columns a lane in the combine), pages of 64, 8 splits.
        Case{"B=3,HKV=3,G=1,SQ=16,SKV=777,D=64,CAUSAL=1,PAGED=1,PAGE=64",
             "BLOCK_N=32,WARPS=2,STAGES=4,M_TILES=1,NUM_SPLITS=8,COMBINE=1,L2_256B=0"},
        // MQA: two row blocks a split, each with its own counter.
        Case{"B=2,HKV=1,G=32,SQ=1,SKV=3000,D=128,CAUSAL=1,PAGED=0",
             "BLOCK_N=128,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=4,COMBINE=1,L2_256B=1"},
        // 64 splits (two log-sum-exps a lane), not causal, 3 queries; ragged lengths leave most splits empty.
        Case{"B=2,HKV=2,G=4,SQ=3,SKV=4133,D=128,CAUSAL=0,PAGED=0",
             "BLOCK_N=32,WARPS=2,STAGES=2,M_TILES=1,NUM_SPLITS=64,COMBINE=1,L2_256B=0"},
        // The small problem COMBINE is for: B = 1, 32/8 heads, 4k keys, its first Seed with COMBINE=1.
        Case{"B=1,HKV=8,G=4,SQ=1,SKV=4096,D=128,CAUSAL=1,PAGED=0",
             "BLOCK_N=64,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=16,COMBINE=1,L2_256B=1"},
        Case{"B=4,HKV=2,G=8,SQ=1,SKV=2049,D=128,CAUSAL=1,PAGED=0",
             "BLOCK_N=64,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=8,COMBINE=1,L2_256B=1",
             "search_spaces/decode_attn_bf16.json"},
        Case{"B=3,HKV=2,G=4,SQ=2,SKV=999,D=64,CAUSAL=1,PAGED=1,PAGE=16",
             "BLOCK_N=64,WARPS=2,STAGES=2,M_TILES=1,NUM_SPLITS=4,COMBINE=1,L2_256B=0",
             "search_spaces/decode_attn_bf16.json"},
        // PDL=1: the combine kernel a programmatic dependent of the splits. The small problem, its Seed.
        Case{"B=1,HKV=8,G=4,SQ=1,SKV=4096,D=128,CAUSAL=1,PAGED=0",
             "BLOCK_N=64,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=16,COMBINE=0,L2_256B=1,PDL=1"},
        // Paged, pages of 16, 4 splits; and 64 splits, not causal, mostly empty under ragged lengths.
        Case{"B=4,HKV=2,G=4,SQ=1,SKV=1000,D=128,CAUSAL=1,PAGED=1,PAGE=16",
             "BLOCK_N=64,WARPS=4,STAGES=3,M_TILES=1,NUM_SPLITS=4,COMBINE=0,L2_256B=0,PDL=1"},
        Case{"B=2,HKV=2,G=4,SQ=3,SKV=4133,D=128,CAUSAL=0,PAGED=0",
             "BLOCK_N=32,WARPS=2,STAGES=2,M_TILES=1,NUM_SPLITS=64,COMBINE=0,L2_256B=0,PDL=1"},
        Case{"B=3,HKV=2,G=4,SQ=2,SKV=999,D=64,CAUSAL=1,PAGED=1,PAGE=16",
             "BLOCK_N=64,WARPS=2,STAGES=2,M_TILES=1,NUM_SPLITS=4,COMBINE=0,L2_256B=0,PDL=1",
             "search_spaces/decode_attn_bf16.json"}),
    [](const ::testing::TestParamInfo<Case>& info) { return "case_" + std::to_string(info.index); });

}  // namespace decode_attn_test
}  // namespace evotune
