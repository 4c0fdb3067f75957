// The wgmma attention template (sm_90a) on a Hopper GPU, through `evotune eval` against the space's reference
// (which tests/gpu/attention_reference_test.cpp checks against float64): ragged S, S = 1, D = 128 (two
// 64-column slabs and an n128 P V), causal, every consumer warpgroup count, stage count and tile width; each
// with the space's special inputs (scores far past fp32's exp range, K = 0) and the S + 1 problem besides the
// random rounds. Skips where the GPU is not compute capability 9.0, which has no wgmma.
// Every case validates both outputs against the reference's: O and the rows' log-sum-exps LSE (fp32
// [B, H, S], NaN-poisoned before each launch, so an unwritten row fails as a wrong one does).
// Suites: Shapes (both step-2 flags 0, the first step's path), WarpSpecialized (producer warpgroup on
// mbarriers, no overlap), IntraWgOverlap (overlap, consumers load), Both (FlashAttention-3's combination, its
// tile shapes among them), Pingpong (both and the warpgroups' turns), Bf16 (the bf16 space, every path), Tma,
// ThirdStep (TMA stores, four stages, the register split, persistent blocks, causal work tiles longest
// first), HeadInterleave (longest first across groups of heads), Cluster (two blocks sharing K/V through TMA
// multicast), TwoQTiles, LazyRescale (the max moved only past 2^8), KvSplit (K and V on their own barriers),
// RowSumMma (the row sums added by the tensor cores).
// A synchronisation bug shows as a wrong result, or as a deadlock that `evotune eval` reports as a timeout;
// long S makes every stage's mbarrier go through many phases. Grouped (K/V heads shared by 1, 4 or 8 query
// heads, key lengths shorter and longer than the queries', causal aligned to the bottom right, rows that see
// no key) on every path.
#include <gtest/gtest.h>

#include "space/search_space.hpp"
#include "support/eval_variant.hpp"

namespace evotune {
namespace attention_wgmma_test {

struct Case {
  const char* problem;
  const char* params;
  const char* space = "search_spaces/flash_attn_fwd_wgmma.json";
};

class AttentionWgmma : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionWgmma, MatchesTheReference) {
  if (const std::string why = test::missing_gpu(true); !why.empty()) GTEST_SKIP() << why;
  // The outputs evotune eval compares: O and LSE, whichever path the config compiles.
  const SearchSpace space = SearchSpace::load(GetParam().space);
  std::vector<std::string> outputs;
  for (const BufferSpec& buffer : space.buffers(space.resolve_problem(GetParam().problem)))
    if (buffer.is_output) outputs.push_back(buffer.name);
  ASSERT_EQ(outputs, (std::vector<std::string>{"O", "LSE"}));
  test::eval_variant("kernels/attention/flash_attn_fwd_wgmma.cu", GetParam().space, GetParam().problem,
                     GetParam().params, 2 + 2 + 2,
                     "two random rounds, two special ones, S + 1 (and SKV + 1), S + 1 with SKV + 67");
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return "case_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionWgmma,
    ::testing::Values(Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=1"},
                      Case{"B=1,H=1,S=1,D=64,CAUSAL=0", "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2"},
                      Case{"B=2,H=1,S=130,D=64,CAUSAL=1", "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=3"},
                      Case{"B=2,H=4,S=512,D=64,CAUSAL=1", "CONSUMER_WARPGROUPS=3,BLOCK_N=128,STAGES=2"},
                      Case{"B=1,H=3,S=513,D=64,CAUSAL=0", "CONSUMER_WARPGROUPS=2,BLOCK_N=176,STAGES=3"},
                      Case{"B=1,H=2,S=77,D=128,CAUSAL=1", "CONSUMER_WARPGROUPS=1,BLOCK_N=128,STAGES=2"},
                      Case{"B=1,H=2,S=200,D=128,CAUSAL=0", "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3"},
                      Case{"B=1,H=2,S=300,D=128,CAUSAL=1", "CONSUMER_WARPGROUPS=2,BLOCK_N=176,STAGES=2"},
                      Case{"B=1,H=1,S=1,D=128,CAUSAL=1", "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=1"},
                      Case{"B=1,H=2,S=1000,D=128,CAUSAL=0", "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=2"}),
    case_name);

// A producer warpgroup; 1 consumer warpgroup (no setmaxnreg), 2 (24/240 registers), 3 (32/160); 1..3 stages.
INSTANTIATE_TEST_SUITE_P(
    WarpSpecialized, AttentionWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=1,WARP_SPECIALIZE=1"},
        Case{"B=1,H=1,S=1,D=64,CAUSAL=0", "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1"},
        Case{"B=2,H=1,S=130,D=64,CAUSAL=1", "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=3,WARP_SPECIALIZE=1"},
        Case{"B=2,H=4,S=513,D=64,CAUSAL=1", "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=1,WARP_SPECIALIZE=1"},
        Case{"B=1,H=1,S=1,D=128,CAUSAL=1", "CONSUMER_WARPGROUPS=2,BLOCK_N=64,STAGES=2,WARP_SPECIALIZE=1"},
        Case{"B=1,H=3,S=513,D=128,CAUSAL=0", "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1"},
        Case{"B=1,H=2,S=300,D=128,CAUSAL=1", "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=2,WARP_SPECIALIZE=1"},
        Case{"B=1,H=2,S=2049,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=176,STAGES=2,WARP_SPECIALIZE=1"}),
    case_name);

