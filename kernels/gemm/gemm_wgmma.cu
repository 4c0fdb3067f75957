// Matrix product D = A B (+ bias) (activation) on Hopper's warpgroup tensor cores (wgmma, sm_90a), built on
// the sm90 primitives: A [M, K] row-major, B [K, N] row-major (torch.matmul) or [N, K] (nn.Linear's x W^T),
// fp16 or bf16 (-DBF16=1), fp32 accumulation, D [M, N] of the input type or fp32 (-DOUT_FLOAT=1); bias [N].
//
// A block computes BLOCK_M x BLOCK_N tiles of D. Its first warpgroup is the producer: one thread loads the A
// and B tiles of each 64-deep k step with TMA (128-byte swizzle; rows and columns past M, N and K arrive as
// zeros) into a ring of STAGES shared-memory stages (sm90::TmaPipeline). The other CONSUMER_WARPGROUPS
// warpgroups split the rows of the product tile (cooperative): each multiplies its MMA_M /
// CONSUMER_WARPGROUPS rows with m64nMMA_Nk16 wgmmas from shared memory, keeping one k step's wgmmas in flight
// while it waits for the next stage, and releases a stage once the wgmmas reading it have completed. With two
// consumer warpgroups the producer gives registers to them (setmaxnreg). The epilogue adds the bias, applies
// the activation and stores D from registers (rows and columns past M and N are not written).
//
// The product tile: SWAP_AB 0 computes the tile as A B, its MMA_M = BLOCK_M rows D's rows (the wgmmas' m, in
// 64-row atoms) and its MMA_N = BLOCK_N columns the wgmma's n. SWAP_AB 1 computes its transpose B^T A^T, so
// that a few rows of D (decode, small batches) are the wgmma's n, which may be 8, 16, 32, ..., rather than
// padding in its m64: MMA_M = BLOCK_N rows are D's columns, MMA_N = BLOCK_M columns are D's rows. The loads
// are the same either way; only the operands change roles. Swapped, the wgmma's A is the B tile: K-major from
// B [N, K] (rows of 128 bytes, as A's), or from B [K, N] MN-major, one 64-column slab of it an m64 atom,
// transposed by the instruction (trans-a); its B is the A tile, K-major. Each thread's accumulators then hold
// (column n, rows m, m + 1) of D: EPILOGUE 0 stores them one element at a time, D's row stride apart, and the
// bias is per accumulator row; EPILOGUE 1 writes them transposed into the staging boxes (below), which TMA
// stores as whole rows of D.
//
// Tuning parameters (#defined by the tuner, never here):
//   BLOCK_M, BLOCK_N      the tile; MMA_M / CONSUMER_WARPGROUPS is 64 or 128 rows a consumer warpgroup, MMA_N
//                         is 8 or a multiple of 16 up to 256 (so BLOCK_M is 8, 16, 32, ... only with SWAP_AB)
//   SWAP_AB               0: the product A B; 1: its transpose B^T A^T (above)
//   STAGES                depth of the shared-memory ring (2..16)
//   CONSUMER_WARPGROUPS   1 or 2
//   PERSISTENT            0: one block a tile; 1: min(SMs, tiles) blocks each walking tiles (sm90::TileWalk),
//                         the ring running on across tiles (the producer loads the next tile during the
//                         consumers' epilogue)
//   RASTER, SWIZZLE       tile order (sm90::raster_tile): bands of SWIZZLE tiles across N (RASTER 0) or M (1)
//   SPLIT_K               1, or slices of the k steps: each writes fp32 partial sums to the scratch `partial`
//                         [SPLIT_K][M][N], and gemm_splitk_reduce adds them, with the bias and activation
//                         (EPILOGUE 0), or the last slice of each tile to finish adds them (EPILOGUE 2);
//                         or (EPILOGUE 3) every slice adds its sums into one zeroed fp32 tile `acc_sum`
//   STREAM_K              0, or 1: stream-K (SPLIT_K 1, EPILOGUE 3, no clusters): gridDim.x blocks (the space
//                         launches min(SMs, iterations)) each walk an equal contiguous share of the tiles x
//                         k_tiles iterations (sm90::StreamKShare, tiles in the raster order): a tile the
//                         block covers whole is stored from registers as EPILOGUE 0 does; a part of one is
//                         added into the zeroed fp32 `acc_sum` as EPILOGUE 3 adds a slice, and each warp adds
//                         the number of k steps it covered to its counter of the tile in `arrivals`; the warp
//                         whose addition completes k_tiles reads the sums and stores D. No block waits for
//                         another. The producer and the consumers walk the same tiles and k steps
//                         (unit_k_steps)
//   CLUSTER_M, CLUSTER_N  thread-block clusters of 2 x 1 (two row tiles sharing B) or 1 x 2 (two column tiles
//                         sharing A), or 1 x 1: each block loads half of the shared operand with TMA
//                         multicast into both (below)
//   EPILOGUE              0: every consumer thread stores its values of D from registers; 1: through staging
//                         boxes of STORE_ROWS rows x 128 bytes of D (double-buffered, one pair per consumer
//                         warpgroup) that one thread stores with TMA (a D tensor map replaces the pointer;
//                         rows and columns past M and N are clipped), so the stores drain while the next
//                         tile's k loop runs. A box is 64 rows of an m64 atom unswapped; swapped, an atom's
//                         64 columns of D by STORE_ROWS of its BLOCK_M rows (the largest of 64, 32, 16, 8
//                         dividing BLOCK_M); 2 (SPLIT_K > 1): split-K reduced in the kernel, no second
//                         launch: each consumer warp stores its slice's partial sums, then counts itself in
//                         its own counter of the zeroed scratch `arrivals` (one int a warp of each tile, its
//                         atomicAdd after a __threadfence); the warp that arrives last, SPLIT_K - 1 before
//                         it, reads the slices' sums of its elements through L2 (SPLIT_K 2: the other's,
//                         added to its own; more: every slice's, its own too, in slice order), so the result
//                         does not depend on which slice came last (walk_values: the loads of whole parts of
//                         tiles in flight together), and stores D
//                         with the bias and activation from registers. A warp owns the same elements of D in
//                         every slice, so warps need no other synchronisation; 3 (SPLIT_K > 1, or STREAM_K
//                         1 for the tiles blocks share): split-K summed in L2: every slice adds its fp32
//                         values into one zeroed scratch tile `acc_sum` [M][N] with reductions
//                         (red.global.add, two adjacent columns a v2 where N is even), which no thread waits
//                         for; then each warp counts itself as EPILOGUE 2 does, and the warp that arrives
//                         last reads the finished sums of its elements (one load each, through L2) and stores
//                         D with the bias and activation. The order of the additions varies from run to run,
//                         so D is not bitwise repeatable
// Clusters: the two blocks of a cluster compute adjacent tiles (a cluster tile of the raster order) in step.
// Block rank r loads its own tile of the operand they do not share and rows [r, r + 1) / 2 of the shared one
// (the map's box is half the tile, whole 8-row swizzle atoms; B row-major: k rows [32 r, 32 r + 32) of every
// 64-column slab, so that any BLOCK_N, 192 too, splits evenly) with
// .multicast::cluster into the same offset of both blocks, counted on the full barrier there; each block's
// full barrier expects the whole stage. A stage is refilled once the consumers of both blocks released it:
// every consumer warp arrives on the empty barrier of both blocks, which count both blocks' warps, and the
// producer waits with cluster scope. Every thread of both blocks passes a cluster barrier after the barriers'
// initialisation and another before it exits, so that no copy or arrival reaches a block that has exited. A
// block whose tile lies past M or N still loads its share (zeros past the edge) and stores nothing. Problem
// sizes: B_KMAJOR (0: B is [K, N]; 1: B is [N, K]), BIAS (0/1), ACT (0 none, 1 ReLU, 2 GELU (erf)). M, N and
// K are run-time sizes. TMA needs rows 16 bytes apart: where K (A; B [N, K]) or N (B [K, N]) is not a
// multiple of 8, a first launch (gemm_stage_a, gemm_stage_b) copies that operand into scratch rows padded to
// a multiple of 8 (stage_rows.cuh) and its tensor map describes the copy (the space's BufferIf); the maps'
// dims stay M, N and K, so TMA's zeros past them are unchanged and this kernel does not know. D's TMA store
// (EPILOGUE 1) needs N a multiple of 8 as well (a condition of the space); the other epilogues store any N.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../common/sm90/arch.cuh"
#include "../common/sm90/cluster.cuh"
#include "../common/sm90/element_type.cuh"
#include "../common/sm90/named_barrier.cuh"
#include "../common/sm90/pipeline.cuh"
#include "../common/sm90/registers.cuh"
#include "../common/sm90/tile_scheduler.cuh"
#include "../common/sm90/tma.cuh"
#include "../common/sm90/wgmma.cuh"
#include "stage_rows.cuh"

