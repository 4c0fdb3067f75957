// The wgmma GEMM template's constants derived from the tuning parameters, their checks, the named barriers
// and the block's shared memory (SharedStorage).
// Included by gemm_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

namespace gemm {

constexpr int BLOCK_K = 64;  // one 128-byte swizzle row of 16-bit elements
// The product tile the wgmmas compute: A B, or (SWAP_AB) its transpose B^T A^T, whose rows are D's columns.
constexpr int MMA_M = SWAP_AB ? BLOCK_N : BLOCK_M;  // its rows: the wgmmas' m side, in m64 atoms
constexpr int MMA_N = SWAP_AB ? BLOCK_M : BLOCK_N;  // its columns: the wgmma's n
constexpr int WG_ROWS = MMA_M / CONSUMER_WARPGROUPS;
constexpr int M_ATOMS = WG_ROWS / 64;  // m64 wgmmas stacked in a consumer warpgroup's rows
constexpr int THREADS = 128 * (1 + CONSUMER_WARPGROUPS);
constexpr int A_STAGE_BYTES = BLOCK_M * BLOCK_K * 2;
constexpr int B_STAGE_BYTES = BLOCK_N * BLOCK_K * 2;
constexpr int B_SLAB_BYTES = 64 * BLOCK_K * 2;  // B row-major: one [64 k][64 n] box
// With two consumer warpgroups the producer keeps 40 registers and each consumer gets 232 (CUTLASS's split):
// 128 (40 + 2 232) <= 64K.
constexpr int PRODUCER_REGS = 40;
constexpr int CONSUMER_REGS = 232;

static_assert(SWAP_AB == 0 || SWAP_AB == 1, "SWAP_AB is 0 or 1");
static_assert(WG_ROWS == 64 || WG_ROWS == 128,
              "a consumer warpgroup owns 64 or 128 rows of the product tile");
static_assert(CONSUMER_WARPGROUPS == 1 || CONSUMER_WARPGROUPS == 2, "1 or 2 consumer warpgroups");
static_assert(
    MMA_N == 8 || (MMA_N % 16 == 0 && MMA_N >= 16 && MMA_N <= 256),
    "the product tile's columns (BLOCK_N, or BLOCK_M swapped) are the n of a wgmma: 8 or 16..256 by 16");
static_assert(B_KMAJOR || BLOCK_N % 64 == 0, "B row-major is loaded in 64-column slabs");
static_assert(BLOCK_M <= 256 && BLOCK_N <= 256, "a TMA box has at most 256 rows");
static_assert(STAGES >= 2 && STAGES <= 16, "STAGES is 2..16");
static_assert(M_ATOMS * MMA_N / 2 <= 128, "the accumulators must leave room in 232 (or 255) registers");
static_assert(SPLIT_K >= 1, "SPLIT_K >= 1");
static_assert(ACT >= 0 && ACT <= 2, "ACT is 0, 1 or 2");
static_assert(EPILOGUE != 1 || SPLIT_K == 1, "split-K's partial sums are stored from registers");
static_assert(EPILOGUE != 2 || SPLIT_K > 1, "EPILOGUE 2 reduces split-K's slices in the kernel");
static_assert(EPILOGUE != 3 || SPLIT_K > 1 || STREAM_K,
              "EPILOGUE 3 sums split-K's slices (or stream-K's parts) in L2");
static_assert(STREAM_K == 0 || STREAM_K == 1, "STREAM_K is 0 or 1");
static_assert(STREAM_K == 0 || (SPLIT_K == 1 && EPILOGUE == 3),
              "stream-K cuts the k steps itself (SPLIT_K 1) and sums a tile's parts in L2 (EPILOGUE 3)");
static_assert(EPILOGUE >= 0 && EPILOGUE <= 3, "EPILOGUE is 0, 1, 2 or 3");
constexpr int CLUSTER = CLUSTER_M * CLUSTER_N;
static_assert(CLUSTER == 1 || CLUSTER == 2, "clusters of 1 x 1, 2 x 1 or 1 x 2 blocks");
static_assert(STREAM_K == 0 || CLUSTER == 1, "stream-K's shares are a block's own: no clusters");
static_assert(CLUSTER_N == 1 || BLOCK_M % 16 == 0,
              "CLUSTER_N 2: each block multicasts half of A's rows, whole 8-row (1024-byte) swizzle atoms");

// The wgmma's operands are shared-memory tiles of 128-byte rows: A's BLOCK_M rows, and B's BLOCK_N rows
// ([N, K]) or 64-column slabs of 64 k rows ([K, N]), MN-major. The instruction transposes an MN-major operand
// (trans-a swapped, trans-b not).
constexpr int TRANS_ROWS = SWAP_AB && !B_KMAJOR;
constexpr int TRANS_COLUMNS = !SWAP_AB && !B_KMAJOR;

constexpr int STAGING_BYTES = 64 * 128;  // room for one box of D of up to 64 rows, 128 bytes a row (swizzled)
// The staging box's row of D (the D map's box width): 128 bytes; unswapped, where a tile's row of D is no
// multiple of 128 bytes (BLOCK_N 96, 112, 160, 176, 224 of a 16-bit D), the largest of 64 and 32 bytes that
// divides it. The D map's 128-byte swizzle still spaces a narrower box's rows 128 bytes apart in shared
// memory, each row's 16-byte chunks swizzled as a whole row's (measured on an H200), so `staged` addresses
// every width alike.
constexpr int TILE_ROW_BYTES = BLOCK_N * static_cast<int>(sizeof(out_t));
constexpr int STAGING_ROW_BYTES = SWAP_AB || TILE_ROW_BYTES % 128 == 0 ? 128
                                  : TILE_ROW_BYTES % 64 == 0           ? 64
                                                                       : 32;
constexpr int STAGING_COLS = STAGING_ROW_BYTES / static_cast<int>(sizeof(out_t));  // columns of D in a box
// Rows of D in one staging box (the D map's box): an m64 atom's unswapped; swapped, the largest of 64, 32, 16
// and 8 that divides BLOCK_M, so that the boxes tile the block's rows.
constexpr int STORE_ROWS = !SWAP_AB || BLOCK_M % 64 == 0 ? 64
                           : BLOCK_M % 32 == 0           ? 32
                           : BLOCK_M % 16 == 0           ? 16
                                                         : 8;
static_assert(BLOCK_N % STAGING_COLS == 0 || EPILOGUE != 1,
              "the TMA epilogue stores whole boxes of the tile's columns");

// Named barriers (0 is __syncthreads): each consumer warpgroup's own, for its epilogue's staging tile.
enum class Barrier : int { epilogue_first = 1 };

// The shared memory of a block (1024-byte aligned by the kernel); every tile is a multiple of 1024 bytes.
struct SharedStorage {
  elem a[STAGES][BLOCK_M * BLOCK_K];
  elem b[STAGES][BLOCK_N * BLOCK_K];
  // EPILOGUE 1: two staging boxes per consumer warpgroup (a one-element array otherwise)
  unsigned char staging[EPILOGUE == 1 ? CONSUMER_WARPGROUPS * 2 * STAGING_BYTES : 1024];
  unsigned long long full[STAGES];
  unsigned long long empty[STAGES];
};

}  // namespace gemm
