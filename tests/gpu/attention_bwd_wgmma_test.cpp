// The wgmma attention backward template (sm_90a) on a Hopper GPU, through `evotune eval` against the space's
// reference (which tests/gpu/attention_bwd_reference_test.cpp checks against float64): each of the three
// launches' paths (the preprocess's padded rows, every loading mode of the main kernel, the four dQ
// strategies and the conversion, the dS^T tile by 4-byte stores or stmatrix), one to three stages, one or two
// consumer warpgroups with one or two dQ units each (and D = 64's single unit over 64 rows, which one of two
// warpgroups writes), one and two stages, both head dimensions, causal, grouped heads (g = 1, 4, 8) with key
// lengths shorter and longer than the queries' (rows that see no key), ragged and tiny lengths, both dtypes;
// each with the space's special inputs (scores far from 0, K = 0) and the S + 1 / SKV + 1 and SKV + 67
// problems besides the random rounds, and (DQ_ATOMIC 0) the determinism check; the grid's block order with
// heads interleaved (HEAD_INTERLEAVE); FlashAttention-3's 80-row query tiles at D = 128. Skips where the GPU
// is not compute capability 9.0, which has no wgmma. A synchronisation bug shows as a wrong result, or as a
// deadlock that `evotune eval` reports as a timeout; long S makes every stage's mbarrier go through many
// phases.
#include <gtest/gtest.h>

#include "support/eval_variant.hpp"

namespace evotune {
namespace attention_bwd_wgmma_test {

struct Case {
  const char* problem;
  const char* params;
  const char* space = "search_spaces/flash_attn_bwd_wgmma.json";
};

class AttentionBwdWgmma : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionBwdWgmma, MatchesTheReference) {
  if (const std::string why = test::missing_gpu(true); !why.empty()) GTEST_SKIP() << why;
  test::eval_variant("kernels/attention/flash_attn_bwd_wgmma.cu", GetParam().space, GetParam().problem,
                     GetParam().params, 2 + 2 + 2,
                     "two random rounds, two special ones, S + 1 and SKV + 1, S + 1 with SKV + 67");
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return "case_" + std::to_string(info.index);
}

// The first path to get right: the consumers load (WARP_SPECIALIZE 0), one warpgroup, one stage, then the
// tile shapes and stages one at a time. BLOCK_M 64 with BLOCK_N 128 and D = 64 has one dQ unit for two
// warpgroups (the second computes it without writing); BLOCK_M 128 with BLOCK_N 64 gives a warpgroup two dQ
// units (D = 64 only: D = 128 has no 128-row tile).
INSTANTIATE_TEST_SUITE_P(
    SelfLoaded, AttentionBwdWgmma,
    ::testing::Values(Case{"B=1,H=1,S=64,D=64,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=1,DQ_ATOMIC=1"},
                      Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=1,DQ_ATOMIC=1"},
                      Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=1,DQ_ATOMIC=0"},
                      Case{"B=1,H=2,S=200,D=128,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=2,DQ_ATOMIC=1"},
                      Case{"B=2,H=2,S=130,D=64,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=2,DQ_ATOMIC=1"},
                      Case{"B=1,H=3,S=300,D=128,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=1,DQ_ATOMIC=0"},
                      Case{"B=1,H=2,S=513,D=128,CAUSAL=0", "BLOCK_M=64,BLOCK_N=128,STAGES=2,DQ_ATOMIC=1"},
                      Case{"B=1,H=1,S=1,D=64,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=2,DQ_ATOMIC=0"},
                      Case{"B=1,H=1,S=1,D=128,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=1,DQ_ATOMIC=1"},
                      // dQ by bulk reduce-adds from shared memory: one warpgroup, then two
                      Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=1,DQ_ATOMIC=2"},
                      Case{"B=2,H=2,S=130,D=128,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=2,DQ_ATOMIC=2"}),
    case_name);

// A producer warpgroup with cp.async on full/empty mbarriers (one consumer warpgroup: no setmaxnreg; two: 24
// / 240), both stage counts, FlashAttention-3's tiles (D = 128: 64 x 128; D = 64: 128 x 128), long S.
INSTANTIATE_TEST_SUITE_P(
    WarpSpecialized, AttentionBwdWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=1,WARP_SPECIALIZE=1,DQ_ATOMIC=1"},
        Case{"B=1,H=2,S=300,D=128,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=1"},
        Case{"B=2,H=2,S=513,D=64,CAUSAL=0", "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=1"},
        Case{"B=1,H=2,S=1000,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=1,WARP_SPECIALIZE=1,DQ_ATOMIC=0"},
        Case{"B=1,H=2,S=2049,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=0"},
        Case{"B=1,H=1,S=1,D=128,CAUSAL=1", "BLOCK_M=64,BLOCK_N=64,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=1"},
        // one warpgroup, D = 128: two dQ units a tile through the same staging rows
        Case{"B=1,H=2,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=64,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=2"}),
    case_name);