#ifndef BLOCK_M
static_assert(false, "BLOCK_M must be #defined");
#endif
#ifndef BLOCK_N
static_assert(false, "BLOCK_N must be #defined");
#endif
#ifndef SWAP_AB
static_assert(false, "SWAP_AB (0: the product A B; 1: its transpose B^T A^T) must be #defined");
#endif
#ifndef STAGES
static_assert(false, "STAGES must be #defined");
#endif
#ifndef CONSUMER_WARPGROUPS
static_assert(false, "CONSUMER_WARPGROUPS must be #defined");
#endif
#ifndef PERSISTENT
static_assert(false, "PERSISTENT (0 or 1) must be #defined");
#endif
#ifndef RASTER
static_assert(false, "RASTER (0 or 1) must be #defined");
#endif
#ifndef SWIZZLE
static_assert(false, "SWIZZLE must be #defined");
#endif
#ifndef SPLIT_K
static_assert(false, "SPLIT_K must be #defined");
#endif
#ifndef STREAM_K
static_assert(false, "STREAM_K (0, or 1: equal shares of every tile's k steps) must be #defined");
#endif
#ifndef EPILOGUE
static_assert(false,
              "EPILOGUE (0 registers, 1 TMA store, 2 and 3 split-K reduced in the kernel) must be #defined");
#endif
#ifndef CLUSTER_M
static_assert(false, "CLUSTER_M (1 or 2) must be #defined");
#endif
#ifndef CLUSTER_N
static_assert(false, "CLUSTER_N (1 or 2) must be #defined");
#endif
#ifndef B_KMAJOR
static_assert(false, "B_KMAJOR (0: B is [K, N]; 1: B is [N, K]) must be #defined");
#endif
#ifndef BIAS
static_assert(false, "BIAS (0 or 1) must be #defined");
#endif
#ifndef ACT
static_assert(false, "ACT (0 none, 1 ReLU, 2 GELU) must be #defined");
#endif

using element_type::elem;
using element_type::mma_type;
#if defined(OUT_FLOAT) && OUT_FLOAT
typedef float out_t;
#else
typedef elem out_t;
#endif

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
constexpr int STAGING_COLS = 128 / static_cast<int>(sizeof(out_t));  // columns of D in one staging box
// Rows of D in one staging box (the D map's box): an m64 atom's unswapped; swapped, the largest of 64, 32, 16
// and 8 that divides BLOCK_M, so that the boxes tile the block's rows.
constexpr int STORE_ROWS = !SWAP_AB || BLOCK_M % 64 == 0 ? 64
                           : BLOCK_M % 32 == 0           ? 32
                           : BLOCK_M % 16 == 0           ? 16
                                                         : 8;
static_assert(BLOCK_N % STAGING_COLS == 0 || EPILOGUE != 1, "the TMA epilogue stores whole 128-byte boxes");

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

__device__ __forceinline__ float to_float(elem x) {
#if defined(BF16) && BF16
  return __bfloat162float(x);
#else
  return __half2float(x);
#endif
}

__device__ __forceinline__ float activate(float x) {
  if constexpr (ACT == 1) return fmaxf(x, 0.0f);
  if constexpr (ACT == 2) return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
  return x;
}

// The epilogue's value at (row, col) from the accumulated sum.
__device__ __forceinline__ float finish(float sum, const elem* __restrict__ bias, int col) {
  if constexpr (BIAS) sum += to_float(bias[col]);
  return activate(sum);
}

