// The wgmma GEMM template (sm_90a) on a Hopper GPU, through `evotune eval` against the space's reference
// (fp32 on CUDA cores): tails in M, N and K (every problem also runs at M + 1, N + 8, K + 1: K odd, so A is
// staged there), both B layouts, one and two consumer warpgroups, 64- and 128-row warpgroup tiles, every tile
// width kind, split-K with its reduction, persistent blocks with both raster orders, bias and both
// activations, D stored from registers and through shared memory with TMA (EPILOGUE), clusters sharing A or B
// through TMA multicast, fp16 and bf16, M = 1; the swapped product (SWAP_AB: D's few rows as the wgmma's n)
// at M = 1, 8, 16, 33, 77 and 128 with the same variety; few tiles: swapped tiles of 48, 80 and 112 rows,
// split-K in 5 and 6, 112- and 224-column tiles, the LLM table's Seeds; split-K reduced in the kernel
// (EPILOGUE 2) and summed in L2 (EPILOGUE 3); stream-K (STREAM_K 1); the TMA epilogue's boxes of 32 and 16
// columns (tile widths 96 to 224); rows TMA cannot address (K or N odd), staged into padded scratch by a
// first launch; the product as a programmatic dependent launch (PDL 1); and D in fp32. Skips where the GPU is
// not compute capability 9.0, which has no wgmma.
#include <gtest/gtest.h>

#include "support/eval_variant.hpp"