// TMA loads (tensor maps of Q, dO, K, V; bulk copies of the LSE and Dsum rows): boxes past S and SKV read as
// zeros, the three dQ strategies, both head dimensions, causal, long S.
INSTANTIATE_TEST_SUITE_P(
    Tma, AttentionBwdWgmma,
    ::testing::Values(Case{"B=1,H=2,S=77,D=64,CAUSAL=0",
                           "BLOCK_M=64,BLOCK_N=64,STAGES=1,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1"},
                      Case{"B=2,H=2,S=1000,D=128,CAUSAL=1",
                           "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1"},
                      Case{"B=1,H=3,S=513,D=128,CAUSAL=0",
                           "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=0"},
                      Case{"B=2,H=2,S=1000,D=64,CAUSAL=1",
                           "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1"},
                      Case{"B=1,H=2,S=2049,D=64,CAUSAL=0",
                           "BLOCK_M=64,BLOCK_N=128,STAGES=1,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=0"},
                      Case{"B=1,H=1,S=1,D=64,CAUSAL=0",
                           "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1"},
                      // FlashAttention-3's configurations: its tiles, TMA, dQ by bulk reduce-adds
                      Case{"B=2,H=4,S=1000,D=128,CAUSAL=1",
                           "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2"},
                      Case{"B=2,H=4,S=1000,D=64,CAUSAL=0",
                           "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2"}),
    case_name);

// Grouped heads (g = H / HKV of 1, 4, 8, MQA with HKV = 1) and key lengths of their own: fewer queries than
// keys, more queries than keys (causal: the first S - SKV rows see no key, and a key block's first query tile
// is far down), SKV = 1, odd lengths, on every loading path and the three dQ strategies.
INSTANTIATE_TEST_SUITE_P(
    Grouped, AttentionBwdWgmma,
    ::testing::Values(
        Case{"B=2,H=8,HKV=2,S=77,SKV=300,D=64,CAUSAL=1", "BLOCK_M=64,BLOCK_N=64,STAGES=1,DQ_ATOMIC=1"},
        Case{"B=1,H=8,HKV=1,S=300,SKV=77,D=64,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=2,DQ_ATOMIC=0"},
        Case{"B=2,H=4,HKV=4,S=130,SKV=513,D=128,CAUSAL=0", "BLOCK_M=64,BLOCK_N=128,STAGES=2,DQ_ATOMIC=1"},
        Case{"B=1,H=16,HKV=2,S=1,SKV=1000,D=128,CAUSAL=1", "BLOCK_M=64,BLOCK_N=64,STAGES=2,DQ_ATOMIC=0"},
        Case{"B=2,H=8,HKV=1,S=513,SKV=130,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=1"},
        Case{"B=1,H=4,HKV=1,S=200,SKV=1,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=0"},
        Case{"B=2,H=8,HKV=2,S=1000,SKV=77,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1"},
        Case{"B=2,H=16,HKV=2,S=333,SKV=2049,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=0"},
        Case{"B=1,H=8,HKV=8,S=2049,SKV=500,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1"},
        Case{"B=3,H=8,HKV=1,S=700,SKV=1500,D=64,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=64,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=0"},
        Case{"B=2,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2"},
        Case{"B=1,H=8,HKV=1,S=77,SKV=600,D=64,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=1,DQ_ATOMIC=2"}),
    case_name);