// Stores two adjacent values of one row (col even); packed when both fit and the row start is aligned.
template <typename T>
__device__ __forceinline__ void store_pair(T* __restrict__ row_start, int col, int N, float v0, float v1) {
  if (col + 1 < N && (N % 2) == 0) {
    if constexpr (sizeof(T) == 4) {
      *reinterpret_cast<float2*>(row_start + col) = make_float2(v0, v1);
    } else {
#if defined(BF16) && BF16
      *reinterpret_cast<__nv_bfloat162*>(row_start + col) = __floats2bfloat162_rn(v0, v1);
#else
      *reinterpret_cast<__half2*>(row_start + col) = __floats2half2_rn(v0, v1);
#endif
    }
    return;
  }
  if (col < N) row_start[col] = static_cast<T>(v0);
  if (col + 1 < N) row_start[col + 1] = static_cast<T>(v1);
}

// The k steps of slice `split` of `k_tiles`.
__device__ __forceinline__ void k_range(int split, int k_tiles, int& begin, int& end) {
  const int per = sm90::cdiv(k_tiles, SPLIT_K);
  begin = min(split * per, k_tiles);
  end = min(begin + per, k_tiles);
}

// The k steps [begin, end) this block computes of work tile `id` of its walk: the tile's slice (split-K; all
// of them without), or (STREAM_K) the part of the tile in the block's share. The producer and the consumers
// walk the same tiles (the kernel's `walk`: the share's tiles with STREAM_K) and take each one's k steps
// here.
__device__ __forceinline__ void unit_k_steps(const sm90::StreamKShare& share, int id,
                                             const sm90::TileCoord& tile, int k_tiles, int& begin, int& end) {
  if constexpr (STREAM_K) {
    share.k_steps(id, begin, end);
  } else {
    k_range(tile.split, k_tiles, begin, end);
  }
}

// The tile of work tile `id` that this block (rank `rank` of its cluster) computes: the raster order walks
// cluster tiles of CLUSTER_M x CLUSTER_N tiles.
__device__ __forceinline__ sm90::TileCoord block_tile(int id, int tiles_m, int tiles_n, int rank) {
  sm90::TileCoord tile =
      sm90::raster_tile(id, sm90::cdiv(tiles_m, CLUSTER_M), sm90::cdiv(tiles_n, CLUSTER_N), RASTER, SWIZZLE);
  tile.m = tile.m * CLUSTER_M + (CLUSTER_M == 2 ? rank : 0);
  tile.n = tile.n * CLUSTER_N + (CLUSTER_N == 2 ? rank : 0);
  return tile;
}

// The producer: one thread issues every TMA load of the block's tiles in ring order.
__device__ __forceinline__ void produce(SharedStorage& s, const sm90::TmaPipeline<STAGES>& pipe,
                                        const sm90::TensorMap& a_map, const sm90::TensorMap& b_map,
                                        const sm90::TileWalk& walk, const sm90::StreamKShare& share,
                                        int tiles_m, int tiles_n, int k_tiles, int rank) {
  sm90::PipelineState<STAGES> state;
  for (int id = walk.first; id < walk.count; id += walk.step) {
    const sm90::TileCoord tile = block_tile(id, tiles_m, tiles_n, rank);
    int begin, end;
    unit_k_steps(share, id, tile, k_tiles, begin, end);
    for (int kt = begin; kt < end; ++kt) {
      if constexpr (CLUSTER > 1) {
        pipe.producer_acquire_cluster(state);  // both blocks released it
      } else {
        pipe.producer_acquire(state);
      }
      const unsigned full = pipe.full_barrier(state.stage);
      const unsigned a_tile = sm90::smem_address(s.a[state.stage]);
      const unsigned b_tile = sm90::smem_address(s.b[state.stage]);
      pipe.producer_expect(state, A_STAGE_BYTES + B_STAGE_BYTES);  // the whole stage lands in every block
      if constexpr (CLUSTER_N == 2) {  // A shared: this block's half of its rows, into both blocks
        const int half = rank * (BLOCK_M / 2);
        sm90::tma_load_2d_multicast(a_tile + half * 128, a_map, kt * BLOCK_K, tile.m * BLOCK_M + half, full,
                                    0x3);
      } else {
        sm90::tma_load_2d(a_tile, a_map, kt * BLOCK_K, tile.m * BLOCK_M, full);
      }
      if constexpr (B_KMAJOR && CLUSTER_M == 2) {  // B shared: this block's half of its rows (N), into both
        const int half = rank * (BLOCK_N / 2);
        sm90::tma_load_2d_multicast(b_tile + half * 128, b_map, kt * BLOCK_K, tile.n * BLOCK_N + half, full,
                                    0x3);
      } else if constexpr (B_KMAJOR) {
        sm90::tma_load_2d(b_tile, b_map, kt * BLOCK_K, tile.n * BLOCK_N, full);
      } else {
#pragma unroll
        for (int slab = 0; slab < BLOCK_N / 64; ++slab) {
          if constexpr (CLUSTER_M == 2) {  // this block's 32 k rows of the slab (4 swizzle atoms), into both
            const int half = rank * (BLOCK_K / 2);
            sm90::tma_load_2d_multicast(b_tile + slab * B_SLAB_BYTES + half * 128, b_map,
                                        tile.n * BLOCK_N + slab * 64, kt * BLOCK_K + half, full, 0x3);
          } else {
            sm90::tma_load_2d(b_tile + slab * B_SLAB_BYTES, b_map, tile.n * BLOCK_N + slab * 64, kt * BLOCK_K,
                              full);
          }
        }
      }
      state.advance();
    }
  }
}

// A stage this warp is done reading: released in this block and (clusters) in the other, whose producer's
// copies land in it too.
__device__ __forceinline__ void release(const sm90::TmaPipeline<STAGES>& pipe,
                                        const sm90::PipelineState<STAGES>& state, int rank) {
  pipe.consumer_release(state);
  if constexpr (CLUSTER > 1) pipe.consumer_release_remote(state, rank ^ 1);
}