// The overlap with the consumers loading (3 stages only).
INSTANTIATE_TEST_SUITE_P(
    IntraWgOverlap, AttentionWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=3,INTRA_WG_OVERLAP=1"},
        Case{"B=1,H=1,S=1,D=64,CAUSAL=0", "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3,INTRA_WG_OVERLAP=1"},
        Case{"B=2,H=4,S=513,D=64,CAUSAL=1", "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=3,INTRA_WG_OVERLAP=1"},
        Case{"B=1,H=2,S=300,D=128,CAUSAL=1", "CONSUMER_WARPGROUPS=2,BLOCK_N=96,STAGES=3,INTRA_WG_OVERLAP=1"},
        Case{"B=1,H=1,S=1,D=128,CAUSAL=1", "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=3,INTRA_WG_OVERLAP=1"},
        Case{"B=1,H=2,S=1000,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=128,STAGES=3,INTRA_WG_OVERLAP=1"}),
    case_name);

// Both flags: FlashAttention-3's shapes (D = 128: BLOCK_M 128 with BLOCK_N 128 or 176, 2 stages; D = 64:
// BLOCK_M 192, BLOCK_N 128), then 1..3 consumer warpgroups, 2..3 stages, ragged and tiny S, causal.
INSTANTIATE_TEST_SUITE_P(
    Both, AttentionWgmma,
    ::testing::Values(Case{"B=1,H=2,S=1000,D=128,CAUSAL=0",
                           "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1"},
                      Case{"B=1,H=3,S=513,D=128,CAUSAL=0",
                           "CONSUMER_WARPGROUPS=2,BLOCK_N=176,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1"},
                      Case{"B=2,H=2,S=1000,D=64,CAUSAL=1",
                           "CONSUMER_WARPGROUPS=3,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1"},
                      Case{"B=1,H=2,S=77,D=128,CAUSAL=1",
                           "CONSUMER_WARPGROUPS=1,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1"},
                      Case{"B=1,H=1,S=1,D=64,CAUSAL=1",
                           "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1"},
                      Case{"B=2,H=1,S=130,D=64,CAUSAL=0",
                           "CONSUMER_WARPGROUPS=2,BLOCK_N=96,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1"},
                      Case{"B=1,H=2,S=2049,D=128,CAUSAL=1",
                           "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1"},
                      Case{"B=1,H=2,S=4096,D=64,CAUSAL=0",
                           "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1"}),
    case_name);

// Pingpong: 2 and 3 consumer warpgroups taking turns, long S (many turns and ring phases), causal (the empty
// turns of tiles a warpgroup skips), ragged and tiny S, both head dimensions.
INSTANTIATE_TEST_SUITE_P(
    Pingpong, AttentionWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=4096,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1"},
        Case{"B=2,H=2,S=1000,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1"},
        Case{"B=1,H=3,S=513,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=176,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1"},
        Case{"B=2,H=1,S=130,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1"},
        Case{"B=1,H=1,S=1,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=96,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1"}),
    case_name);

// bf16 (the same template compiled with -DBF16=1): each path once, causal and ragged S, both head dimensions.
constexpr const char* kBf16 = "search_spaces/flash_attn_fwd_wgmma_bf16.json";
INSTANTIATE_TEST_SUITE_P(
    Bf16, AttentionWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=1", kBf16},
        Case{"B=1,H=2,S=300,D=128,CAUSAL=1", "CONSUMER_WARPGROUPS=2,BLOCK_N=96,STAGES=3,INTRA_WG_OVERLAP=1",
             kBf16},
        Case{"B=2,H=2,S=1000,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1", kBf16},
        Case{"B=1,H=3,S=513,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1",
             kBf16}),
    case_name);