// bf16 (the same template compiled with -DBF16=1): each loading path once, the three dQ strategies, causal,
// grouped, both head dimensions.
constexpr const char* kBf16 = "search_spaces/flash_attn_bwd_wgmma_bf16.json";
INSTANTIATE_TEST_SUITE_P(
    Bf16, AttentionBwdWgmma,
    ::testing::Values(Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=1,DQ_ATOMIC=1", kBf16},
                      Case{"B=1,H=8,HKV=2,S=300,SKV=513,D=128,CAUSAL=1",
                           "BLOCK_M=64,BLOCK_N=128,STAGES=2,DQ_ATOMIC=0", kBf16},
                      Case{"B=2,H=2,S=1000,D=64,CAUSAL=1",
                           "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=1", kBf16},
                      Case{"B=1,H=8,HKV=1,S=513,SKV=200,D=128,CAUSAL=1",
                           "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1",
                           kBf16},
                      Case{"B=2,H=4,S=700,D=64,CAUSAL=1",
                           "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2",
                           kBf16}),
    case_name);

// The overlaps: DS_DOUBLE_BUFFER (two dS^T tiles, one barrier a tile) on every loading path;
// NEXT_TILE_OVERLAP 1 (the next tile's S^T issued before this tile's dQ is written) and 2 (its dP^T too) with
// a producer and 2 stages, 64-row tiles at D = 64 (elsewhere ptxas serialises it); each with odd lengths,
// causal, grouped heads, both head dimensions (two dS^T tiles), every dQ strategy, both dtypes, and S = 1 (a
// block's single tile, whose "next" scores are computed on its own stage and never used). A wrong stage or
// dS^T buffer shows as a wrong dQ (or dK, dV); a wrong wgmma group count as wrong P or dS (all outputs); a
// ring misstep as a timeout.
INSTANTIATE_TEST_SUITE_P(
    Overlapped, AttentionBwdWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=1,DQ_ATOMIC=1,DS_DOUBLE_BUFFER=1"},
        Case{"B=2,H=2,S=513,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,DQ_ATOMIC=0,DS_DOUBLE_BUFFER=1"},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DS_DOUBLE_BUFFER=1"},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2"},
        Case{"B=2,H=2,S=513,D=64,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=1,NEXT_TILE_OVERLAP=1"},
        Case{"B=1,H=1,S=1,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1,NEXT_TILE_OVERLAP=1"},
        Case{"B=2,H=8,HKV=2,S=333,SKV=2049,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=0,DS_DOUBLE_BUFFER=1"},
        Case{"B=1,H=8,HKV=1,S=513,SKV=130,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1,DS_DOUBLE_BUFFER=1,"
             "NEXT_TILE_OVERLAP=1"},
        Case{"B=2,H=4,S=1000,D=64,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DS_DOUBLE_BUFFER=1,"
             "NEXT_TILE_OVERLAP=1"},
        Case{"B=2,H=4,HKV=2,S=1000,SKV=777,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1,NEXT_TILE_OVERLAP=2"},
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=2,DS_DOUBLE_BUFFER=1,NEXT_TILE_"
             "OVERLAP=2"},
        Case{"B=2,H=4,S=700,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DS_DOUBLE_BUFFER=1,"
             "NEXT_TILE_OVERLAP=1",
             kBf16},
        Case{"B=1,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1", kBf16}),
    case_name);