// The descriptor of the wgmma's A for k16 step `ks` of a stage: m64 atom `atom` of the product tile's rows
// (A's rows; swapped, B's: D's columns).
__device__ __forceinline__ unsigned long long rows_operand(unsigned a_tile, unsigned b_tile, int atom,
                                                           int ks) {
  if constexpr (!SWAP_AB) {
    return sm90::desc_kmajor_sw128(a_tile + atom * 64 * 128 + ks * 32);
  } else if constexpr (B_KMAJOR) {
    return sm90::desc_kmajor_sw128(b_tile + atom * 64 * 128 + ks * 32);
  } else {  // the atom's 64 columns of B [K, N] are one slab
    return sm90::desc_mnmajor_sw128(b_tile + atom * B_SLAB_BYTES + ks * 2048, B_SLAB_BYTES);
  }
}
// The descriptor of the wgmma's B for k16 step `ks`: all MMA_N columns of the product tile (B's columns;
// swapped, A's rows: D's rows).
__device__ __forceinline__ unsigned long long columns_operand(unsigned a_tile, unsigned b_tile, int ks) {
  if constexpr (SWAP_AB) {
    return sm90::desc_kmajor_sw128(a_tile + ks * 32);
  } else if constexpr (B_KMAJOR) {
    return sm90::desc_kmajor_sw128(b_tile + ks * 32);
  } else {
    return sm90::desc_mnmajor_sw128(b_tile + ks * 2048, B_SLAB_BYTES);
  }
}

// One consumer warpgroup's k loop over a tile: acc = its rows of the product tile (A's, or swapped B's) x the
// columns, one k step's wgmmas in flight while the next stage is awaited; each stage released once its wgmmas
// have completed.
__device__ __forceinline__ void multiply(SharedStorage& s, const sm90::TmaPipeline<STAGES>& pipe,
                                         sm90::PipelineState<STAGES>& state, int warpgroup, int begin,
                                         int end, int rank, float (&acc)[M_ATOMS][MMA_N / 2]) {
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi)
#pragma unroll
    for (int i = 0; i < MMA_N / 2; ++i) acc[mi][i] = 0.0f;
  if (begin >= end) return;
  sm90::PipelineState<STAGES> previous = state;
  for (int kt = begin; kt < end; ++kt) {
    pipe.consumer_wait(state);
    const unsigned a_tile = sm90::smem_address(s.a[state.stage]);
    const unsigned b_tile = sm90::smem_address(s.b[state.stage]);
    sm90::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < BLOCK_K / 16; ++ks) {
      const unsigned long long columns = columns_operand(a_tile, b_tile, ks);
#pragma unroll
      for (int mi = 0; mi < M_ATOMS; ++mi)
        sm90::Wgmma<MMA_N, mma_type>::template ss<TRANS_ROWS, TRANS_COLUMNS>(
            acc[mi], rows_operand(a_tile, b_tile, warpgroup * M_ATOMS + mi, ks), columns, 1);
    }
    sm90::wgmma_commit();
    if (kt > begin) {
      sm90::wgmma_wait<1>();  // the previous step's wgmmas have completed: its stage may be refilled
      release(pipe, previous, rank);
    }
    previous = state;
    state.advance();
  }
  sm90::wgmma_wait<0>();
  release(pipe, previous, rank);
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi) sm90::pin(acc[mi]);
}

// Stores a consumer warpgroup's part of the tile from registers, its corner at row m0, column n0 of D: D with
// bias and activation, or (split-K) fp32 partial sums. Unswapped, each thread holds pairs of adjacent columns
// of rows of D and stores them packed.
template <typename T, bool FINISH>
__device__ __forceinline__ void store_rows(const float (&acc)[M_ATOMS][MMA_N / 2], T* __restrict__ out,
                                           const elem* __restrict__ bias, int m0, int n0, int M, int N) {
  const int lane = threadIdx.x % 128;
  const int row_in_atom = 16 * (lane / 32) + (lane % 32) / 4;
  const int col_in_tile = 2 * (lane % 4);
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi)
#pragma unroll
    for (int half_rows = 0; half_rows < 2; ++half_rows) {
      const int row = m0 + mi * 64 + row_in_atom + 8 * half_rows;
      if (row >= M) continue;
      T* row_start = out + static_cast<long long>(row) * N;
#pragma unroll
      for (int j = 0; j < MMA_N / 8; ++j) {
        const int col = n0 + 8 * j + col_in_tile;
        if (col >= N) continue;
        float v0 = acc[mi][4 * j + 2 * half_rows];
        float v1 = acc[mi][4 * j + 2 * half_rows + 1];
        if constexpr (FINISH) {
          v0 = finish(v0, bias, col);
          v1 = col + 1 < N ? finish(v1, bias, col + 1) : 0.0f;
        }
        store_pair(row_start, col, N, v0, v1);
      }
    }
}

// As store_rows, swapped: a thread's accumulator row is a column n of D and its pairs are rows m, m + 1, so
// each value is stored alone (the warp's stores of one instruction: 8 adjacent columns in 4 rows).
template <typename T, bool FINISH>
__device__ __forceinline__ void store_columns(const float (&acc)[M_ATOMS][MMA_N / 2], T* __restrict__ out,
                                              const elem* __restrict__ bias, int m0, int n0, int M, int N) {
  const int lane = threadIdx.x % 128;
  const int col_in_atom = 16 * (lane / 32) + (lane % 32) / 4;
  const int row_in_tile = 2 * (lane % 4);
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi)
#pragma unroll
    for (int half_cols = 0; half_cols < 2; ++half_cols) {
      const int col = n0 + mi * 64 + col_in_atom + 8 * half_cols;
      if (col >= N) continue;
#pragma unroll
      for (int j = 0; j < MMA_N / 8; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int row = m0 + 8 * j + row_in_tile + e;
          if (row >= M) continue;
          float value = acc[mi][4 * j + 2 * half_cols + e];
          if constexpr (FINISH) value = finish(value, bias, col);
          out[static_cast<long long>(row) * N + col] = static_cast<T>(value);
        }
    }
}

template <typename T, bool FINISH>
__device__ __forceinline__ void store_tile(const float (&acc)[M_ATOMS][MMA_N / 2], T* __restrict__ out,
                                           const elem* __restrict__ bias, int m0, int n0, int M, int N) {
  if constexpr (SWAP_AB) {
    store_columns<T, FINISH>(acc, out, bias, m0, n0, M, N);
  } else {
    store_rows<T, FINISH>(acc, out, bias, m0, n0, M, N);
  }
}

// Whether a consumer warpgroup's part of the tile (corner m0, n0 of D) lies inside D.
__device__ __forceinline__ bool part_inside(int m0, int n0, int M, int N) {
  return SWAP_AB ? m0 + MMA_N <= M && n0 + M_ATOMS * 64 <= N : m0 + M_ATOMS * 64 <= M && n0 + MMA_N <= N;
}