// TMA loads (tensor maps encoded by the engine): each producer path, ragged S (boxes past S read as zeros),
// the S + 1 round, causal, both head dimensions, bf16.
INSTANTIATE_TEST_SUITE_P(
    Tma, AttentionWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=1,WARP_SPECIALIZE=1,TMA_LOADS=1"},
        Case{"B=2,H=3,S=1000,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1"},
        Case{"B=1,H=3,S=513,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=176,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1"},
        Case{"B=1,H=2,S=2049,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1"},
        Case{"B=1,H=1,S=1,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1"},
        Case{"B=2,H=2,S=1000,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1",
             kBf16}),
    case_name);

// The third step: O stored with TMA (each warpgroup's 64 rows; rows past S clipped), four stages, the
// setmaxnreg split, and persistent blocks (the ring and the pingpong turns running on across work tiles, Q
// reloaded after q_empty, causal work tiles longest first). The persistent cases have more work tiles than
// an H100 has SMs, so each block walks several.
INSTANTIATE_TEST_SUITE_P(
    ThirdStep, AttentionWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=1,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_STORE=1"},
        Case{"B=2,H=3,S=1000,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=4,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_STORE=1,REG_SPLIT="
             "2"},
        Case{"B=1,H=2,S=513,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=4,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,REG_"
             "SPLIT=1"},
        Case{"B=1,H=2,S=300,D=64,CAUSAL=1", "CONSUMER_WARPGROUPS=2,BLOCK_N=64,STAGES=4"},
        Case{"B=1,H=2,S=300,D=128,CAUSAL=1", "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=4,INTRA_WG_OVERLAP=1"},
        Case{"B=4,H=16,S=1000,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,PERSISTENT=1"},
        Case{"B=4,H=16,S=1000,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,PERSISTENT=1,LONGEST_FIRST=1"},
        Case{"B=2,H=3,S=1000,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=96,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,"
             "LONGEST_FIRST=1"},
        Case{"B=2,H=2,S=77,D=64,CAUSAL=1", "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=1,LONGEST_FIRST=1"},
        Case{
            "B=2,H=40,S=2049,D=128,CAUSAL=0",
            "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_"
            "STORE=1,PERSISTENT=1"},
        Case{"B=3,H=20,S=513,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,PERSISTENT=1"},
        Case{"B=1,H=1,S=1,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_STORE=1,PERSISTENT="
             "1"},
        Case{"B=8,H=16,S=300,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=4,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_"
             "STORE=1,PERSISTENT=1"},
        Case{"B=2,H=16,S=4096,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,PERSISTENT=1,LONGEST_FIRST=1",
             kBf16}),
    case_name);

// Clusters of two blocks sharing K/V through TMA multicast: an odd number of query blocks (the grid rounded
// up to even, the extra block's rows all past S), S = 1, causal with the two blocks needing different tile
// counts (in reverse order too), both head dimensions, four stages, TMA stores, bf16.
INSTANTIATE_TEST_SUITE_P(
    Cluster, AttentionWgmma,
    ::testing::Values(
        Case{"B=2,H=3,S=513,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,CLUSTER=2"},
        Case{"B=1,H=4,S=1100,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=96,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,LONGEST_FIRST=1,"
             "CLUSTER=2"},
        Case{"B=2,H=2,S=1000,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_"
             "STORE=1,CLUSTER=2"},
        Case{
            "B=1,H=2,S=2049,D=128,CAUSAL=0",
            "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=4,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_STORE=1,REG_SPLIT=1,"
            "CLUSTER=2"},
        Case{"B=1,H=2,S=77,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,CLUSTER=2"},
        Case{
            "B=1,H=1,S=1,D=64,CAUSAL=0",
            "CONSUMER_WARPGROUPS=2,BLOCK_N=176,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_"
            "STORE=1,CLUSTER=2"},
        Case{"B=2,H=4,S=4096,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_STORE=1,REG_SPLIT="
             "1,"
             "CLUSTER=2",
             kBf16}),
    case_name);