// The dQ writer warp (DQ_WRITER 1: warp 1 of the TMA producer issues the bulk reduce-adds of the units the
// consumers stage): one consumer warpgroup with one and two dQ units a tile, two with one each, D = 64's
// single unit over 64 rows (the second warpgroup stages none: the writer serves warpgroup 0 only), S = 1,
// odd lengths, causal, grouped heads, long S (many rounds of both barriers), with and without the overlaps,
// both head dimensions and both dtypes. A wrong order of the writer's waits against the consumers' shows as
// a timeout; a unit added before it was staged, or rows overwritten before they were read, as a wrong dQ
// (dK and dV right).
INSTANTIATE_TEST_SUITE_P(
    DqWriter, AttentionBwdWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=64,STAGES=1,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DQ_WRITER=1"},
        Case{"B=1,H=2,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=64,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DQ_WRITER=1"},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DQ_WRITER=1"},
        Case{"B=2,H=4,S=1000,D=64,CAUSAL=0",
             "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DQ_WRITER=1"},
        Case{"B=2,H=2,S=130,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DQ_WRITER=1"},
        Case{"B=1,H=1,S=1,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DQ_WRITER=1"},
        Case{"B=1,H=2,S=2049,D=64,CAUSAL=0",
             "BLOCK_M=128,BLOCK_N=128,STAGES=1,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DQ_WRITER=1"},
        Case{"B=1,H=2,S=77,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DQ_WRITER=1"},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,"
             "DS_DOUBLE_BUFFER=1,DQ_WRITER=1"},
        Case{"B=2,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DS_DOUBLE_BUFFER=1,"
             "DQ_WRITER=1"},
        Case{"B=1,H=8,HKV=1,S=513,SKV=130,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DS_DOUBLE_BUFFER=1,"
             "NEXT_TILE_OVERLAP=1,DQ_WRITER=1"},
        Case{"B=2,H=4,HKV=2,S=1000,SKV=777,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,"
             "DS_DOUBLE_BUFFER=1,NEXT_TILE_OVERLAP=2,DQ_WRITER=1"},
        Case{"B=2,H=4,S=700,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DS_DOUBLE_BUFFER=1,"
             "NEXT_TILE_OVERLAP=1,DQ_WRITER=1",
             kBf16},
        Case{"B=1,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DQ_WRITER=1", kBf16}),
    case_name);

// The tiled dQ accumulator (DQ_ATOMIC 3: [B, H, S_PAD / 64, D / 64, 64, 64], chunks swizzled; a warpgroup
// stages a unit's 16 KiB image and one thread adds it with one bulk reduce-add), mirroring DQ_ATOMIC 2's
// cases: one warpgroup with one and two dQ units a tile (one staging area reused), two warpgroups, D = 64's
// single unit over 64 rows (DQ_IDLE), S not a multiple of 64 (77, 130, 300, 513: a unit's rows past S add
// zeros into the padding rows), S = 1, causal, grouped heads with S != SKV (rows that see no key), long S,
// every loading path, with the overlaps and the dQ writer warp (lane 0 of the writer adds the unit), both
// head dimensions and both dtypes. dQ wrong with dK and dV right: the unit's offset in the tiled accumulator
// (rows or slab), the swizzle of the staging stores against the conversion's reads, or the preprocess's
// zeroing (the engine NaN-poisons scratch, so an unzeroed unit shows as NaN).
INSTANTIATE_TEST_SUITE_P(
    DqTiled, AttentionBwdWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=1,DQ_ATOMIC=3"},
        Case{"B=2,H=2,S=130,D=128,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=2,DQ_ATOMIC=3"},
        Case{"B=1,H=2,S=1000,D=128,CAUSAL=1", "BLOCK_M=64,BLOCK_N=64,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=3"},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3"},
        Case{"B=2,H=4,S=1000,D=64,CAUSAL=0",
             "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3"},
        Case{"B=2,H=3,S=300,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3"},
        Case{"B=1,H=3,S=300,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3"},
        Case{"B=1,H=1,S=1,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3"},
        Case{"B=1,H=2,S=2049,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=3"},
        Case{"B=2,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3"},
        Case{"B=1,H=8,HKV=1,S=77,SKV=600,D=64,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=1,DQ_ATOMIC=3"},
        Case{"B=1,H=8,HKV=1,S=513,SKV=130,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3"},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_DOUBLE_BUFFER=1"},
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,DQ_ATOMIC=3,DS_DOUBLE_BUFFER=1,NEXT_TILE_"
             "OVERLAP=2"},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DQ_WRITER=1"},
        Case{"B=1,H=2,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=64,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DQ_WRITER=1"},
        Case{"B=2,H=2,S=130,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DQ_WRITER=1"},
        Case{"B=1,H=8,HKV=1,S=300,SKV=513,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_DOUBLE_BUFFER=1,"
             "NEXT_TILE_OVERLAP=1,DQ_WRITER=1"},
        Case{"B=2,H=4,S=700,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3", kBf16},
        Case{"B=1,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3", kBf16}),
    case_name);