__device__ __forceinline__ void opaque(const float*& pointer) { asm volatile("" : "+l"(pointer)); }

// Calls f(at, mi, i) for each of this thread's values acc[mi][i] of a consumer warpgroup's part of the tile
// (corner m0, n0 of D) inside D, `at` its place in an fp32 [M][N] matrix, for the loads of a reduction; f
// returns the value it made of them. INSIDE (part_inside): no call is conditional and each address is the
// last one plus a step, so the loads of GROUP calls are in flight together; after every GROUP calls the
// addresses go on from the last call's value, so that the next group's loads wait for this one's (a bound on
// the loads live at once; not measured to matter: 60 sampled EPILOGUE 2 configs compile without spills, at
// most 196 registers, with the groups and without them). At the edges of D a branch
// skips each value past M or N, and the compiler then waits for each load before the next: one L2 round
// trip a value (ncu, 128 x 4096 x 4096, 128 x 128 tiles, split-K 2, EPILOGUE 2 with such a walk everywhere:
// 41.4 us against EPILOGUE 0's 19.6).
template <bool INSIDE, int GROUP, typename F>
__device__ __forceinline__ void walk_values(const float* sums, int m0, int n0, int M, int N, F&& f) {
  int calls = 0;
  const auto after = [&](const float*& at, float value) {
    if (++calls % GROUP == 0) asm volatile("" : "+l"(at), "+l"(sums) : "f"(value));
  };
  const int lane = threadIdx.x % 128;
  const int across = 16 * (lane / 32) + (lane % 32) / 4;  // the thread's row of an m64 atom of the product
  const int first = 2 * (lane % 4);                       // its first column of each 8 of the product
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      if constexpr (!SWAP_AB) {  // (row, columns col, col + 1 of each 8)
        const int row = m0 + mi * 64 + across + 8 * half;
        if (!INSIDE && row >= M) continue;
        const float* at = sums + static_cast<long long>(row) * N + n0 + first;
#pragma unroll
        for (int j = 0; j < MMA_N / 8; ++j, at += 8) {
          opaque(at);
          const int col = n0 + 8 * j + first;
#pragma unroll
          for (int e = 0; e < 2; ++e)
            if (INSIDE || col + e < N) after(at, f(at + e, mi, 4 * j + 2 * half + e));
        }
      } else {  // (column col, rows row, row + 1 of each 8)
        const int col = n0 + mi * 64 + across + 8 * half;
        if (!INSIDE && col >= N) continue;
        const float* at = sums + static_cast<long long>(m0 + first) * N + col;
#pragma unroll
        for (int j = 0; j < MMA_N / 8; ++j, at += 8LL * N) {
          opaque(at);
          const int row = m0 + 8 * j + first;
#pragma unroll
          for (int e = 0; e < 2; ++e)
            if (INSIDE || row + e < M)
              after(at, f(at + e * static_cast<long long>(N), mi, 4 * j + 2 * half + e));
        }
      }
    }
}

// walk_values<INSIDE, GROUP> with INSIDE = part_inside(...), for f that load one value each: 32 in flight.
template <typename F>
__device__ __forceinline__ void walk_values(const float* sums, int m0, int n0, int M, int N, F&& f) {
  constexpr int GROUP = 32;
  if (part_inside(m0, n0, M, N)) {
    walk_values<true, GROUP>(sums, m0, n0, M, N, f);
  } else {
    walk_values<false, GROUP>(sums, m0, n0, M, N, f);
  }
}

// True in the warp whose arrival completes its counter of the tile (`arrivals`, zero before the launch): each
// warp adds `contributed` and the one that brings it to `total` is last (split-K: 1 of SPLIT_K slices;
// stream-K: its k steps of the tile's k_tiles). Each warp's writes before its call are visible to the last
// warp after the call.
__device__ __forceinline__ bool last_to_arrive(int* __restrict__ arrivals, const sm90::TileCoord& tile,
                                               int tiles_n, int consumer, int contributed, int total) {
  __threadfence();  // this warp's writes visible on the device before its arrival is
  __syncwarp();
  const int warp = (threadIdx.x % 128) / 32;
  int arrived = 0;
  if (threadIdx.x % 32 == 0)
    arrived = atomicAdd(arrivals + ((tile.m * tiles_n + tile.n) * CONSUMER_WARPGROUPS + consumer) * 4 + warp,
                        contributed);
  arrived = __shfl_sync(0xffffffffu, arrived, 0);
  if (arrived + contributed != total) return false;
  __threadfence();  // the other warps' writes, made before their arrivals, are read after them
  return true;
}

// EPILOGUE 2: this warpgroup's part of slice tile.split stored as fp32 partial sums; in each warp that
// arrives last at its tile (its counter in `arrivals`, zero before the launch), the SPLIT_K slices added in
// slice order and D stored with the bias and activation. `acc` becomes the sum.
__device__ __forceinline__ void reduce_in_kernel(float (&acc)[M_ATOMS][MMA_N / 2],
                                                 float* __restrict__ partial, int* __restrict__ arrivals,
                                                 out_t* __restrict__ d, const elem* __restrict__ bias,
                                                 const sm90::TileCoord& tile, int tiles_m, int tiles_n,
                                                 int consumer, int m0, int n0, int M, int N) {
  const long long slice = static_cast<long long>(M) * N;
  store_tile<float, false>(acc, partial + tile.split * slice, nullptr, m0, n0, M, N);
  if (tile.m >= tiles_m || tile.n >= tiles_n) return;  // a cluster's block past the edge of D: no counter
  if (!last_to_arrive(arrivals, tile, tiles_n, consumer, 1, SPLIT_K)) return;
  if constexpr (SPLIT_K == 2) {  // its own sums and the other slice's: the same bits in either order
    walk_values(partial + (1 - tile.split) * slice, m0, n0, M, N,
                [&](const float* at, int mi, int i) { return acc[mi][i] += __ldcg(at); });
  } else {  // every slice's sums from L2 in slice order, its own too: one walk a slice
#pragma unroll 1
    for (int split = 0; split < SPLIT_K; ++split)
      walk_values(partial + split * slice, m0, n0, M, N, [&](const float* at, int mi, int i) {
        return acc[mi][i] = (split == 0 ? 0.0f : acc[mi][i]) + __ldcg(at);
      });
  }
  store_tile<out_t, true>(acc, d, bias, m0, n0, M, N);
}