// Grouped heads (g = H / HKV of 1, 4, 8, MQA with HKV = 1) and key lengths of their own: fewer queries than
// keys (a cache), more queries than keys (causal: the first S - SKV rows see no key and are 0), odd lengths,
// on every path: the first step, the self-loaded overlap, a cp.async producer, TMA (K/V maps of HKV * B
// heads of SKV rows), pingpong, persistent longest-first with TMA stores, clusters, both dtypes.
INSTANTIATE_TEST_SUITE_P(
    Grouped, AttentionWgmma,
    ::testing::Values(
        Case{"B=2,H=8,HKV=2,S=77,SKV=300,D=64,CAUSAL=1", "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=1"},
        Case{"B=1,H=8,HKV=1,S=300,SKV=77,D=64,CAUSAL=1", "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2"},
        Case{"B=2,H=4,HKV=4,S=130,SKV=513,D=128,CAUSAL=0", "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=3"},
        Case{"B=1,H=16,HKV=2,S=1,SKV=1000,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=64,STAGES=3,INTRA_WG_OVERLAP=1"},
        Case{"B=2,H=8,HKV=1,S=513,SKV=130,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=3,INTRA_WG_OVERLAP=1"},
        Case{"B=1,H=4,HKV=1,S=200,SKV=1,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1"},
        Case{"B=2,H=8,HKV=2,S=1000,SKV=77,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1"},
        Case{"B=2,H=16,HKV=2,S=333,SKV=2049,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1"},
        Case{"B=1,H=8,HKV=8,S=2049,SKV=500,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1"},
        Case{
            "B=3,H=8,HKV=1,S=700,SKV=1500,D=64,CAUSAL=0",
            "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_"
            "STORE=1,PERSISTENT=1"},
        Case{"B=2,H=8,HKV=2,S=1500,SKV=700,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,PERSISTENT=1,LONGEST_FIRST=1"},
        Case{"B=2,H=8,HKV=2,S=600,SKV=1100,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=96,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,LONGEST_FIRST=1,"
             "CLUSTER=2"},
        Case{"B=1,H=4,HKV=1,S=1100,SKV=300,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_"
             "STORE=1,CLUSTER=2"},
        Case{"B=2,H=8,HKV=1,S=77,SKV=1000,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1",
             kBf16},
        Case{"B=1,H=8,HKV=2,S=1000,SKV=200,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=64,STAGES=3,INTRA_WG_OVERLAP=1", kBf16}),
    case_name);

// HEAD_INTERLEAVE: the longest-first causal grid read as groups of 4, 8 or 16 heads taking turns: a last
// group with fewer heads (6 = 4 + 2, 5 < 8, 3 < 16), grouped K/V heads, keys longer than the queries (rows
// that see every key), the consumers loading and the TMA producer, TMA stores, pingpong, bf16.
INSTANTIATE_TEST_SUITE_P(
    HeadInterleave, AttentionWgmma,
    ::testing::Values(
        Case{"B=2,H=3,S=1000,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=96,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,"
             "LONGEST_FIRST=1,HEAD_INTERLEAVE=4"},
        Case{
            "B=1,H=5,S=513,D=64,CAUSAL=1",
            "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_STORE=1,REG_SPLIT=1,"
            "LONGEST_FIRST=1,HEAD_INTERLEAVE=8"},
        Case{"B=2,H=8,HKV=2,S=300,SKV=777,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,REG_SPLIT=1,LONGEST_FIRST=1,HEAD_INTERLEAVE=4"},
        Case{"B=3,H=1,S=77,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=2,LONGEST_FIRST=1,HEAD_INTERLEAVE=16"},
        Case{"B=2,H=16,S=2048,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,REG_SPLIT=1,LONGEST_FIRST=1,HEAD_INTERLEAVE=8",
             kBf16}),
    case_name);