// A third Q/dO stage (the ring's stage t % 3 and parity (t / 3) & 1, which no power of two covers): each
// loading path, fewer tiles than stages (S = 1, S = 130 with 128-row tiles), long S (many rounds of every
// stage's barriers), causal and grouped heads, each dQ strategy, FlashAttention-3's tiles with the tiled
// accumulator (and at D = 128 with two dS^T tiles: 232,000 bytes of shared memory), with NEXT_TILE_OVERLAP
// at D = 64 (the next tile acquired while this one is held), the dQ writer warp, both dtypes. A ring misstep
// shows as a timeout or as wrong outputs everywhere.
INSTANTIATE_TEST_SUITE_P(
    ThreeStages, AttentionBwdWgmma,
    ::testing::Values(
        Case{"B=1,H=2,S=513,D=64,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=3,DQ_ATOMIC=1"},
        Case{"B=2,H=2,S=300,D=128,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=3,DQ_ATOMIC=0"},
        Case{"B=1,H=2,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,DQ_ATOMIC=1"},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3"},
        Case{"B=2,H=4,S=1000,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3"},
        Case{"B=1,H=2,S=2049,D=64,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=0"},
        Case{"B=2,H=8,HKV=2,S=333,SKV=2049,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2"},
        Case{"B=1,H=1,S=1,D=64,CAUSAL=0",
             "BLOCK_M=128,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1"},
        Case{"B=2,H=2,S=130,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3"},
        Case{"B=1,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_DOUBLE_BUFFER=1"},
        Case{"B=2,H=4,HKV=2,S=1000,SKV=777,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=1,NEXT_TILE_OVERLAP=2"},
        Case{"B=2,H=4,S=1000,D=64,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,NEXT_TILE_OVERLAP=1,"
             "DQ_WRITER=1"},
        Case{"B=2,H=4,S=700,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2", kBf16},
        Case{"B=1,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DQ_WRITER=1", kBf16}),
    case_name);

