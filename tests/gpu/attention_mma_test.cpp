// The mma.sync attention template (fp16 and bf16) on a GPU, through `evotune eval` against the space's
// reference (which tests/gpu/attention_reference_test.cpp checks against float64): ragged S, S = 1, D = 128,
// causal, every stage count, padded and swizzled shared memory, Q in registers or not, split keys (SPLITS >
// 1: partial outputs in scratch and the combine launch, with empty splits and causal splits past the
// diagonal); each with the space's special inputs (scores far past fp32's exp range, K = 0) besides the
// random rounds. Parameters left out take their first value (SPLITS=1).
#include <gtest/gtest.h>

#include <string>

#include "support/eval_variant.hpp"

namespace evotune {
namespace attention_mma_test {

struct Case {
  const char* problem;
  const char* params;
  const char* space = "search_spaces/flash_attn_fwd_mma.json";
};

class AttentionMma : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionMma, MatchesTheReference) {
  if (const std::string why = test::missing_gpu(false); !why.empty()) GTEST_SKIP() << why;
  const auto json =
      test::eval_variant("kernels/attention/flash_attn_fwd_mma.cu", GetParam().space, GetParam().problem,
                         GetParam().params, 2 + 2 + 1, "two random rounds, two special ones, S + 1");
  if (json.is_null()) return;
  const bool split = std::string(GetParam().params).find("SPLITS=") != std::string::npos &&
                     std::string(GetParam().params).find("SPLITS=1") == std::string::npos;
  ASSERT_EQ(json.at("launches").size(), split ? 2u : 1u) << json.dump(2);
  if (split) {
    EXPECT_EQ(json.at("launches")[1].at("kernel"), "flash_attn_combine");
  }
  std::printf("  launches %s\n", json.at("launches").dump().c_str());
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionMma,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "BLOCK_M=128,BLOCK_N=128,WARPS=4,STAGES=2,SWIZZLE=1,Q_IN_REGS=0"},
        Case{"B=2,H=1,S=130,D=64,CAUSAL=1", "BLOCK_M=64,BLOCK_N=32,WARPS=4,STAGES=1,SWIZZLE=0,Q_IN_REGS=1"},
        Case{"B=1,H=1,S=1,D=64,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,WARPS=4,STAGES=3,SWIZZLE=1,Q_IN_REGS=1"},
        Case{"B=1,H=2,S=200,D=128,CAUSAL=1", "BLOCK_M=128,BLOCK_N=64,WARPS=4,STAGES=2,SWIZZLE=0,Q_IN_REGS=0"},
        Case{"B=1,H=3,S=513,D=128,CAUSAL=0", "BLOCK_M=64,BLOCK_N=96,WARPS=4,STAGES=3,SWIZZLE=1,Q_IN_REGS=1"},
        Case{"B=2,H=4,S=512,D=64,CAUSAL=1", "BLOCK_M=256,BLOCK_N=64,WARPS=8,STAGES=2,SWIZZLE=1,Q_IN_REGS=0"},
        Case{"B=1,H=2,S=77,D=64,CAUSAL=1", "BLOCK_M=128,BLOCK_N=64,WARPS=4,STAGES=2,SWIZZLE=1,Q_IN_REGS=0",
             "search_spaces/flash_attn_fwd_mma_bf16.json"},
        Case{"B=1,H=2,S=300,D=128,CAUSAL=0", "BLOCK_M=128,BLOCK_N=64,WARPS=4,STAGES=3,SWIZZLE=0,Q_IN_REGS=0",
             "search_spaces/flash_attn_fwd_mma_bf16.json"},
        // SPLITS > 1. Odd S: 3 tiles in splits of 2 and 1 (the second the tail tile).
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=32,WARPS=4,STAGES=2,SWIZZLE=1,Q_IN_REGS=0,SPLITS=2"},
        // Causal, 5 tiles in splits of 2: split 3 is empty everywhere, the first query block sees split 0
        // only.
        Case{"B=2,H=1,S=130,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=32,WARPS=4,STAGES=1,SWIZZLE=0,Q_IN_REGS=1,SPLITS=4"},
        // S = 1 (and 2): one tile, split 1 empty.
        Case{"B=1,H=1,S=1,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=64,WARPS=4,STAGES=2,SWIZZLE=1,Q_IN_REGS=1,SPLITS=2"},
        // D = 128, causal, 8 splits of 2 tiles of which 5 have keys.
        Case{"B=1,H=2,S=300,D=128,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=32,WARPS=8,STAGES=2,SWIZZLE=1,Q_IN_REGS=0,SPLITS=8"},
        Case{"B=1,H=3,S=513,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=64,WARPS=4,STAGES=3,SWIZZLE=1,Q_IN_REGS=1,SPLITS=2"},
        Case{"B=1,H=2,S=77,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=32,WARPS=4,STAGES=1,SWIZZLE=0,Q_IN_REGS=0,SPLITS=4",
             "search_spaces/flash_attn_fwd_mma_bf16.json"},
        Case{"B=2,H=2,S=200,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=64,WARPS=4,STAGES=2,SWIZZLE=0,Q_IN_REGS=0,SPLITS=2",
             "search_spaces/flash_attn_fwd_mma_bf16.json"},
        // PERSISTENT: more tiles (16 query blocks x 64 heads) than resident blocks, so each block walks
        // several, causal heaviest first; odd S (the tail tile and S + 1), both head dimensions, bf16.
        Case{"B=4,H=16,S=1000,D=64,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=64,WARPS=4,STAGES=2,SWIZZLE=1,Q_IN_REGS=1,SPLITS=1,PERSISTENT=1"},
        Case{"B=4,H=16,S=1000,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=64,WARPS=4,STAGES=3,SWIZZLE=0,Q_IN_REGS=0,SPLITS=1,PERSISTENT=1"},
        Case{"B=4,H=16,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=64,WARPS=4,STAGES=2,SWIZZLE=1,Q_IN_REGS=0,SPLITS=1,PERSISTENT=1"},
        Case{"B=4,H=16,S=1000,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=64,WARPS=4,STAGES=2,SWIZZLE=1,Q_IN_REGS=1,SPLITS=1,PERSISTENT=1",
             "search_spaces/flash_attn_fwd_mma_bf16.json"}),
    [](const ::testing::TestParamInfo<Case>& info) { return "case_" + std::to_string(info.index); });

}  // namespace attention_mma_test
}  // namespace evotune