// Q_BUFFERS 2 (persistent blocks): work tile i's Q in Q tile i % 2, the next one's loaded while this one
// runs. Many work tiles a block (so that both tiles are reused many times and their q_empty phases turn
// over), one work tile in all (S = 1), a block with an odd count, causal longest first, grouped heads with
// SKV != S, both stores (O staged in the tile its Q was in), 1..3 consumer warpgroups, both head dimensions,
// bf16. With the TMA store a work tile's store is waited for, and its Q tile handed back, only after the next
// work tile's first S is issued (PendingStore); the plain loop's case has rows that see no key (S > SKV,
// causal), where a warpgroup computes no tile; the Seed of 4,32,1024,64, and K and V on their own barriers
// (KV_SPLIT) with SKV != S. O wrong on every other work tile: the consumers' Q tile or the staging out of
// step with the producer's, or a Q landing on rows a store still reads; a hang: the q_empty parity, or an
// arrival the deferred wait never makes.
INSTANTIATE_TEST_SUITE_P(
    TwoQTiles, AttentionWgmma,
    ::testing::Values(
        Case{"B=8,H=32,S=512,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,PERSISTENT=1,REG_SPLIT=1,Q_BUFFERS=2"},
        Case{"B=8,H=32,HKV=8,S=512,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,PERSISTENT=1,REG_SPLIT=1,Q_BUFFERS=2"},
        Case{"B=4,H=16,S=1000,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,PERSISTENT=1,LONGEST_FIRST=1,Q_BUFFERS=2"},
        Case{"B=1,H=1,S=1,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_STORE=1,"
             "PERSISTENT=1,Q_BUFFERS=2"},
        Case{"B=3,H=20,S=513,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,PERSISTENT=1,Q_BUFFERS="
             "2"},
        Case{"B=2,H=8,HKV=2,S=300,SKV=777,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=4,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_"
             "STORE=0,PERSISTENT=1,Q_BUFFERS=2"},
        Case{"B=16,H=16,S=256,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,PERSISTENT=1,REG_SPLIT=1,Q_BUFFERS=2",
             kBf16},
        Case{"B=4,H=16,HKV=4,S=777,SKV=300,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_STORE=1,PERSISTENT="
             "1,"
             "LONGEST_FIRST=1,Q_BUFFERS=2,LAZY_RESCALE=1"},
        Case{
            "B=4,H=32,S=1024,D=64,CAUSAL=0",
            "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_"
            "STORE=1,PERSISTENT=1,REG_SPLIT=1,Q_BUFFERS=2,LAZY_RESCALE=1"},
        Case{"B=2,H=8,HKV=2,S=1024,SKV=700,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,PERSISTENT=1,REG_SPLIT=1,Q_BUFFERS=2,LAZY_RESCALE=1,KV_SPLIT=1"}),
    case_name);

// LAZY_RESCALE 1: a row's max moves only when a tile's scores exceed it by more than 8 (base 2), O's rows
// rescaled only where a warp's rows moved. The special inputs' scores past fp32's exp range make the max jump
// by far more than that; long rows (many tiles) keep it lagging; causal rows that see no key keep -inf. On
// every path: the plain loop (the rescale inside the softmax), the overlapped one, pingpong, persistent
// blocks with two Q tiles, 1..3 consumer warpgroups, grouped heads with SKV != S, both head dimensions, bf16.
// O wrong by a factor: a factor applied twice or skipped; LSE wrong: the lagging max not matched by the sums.
INSTANTIATE_TEST_SUITE_P(
    LazyRescale, AttentionWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=1000,D=128,CAUSAL=0", "CONSUMER_WARPGROUPS=2,BLOCK_N=64,STAGES=2,LAZY_RESCALE=1"},
        Case{"B=2,H=1,S=130,D=64,CAUSAL=1", "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=3,LAZY_RESCALE=1"},
        Case{"B=1,H=3,S=513,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=176,STAGES=3,INTRA_WG_OVERLAP=1,LAZY_RESCALE=1"},
        Case{"B=1,H=4,S=4096,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,REG_SPLIT=1,LONGEST_FIRST=1,LAZY_RESCALE=1"},
        Case{"B=1,H=2,S=4096,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=176,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,REG_SPLIT=1,LAZY_RESCALE=1"},
        Case{"B=8,H=32,HKV=8,S=512,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=64,STAGES=4,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,PERSISTENT=1,REG_SPLIT=1,Q_BUFFERS=2,LAZY_RESCALE=1"},
        Case{"B=2,H=8,HKV=2,S=300,SKV=777,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=64,STAGES=4,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,PERSISTENT=1,REG_SPLIT=1,Q_BUFFERS=2,LONGEST_FIRST=1,LAZY_RESCALE=1"},
        Case{"B=1,H=8,HKV=1,S=333,SKV=2049,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,"
             "LAZY_RESCALE=1"},
        Case{"B=2,H=16,S=2048,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,REG_SPLIT=1,LONGEST_FIRST=1,HEAD_INTERLEAVE=8,LAZY_RESCALE=1",
             kBf16},
        Case{"B=16,H=16,S=256,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,PERSISTENT=1,REG_SPLIT=1,Q_BUFFERS=2,LAZY_RESCALE=1",
             kBf16}),
    case_name);