// DS_STMATRIX 1: each warp writes its dS^T with one stmatrix.x4 per 16 query rows (bwd_tile_layout.cuh,
// whose mapping tests/kernels/attention_bwd_tile_layout_test.cpp checks on the CPU). First the simplest path
// (the consumers load, one warpgroup, one stage), then FlashAttention-3's tiles (D = 64: 128 x 128, 3
// stages; D = 128: 64 x 128, 2 stages; TMA, the tiled accumulator), causal and not, S = 77 and 300, grouped
// heads with S != SKV, bulk reduce-adds a row (DQ_ATOMIC 2), two dS^T tiles (DS_DOUBLE_BUFFER 1, at D = 64
// with 64-row tiles and NEXT_TILE_OVERLAP 1), long S, D = 64's idle warpgroup, the partials (the
// determinism check), both dtypes. dK and dV right with dQ wrong: the stmatrix row addresses (a key's chunk
// or slab), since dQ alone reads the tile; case 0 isolates it.
INSTANTIATE_TEST_SUITE_P(
    Stmatrix, AttentionBwdWgmma,
    ::testing::Values(
        Case{"B=1,H=1,S=64,D=64,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=1,DQ_ATOMIC=1,DS_STMATRIX=1"},
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0",
             "BLOCK_M=128,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_STMATRIX=1"},
        Case{"B=2,H=3,S=300,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_STMATRIX=1"},
        Case{"B=1,H=2,S=77,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_STMATRIX=1"},
        Case{"B=1,H=3,S=300,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_STMATRIX=1"},
        Case{"B=2,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_STMATRIX=1"},
        Case{"B=1,H=8,HKV=1,S=300,SKV=513,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_STMATRIX=1"},
        Case{"B=1,H=3,S=300,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DS_STMATRIX=1"},
        Case{"B=1,H=3,S=300,D=64,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DS_DOUBLE_BUFFER=1,"
             "NEXT_TILE_OVERLAP=1,DS_STMATRIX=1"},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_DOUBLE_BUFFER=1,"
             "DS_STMATRIX=1"},
        Case{"B=2,H=2,S=130,D=64,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=2,DQ_ATOMIC=1,DS_STMATRIX=1"},
        Case{"B=1,H=2,S=77,D=128,CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,STAGES=2,DQ_ATOMIC=0,DS_STMATRIX=1"},
        Case{"B=2,H=3,S=300,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_STMATRIX=1",
             kBf16},
        Case{"B=1,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_STMATRIX=1",
             kBf16}),
    case_name);

// HEAD_INTERLEAVE: the grid's blocks take their (key block, K/V head, batch) in groups of 4 or 8 heads,
// under a causal mask only: a last group with fewer pairs (6 = 4 + 2, 5 < 8), grouped heads, keys longer and
// shorter than the queries, each dQ strategy (DQ_ATOMIC 0's per-key-block partials follow the block's key
// block, not blockIdx.x, and keep the determinism check), the self-loading consumers and both dtypes.
INSTANTIATE_TEST_SUITE_P(
    HeadInterleave, AttentionBwdWgmma,
    ::testing::Values(
        Case{"B=2,H=3,S=300,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,HEAD_INTERLEAVE=4"},
        Case{"B=1,H=5,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,HEAD_INTERLEAVE=8"},
        Case{"B=2,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=0,HEAD_INTERLEAVE=4"},
        Case{"B=3,H=2,S=1000,D=64,CAUSAL=1", "BLOCK_M=64,BLOCK_N=64,STAGES=2,DQ_ATOMIC=1,HEAD_INTERLEAVE=4"},
        Case{"B=1,H=4,S=200,SKV=777,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,HEAD_INTERLEAVE=8"},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_STMATRIX=1,"
             "HEAD_INTERLEAVE=4",
             kBf16}),
    case_name);

// FlashAttention-3's D = 128 tiles of 80 query rows (BLOCK_M 80: S^T and dP^T of 64 x 80 a warpgroup, dV and
// dK over 5 k16 steps, dQ computed transposed, dQ^T = K^T dS^T, from the 32-byte-swizzled dS^T tile, staged
// into 80 x 64 units of the tiled accumulator; LSE and Dsum rows padded to 640): one tile of exactly 80 rows,
// S a multiple of 80 (160, 640: the padding's size, 800) and not (1, 77, 300, 513, 1000, 4096: a last tile
// whose rows past S read zeros and add zeros to the padding), 1 and 2 stages, causal (the mask on 80-row
// diagonal tiles), grouped heads with S != SKV (rows that see no key, key blocks whose first tile is far
// down), heads interleaved, both dtypes; each with the space's extra problems (S + 1). Reading a failure:
// dV right and dK wrong, the 5th k-step's A fragment; dK and dV right and dQ wrong, the transposed dQ (case
// 0 isolates it: one key block, one tile): the dS^T tile's 32-byte swizzle or its descriptor (LBO, SBO,
// layout type 3), the A descriptor of K^T (trans-a), or the staging of the transposed fragment against the
// conversion's reads (dq_unit80_chunk_offset); dQ NaN, a unit the preprocess did not zero (padding rows).
constexpr const char* kTile80 = "BLOCK_M=80,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3";
constexpr const char* kTile80OneStage =
    "BLOCK_M=80,BLOCK_N=128,STAGES=1,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3";
