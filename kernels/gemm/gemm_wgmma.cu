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
//   PDL                   0, or 1: a programmatic dependent launch of the kernel before it (below)
//   CLUSTER_M, CLUSTER_N  thread-block clusters of 2 x 1 (two row tiles sharing B) or 1 x 2 (two column tiles
//                         sharing A), or 1 x 1: each block loads half of the shared operand with TMA
//                         multicast into both (below)
//   EPILOGUE              0: every consumer thread stores its values of D from registers; 1: through staging
//                         boxes of STORE_ROWS rows x STAGING_ROW_BYTES of D (128, or unswapped the largest
//                         of 64 and 32 that divides the tile's row of D; double-buffered, one pair per
//                         consumer warpgroup) that one thread stores with TMA (a D tensor map replaces the
//                         pointer; rows and columns past M and N are clipped), so the stores drain while the
//                         next tile's k loop runs. A box is 64 rows of an m64 atom unswapped; swapped, an
//                         atom's 64 columns of D by STORE_ROWS of its BLOCK_M rows (the largest of 64, 32,
//                         16, 8 dividing BLOCK_M); 2 (SPLIT_K > 1): split-K reduced in the kernel, no second
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
// PDL 1 (the space launches the kernel as a programmatic dependent, "Programmatic": "always"): its blocks may
// start while the kernel before it on the stream (the previous call's, a layer's) still runs; each does the
// prologue above (barriers, tensor-map prefetches), then waits for that grid's completion before any global
// access, and lets the grid after it start at once (its blocks take the SMs this grid leaves free and wait
// in turn). A staging launch before it in the same call lets nothing start early: the wait then is a no-op.
// The roles are headers of gemm_wgmma/, included after the parameters' checks (they read the #defines):
// config (constants, checks, shared memory), scheduler (k steps, a block's tile), producer, mainloop,
// epilogue_values (bias, activation, paired stores), epilogue_registers (EPILOGUE 0), epilogue_tma (1) and
// epilogue_split_k (2, 3, stream-K); this file holds the kernels that compose them.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../common/sm90/arch.cuh"
#include "../common/sm90/cluster.cuh"
#include "../common/sm90/element_type.cuh"
#include "../common/sm90/grid_dependency.cuh"
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
#ifndef PDL
static_assert(false,
              "PDL (1: a programmatic dependent of the kernel before it on the stream) must be #defined");
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

#include "gemm_wgmma/config.cuh"
#include "gemm_wgmma/epilogue_registers.cuh"
#include "gemm_wgmma/epilogue_split_k.cuh"
#include "gemm_wgmma/epilogue_tma.cuh"
#include "gemm_wgmma/epilogue_values.cuh"
#include "gemm_wgmma/mainloop.cuh"
#include "gemm_wgmma/producer.cuh"
#include "gemm_wgmma/scheduler.cuh"

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
  SharedStorage& s = *reinterpret_cast<SharedStorage*>(sm90::align_smem_1024(smem_raw).generic);
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
  if constexpr (PDL) {
    sm90::wait_prior_grid();       // the kernel before this one (its writes of A, B, D) has completed
    sm90::allow_dependent_grid();  // the next one's blocks may take the SMs this grid leaves free
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