// Adds to the fp32 sums in global memory with a reduction in L2 that returns nothing (no thread waits): one
// value, or two adjacent ones (8-byte aligned).
__device__ __forceinline__ void reduce_add(float* at, float value) {
  asm volatile("red.global.add.f32 [%0], %1;\n" ::"l"(at), "f"(value) : "memory");
}
__device__ __forceinline__ void reduce_add_pair(float* at, float v0, float v1) {
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(at), "f"(v0), "f"(v1) : "memory");
}

// Hides a pointer's value from the compiler, so that the addresses of a walk are computed one after another
// as it goes rather than all ahead of their loads and reductions (ptxas otherwise keeps a 64-bit address a
// value live and spills).
__device__ __forceinline__ void opaque(float*& pointer) { asm volatile("" : "+l"(pointer)); }

// Calls f(at, mi, i, pair) for this thread's values acc[mi][i] of a consumer warpgroup's part of the tile
// (corner m0, n0 of D) inside D, `at` their place in the fp32 tile `sums` [M][N]: unswapped where N is even,
// once a pair of adjacent columns (i even, `at` 8-byte aligned, pair true); otherwise once a value.
template <typename F>
__device__ __forceinline__ void walk_sums(float* sums, int m0, int n0, int M, int N, F&& f) {
  const int lane = threadIdx.x % 128;
  const int across = 16 * (lane / 32) + (lane % 32) / 4;  // the thread's row of an m64 atom of the product
  const int first = 2 * (lane % 4);                       // its first column of each 8 of the product
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      if constexpr (!SWAP_AB) {
        const int row = m0 + mi * 64 + across + 8 * half;
        if (row >= M) continue;
        float* at = sums + static_cast<long long>(row) * N + n0 + first;
#pragma unroll
        for (int j = 0; j < MMA_N / 8; ++j, at += 8) {
          opaque(at);
          const int col = n0 + 8 * j + first;
          if (col >= N) continue;
          if (N % 2 == 0) {  // col even: the pair lies inside D, 8-byte aligned
            f(at, mi, 4 * j + 2 * half, true);
          } else {
            f(at, mi, 4 * j + 2 * half, false);
            if (col + 1 < N) f(at + 1, mi, 4 * j + 2 * half + 1, false);
          }
        }
      } else {
        const int col = n0 + mi * 64 + across + 8 * half;
        if (col >= N) continue;
        float* column = sums + col;
#pragma unroll
        for (int j = 0; j < MMA_N / 8; ++j)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            opaque(column);
            const int row = m0 + 8 * j + first + e;
            if (row < M) f(column + static_cast<long long>(row) * N, mi, 4 * j + 2 * half + e, false);
          }
      }
    }
}

// EPILOGUE 3: this warpgroup's part of slice tile.split (or of stream-K's `contributed` k steps of the tile)
// added into the zeroed fp32 sums `acc_sum` [M][N]; each warp whose arrival completes `total` reads the
// finished sums of its elements and stores D with the bias and activation. `acc` becomes the sum.
__device__ __forceinline__ void reduce_in_l2(float (&acc)[M_ATOMS][MMA_N / 2], float* __restrict__ acc_sum,
                                             int* __restrict__ arrivals, out_t* __restrict__ d,
                                             const elem* __restrict__ bias, const sm90::TileCoord& tile,
                                             int tiles_m, int tiles_n, int consumer, int m0, int n0, int M,
                                             int N, int contributed, int total) {
  if (tile.m >= tiles_m || tile.n >= tiles_n) return;  // a cluster's block past the edge of D: nothing to add
  walk_sums(acc_sum, m0, n0, M, N, [&](float* at, int mi, int i, bool pair) {
    if (pair) {
      reduce_add_pair(at, acc[mi][i], acc[mi][i + 1]);
    } else {
      reduce_add(at, acc[mi][i]);
    }
  });
  if (!last_to_arrive(arrivals, tile, tiles_n, consumer, contributed, total)) return;
  // One load a value (or pair) in turn: the walk that keeps them in flight (walk_values) measured 3% slower
  // here (H100, 128 x 4096 x 4096, split-K 2: 24.8-24.9 us against 23.9-24.2), where the adds, not the
  // loads, cost.
  walk_sums(acc_sum, m0, n0, M, N, [&](float* at, int mi, int i, bool pair) {
    if (pair) {
      const float2 sum = __ldcg(reinterpret_cast<const float2*>(at));
      acc[mi][i] = sum.x;
      acc[mi][i + 1] = sum.y;
    } else {
      acc[mi][i] = __ldcg(at);
    }
  });
  store_tile<out_t, true>(acc, d, bias, m0, n0, M, N);
}

// The shared address of byte `byte` of row `row` of a staging box (128-byte rows, swizzled as the D map reads
// them).
__device__ __forceinline__ unsigned staged(unsigned box, int row, int byte) {
  return box + row * 128 + ((((byte / 16) ^ (row % 8)) * 16) | (byte % 16));
}
__device__ __forceinline__ void stage_pair(unsigned address, float v0, float v1) {
  if constexpr (sizeof(out_t) == 4) {
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(address), "f"(v0), "f"(v1) : "memory");
  } else {
#if defined(BF16) && BF16
    const __nv_bfloat162 pair = __floats2bfloat162_rn(v0, v1);
#else
    const __half2 pair = __floats2half2_rn(v0, v1);
#endif
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(address), "r"(*reinterpret_cast<const unsigned*>(&pair))
                 : "memory");
  }
}
__device__ __forceinline__ void stage_one(unsigned address, float value) {
  if constexpr (sizeof(out_t) == 4) {
    asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(address), "f"(value) : "memory");
  } else {
#if defined(BF16) && BF16
    const unsigned short bits = __bfloat16_as_ushort(__float2bfloat16_rn(value));
#else
    const unsigned short bits = __half_as_ushort(__float2half_rn(value));
#endif
    asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(address), "h"(bits) : "memory");
  }
}