INSTANTIATE_TEST_SUITE_P(
    QueryTile80, AttentionBwdWgmma,
    ::testing::Values(
        Case{"B=1,H=1,S=80,D=128,CAUSAL=0", kTile80}, Case{"B=1,H=2,S=160,D=128,CAUSAL=0", kTile80OneStage},
        Case{"B=1,H=2,S=77,D=128,CAUSAL=0", kTile80}, Case{"B=1,H=1,S=1,D=128,CAUSAL=0", kTile80},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=0", kTile80}, Case{"B=2,H=4,S=1000,D=128,CAUSAL=1", kTile80},
        Case{"B=1,H=3,S=300,D=128,CAUSAL=1", kTile80OneStage}, Case{"B=2,H=16,S=640,D=128,CAUSAL=0", kTile80},
        Case{"B=2,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=1", kTile80},
        Case{"B=1,H=8,HKV=1,S=333,SKV=2049,D=128,CAUSAL=1", kTile80},
        Case{"B=1,H=4,S=4096,D=128,CAUSAL=0", kTile80},
        Case{"B=1,H=5,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=80,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,HEAD_INTERLEAVE=4"},
        Case{"B=1,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=0", kTile80, kBf16},
        Case{"B=2,H=4,S=800,D=128,CAUSAL=1", kTile80, kBf16},
        Case{"B=1,H=2,S=77,D=128,CAUSAL=1", kTile80OneStage, kBf16}),
    case_name);

// DQ_ALTERNATE 1: tile t's whole dQ (m64n{D}k16 over the block's 128 keys, a batch per 64-row chunk) by
// consumer warpgroup t % 2, staged as its units and added with one bulk reduce-add. One tile (only warpgroup
// 0 writes dQ), an odd and an even count of tiles, both head dimensions, causal, grouped heads with SKV != S,
// the three loaders (the consumers' own, the cp.async producer, TMA), two dS^T tiles, stmatrix, interleaved
// heads, bf16, and 128-row tiles at D = 64 (a batch a 64-row chunk). dQ wrong where dK and dV are right: the
// N = D descriptor of K (its LBO, the next 64 columns), the staging of columns 64.. into the second unit, or
// the bulk reduce-add's length; a hang, the branch's barriers.
constexpr const char* kAlternate =
    "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DQ_ALTERNATE=1";
constexpr const char* kAlternate128 =
    "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DQ_ALTERNATE=1";