namespace evotune {
namespace gemm_wgmma_test {

struct Case {
  const char* problem;
  const char* params;
  const char* space = "search_spaces/gemm_wgmma.json";
};

class GemmWgmma : public ::testing::TestWithParam<Case> {};

// A case that does not name PDL runs with its first value, 0 (ordinary launches); the ProgrammaticLaunch
// cases name 1.
TEST_P(GemmWgmma, MatchesTheReference) {
  if (const std::string why = test::missing_gpu(true); !why.empty()) GTEST_SKIP() << why;
  test::eval_variant("kernels/gemm/gemm_wgmma.cu", GetParam().space, GetParam().problem, GetParam().params,
                     2 + 1 + 1, "two random rounds, A = 1, the tails problem");
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return "case_" + std::to_string(info.index);
}

#define TILE(bm, bn, stages, cwg) \
  "BLOCK_M=" #bm ",BLOCK_N=" #bn ",STAGES=" #stages ",CONSUMER_WARPGROUPS=" #cwg
INSTANTIATE_TEST_SUITE_P(
    Fp16, GemmWgmma,
    ::testing::Values(
        Case{"M=77,N=136,K=72,B_KMAJOR=0",
             TILE(128, 128, 3,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=300,N=200,K=520,B_KMAJOR=1",
             TILE(64, 96, 4,
                  1) ",PERSISTENT=0,RASTER=1,SWIZZLE=2,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=16,N=4096,K=4096,B_KMAJOR=1,BIAS=1,ACT=1",
             TILE(64, 128, 4,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=1000,N=3000,K=2000,B_KMAJOR=0",
             TILE(256, 128, 4,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=129,N=256,K=64,B_KMAJOR=0,BIAS=1,ACT=2",
             TILE(128, 64, 2,
                  1) ",PERSISTENT=1,RASTER=0,SWIZZLE=8,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=2048,N=2048,K=2048,B_KMAJOR=0",
             TILE(128, 256, 4,
                  2) ",PERSISTENT=1,RASTER=0,SWIZZLE=8,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=2048,N=2048,K=2048,B_KMAJOR=1",
             TILE(128, 256, 4,
                  2) ",PERSISTENT=0,RASTER=1,SWIZZLE=16,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=1,N=4096,K=4096,B_KMAJOR=1",
             TILE(64, 128, 6,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=8,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=200,N=64,K=8,B_KMAJOR=0,BIAS=1",
             TILE(128, 64, 7,
                  1) ",PERSISTENT=1,RASTER=1,SWIZZLE=1,SPLIT_K=3,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=300,N=136,K=520,B_KMAJOR=1,BIAS=1,ACT=2",
             TILE(256, 128, 3,
                  2) ",PERSISTENT=1,RASTER=0,SWIZZLE=2,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=200,K=72,B_KMAJOR=1",
             TILE(64, 128, 2,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=513,N=1032,K=1000,B_KMAJOR=1,ACT=2",
             TILE(256, 96, 3,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=2,SPLIT_K=2,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"}),
    case_name);

// Clusters of two blocks sharing B (2 x 1) or A (1 x 2) through TMA multicast: an odd number of row or column
// tiles (the second block's tile past the edge), both B layouts, persistent, split-K, both epilogues.
INSTANTIATE_TEST_SUITE_P(
    Cluster, GemmWgmma,
    ::testing::Values(
        Case{"M=300,N=520,K=1000,B_KMAJOR=0",
             TILE(128, 256, 3,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=300,N=520,K=1000,B_KMAJOR=1",
             TILE(128, 96, 4,
                  1) ",PERSISTENT=1,RASTER=1,SWIZZLE=2,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=1000,N=3000,K=2000,B_KMAJOR=0",
             TILE(128, 256, 4,
                  2) ",PERSISTENT=1,RASTER=0,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=2"},
        Case{"M=77,N=200,K=4096,B_KMAJOR=1",
             TILE(64, 128, 5,
                  1) ",PERSISTENT=0,RASTER=1,SWIZZLE=1,SPLIT_K=3,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=2"},
        Case{"M=2048,N=2048,K=2048,B_KMAJOR=1",
             TILE(256, 128, 3,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=8,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=16,N=4096,K=4096,B_KMAJOR=1,BIAS=1",
             TILE(64, 256, 4,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=0,CLUSTER_M=2,CLUSTER_N=1"},
        // B [K, N] shared by 2 x 1: each block multicasts 32 of a stage's 64 k rows of every slab, so that
        // tiles of an odd number of slabs (192 and 64 columns) split too; K = 2000 and the tails problem's
        // K + 1 end inside a block's half.
        Case{"M=1000,N=3000,K=2000,B_KMAJOR=0",
             TILE(128, 192, 4,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=8,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=300,N=200,K=1000,B_KMAJOR=0,BIAS=1",
             TILE(64, 64, 6,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=0",
             "BLOCK_M=80,BLOCK_N=64,STAGES=8,CONSUMER_WARPGROUPS=1,SWAP_AB=1,PERSISTENT=0,RASTER=0,SWIZZLE=1,"
             "SPLIT_K=1,EPILOGUE=1,CLUSTER_M=2,CLUSTER_N=1"}),
    case_name);

// SWAP_AB 1: the block computes D^T = B^T A^T, D's columns on wgmma's m side and its BLOCK_M rows (8 to 96)
// as the n. Tails in M (the tails problem's M + 1 adds a tile, mostly past M), N and K; B [N, K] (the wgmma's
// A K-major) and [K, N] (MN-major, transposed by the instruction); stores from registers (one element at a
// time) and through transposed staging boxes of 8, 16, 32 and 64 rows with TMA; bias and both activations,
// applied per accumulator row; split-K (an empty slice among them); persistent blocks; two consumer
// warpgroups; clusters sharing A (1 x 2, an odd number of column tiles) or B (2 x 1, the second block's row
// tile past M). The problems satisfy the space's conditions (at most two swapped tiles cover M).
#define SWAPPED(bm, bn, stages, cwg) TILE(bm, bn, stages, cwg) ",SWAP_AB=1"
INSTANTIATE_TEST_SUITE_P(
    Swapped, GemmWgmma,
    ::testing::Values(
        Case{"M=1,N=4096,K=4096,B_KMAJOR=1",
             SWAPPED(8, 128, 7,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=1,N=1000,K=520,B_KMAJOR=0,BIAS=1,ACT=1",
             SWAPPED(8, 128, 4,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=8,N=264,K=128,B_KMAJOR=0,ACT=2",
             SWAPPED(8, 64, 2,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=3,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=16,N=4096,K=4096,B_KMAJOR=1,BIAS=1,ACT=2",
             SWAPPED(16, 128, 7,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=16,N=4104,K=4096,B_KMAJOR=1",
             SWAPPED(16, 128, 7,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=16,N=520,K=1000,B_KMAJOR=0",
             SWAPPED(16, 64, 6,
                     1) ",PERSISTENT=1,RASTER=1,SWIZZLE=2,SPLIT_K=2,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=0",
             SWAPPED(96, 128, 5,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=3,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=200,K=72,B_KMAJOR=1,BIAS=1,ACT=2",
             SWAPPED(96, 256, 4,
                     2) ",PERSISTENT=1,RASTER=0,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=128,N=1032,K=520,B_KMAJOR=0,BIAS=1",
             SWAPPED(64, 128, 4,
                     1) ",PERSISTENT=0,RASTER=1,SWIZZLE=2,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=128,N=4096,K=4096,B_KMAJOR=0",
             SWAPPED(64, 256, 4,
                     2) ",PERSISTENT=1,RASTER=0,SWIZZLE=8,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=33,N=296,K=264,B_KMAJOR=1",
             SWAPPED(32, 128, 3,
                     1) ",PERSISTENT=0,RASTER=1,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=2"},
        Case{"M=16,N=1000,K=1024,B_KMAJOR=0,BIAS=1",
             SWAPPED(16, 128, 6,
                     1) ",PERSISTENT=1,RASTER=0,SWIZZLE=1,SPLIT_K=2,EPILOGUE=0,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=16,N=4096,K=4096,B_KMAJOR=1,BIAS=1,ACT=1",
             SWAPPED(16, 128, 7,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"},
        Case{"M=77,N=1000,K=1024,B_KMAJOR=0",
             SWAPPED(96, 128, 5,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=2,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"},
        Case{"M=1,N=4096,K=1024,B_KMAJOR=0,BIAS=1,ACT=2",
             SWAPPED(8, 128, 7,
                     1) ",PERSISTENT=1,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"}),
    case_name);

// Few tiles (issue 24): swapped tiles of 48, 80 and 112 rows (STORE_ROWS 16 in the TMA epilogue), split-K of
// 5 and 6 slices (empty ones among them, a K tail), both B layouts; 112- and 224-column unswapped tiles (N =
// 14336 and 28672 in 128 tiles; B [N, K] only), 112 columns shared by a 2 x 1 cluster (56-row halves); and
// the Seeds the LLM table opens with: swapped 16 x 256 persistent with split-K 8 (at M = 15, whose tails
// problem, M = 16, keeps the one row of 113 tiles under the SM count split-K needs), one 128-row tile with
// split-K 4, 128 x 256 in clusters of 2 x 1.
INSTANTIATE_TEST_SUITE_P(
    FewTiles, GemmWgmma,
    ::testing::Values(
        Case{"M=77,N=5000,K=4096,B_KMAJOR=0",
             SWAPPED(80, 128, 6,
                     2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=3,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=1",
             SWAPPED(80, 128, 6,
                     2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=3,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=1000,K=1032,B_KMAJOR=1,BIAS=1,ACT=1",
             SWAPPED(80, 128, 5,
                     1) ",PERSISTENT=0,RASTER=1,SWIZZLE=2,SPLIT_K=5,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=90,N=520,K=520,B_KMAJOR=0,BIAS=1",
             SWAPPED(48, 128, 4,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=90,N=1032,K=1000,B_KMAJOR=1",
             SWAPPED(48, 64, 6,
                     1) ",PERSISTENT=1,RASTER=1,SWIZZLE=2,SPLIT_K=2,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=2"},
        Case{"M=200,N=1000,K=264,B_KMAJOR=1,ACT=2",
             SWAPPED(112, 256, 3,
                     2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=6,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=200,N=520,K=1000,B_KMAJOR=0",
             SWAPPED(112, 128, 4,
                     1) ",PERSISTENT=1,RASTER=0,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=1,N=4104,K=4096,B_KMAJOR=0,BIAS=1",
             SWAPPED(8, 128, 6,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=6,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=15,N=28672,K=8192,B_KMAJOR=1",
             SWAPPED(16, 256, 6,
                     2) ",PERSISTENT=1,RASTER=0,SWIZZLE=1,SPLIT_K=8,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=16,N=4096,K=4096,B_KMAJOR=0",
             SWAPPED(16, 256, 5,
                     2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=128,N=14336,K=4096,B_KMAJOR=1",
             TILE(128, 112, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=300,N=1000,K=520,B_KMAJOR=1,BIAS=1,ACT=2",
             TILE(128, 112, 4,
                  1) ",PERSISTENT=1,RASTER=1,SWIZZLE=2,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=128,N=28672,K=8192,B_KMAJOR=1",
             TILE(128, 224, 4,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=128,N=4096,K=14336,B_KMAJOR=1",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=1024,N=4096,K=4096,B_KMAJOR=0",
             TILE(128, 256, 4,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=8,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=1",
             SWAPPED(80, 128, 6,
                     2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=3,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"}),
    case_name);

// EPILOGUE 2: split-K reduced in the kernel, the last slice of each tile to arrive (a zeroed counter a
// consumer warp) adding the others' partial sums, one launch. The evaluator NaN-poisons the counters and
// clears them before every execution (FillType Zero), so a missing clear fails as wrong_result (D never
// written). The Seeds of 128 x 4096 x 4096, 16 x 8192 x 8192 and 77 x 5000 x 4096 (both B layouts, and bf16);
// an empty slice (16 k steps in 5) with a K tail, bias and GELU; persistent blocks; clusters of 2 x 1 and 1 x
// 2 whose second block's tile lies past M or N (it counts nothing); M = 1 in eight slices.
INSTANTIATE_TEST_SUITE_P(
    InKernelReduction, GemmWgmma,
    ::testing::Values(
        Case{"M=128,N=4096,K=4096,B_KMAJOR=1",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=16,N=8192,K=8192,B_KMAJOR=1",
             SWAPPED(16, 128, 7,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=2,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=16,N=8192,K=8192,B_KMAJOR=1",
             SWAPPED(16, 256, 6,
                     2) ",PERSISTENT=1,RASTER=0,SWIZZLE=1,SPLIT_K=8,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=0",
             SWAPPED(80, 128, 6,
                     2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=3,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=1",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=200,N=264,K=1000,B_KMAJOR=0,BIAS=1,ACT=2",
             TILE(128, 64, 4,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=5,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=300,N=520,K=1000,B_KMAJOR=1,BIAS=1",
             TILE(128, 64, 4,
                  1) ",PERSISTENT=1,RASTER=1,SWIZZLE=2,SPLIT_K=3,EPILOGUE=2,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=33,N=296,K=264,B_KMAJOR=1,ACT=1",
             SWAPPED(32, 128, 3,
                     1) ",PERSISTENT=0,RASTER=1,SWIZZLE=1,SPLIT_K=2,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=2"},
        Case{"M=1,N=4096,K=4096,B_KMAJOR=0,BIAS=1",
             SWAPPED(8, 128, 6,
                     1) ",PERSISTENT=1,RASTER=0,SWIZZLE=1,SPLIT_K=8,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=1",
             SWAPPED(80, 128, 6,
                     2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=3,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"}),
    case_name);

// EPILOGUE 3: split-K summed in L2, every slice adding its fp32 values into one zeroed tile with
// red.global.add and the last warp of each tile to arrive storing D, one launch. The evaluator NaN-poisons
// the sums and the counters and clears both before every execution (FillType Zero), and skips only the
// bitwise repeat for these configs (Validation.Deterministic "EPILOGUE != 3"). The Seeds of 128 x 4096 x
// 4096, 16 x 4096 x 4096 and 77 x 5000 x 4096; tails M = 77, N = 1000 with bias and both activations, both B
// layouts and bf16; N odd (unswapped pairs fall back to single reductions); 128 accumulators a thread (128 x
// 256, where EPILOGUE 2 is refused); an empty slice; persistent blocks; clusters of 2 x 1 and 1 x 2 whose
// second block's tile lies past M or N (it adds and counts nothing); M = 1 in eight slices.
INSTANTIATE_TEST_SUITE_P(
    L2Reduction, GemmWgmma,
    ::testing::Values(
        Case{"M=128,N=4096,K=4096,B_KMAJOR=1",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=16,N=4096,K=4096,B_KMAJOR=1",
             SWAPPED(16, 128, 7,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=0",
             SWAPPED(80, 128, 6,
                     2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=3,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=1000,K=4096,B_KMAJOR=1,BIAS=1,ACT=2",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=1000,K=4096,B_KMAJOR=0,BIAS=1,ACT=1",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=1000,K=4096,B_KMAJOR=1,BIAS=1,ACT=2",
             SWAPPED(80, 128, 6,
                     2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=3,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=200,N=1001,K=1000,B_KMAJOR=1,BIAS=1,ACT=1",
             TILE(128, 64, 4,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=5,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=128,N=2048,K=4096,B_KMAJOR=0,BIAS=1",
             TILE(128, 256, 4,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=2,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=300,N=520,K=1000,B_KMAJOR=1,BIAS=1",
             TILE(128, 64, 4,
                  1) ",PERSISTENT=1,RASTER=1,SWIZZLE=2,SPLIT_K=3,EPILOGUE=3,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=33,N=296,K=264,B_KMAJOR=1,ACT=1",
             SWAPPED(32, 128, 3,
                     1) ",PERSISTENT=0,RASTER=1,SWIZZLE=1,SPLIT_K=2,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=2"},
        Case{"M=1,N=4096,K=4096,B_KMAJOR=0,BIAS=1",
             SWAPPED(8, 128, 6,
                     1) ",PERSISTENT=1,RASTER=0,SWIZZLE=1,SPLIT_K=8,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=128,N=4096,K=4096,B_KMAJOR=1,BIAS=1,ACT=2",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"},
        Case{"M=77,N=1000,K=4096,B_KMAJOR=0,BIAS=1,ACT=2",
             SWAPPED(80, 128, 6,
                     2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=3,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"}),
    case_name);

// STREAM_K 1: min(SMs, iterations) blocks, each an equal contiguous share of the tiles x k-steps iterations;
// whole tiles stored from registers, shared ones summed in the zeroed acc_sum (red.global.add) and stored by
// the warp whose k-step count completes the tile (EPILOGUE 3's scratch, NaN-poisoned and cleared before every
// execution by the evaluator; the bitwise repeat skipped). The counts below are for 132 SMs (H100 SXM,
// H200). 77 x 5000 x 4096 with the swapped 80 x 64 tile (79 tiles, every tile shared by two blocks) in both
// layouts, fp16 and bf16, and 80 x 128 with two consumer warpgroups; shares shorter than a tile's k steps
// (77 x 1000 x 4096: 8 tiles of 64 k steps, about 17 blocks a tile; 200 x 1001 x 1000 with N odd); shares
// spanning three and four tiles (1000 x 2600 x 264: 328 tiles of 5 k steps, up to two whole tiles a block
// between two parts; 128 x 8192 x 8192 with 64 x 64 tiles); one k step (300 x 1000 x 64: every tile whole,
// its tails problem at K + 1 shares every tile between two blocks); the 1000 x 3000 x 2000 and 128 x
// 8192 x 8192 with 128-row tiles; small M swapped (16 x 64 with 16 stages, 16 x 128); odd sizes (A and B
// staged) at 77 x 5001 x 4093; bias with ReLU and GELU. Every case also runs the tails problem (M + 1, N + 8,
// K + 1), whose shares fall elsewhere.
#define STREAM_K_TAIL ",PERSISTENT=1,SPLIT_K=1,STREAM_K=1,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1"
INSTANTIATE_TEST_SUITE_P(
    StreamK, GemmWgmma,
    ::testing::Values(
        Case{"M=77,N=5000,K=4096,B_KMAJOR=0", SWAPPED(80, 64, 8, 1) ",RASTER=0,SWIZZLE=1" STREAM_K_TAIL},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=1", SWAPPED(80, 64, 8, 1) ",RASTER=0,SWIZZLE=1" STREAM_K_TAIL},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=0,BIAS=1,ACT=1",
             SWAPPED(80, 128, 6, 2) ",RASTER=0,SWIZZLE=1" STREAM_K_TAIL},
        Case{"M=77,N=1000,K=4096,B_KMAJOR=1,BIAS=1,ACT=2",
             SWAPPED(80, 128, 6, 2) ",RASTER=0,SWIZZLE=1" STREAM_K_TAIL},
        Case{"M=1000,N=2600,K=264,B_KMAJOR=1,BIAS=1,ACT=1",
             TILE(128, 64, 4, 1) ",RASTER=1,SWIZZLE=2" STREAM_K_TAIL},
        Case{"M=1000,N=3000,K=2000,B_KMAJOR=0", TILE(128, 128, 6, 2) ",RASTER=0,SWIZZLE=8" STREAM_K_TAIL},
        Case{"M=1000,N=3000,K=2000,B_KMAJOR=1,BIAS=1,ACT=2",
             TILE(128, 256, 4, 2) ",RASTER=1,SWIZZLE=8" STREAM_K_TAIL},
        Case{"M=200,N=1001,K=1000,B_KMAJOR=1,BIAS=1,ACT=1",
             TILE(128, 64, 4, 1) ",RASTER=0,SWIZZLE=1" STREAM_K_TAIL},
        Case{"M=16,N=4096,K=4096,B_KMAJOR=0", SWAPPED(16, 64, 16, 1) ",RASTER=0,SWIZZLE=1" STREAM_K_TAIL},
        Case{"M=16,N=8192,K=8192,B_KMAJOR=1,BIAS=1",
             SWAPPED(16, 128, 7, 1) ",RASTER=0,SWIZZLE=1" STREAM_K_TAIL},
        Case{"M=128,N=8192,K=8192,B_KMAJOR=1", TILE(128, 128, 6, 2) ",RASTER=0,SWIZZLE=1" STREAM_K_TAIL},
        Case{"M=128,N=8192,K=8192,B_KMAJOR=1", TILE(64, 64, 8, 1) ",RASTER=1,SWIZZLE=4" STREAM_K_TAIL},
        Case{"M=300,N=1000,K=64,B_KMAJOR=0,BIAS=1,ACT=2",
             TILE(128, 64, 4, 1) ",RASTER=0,SWIZZLE=1" STREAM_K_TAIL},
        Case{"M=77,N=5001,K=4093,B_KMAJOR=0", SWAPPED(80, 64, 8, 1) ",RASTER=0,SWIZZLE=1" STREAM_K_TAIL},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=1", SWAPPED(80, 64, 8, 1) ",RASTER=0,SWIZZLE=1" STREAM_K_TAIL,
             "search_spaces/gemm_wgmma_bf16.json"},
        Case{"M=1000,N=3000,K=2000,B_KMAJOR=1,BIAS=1,ACT=2",
             TILE(128, 128, 6, 2) ",RASTER=0,SWIZZLE=8" STREAM_K_TAIL, "search_spaces/gemm_wgmma_bf16.json"}),
    case_name);

// Rows TMA cannot address (K odd: A and B [N, K]; N odd: B [K, N]): the operand is staged by a first launch
// (gemm_stage_a, gemm_stage_b) into padded scratch rows that its map describes; D with an odd N stored from
// registers (unswapped in pairs, unpacked at the odd edge; swapped one at a time), by the split-K reduction
// kernel, or by the in-kernel reduction. The 4095 x 4097 x 4093 in both layouts and both types, with
// a bias and both activations; N odd alone (B [N, K]: nothing staged) with split-K; K odd alone with the TMA
// store of D and clusters multicasting a staged operand; the swapped product at M = 77 with N odd; and
// operands smaller than one 16-byte chunk (the copy's element-by-element path). The staged scratch is
// NaN-poisoned before every validation launch, so a chunk the copy missed shows as NaN.
INSTANTIATE_TEST_SUITE_P(
    OddRows, GemmWgmma,
    ::testing::Values(
        Case{"M=4095,N=4097,K=4093,B_KMAJOR=0",
             TILE(128, 256, 4,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=8,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=4095,N=4097,K=4093,B_KMAJOR=1,BIAS=1,ACT=1",
             TILE(256, 128, 4,
                  2) ",PERSISTENT=1,RASTER=0,SWIZZLE=8,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=4095,N=4097,K=4093,B_KMAJOR=0,BIAS=1,ACT=2",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"},
        Case{"M=4095,N=4097,K=4093,B_KMAJOR=1",
             TILE(128, 256, 4,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=8,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=2,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"},
        Case{"M=300,N=1001,K=520,B_KMAJOR=1,BIAS=1,ACT=2",
             TILE(128, 64, 4,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=2,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=513,N=1000,K=1001,B_KMAJOR=0",
             TILE(128, 256, 4,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=1000,N=3000,K=2001,B_KMAJOR=1",
             TILE(128, 256, 4,
                  2) ",PERSISTENT=1,RASTER=0,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=2"},
        Case{"M=77,N=5001,K=4093,B_KMAJOR=0",
             SWAPPED(80, 128, 6,
                     2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=3,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=5,N=7,K=3,B_KMAJOR=0,BIAS=1",
             SWAPPED(8, 64, 2,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=9,N=13,K=5,B_KMAJOR=1",
             TILE(64, 64, 2,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"}),
    case_name);

INSTANTIATE_TEST_SUITE_P(
    Bf16, GemmWgmma,
    ::testing::Values(
        Case{"M=255,N=512,K=1024,B_KMAJOR=0",
             TILE(128, 192, 4,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=4,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"},
        Case{"M=777,N=1000,K=1024,B_KMAJOR=1,BIAS=1,ACT=1",
             TILE(64, 224, 3,
                  1) ",PERSISTENT=1,RASTER=1,SWIZZLE=2,SPLIT_K=3,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"},
        Case{"M=4096,N=4096,K=4096,B_KMAJOR=1",
             TILE(128, 256, 4,
                  2) ",PERSISTENT=1,RASTER=0,SWIZZLE=8,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"}),
    case_name);

// Rings deeper than eight stages (what keeps a streamed operand in flight where few rows make the product
// memory-bound): 64 x 64 tiles with 10 to 14 stages, swapped 16 x 64 with 16, the ring wrapping many times
// over K, across persistent tiles and in clusters.
INSTANTIATE_TEST_SUITE_P(
    DeepRing, GemmWgmma,
    ::testing::Values(
        Case{"M=128,N=4096,K=4096,B_KMAJOR=1",
             TILE(64, 64, 12,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=130,N=1000,K=2056,B_KMAJOR=0,BIAS=1",
             TILE(64, 64, 14,
                  1) ",PERSISTENT=1,RASTER=1,SWIZZLE=2,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=16,N=8192,K=8192,B_KMAJOR=1",
             SWAPPED(16, 64, 16,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=1",
             TILE(64, 64, 12,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=128,N=4096,K=4096,B_KMAJOR=1",
             TILE(64, 64, 10,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=2"}),
    case_name);

// The TMA epilogue at tile widths whose row of D is no multiple of 128 bytes: boxes of 32 columns (96, 160,
// 224) and of 16 (112, 176), whose rows TMA's 128-byte swizzle still spaces 128 bytes apart in shared memory;
// N ending inside a box, bias and GELU per column, persistent blocks, clusters, bf16.
INSTANTIATE_TEST_SUITE_P(
    NarrowStagingBoxes, GemmWgmma,
    ::testing::Values(
        Case{"M=300,N=1000,K=520,B_KMAJOR=1",
             TILE(128, 176, 4,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=129,N=200,K=64,B_KMAJOR=1,BIAS=1,ACT=2",
             TILE(64, 96, 3,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=257,N=336,K=200,B_KMAJOR=1,BIAS=1,ACT=1",
             TILE(128, 112, 4,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1"},
        Case{"M=1024,N=1400,K=512,B_KMAJOR=1",
             TILE(128, 176, 5,
                  2) ",PERSISTENT=0,RASTER=1,SWIZZLE=8,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=2,CLUSTER_N=1"},
        Case{"M=500,N=1000,K=256,B_KMAJOR=1",
             TILE(64, 160, 4,
                  1) ",PERSISTENT=1,RASTER=0,SWIZZLE=2,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=2"},
        Case{"M=1024,N=1000,K=512,B_KMAJOR=1,BIAS=1",
             TILE(128, 224, 3,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=2,CLUSTER_N=1",
             "search_spaces/gemm_wgmma_bf16.json"}),
    case_name);

// PDL 1: the product a programmatic dependent launch of the kernel before it ("Programmatic": "always"),
// waiting for it before any global access: one block a tile and persistent, swapped, split-K with its second
// kernel (an ordinary launch after it), the in-kernel and in-L2 reductions (their zeroed scratch cleared
// before it), odd K (the staging kernel before it in the same call), a 2 x 1 cluster, bf16.
INSTANTIATE_TEST_SUITE_P(
    ProgrammaticLaunch, GemmWgmma,
    ::testing::Values(
        Case{"M=300,N=1000,K=520,B_KMAJOR=1",
             TILE(128, 128, 4,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1,PDL=1"},
        Case{
            "M=77,N=5000,K=4096,B_KMAJOR=0",
            SWAPPED(80, 64, 8,
                    1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1,PDL=1"},
        Case{"M=16,N=4096,K=4096,B_KMAJOR=1,BIAS=1,ACT=1",
             TILE(64, 128, 4,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1,PDL=1"},
        Case{"M=128,N=4096,K=4096,B_KMAJOR=1",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=1,PDL=1"},
        Case{"M=128,N=4096,K=4096,B_KMAJOR=1",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1,PDL=1"},
        Case{"M=1000,N=3000,K=2001,B_KMAJOR=0",
             TILE(128, 192, 4,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=8,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=2,CLUSTER_N=1,PDL=1"},
        Case{"M=1024,N=1000,K=512,B_KMAJOR=1",
             TILE(128, 224, 3,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1,PDL=1",
             "search_spaces/gemm_wgmma_bf16.json"}),
    case_name);

// fp32 D (gemm_wgmma_out_f32.json and its bf16 twin, the template compiled with -DOUT_FLOAT=1): the TMA
// epilogue's 128-byte boxes hold 32 columns (and 16 at 176-column tiles), so an m64 atom of a swapped tile
// takes two; stores from registers as float pairs (N odd: one at a time); split-K's second kernel, the
// in-kernel and in-L2 reductions and stream-K writing fp32; a 2 x 1 cluster; bias and both activations. The
// spaces' tolerances (0.02, relative L2 1e-4) fail a D rounded through 16 bits on the way.
constexpr const char* kFp32Out = "search_spaces/gemm_wgmma_out_f32.json";
constexpr const char* kBf16Fp32Out = "search_spaces/gemm_wgmma_bf16_out_f32.json";
INSTANTIATE_TEST_SUITE_P(
    Fp32Out, GemmWgmma,
    ::testing::Values(
        Case{"M=300,N=1000,K=520,B_KMAJOR=1,BIAS=1,ACT=2",
             TILE(128, 128, 4,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1",
             kFp32Out},
        Case{"M=257,N=528,K=200,B_KMAJOR=1",
             TILE(128, 176, 4,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1",
             kFp32Out},
        Case{"M=129,N=200,K=64,B_KMAJOR=1,ACT=1",
             TILE(64, 96, 3,
                  1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1",
             kFp32Out},
        Case{"M=77,N=1001,K=72,B_KMAJOR=0,BIAS=1",
             TILE(128, 128, 3,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1",
             kFp32Out},
        Case{"M=16,N=4096,K=4096,B_KMAJOR=1,BIAS=1",
             SWAPPED(16, 128, 7,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1",
             kFp32Out},
        Case{"M=77,N=5000,K=4096,B_KMAJOR=0",
             SWAPPED(80, 64, 8,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1",
             kFp32Out},
        Case{"M=16,N=4096,K=4096,B_KMAJOR=1",
             SWAPPED(16, 128, 7,
                     1) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=0,CLUSTER_M=1,CLUSTER_N=1",
             kFp32Out},
        Case{"M=128,N=4096,K=4096,B_KMAJOR=1,BIAS=1,ACT=1",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=2,EPILOGUE=2,CLUSTER_M=1,CLUSTER_N=1",
             kFp32Out},
        Case{
            "M=300,N=1000,K=520,B_KMAJOR=0",
            TILE(
                128, 128, 6,
                2) ",PERSISTENT=1,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1,STREAM_K=1",
            kFp32Out},
        Case{"M=128,N=4096,K=4096,B_KMAJOR=1",
             TILE(128, 128, 6,
                  2) ",PERSISTENT=0,RASTER=0,SWIZZLE=1,SPLIT_K=4,EPILOGUE=3,CLUSTER_M=1,CLUSTER_N=1",
             kFp32Out},
        Case{"M=1024,N=1000,K=512,B_KMAJOR=1,BIAS=1",
             TILE(128, 224, 3,
                  2) ",PERSISTENT=1,RASTER=1,SWIZZLE=4,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=2,CLUSTER_N=1",
             kBf16Fp32Out},
        Case{"M=1,N=4096,K=1024,B_KMAJOR=0,BIAS=1,ACT=2",
             SWAPPED(8, 128, 7,
                     1) ",PERSISTENT=1,RASTER=0,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=1",
             kBf16Fp32Out},
        Case{"M=33,N=296,K=264,B_KMAJOR=1",
             SWAPPED(32, 128, 3,
                     1) ",PERSISTENT=0,RASTER=1,SWIZZLE=1,SPLIT_K=1,EPILOGUE=1,CLUSTER_M=1,CLUSTER_N=2",
             kBf16Fp32Out}),
    case_name);

}  // namespace gemm_wgmma_test
}  // namespace evotune