// Box (mi, chunk) of a consumer warpgroup's rows, unswapped: rows of m64 atom mi, columns [chunk *
// STAGING_COLS, + STAGING_COLS) of the tile, two adjacent columns a store.
__device__ __forceinline__ void fill_rows_box(const float (&acc)[M_ATOMS][MMA_N / 2], unsigned box,
                                              const elem* __restrict__ bias, int mi, int chunk, int n0,
                                              int N) {
  const int lane = threadIdx.x % 128;
  const int g = (lane % 32) / 4, q = lane % 4;
#pragma unroll
  for (int j = 0; j < STAGING_COLS / 8; ++j)
#pragma unroll
    for (int half_rows = 0; half_rows < 2; ++half_rows) {
      const int row = 16 * (lane / 32) + g + 8 * half_rows;  // in the 64-row box
      const int col = chunk * STAGING_COLS + 8 * j + 2 * q;  // in the tile
      const float* values = &acc[mi][4 * (chunk * STAGING_COLS / 8 + j) + 2 * half_rows];
      const float v0 = finish(values[0], bias, min(n0 + col, N - 1));
      const float v1 = finish(values[1], bias, min(n0 + col + 1, N - 1));
      stage_pair(staged(box, row, (8 * j + 2 * q) * static_cast<int>(sizeof(out_t))), v0, v1);
    }
}

// Box (mi, chunk, rows) swapped: D's columns [chunk * STAGING_COLS, + STAGING_COLS) of m64 atom mi (the
// product's rows), D's rows [rows * STORE_ROWS, + STORE_ROWS) of the tile (the product's columns), each value
// written to its transposed place (the warp's stores of one instruction: 8 adjacent columns of 4 rows, whose
// swizzled chunks fall in different banks).
__device__ __forceinline__ void fill_columns_box(const float (&acc)[M_ATOMS][MMA_N / 2], unsigned box,
                                                 const elem* __restrict__ bias, int mi, int chunk, int rows,
                                                 int n0, int N) {
  const int lane = threadIdx.x % 128;
  const int g = (lane % 32) / 4, q = lane % 4;
#pragma unroll
  for (int half_cols = 0; half_cols < 2; ++half_cols) {
    const int col = 16 * (lane / 32) + g + 8 * half_cols;  // in the atom's 64 columns of D
    if (col / STAGING_COLS != chunk) continue;             // fp32 D: two boxes of 32 columns an atom
    const int byte = (col % STAGING_COLS) * static_cast<int>(sizeof(out_t));
    const int bias_col = min(n0 + mi * 64 + col, N - 1);
#pragma unroll
    for (int j = 0; j < STORE_ROWS / 8; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int row = 8 * j + 2 * q + e;  // in the box
        const float value = acc[mi][4 * (rows * STORE_ROWS / 8 + j) + 2 * half_cols + e];
        stage_one(staged(box, row, byte), finish(value, bias, bias_col));
      }
  }
}

// EPILOGUE 1: a consumer warpgroup's part of the tile (corner m0, n0 of D), one staging box at a time (64
// rows x STAGING_COLS columns of an atom; swapped, STAGING_COLS columns of an atom by STORE_ROWS rows),
// stored by the warpgroup's first thread with TMA; the two boxes alternate, a box reused once its store has
// read it.
__device__ __forceinline__ void store_tile_tma(const float (&acc)[M_ATOMS][MMA_N / 2], unsigned staging,
                                               const sm90::TensorMap& d_map, const elem* __restrict__ bias,
                                               int consumer, int m0, int n0, int N) {
  constexpr int CHUNKS = (SWAP_AB ? 64 : MMA_N) / STAGING_COLS;  // column boxes of an atom
  constexpr int ROW_BOXES = SWAP_AB ? BLOCK_M / STORE_ROWS : 1;  // row boxes of an atom
  const bool issuer = threadIdx.x % 128 == 0;
  const Barrier barrier = static_cast<Barrier>(static_cast<int>(Barrier::epilogue_first) + consumer);
  int box = 0;
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi)
#pragma unroll
    for (int chunk = 0; chunk < CHUNKS; ++chunk)
#pragma unroll
      for (int rows = 0; rows < ROW_BOXES; ++rows, ++box) {
        const unsigned buffer = staging + (box % 2) * STAGING_BYTES;
        if (issuer) sm90::tma_wait_stores_read<1>();  // the store that last read this box is done with it
        sm90::barrier_sync(barrier, 128);
        if constexpr (SWAP_AB) {
          fill_columns_box(acc, buffer, bias, mi, chunk, rows, n0, N);
        } else {
          fill_rows_box(acc, buffer, bias, mi, chunk, n0, N);
        }
        sm90::fence_async_shared();  // the writes above, visible to the TMA store
        sm90::barrier_sync(barrier, 128);
        if (issuer) {
          if constexpr (SWAP_AB) {
            sm90::tma_store_2d(d_map, buffer, n0 + mi * 64 + chunk * STAGING_COLS, m0 + rows * STORE_ROWS);
          } else {
            sm90::tma_store_2d(d_map, buffer, n0 + chunk * STAGING_COLS, m0 + mi * 64);
          }
          sm90::tma_commit_stores();
        }
      }
}

}  // namespace gemm