INSTANTIATE_TEST_SUITE_P(
    AlternateDq, AttentionBwdWgmma,
    ::testing::Values(
        Case{"B=1,H=1,S=64,D=128,CAUSAL=0", kAlternate}, Case{"B=1,H=1,S=1,D=128,CAUSAL=1", kAlternate},
        Case{"B=1,H=2,S=77,D=128,CAUSAL=0", kAlternate}, Case{"B=2,H=4,S=1000,D=128,CAUSAL=0", kAlternate},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=1", kAlternate}, Case{"B=1,H=4,S=4096,D=128,CAUSAL=0", kAlternate},
        Case{"B=2,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=1", kAlternate},
        Case{"B=1,H=8,HKV=1,S=333,SKV=2049,D=128,CAUSAL=1", kAlternate},
        Case{"B=2,H=4,S=1000,D=64,CAUSAL=0", kAlternate}, Case{"B=1,H=3,S=300,D=64,CAUSAL=1", kAlternate},
        Case{"B=1,H=2,S=513,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DQ_ALTERNATE=1"},
        Case{"B=1,H=2,S=300,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=0,DQ_ATOMIC=3,DQ_ALTERNATE=1"},
        Case{"B=1,H=2,S=200,D=128,CAUSAL=0", "BLOCK_M=64,BLOCK_N=128,STAGES=1,DQ_ATOMIC=3,DQ_ALTERNATE=1"},
        Case{"B=2,H=2,S=130,D=64,CAUSAL=1", "BLOCK_M=64,BLOCK_N=128,STAGES=2,DQ_ATOMIC=3,DQ_ALTERNATE=1"},
        Case{"B=1,H=2,S=2049,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_DOUBLE_BUFFER=1,"
             "DQ_ALTERNATE=1"},
        Case{"B=1,H=5,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DS_STMATRIX=1,"
             "HEAD_INTERLEAVE=4,DQ_ALTERNATE=1"},
        Case{"B=1,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=0", kAlternate, kBf16},
        Case{"B=2,H=4,S=800,D=128,CAUSAL=1", kAlternate, kBf16},
        // 128-row tiles (D = 64): two 64-row chunks a tile, staged as two units
        Case{"B=1,H=1,S=128,D=64,CAUSAL=0", kAlternate128},
        Case{"B=2,H=4,S=1000,D=64,CAUSAL=0", kAlternate128},
        Case{"B=1,H=3,S=300,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=1,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,HEAD_INTERLEAVE=4,"
             "DQ_ALTERNATE=1"},
        Case{"B=1,H=2,S=513,D=64,CAUSAL=1",
             "BLOCK_M=128,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=0,DQ_ATOMIC=3,DQ_ALTERNATE=1"},
        Case{"B=1,H=8,HKV=2,S=513,SKV=200,D=64,CAUSAL=1", kAlternate128, kBf16}),
    case_name);

// ROW_STATS_EARLY 1 (64-row tiles, TMA producer): the tile's LSE values read into registers right after the
// S^T and dP^T wgmmas are issued, the Dsum values before the dP^T wait. P and dS wrong everywhere (dV, dK and
// dQ all off): the held values of the wrong column block or stage. The winners' shape (64 x 128 alternating
// at D = 128, causal and not, interleaved heads), one tile, tails, grouped heads with SKV != S, one and three
// stages, D = 64, the units split between the warpgroups, the overlapped loop, the writer warp, bf16.
constexpr const char* kEarlyRows =
    "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DQ_ALTERNATE=1,"
    "ROW_STATS_EARLY=1";
INSTANTIATE_TEST_SUITE_P(
    EarlyRowStats, AttentionBwdWgmma,
    ::testing::Values(
        Case{"B=1,H=1,S=1,D=128,CAUSAL=0", kEarlyRows}, Case{"B=2,H=4,S=1000,D=128,CAUSAL=0", kEarlyRows},
        Case{"B=2,H=4,S=1000,D=128,CAUSAL=1", kEarlyRows},
        Case{"B=2,H=8,HKV=2,S=513,SKV=200,D=128,CAUSAL=1", kEarlyRows},
        Case{"B=1,H=5,S=1000,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,HEAD_INTERLEAVE=4,"
             "DQ_ALTERNATE=1,ROW_STATS_EARLY=1"},
        Case{"B=1,H=2,S=300,D=128,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=1,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,ROW_STATS_EARLY=1"},
        Case{"B=1,H=8,HKV=1,S=333,SKV=2049,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=3,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=3,DQ_ALTERNATE=1,"
             "ROW_STATS_EARLY=1"},
        Case{"B=2,H=4,S=1000,D=64,CAUSAL=1",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,NEXT_TILE_OVERLAP=2,"
             "ROW_STATS_EARLY=1"},
        Case{"B=1,H=2,S=513,D=128,CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=128,STAGES=2,WARP_SPECIALIZE=1,TMA_LOADS=1,DQ_ATOMIC=2,DQ_WRITER=1,"
             "ROW_STATS_EARLY=1"},
        Case{"B=2,H=4,S=800,D=128,CAUSAL=1", kEarlyRows, kBf16}),
    case_name);

}  // namespace attention_bwd_wgmma_test
}  // namespace evotune