// KV_SPLIT 1: K and V on their own mbarriers, the producer loading K a tile ahead of V and the consumers
// releasing K once S has completed. The grouped prefill's 128-key persistent tile it is for, one Q tile (V
// must go before the next work tile's Q, or the producer waits for an epilogue that waits for it), causal
// warpgroups skipping tiles past their rows (S > SKV: rows that see no key), one warpgroup through a long row
// (every barrier through many phases), a single tile in all, 3 warpgroups with four stages, both head
// dimensions, bf16. O wrong: a stage's K or V refilled while still read, or read before it landed; a hang: a
// barrier's parity, or the producer's order.
INSTANTIATE_TEST_SUITE_P(
    KvSplit, AttentionWgmma,
    ::testing::Values(
        Case{"B=8,H=32,HKV=8,S=512,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,PERSISTENT=1,REG_SPLIT=1,Q_BUFFERS=2,LAZY_RESCALE=1,KV_SPLIT=1"},
        Case{"B=4,H=16,S=1000,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,"
             "PERSISTENT=1,LONGEST_FIRST=1,KV_SPLIT=1"},
        Case{"B=2,H=8,HKV=2,S=777,SKV=300,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=64,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,"
             "KV_SPLIT=1"},
        Case{
            "B=1,H=2,S=4096,D=64,CAUSAL=0",
            "CONSUMER_WARPGROUPS=1,BLOCK_N=176,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_"
            "STORE=1,KV_SPLIT=1"},
        Case{"B=1,H=1,S=1,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,"
             "PERSISTENT=1,Q_BUFFERS=2,KV_SPLIT=1"},
        Case{"B=3,H=20,S=513,D=64,CAUSAL=0",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=4,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,PERSISTENT=1,Q_BUFFERS=2,KV_SPLIT=1"},
        Case{"B=2,H=16,S=2048,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,REG_SPLIT=1,LONGEST_FIRST=1,HEAD_INTERLEAVE=8,LAZY_RESCALE=1,KV_SPLIT=1",
             kBf16},
        Case{"B=16,H=16,S=256,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,PERSISTENT=1,REG_SPLIT=1,Q_BUFFERS=2,LAZY_RESCALE=1,KV_SPLIT=1",
             kBf16}),
    case_name);

// ROW_SUM_MMA 1: the row sums added by an m64n8k16 wgmma of P with a tile of ones beside each P V wgmma,
// rescaled with O. Both mainloops (plain: the rescale inside the softmax; overlapped: after P V completed),
// the self-loaded ring (no producer, the ones past where its barriers would be), pingpong, persistent blocks
// with two Q tiles (the sums reset for each work tile), lagging maxima (LAZY_RESCALE), causal rows that see
// no key (sum 0: O and LSE 0), grouped heads with SKV != S, 1..3 consumer warpgroups (each its own tile of
// ones), both head dimensions, bf16. Wrong O by a row factor: the sums missed a rescale or a tile.
INSTANTIATE_TEST_SUITE_P(
    RowSumMma, AttentionWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "CONSUMER_WARPGROUPS=1,BLOCK_N=64,STAGES=1,ROW_SUM_MMA=1"},
        Case{"B=2,H=1,S=130,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=96,STAGES=3,LAZY_RESCALE=1,ROW_SUM_MMA=1"},
        Case{"B=1,H=2,S=1000,D=128,CAUSAL=0",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3,INTRA_WG_OVERLAP=1,ROW_SUM_MMA=1"},
        Case{"B=2,H=8,HKV=2,S=777,SKV=300,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=3,BLOCK_N=128,STAGES=4,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,LAZY_RESCALE=1,ROW_SUM_MMA=1"},
        Case{
            "B=4,H=32,S=1024,D=64,CAUSAL=0",
            "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=3,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,TMA_LOADS=1,TMA_"
            "STORE=1,PERSISTENT=1,REG_SPLIT=1,Q_BUFFERS=2,LAZY_RESCALE=1,ROW_SUM_MMA=1"},
        Case{"B=1,H=4,S=4096,D=128,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,REG_SPLIT=1,LONGEST_FIRST=1,KV_SPLIT=1,ROW_SUM_MMA=1"},
        Case{"B=1,H=4,S=4096,D=64,CAUSAL=1",
             "CONSUMER_WARPGROUPS=2,BLOCK_N=128,STAGES=2,INTRA_WG_OVERLAP=1,WARP_SPECIALIZE=1,PINGPONG=1,TMA_"
             "LOADS=1,TMA_STORE=1,REG_SPLIT=1,LONGEST_FIRST=1,LAZY_RESCALE=1,ROW_SUM_MMA=1",
             kBf16}),
    case_name);

}  // namespace attention_wgmma_test
}  // namespace evotune