// SPLIT_K == 1: D directly. SPLIT_K > 1: fp32 partial sums of each slice into `partial`, and with EPILOGUE 2
// D from them (the scratch `arrivals` zeroed before the launch); with EPILOGUE 3 every slice's sums added
// into `acc_sum` and D from it (`acc_sum` and `arrivals` zeroed before the launch). STREAM_K: D directly
// for whole tiles, through `acc_sum` and `arrivals` (zeroed) for the tiles that blocks share.
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 1)
    gemm_wgmma(const __grid_constant__ sm90::TensorMap a_map, const __grid_constant__ sm90::TensorMap b_map,
#if SPLIT_K == 1 && EPILOGUE == 1
               const __grid_constant__ sm90::TensorMap d_map, const elem* __restrict__ bias,
#elif EPILOGUE == 3
               out_t* __restrict__ d, const elem* __restrict__ bias, float* __restrict__ acc_sum,
               int* __restrict__ arrivals,
#elif SPLIT_K == 1
               out_t* __restrict__ d, const elem* __restrict__ bias,
#elif EPILOGUE == 2
               out_t* __restrict__ d, const elem* __restrict__ bias, float* __restrict__ partial,
               int* __restrict__ arrivals,
#else
               float* __restrict__ partial,
#endif
               int M, int N, int K) {
  using namespace gemm;
  extern __shared__ unsigned char smem_raw[];
  SharedStorage& s = *sm90::align_1024<SharedStorage>(smem_raw);
  const sm90::TmaPipeline<STAGES> pipe{sm90::smem_address(s.full), sm90::smem_address(s.empty)};
  const int rank = CLUSTER > 1 ? static_cast<int>(sm90::cluster_rank()) : 0;
  if (threadIdx.x == 0) {
    pipe.init(4 * CONSUMER_WARPGROUPS * CLUSTER);  // one arrival per consumer warp of every block it feeds
    sm90::tma_prefetch_map(a_map);
    sm90::tma_prefetch_map(b_map);
#if SPLIT_K == 1 && EPILOGUE == 1
    sm90::tma_prefetch_map(d_map);
#endif
  }
  if constexpr (CLUSTER > 1) {
    sm90::cluster_sync();  // both blocks' barriers are initialised before any copy or arrival reaches them
  } else {
    __syncthreads();
  }

  const int tiles_m = sm90::cdiv(M, BLOCK_M);
  const int tiles_n = sm90::cdiv(N, BLOCK_N);
  const int k_tiles = sm90::cdiv(K, BLOCK_K);
  const int work_tiles = sm90::cdiv(tiles_m, CLUSTER_M) * sm90::cdiv(tiles_n, CLUSTER_N) * SPLIT_K;
  // STREAM_K: this block's share of the tiles x k_tiles iterations, walked as the tiles it touches
  const sm90::StreamKShare share = sm90::StreamKShare::of_block(tiles_m * tiles_n, k_tiles);
  const sm90::TileWalk walk =
      STREAM_K ? share.tiles() : sm90::TileWalk::of_block(work_tiles, PERSISTENT, CLUSTER);
  const int warpgroup = threadIdx.x / 128;

  if (warpgroup == 0) {
    if constexpr (CONSUMER_WARPGROUPS == 2) sm90::registers_decrease<PRODUCER_REGS>();
    if (threadIdx.x == 0) produce(s, pipe, a_map, b_map, walk, share, tiles_m, tiles_n, k_tiles, rank);
  } else {
    if constexpr (CONSUMER_WARPGROUPS == 2) sm90::registers_increase<CONSUMER_REGS>();
    const int consumer = warpgroup - 1;
    sm90::PipelineState<STAGES> state;
    float acc[M_ATOMS][MMA_N / 2];
    for (int id = walk.first; id < walk.count; id += walk.step) {
      const sm90::TileCoord tile = block_tile(id, tiles_m, tiles_n, rank);
      int begin, end;
      unit_k_steps(share, id, tile, k_tiles, begin, end);
      multiply(s, pipe, state, consumer, begin, end, rank, acc);
      // The corner of D this warpgroup's rows of the product tile cover (swapped, its rows are D's columns).
      const int m0 = tile.m * BLOCK_M + (SWAP_AB ? 0 : consumer * WG_ROWS);
      const int n0 = tile.n * BLOCK_N + (SWAP_AB ? consumer * WG_ROWS : 0);
#if SPLIT_K == 1 && EPILOGUE == 1
      store_tile_tma(acc, sm90::smem_address(s.staging) + consumer * 2 * STAGING_BYTES, d_map, bias, consumer,
                     m0, n0, N);
#elif EPILOGUE == 3
      if constexpr (STREAM_K) {
        if (begin == 0 && end == k_tiles) {  // the whole tile: no other block adds to it
          store_tile<out_t, true>(acc, d, bias, m0, n0, M, N);
        } else {
          reduce_in_l2(acc, acc_sum, arrivals, d, bias, tile, tiles_m, tiles_n, consumer, m0, n0, M, N,
                       end - begin, k_tiles);
        }
      } else {
        reduce_in_l2(acc, acc_sum, arrivals, d, bias, tile, tiles_m, tiles_n, consumer, m0, n0, M, N, 1,
                     SPLIT_K);
      }
#elif SPLIT_K == 1
      store_tile<out_t, true>(acc, d, bias, m0, n0, M, N);
#elif EPILOGUE == 2
      reduce_in_kernel(acc, partial, arrivals, d, bias, tile, tiles_m, tiles_n, consumer, m0, n0, M, N);
#else
      store_tile<float, false>(acc, partial + static_cast<long long>(tile.split) * M * N, nullptr, m0, n0, M,
                               N);
#endif
    }
#if EPILOGUE == 1
    if (threadIdx.x % 128 == 0) sm90::tma_wait_stores();  // the staging boxes stay valid until stored
#endif
  }
  if constexpr (CLUSTER > 1)
    sm90::cluster_sync();  // the other block no longer copies or arrives into this one
}

#if SPLIT_K > 1 && EPILOGUE == 0
// D = the sum of the SPLIT_K slices of `partial` (+ bias) (activation): one element a thread, grid-stride.
extern "C" __global__ void gemm_splitk_reduce(const float* __restrict__ partial, out_t* __restrict__ d,
                                              const elem* __restrict__ bias, int M, int N) {
  const long long count = static_cast<long long>(M) * N;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
#pragma unroll
    for (int split = 0; split < SPLIT_K; ++split) sum += partial[split * count + i];
    d[i] = static_cast<out_t>(gemm::finish(sum, bias, static_cast<int>(i % N)));
  }
}
#endif

// A or B copied into rows padded to a multiple of 8 elements (stage_rows.cuh), for the product's tensor maps
// where K (A, B [N, K]) or N (B [K, N]) is not a multiple of 8: a first launch, any grid (grid-stride). The
// space's scratch A_staged / B_staged and its map strides use the same pitch, cdiv(cols, 8) * 8.
extern "C" __global__ void __launch_bounds__(256)
    gemm_stage_a(const elem* __restrict__ a, elem* __restrict__ staged, int M, int K) {
  stage::stage_rows(a, staged, M, K, stage::pitch(K));
}
extern "C" __global__ void __launch_bounds__(256)
    gemm_stage_b(const elem* __restrict__ b, elem* __restrict__ staged, int N, int K) {
  const int rows = B_KMAJOR ? N : K, cols = B_KMAJOR ? K : N;
  stage::stage_rows(b, staged, rows, cols, stage::pitch(cols));
}
