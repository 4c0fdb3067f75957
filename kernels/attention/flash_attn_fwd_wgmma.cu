// Forward attention O = softmax(Q K^T * scale) V on Hopper's warpgroup tensor cores (wgmma, sm_90a), on the
// kernels/common/sm90 primitives. Q, K, V, O: fp16 [B, H, S, D] (bf16 with -DBF16=1), contiguous, D fastest.
// 1..3 consumer warpgroups of 64 query rows each share a ring of K/V tiles in shared memory, filled by the
// consumers themselves (cp.async) or by a producer warpgroup (WARP_SPECIALIZE: cp.async or TMA_LOADS, CLUSTER 2
// multicast); per tile each computes S = Q K^T and O += P V with wgmma and the online softmax in registers.
// Tuning parameters and problem sizes arrive as #defines (search_spaces/flash_attn_fwd_wgmma.json); the design
// notes (layouts, descriptors, fragments, the synchronisation of every mode) are in
// docs/kernels/attention_wgmma.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../common/sm90/arch.cuh"
#include "../common/sm90/cluster.cuh"
#include "../common/sm90/mbarrier.cuh"
#include "../common/sm90/tma.cuh"
#include "../common/sm90/wgmma.cuh"

#ifndef D
static_assert(false, "D (head dimension) must be #defined");
#endif
#ifndef CAUSAL
static_assert(false, "CAUSAL (0 or 1) must be #defined");
#endif
#ifndef CONSUMER_WARPGROUPS
static_assert(false, "CONSUMER_WARPGROUPS must be #defined");
#endif
#ifndef BLOCK_N
static_assert(false, "BLOCK_N must be #defined");
#endif
#ifndef STAGES
static_assert(false, "STAGES must be #defined");
#endif
#ifndef INTRA_WG_OVERLAP
static_assert(false, "INTRA_WG_OVERLAP (0 or 1) must be #defined");
#endif
#ifndef WARP_SPECIALIZE
static_assert(false, "WARP_SPECIALIZE (0 or 1) must be #defined");
#endif
#ifndef PINGPONG
static_assert(false, "PINGPONG (0 or 1) must be #defined");
#endif
#ifndef TMA_LOADS
static_assert(false, "TMA_LOADS (0 or 1) must be #defined");
#endif
#ifndef TMA_STORE
static_assert(false, "TMA_STORE (0 or 1) must be #defined");
#endif
#ifndef PERSISTENT
static_assert(false, "PERSISTENT (0 or 1) must be #defined");
#endif
#ifndef REG_SPLIT
static_assert(false, "REG_SPLIT (0..2) must be #defined");
#endif
#ifndef LONGEST_FIRST
static_assert(false, "LONGEST_FIRST (0 or 1) must be #defined");
#endif
#ifndef CLUSTER
static_assert(false, "CLUSTER (1 or 2) must be #defined");
#endif
// wgmma, setmaxnreg, TMA, mbarriers, descriptors and the tensor-map type come from kernels/common/sm90 (every
// template's shared primitives); SM90A_ASM keeps an exported variant's compute_90 pass building (arch.cuh).
using sm90::TensorMap;

namespace {

#if defined(BF16) && BF16
typedef __nv_bfloat16 elem;  // the element type of Q, K, V, O
typedef sm90::Bf16 mma_type;
__device__ __forceinline__ unsigned pack_pair(float low, float high) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
  return *reinterpret_cast<const unsigned*>(&pair);
}
#else
typedef half elem;
typedef sm90::F16 mma_type;
__device__ __forceinline__ unsigned pack_pair(float low, float high) {
  const __half2 pair = __floats2half2_rn(low, high);
  return *reinterpret_cast<const unsigned*>(&pair);
}
#endif

constexpr int CONSUMER_THREADS = 128 * CONSUMER_WARPGROUPS;
constexpr int THREADS = CONSUMER_THREADS + 128 * WARP_SPECIALIZE;  // the producer warpgroup comes last
constexpr int BLOCK_M = 64 * CONSUMER_WARPGROUPS;
constexpr int Q_BYTES = 2 * BLOCK_M * D;
constexpr int KV_TILE_BYTES = 2 * BLOCK_N * D;
// full[STAGES], empty[STAGES] and q_empty, 8 bytes each (at most 72: 128 keeps the tiles' alignment simple)
constexpr int BARRIER_BYTES = WARP_SPECIALIZE ? 128 : 0;
constexpr int SMEM_BYTES =
    Q_BYTES + 2 * STAGES * KV_TILE_BYTES + BARRIER_BYTES + 1024;  // + room to align to 1024
#if !WARP_SPECIALIZE
// Tiles in flight while one is computed when the consumers load (no producer): with the overlap two stages
// are being read (K of tile j, V of tile j - 1).
constexpr int PREFETCH = STAGES - 1 - INTRA_WG_OVERLAP;
#endif
// setmaxnreg (warp specialisation with 2 or 3 consumer warpgroups; with 1 the block's 256 threads may have
// 255 registers each anyway): producer + consumers fit 64K registers, (PRODUCER_REGS + W CONSUMER_REGS) 128
// <= 65536. REG_SPLIT k moves 8 k registers a thread from each consumer warpgroup to the producer.
constexpr int PRODUCER_REGS = (CONSUMER_WARPGROUPS == 3 ? 32 : 24) + 8 * REG_SPLIT * CONSUMER_WARPGROUPS;
constexpr int CONSUMER_REGS = (CONSUMER_WARPGROUPS == 3 ? 160 : 240) - 8 * REG_SPLIT;

static_assert(D == 64 || D == 128, "D must be 64 or 128 (one or two 64-column slabs)");
static_assert(CONSUMER_WARPGROUPS >= 1 && CONSUMER_WARPGROUPS <= 3, "1..3 consumer warpgroups");
static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 16 && BLOCK_N <= 256,
              "BLOCK_N is the n of a wgmma (<= 256) and a whole number of P V k-steps of 16 keys");
static_assert(STAGES >= 1 && STAGES <= 4, "STAGES must be 1..4");
static_assert(INTRA_WG_OVERLAP == 0 || INTRA_WG_OVERLAP == 1, "INTRA_WG_OVERLAP is 0 or 1");
static_assert(WARP_SPECIALIZE == 0 || WARP_SPECIALIZE == 1, "WARP_SPECIALIZE is 0 or 1");
static_assert(TMA_LOADS == 0 || WARP_SPECIALIZE,
              "TMA_LOADS: the producer warpgroup issues the tensor copies");
static_assert(TMA_STORE == 0 || TMA_LOADS, "TMA_STORE: the space pairs the O map with the Q, K, V maps");
static_assert(PERSISTENT == 0 || TMA_LOADS,
              "PERSISTENT: the producer reloads Q per work tile with TMA, ordered on the q_empty mbarrier");
static_assert(REG_SPLIT >= 0 && REG_SPLIT <= 2, "REG_SPLIT is 0..2");
static_assert(LONGEST_FIRST == 0 || CAUSAL, "LONGEST_FIRST orders work tiles of unequal length: causal only");
static_assert(CLUSTER == 1 || (CLUSTER == 2 && TMA_LOADS && !PERSISTENT),
              "CLUSTER 2: two blocks share K/V through TMA multicast, one work tile each");
static_assert(REG_SPLIT == 0 || (WARP_SPECIALIZE && CONSUMER_WARPGROUPS > 1),
              "REG_SPLIT moves registers between the producer and the consumers only where setmaxnreg runs");
static_assert(
    PINGPONG == 0 || (INTRA_WG_OVERLAP && WARP_SPECIALIZE && CONSUMER_WARPGROUPS >= 2),
    "PINGPONG orders the wgmmas of 2 or 3 consumer warpgroups fed by a producer, on the overlapped path");
// Overlapped, a warpgroup waits for tile j while it still reads tile j - 1's V: with a producer, tile j needs
// the stage of tile j - STAGES released, so STAGES >= 2; loading themselves, the consumers refill the stage
// of tile j - 2 while tile j + 1 is in flight, so STAGES = 3.
static_assert(!INTRA_WG_OVERLAP || STAGES >= (WARP_SPECIALIZE ? 2 : 3),
              "INTRA_WG_OVERLAP needs STAGES >= 2 with WARP_SPECIALIZE, STAGES = 3 without");
static_assert(!WARP_SPECIALIZE || CONSUMER_WARPGROUPS == 1 ||
                  (PRODUCER_REGS + CONSUMER_WARPGROUPS * CONSUMER_REGS) * 128 <= 65536,
              "the producer's and the consumers' setmaxnreg counts must fit the 64K registers of an SM");

constexpr float kLog2e = 1.4426950408889634f;
#define NEG_INF (-__int_as_float(0x7f800000))  // -inf, without <cmath>

using sm90::smem_address;

// Byte offset of 16-byte chunk `chunk` (halves 8 chunk .. 8 chunk + 7) of row `row` in a swizzled tile of
// ROWS rows.
template <int ROWS>
__device__ __forceinline__ int swizzled_offset(int row, int chunk) {
  return (chunk >> 3) * (ROWS * 128) + row * 128 + (((chunk & 7) ^ (row & 7)) << 4);
}

}  // namespace

// The consumers' and the cp.async producer's shared-memory copies (TMA, descriptors and fences are
// kernels/common/sm90's). Outside the anonymous namespace, as ring_sync below: a variant that leaves some of
// them unused (the TMA paths) then gets no "declared but never referenced".
namespace smem_ops {

enum : int { CHUNKS = D / 8 };  // 16-byte chunks per row (an enumerator: unused, it draws no warning)

// 16 bytes from global to shared; src_bytes = 0 writes zeros (rows past S).
__device__ __forceinline__ void copy_16(unsigned dst, const elem* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int PENDING>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

// ROWS rows of D halves from global (row stride D) into the swizzled tile at shared address `tile`; rows at
// or past `valid_rows` are zero-filled.
template <int ROWS>
__device__ __forceinline__ void load_tile(unsigned tile, const elem* global, int valid_rows) {
  for (int chunk = threadIdx.x; chunk < ROWS * CHUNKS; chunk += THREADS) {
    const int row = chunk / CHUNKS;
    const int c = chunk % CHUNKS;
    const bool valid = row < valid_rows;
    copy_16(tile + swizzled_offset<ROWS>(row, c),
            global + (valid ? static_cast<long long>(row) * D + c * 8 : 0), valid);
  }
}

// The producer's share of a ROWS-row tile (as load_tile, by 128 threads): thread `loader` copies chunk column
// loader % CHUNKS of rows loader / CHUNKS + k ROW_STEP, so its swizzle (row % 8) and address steps are fixed
// and it needs few registers (setmaxnreg leaves the producer 24 or 32).
template <int ROWS>
__device__ __forceinline__ void produce_tile(unsigned tile, const elem* global, int valid_rows, int loader) {
  constexpr int ROW_STEP = 128 / CHUNKS;  // 16 or 8: a whole number of 8-row swizzle atoms
  static_assert(ROWS % ROW_STEP == 0, "the producer's rows cover the tile exactly");
  const int c = loader % CHUNKS;
  int row = loader / CHUNKS;
  unsigned dst = tile + swizzled_offset<ROWS>(row, c);
  const elem* src = global + row * D + c * 8;
#pragma unroll 1
  for (; row < ROWS; row += ROW_STEP, dst += ROW_STEP * 128, src += ROW_STEP * D) {
    const bool valid = row < valid_rows;
    copy_16(dst, valid ? src : global, valid);
  }
}

}  // namespace smem_ops

// Outside the anonymous namespace: a variant that leaves them unused then gets no "declared but never
// referenced".
namespace ring_sync {

// PINGPONG's turns: consumer warpgroup w may issue its wgmmas once named barrier 2 + w has its 256 threads,
// its own 128 waiting and the 128 of warpgroup w - 1 (mod the count) that passed the turn on.
__device__ __forceinline__ void wait_for_turn(int warpgroup) {
  asm volatile("bar.sync %0, 256;\n" ::"r"(2 + warpgroup) : "memory");
}
__device__ __forceinline__ void pass_turn(int warpgroup) {
  asm volatile("bar.arrive %0, 256;\n" ::"r"(2 + (warpgroup + 1) % CONSUMER_WARPGROUPS) : "memory");
}
// One consumer warpgroup's own barrier (its epilogue): named barrier 5 + w.
__device__ __forceinline__ void sync_warpgroup(int warpgroup) {
  asm volatile("bar.sync %0, 128;\n" ::"r"(5 + warpgroup) : "memory");
}

}  // namespace ring_sync

namespace {
using namespace sm90;
using namespace smem_ops;
using namespace ring_sync;

// d (64 x N, fp32) += A (64 x 16) * B (16 x N): ss with A and B from shared memory, both K-major; rs with A
// from registers (the fragment in the header) and B MN-major (V, imm-trans-b = 1).
template <int N>
using Mma = sm90::Wgmma<N, mma_type>;

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace

// One work tile: BLOCK_M query rows of one (batch, head). A persistent block walks work tiles
// blockIdx.x, blockIdx.x + gridDim.x, ...: numbered head-major (the blocks running at once share the K/V of a
// few heads in L2), or, with LONGEST_FIRST (causal only), longest first: every head's last query block, then
// every head's last but one, ..., so that each round of gridDim.x work tiles is of nearly equal lengths.
// Without PERSISTENT, LONGEST_FIRST reverses the query blocks of blockIdx.x (the hardware starts blocks in
// blockIdx order: the longest then start first and the short ones fill the tail).
struct WorkTile {
  int m0;     // first query row
  int bh;     // batch * H + head
  int tiles;  // K/V tiles it needs: all keys, or (causal) up to its last row
};
__device__ __forceinline__ WorkTile work_tile(int item, int S, int bh_count) {
  const int m_blocks = (S + BLOCK_M - 1) / BLOCK_M;
  WorkTile work;
#if PERSISTENT
#if LONGEST_FIRST
  work.bh = item % bh_count;
  const int m_block = m_blocks - 1 - item / bh_count;
#else
  (void)bh_count;
  work.bh = item / m_blocks;
  const int m_block = item % m_blocks;
#endif
#else
  (void)item;
  (void)bh_count;
  (void)m_blocks;
  work.bh = blockIdx.z * gridDim.y + blockIdx.y;  // the grid is (query blocks, H, B)
  // gridDim.x is m_blocks, or with CLUSTER 2 rounded up to even (the extra block's rows are all past S).
  const int last = static_cast<int>(gridDim.x) - 1;
  const int m_block = LONGEST_FIRST ? last - static_cast<int>(blockIdx.x) : static_cast<int>(blockIdx.x);
#endif
  work.m0 = m_block * BLOCK_M;
  const int key_end = CAUSAL ? min(S, work.m0 + BLOCK_M) : S;
  work.tiles = (key_end + BLOCK_N - 1) / BLOCK_N;
#if CLUSTER > 1
  // The two blocks of a cluster (adjacent query blocks of one head) go through the same K/V tiles, in step:
  // as many as the later one needs (the other acquires and releases those past its rows, as a warpgroup does
  // for the tiles causal masking lets it skip).
  const int peer_x = static_cast<int>(blockIdx.x ^ 1);
  const int peer_block = LONGEST_FIRST ? last - peer_x : peer_x;
  const int peer_key_end = CAUSAL ? min(S, (peer_block + 1) * BLOCK_M) : S;
  work.tiles = max(work.tiles, (peer_key_end + BLOCK_N - 1) / BLOCK_N);
#endif
  return work;
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
#if TMA_LOADS
    flash_attn_fwd_wgmma(const __grid_constant__ TensorMap q_map, const __grid_constant__ TensorMap k_map,
                         const __grid_constant__ TensorMap v_map,
#if TMA_STORE
                         const __grid_constant__ TensorMap o_map,
#else
                         elem* __restrict__ O,
#endif
                         int B, int H, int S, float scale) {
#else
    flash_attn_fwd_wgmma(const elem* __restrict__ Q, const elem* __restrict__ K, const elem* __restrict__ V,
                         elem* __restrict__ O, int B, int H, int S, float scale) {
#endif
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  {
    unsigned dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < static_cast<unsigned>(SMEM_BYTES)) __trap();
  }
  const unsigned raw = smem_address(smem_raw);
  const unsigned q_tile = (raw + 1023) & ~1023u;  // shared addresses of the tiles
  const unsigned k_ring = q_tile + Q_BYTES;
  const unsigned v_ring = k_ring + STAGES * KV_TILE_BYTES;
  unsigned char* const q_staging = smem_raw + (q_tile - raw);  // the Q tile, for the epilogue

  const int warpgroup = threadIdx.x / 128;
  const int warp = (threadIdx.x / 32) % 4;  // within the warpgroup
  const int lane = threadIdx.x % 32;
  const int group = lane >> 2;  // the accumulator row of this lane (and row + 8)
  const int quad = lane & 3;    // the accumulator column pair of this lane
  const float scale_log2 = scale * kLog2e;
  // The work tiles of this block: one (the grid's), or (PERSISTENT) every gridDim.x-th from blockIdx.x.
#if PERSISTENT
  const int first_item = blockIdx.x;
  const int item_count = (S + BLOCK_M - 1) / BLOCK_M * H * B;
  const int item_step = gridDim.x;
#else
  const int first_item = 0;
  const int item_count = 1;
  const int item_step = 1;
#endif

#if WARP_SPECIALIZE
  // full[s] completes a phase when the producer's copies of the stage's next tile have landed (128 cp.async
  // arrivals, or one arrival and the tile's TMA bytes); empty[s] when every consumer warp is done with the
  // tile the stage holds (one arrival per warp, after its wgmmas reading it have completed). The ring's
  // tiles are numbered across the block's work tiles: ring tile r sits in stage r % STAGES and is the
  // stage's round r / STAGES; its full phase has parity (r / STAGES) & 1, and the producer refills the stage
  // with it once the empty phase of round r / STAGES - 1 has completed. q_empty (PERSISTENT) completes a
  // phase when every consumer warpgroup is done with the Q tile (its epilogue staged O there and stored it).
  const unsigned full_barriers = v_ring + STAGES * KV_TILE_BYTES;
  const unsigned empty_barriers = full_barriers + 8 * STAGES;
  const unsigned q_empty = empty_barriers + 8 * STAGES;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int stage = 0; stage < STAGES; ++stage) {
      mbarrier_init(full_barriers + 8 * stage, TMA_LOADS ? 1 : 128);
      mbarrier_init(empty_barriers + 8 * stage, 4 * CONSUMER_WARPGROUPS * CLUSTER);
    }
    mbarrier_init(q_empty, CONSUMER_WARPGROUPS);
#if CLUSTER > 1
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
  }
#if CLUSTER > 1
  // Both blocks' barriers are initialised before either block's copies or arrivals reach them.
  const unsigned rank = cluster_rank();
  cluster_sync();
#else
  __syncthreads();
#endif
  if (warpgroup == CONSUMER_WARPGROUPS) {  // the producer: Q with tile 0, then every K/V tile in turn
#if CONSUMER_WARPGROUPS > 1
    SM90A_ASM("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGS));
#endif
    const int loader = threadIdx.x - CONSUMER_THREADS;
#if TMA_LOADS
    // One thread issues every copy: per tile an arrival expecting the tile's bytes (Q's too with a work
    // tile's first), then a box per 64-column slab of K and V (and Q); the map's rows are (head, key) of
    // [B * H][S][D]. Q waits for the previous work tile's epilogue (q_empty) after its K/V tile is issued, so
    // the ring runs ahead meanwhile; the full barrier's phase cannot complete before Q's bytes have landed.
    if (loader != 0) {
#if CLUSTER > 1
      cluster_sync();  // the block stays until its peer no longer arrives on its barriers
#endif
      return;
    }
    int ring = 0;
    int done_items = 0;
    for (int item = first_item; item < item_count; item += item_step, ++done_items) {
      const WorkTile work = work_tile(item, S, B * H);
      for (int tile = 0; tile < work.tiles; ++tile, ++ring) {
        const int stage = ring % STAGES;
#if CLUSTER > 1
        // The stage is free once the consumers of both blocks have released it (each block's copies land in
        // both).
        if (ring >= STAGES) mbarrier_wait_cluster(empty_barriers + 8 * stage, (ring / STAGES - 1) & 1);
#else
        if (ring >= STAGES) mbarrier_wait(empty_barriers + 8 * stage, (ring / STAGES - 1) & 1);
#endif
        const unsigned full = full_barriers + 8 * stage;
        mbarrier_arrive_expect_bytes(full, 2 * KV_TILE_BYTES + (tile == 0 ? Q_BYTES : 0));
#pragma unroll
        for (int slab = 0; slab < D / 64; ++slab) {
          const unsigned offset = stage * KV_TILE_BYTES + slab * BLOCK_N * 128;
#if CLUSTER > 1
          // This block loads rows [rank, rank + 1) * BLOCK_N / 2 of the tile into both blocks (the maps' box
          // is BLOCK_N / 2 rows); its full barrier counts the peer's half too.
          const int half = static_cast<int>(rank) * (BLOCK_N / 2);
          const int row = tile * BLOCK_N + half;
          tma_load_3d_multicast(k_ring + offset + half * 128, k_map, slab * 64, row, work.bh, full, 0x3);
          tma_load_3d_multicast(v_ring + offset + half * 128, v_map, slab * 64, row, work.bh, full, 0x3);
#else
          tma_load_3d(k_ring + offset, k_map, slab * 64, tile * BLOCK_N, work.bh, full);
          tma_load_3d(v_ring + offset, v_map, slab * 64, tile * BLOCK_N, work.bh, full);
#endif
        }
        if (tile == 0) {
          if (done_items > 0) mbarrier_wait(q_empty, (done_items - 1) & 1);
#pragma unroll
          for (int slab = 0; slab < D / 64; ++slab)
            tma_load_3d(q_tile + slab * BLOCK_M * 128, q_map, slab * 64, work.m0, work.bh, full);
        }
      }
    }
#if CLUSTER > 1
    cluster_sync();
#endif
    return;
#else
    const WorkTile work = work_tile(first_item, S, B * H);
    const long long head = static_cast<long long>(work.bh) * S * D;
    produce_tile<BLOCK_M>(q_tile, Q + head + static_cast<long long>(work.m0) * D, S - work.m0, loader);
    for (int tile = 0; tile < work.tiles; ++tile) {
      const int stage = tile % STAGES;
      if (tile >= STAGES) mbarrier_wait(empty_barriers + 8 * stage, (tile / STAGES - 1) & 1);
      const int n0 = tile * BLOCK_N;
      const long long offset = head + static_cast<long long>(n0) * D;
      produce_tile<BLOCK_N>(k_ring + stage * KV_TILE_BYTES, K + offset, S - n0, loader);
      produce_tile<BLOCK_N>(v_ring + stage * KV_TILE_BYTES, V + offset, S - n0, loader);
      mbarrier_arrive_when_copies_land(full_barriers + 8 * stage);
    }
    commit_copies();
    wait_copies<0>();  // exit with no copy in flight
    return;
#endif
  }
#if CONSUMER_WARPGROUPS > 1
  SM90A_ASM("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGS));
#endif
#endif

  const unsigned long long q_desc = desc_kmajor_sw128(q_tile + warpgroup * 64 * 128);
  const unsigned long long k_desc = desc_kmajor_sw128(k_ring);
  const unsigned long long v_desc = desc_mnmajor_sw128(v_ring, BLOCK_N * 128);
#if PINGPONG
  // Every warpgroup takes tiles + 1 turns per work tile (below), the last warpgroup handing warpgroup 0 the
  // first.
  if (warpgroup == CONSUMER_WARPGROUPS - 1) pass_turn(warpgroup);
#endif

  int ring_base = 0;  // the ring number of this work tile's first K/V tile
  for (int item = first_item; item < item_count; item += item_step) {
    const WorkTile work = work_tile(item, S, B * H);
    const int m0 = work.m0;
    const int tiles = work.tiles;
    const int wg_row0 = m0 + warpgroup * 64;  // first query row of this warpgroup
    const long long head = static_cast<long long>(work.bh) * S * D;
    (void)head;  // unused when TMA both loads and stores
#if !WARP_SPECIALIZE
    load_tile<BLOCK_M>(q_tile, Q + head + static_cast<long long>(m0) * D, S - m0);
    auto load_kv = [&](int tile) {
      const int stage = tile % STAGES;
      const int n0 = tile * BLOCK_N;
      const long long offset = head + static_cast<long long>(n0) * D;
      load_tile<BLOCK_N>(k_ring + stage * KV_TILE_BYTES, K + offset, S - n0);
      load_tile<BLOCK_N>(v_ring + stage * KV_TILE_BYTES, V + offset, S - n0);
    };
    // Prologue: Q with the first tile, then up to PREFETCH tiles in flight (empty groups keep the count).
#pragma unroll
    for (int tile = 0; tile < PREFETCH; ++tile) {
      if (tile < tiles) load_kv(tile);
      commit_copies();
    }
#endif

    float o_acc[D / 2];
    float row_max[2];  // running max of the scaled scores of rows g and g + 8, base 2
    float row_sum[2];  // this lane's share of the running sums
#pragma unroll
    for (int i = 0; i < D / 2; ++i) o_acc[i] = 0.0f;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      row_max[r] = NEG_INF;
      row_sum[r] = 0.0f;
    }

    // acquire(tile): the tile's K and V are in shared memory, visible to wgmma (the async proxy).
    // release(tile): this thread's warpgroup no longer reads the tile's stage.
    // (tile counts within the work tile; ring_base + tile is its number in the ring.)
    auto acquire = [&](int tile) {
#if WARP_SPECIALIZE
      const int ring = ring_base + tile;
      mbarrier_wait(full_barriers + 8 * (ring % STAGES), (ring / STAGES) & 1);
#if !TMA_LOADS
      fence_async_shared();  // the producer's cp.async wrote through the generic proxy (TMA writes through
                             // the async proxy, which wgmma reads through)
#endif
#elif INTRA_WG_OVERLAP
      // The barrier also says every warpgroup has waited for its P V of tile - 2: that stage is refilled.
      wait_copies<PREFETCH - 1>();
      fence_async_shared();
      __syncthreads();
      if (tile + PREFETCH < tiles) load_kv(tile + PREFETCH);
      commit_copies();
#else
    if (tile + PREFETCH < tiles) load_kv(tile + PREFETCH);
    commit_copies();
    wait_copies<PREFETCH>();
    fence_async_shared();
    __syncthreads();
#endif
    };
    auto release = [&](int tile) {
#if WARP_SPECIALIZE
      __syncwarp();
      if (lane == 0) {
        const unsigned empty = empty_barriers + 8 * ((ring_base + tile) % STAGES);
        mbarrier_arrive(empty);
#if CLUSTER > 1
        mbarrier_arrive_remote(empty, rank ^ 1);  // the peer's producer refills this stage in both blocks
#endif
      }
#elif !INTRA_WG_OVERLAP
      (void)tile;
      __syncthreads();  // the stage computed here is refilled by a later iteration
#else
    (void)tile;
#endif
    };

    // The descriptor offset (16-byte units) of a tile's stage.
    auto stage_offset = [&](int tile) {
      return static_cast<unsigned long long>(((ring_base + tile) % STAGES) * KV_TILE_BYTES) >> 4;
    };
    // S = Q K^T for this warpgroup's 64 rows and the tile's BLOCK_N keys (issued, not committed).
    auto issue_qk = [&](float(&s_acc)[BLOCK_N / 2], unsigned long long offset) {
#pragma unroll
      for (int ks = 0; ks < D / 16; ++ks) {
        const unsigned long long q_step = ((ks / 4) * (BLOCK_M * 128) + (ks % 4) * 32) >> 4;
        const unsigned long long k_step = ((ks / 4) * (BLOCK_N * 128) + (ks % 4) * 32) >> 4;
        Mma<BLOCK_N>::template ss<0, 0>(s_acc, q_desc + q_step, k_desc + offset + k_step, 1);
      }
    };
    // O += P V: the packed S accumulators of keys [16 kt, 16 kt + 16) are the A fragment of k-step kt
    // (issued, not committed).
    auto issue_pv = [&](const unsigned(&p_frag)[BLOCK_N / 16][4], unsigned long long offset) {
#pragma unroll
      for (int kt = 0; kt < BLOCK_N / 16; ++kt)
        Mma<D>::template rs<1>(o_acc, p_frag[kt], v_desc + offset + ((kt * 16 * 128) >> 4), 1);
    };
    // Masks the keys past S and (causal) after the query on the tiles that reach them, turns the S
    // accumulators into P and updates the running max and sums (online softmax, base 2); factor[r] is what
    // O's row r must be multiplied by, here when rescale_now.
    auto softmax = [&](float(&s_acc)[BLOCK_N / 2], int n0, float(&factor)[2], bool rescale_now) {
      const bool tail = n0 + BLOCK_N > S;
      const bool diagonal = CAUSAL && n0 + BLOCK_N - 1 > wg_row0;
      if (tail || diagonal) {
#pragma unroll
        for (int i = 0; i < BLOCK_N / 2; ++i) {
          const int key = n0 + (i / 4) * 8 + quad * 2 + (i & 1);
          const int query = wg_row0 + warp * 16 + group + ((i >> 1) & 1) * 8;
          if (key >= S || (CAUSAL && key > query)) s_acc[i] = NEG_INF;
        }
      }
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        float tile_max = NEG_INF;
#pragma unroll
        for (int j = 0; j < BLOCK_N / 8; ++j)
          tile_max = fmaxf(tile_max, fmaxf(s_acc[4 * j + 2 * r], s_acc[4 * j + 2 * r + 1]));
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
        const float new_max = fmaxf(row_max[r], tile_max * scale_log2);
        // A row with every key so far masked keeps -inf: subtract 0 so that its p and factor are 0.
        const float base = new_max == NEG_INF ? 0.0f : new_max;
        const float row_factor = exp2_approx(row_max[r] - base);
        row_max[r] = new_max;
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < BLOCK_N / 8; ++j)
#pragma unroll
          for (int c = 0; c < 2; ++c) {
            const float p = exp2_approx(s_acc[4 * j + 2 * r + c] * scale_log2 - base);
            s_acc[4 * j + 2 * r + c] = p;
            sum += p;
          }
        row_sum[r] = row_sum[r] * row_factor + sum;
        if (rescale_now) {
#pragma unroll
          for (int j = 0; j < D / 8; ++j) {
            o_acc[4 * j + 2 * r] *= row_factor;
            o_acc[4 * j + 2 * r + 1] *= row_factor;
          }
        }
        factor[r] = row_factor;
      }
    };
    auto pack_p = [](const float(&s_acc)[BLOCK_N / 2], unsigned(&p_frag)[BLOCK_N / 16][4]) {
#pragma unroll
      for (int kt = 0; kt < BLOCK_N / 16; ++kt) {
#pragma unroll
        for (int i = 0; i < 4; ++i)
          p_frag[kt][i] = pack_pair(s_acc[8 * kt + 2 * i], s_acc[8 * kt + 2 * i + 1]);
        pin(p_frag[kt]);
      }
    };

#if INTRA_WG_OVERLAP
    // FlashAttention-3's intra-warpgroup overlap: S of tile j and P V of tile j - 1 are issued together (two
    // commit groups), the softmax of tile j runs once S has completed (wait_group 1) while P V still runs,
    // and O is rescaled once P V has completed too (wait_group 0). P of tile j - 1 stays in p_frag meanwhile.
    const int wg_tiles =
        CAUSAL ? min(tiles, (wg_row0 + 63) / BLOCK_N + 1) : tiles;  // tiles this warpgroup computes
    unsigned p_frag[BLOCK_N / 16][4];
    // PINGPONG: every warpgroup takes tiles + 1 turns (tile 0's S, tiles 1.. with the previous P V, the last
    // P V, and an empty turn for each tile it skips).
    auto begin_turn = [&] {
#if PINGPONG
      wait_for_turn(warpgroup);
#endif
    };
    auto end_turn = [&] {
#if PINGPONG
      pass_turn(warpgroup);
#endif
    };
    {
      acquire(0);
      float s_acc[BLOCK_N / 2];
#pragma unroll
      for (int i = 0; i < BLOCK_N / 2; ++i) s_acc[i] = 0.0f;
      pin(s_acc);
      begin_turn();
      wgmma_fence();
      issue_qk(s_acc, stage_offset(0));
      wgmma_commit();
      end_turn();
      wgmma_wait<0>();
      pin(s_acc);
      float factor[2];
      softmax(s_acc, 0, factor, false);  // O is still 0
      pack_p(s_acc, p_frag);
    }
    for (int tile = 1; tile < wg_tiles; ++tile) {
      acquire(tile);
      float s_acc[BLOCK_N / 2];
#pragma unroll
      for (int i = 0; i < BLOCK_N / 2; ++i) s_acc[i] = 0.0f;
      pin(s_acc);
      pin(o_acc);
      begin_turn();
      wgmma_fence();
      issue_qk(s_acc, stage_offset(tile));
      wgmma_commit();
      issue_pv(p_frag, stage_offset(tile - 1));
      wgmma_commit();
      end_turn();
      wgmma_wait<1>();  // S of this tile
      pin(s_acc);
      float factor[2];
      softmax(s_acc, tile * BLOCK_N, factor, false);
      pin(s_acc);       // computed before P V is waited for
      wgmma_wait<0>();  // P V of the previous tile
      pin(o_acc);
#pragma unroll
      for (int kt = 0; kt < BLOCK_N / 16; ++kt) pin(p_frag[kt]);  // read by the wgmmas until the wait
      release(tile - 1);
#pragma unroll
      for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int j = 0; j < D / 8; ++j) {
          o_acc[4 * j + 2 * r] *= factor[r];
          o_acc[4 * j + 2 * r + 1] *= factor[r];
        }
      pack_p(s_acc, p_frag);
    }
    pin(o_acc);
    begin_turn();
    wgmma_fence();
    issue_pv(p_frag, stage_offset(wg_tiles - 1));
    wgmma_commit();
    end_turn();
    wgmma_wait<0>();
    pin(o_acc);
#pragma unroll
    for (int kt = 0; kt < BLOCK_N / 16; ++kt) pin(p_frag[kt]);
    release(wg_tiles - 1);
    for (int tile = wg_tiles; tile < tiles;
         ++tile) {  // (causal) the block's tiles past this warpgroup's rows
      acquire(tile);
      begin_turn();
      end_turn();
      release(tile);
    }
#else
    for (int tile = 0; tile < tiles; ++tile) {
      acquire(tile);
      const int n0 = tile * BLOCK_N;
      if (!CAUSAL || n0 <= wg_row0 + 63) {
        const unsigned long long offset = stage_offset(tile);
        float s_acc[BLOCK_N / 2];
#pragma unroll
        for (int i = 0; i < BLOCK_N / 2; ++i) s_acc[i] = 0.0f;
        pin(s_acc);
        wgmma_fence();
        issue_qk(s_acc, offset);
        wgmma_commit();
        wgmma_wait<0>();
        pin(s_acc);
        float factor[2];
        softmax(s_acc, n0, factor, true);
        unsigned p_frag[BLOCK_N / 16][4];
        pack_p(s_acc, p_frag);
        pin(o_acc);
        wgmma_fence();
        issue_pv(p_frag, offset);
        wgmma_commit();
        wgmma_wait<0>();
        pin(o_acc);
#pragma unroll
        for (int kt = 0; kt < BLOCK_N / 16; ++kt) pin(p_frag[kt]);  // read by the wgmmas until the wait
      }
      release(tile);
    }
#endif

    // Epilogue: O / row sum (0 where every key was masked) as fp16, staged swizzled in the Q tile (this
    // warpgroup's rows only: only its own, completed, wgmmas read them), then stored.
#if !WARP_SPECIALIZE
    wait_copies<0>();  // no copy may land in the staging area below
    __syncthreads();
#endif
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float total = row_sum[r];
      total += __shfl_xor_sync(0xffffffffu, total, 1);
      total += __shfl_xor_sync(0xffffffffu, total, 2);
      const float inverse = total > 0.0f ? 1.0f / total : 0.0f;
      const int row = warpgroup * 64 + warp * 16 + group + r * 8;
#pragma unroll
      for (int j = 0; j < D / 8; ++j)
        *reinterpret_cast<unsigned*>(q_staging + swizzled_offset<BLOCK_M>(row, j) + quad * 4) =
            pack_pair(o_acc[4 * j + 2 * r] * inverse, o_acc[4 * j + 2 * r + 1] * inverse);
    }
#if !WARP_SPECIALIZE
    __syncthreads();
    elem* o_head = O + head;
    for (int chunk = threadIdx.x; chunk < BLOCK_M * CHUNKS; chunk += CONSUMER_THREADS) {
      const int row = chunk / CHUNKS;
      const int c = chunk % CHUNKS;
      if (m0 + row < S)
        *reinterpret_cast<uint4*>(o_head + static_cast<long long>(m0 + row) * D + c * 8) =
            *reinterpret_cast<const uint4*>(q_staging + swizzled_offset<BLOCK_M>(row, c));
    }
#else
    // Each warpgroup stores its own 64 rows once its 128 threads have staged them (named barrier 5 + w), and
    // (PERSISTENT) tells the producer on q_empty once they have been read, so that the next work tile's Q may
    // land there.
#if TMA_STORE
    fence_async_shared();  // the staging writes become visible to the TMA engine (the async proxy)
    sync_warpgroup(warpgroup);
    if (threadIdx.x % 128 == 0) {
      if (wg_row0 < S) {
#pragma unroll
        for (int slab = 0; slab < D / 64; ++slab)
          tma_store_3d(o_map, q_tile + slab * BLOCK_M * 128 + warpgroup * 64 * 128, slab * 64, wg_row0,
                       work.bh);
        tma_commit_stores();
        tma_wait_stores_read();
      }
#if PERSISTENT
      mbarrier_arrive(q_empty);
#endif
    }
#else
    sync_warpgroup(warpgroup);
    elem* o_head = O + head;
    for (int chunk = threadIdx.x % 128; chunk < 64 * CHUNKS; chunk += 128) {
      const int row = warpgroup * 64 + chunk / CHUNKS;
      const int c = chunk % CHUNKS;
      if (m0 + row < S)
        *reinterpret_cast<uint4*>(o_head + static_cast<long long>(m0 + row) * D + c * 8) =
            *reinterpret_cast<const uint4*>(q_staging + swizzled_offset<BLOCK_M>(row, c));
    }
#if PERSISTENT
    fence_async_shared();       // this thread's generic accesses come before the next Q's TMA writes
    sync_warpgroup(warpgroup);  // every thread's reads of the staging rows are done
    if (threadIdx.x % 128 == 0) mbarrier_arrive(q_empty);
#endif
#endif
#endif
    ring_base += tiles;
  }  // work tiles
#if PINGPONG
  if (warpgroup == 0) wait_for_turn(0);  // the last warpgroup's final pass: every barrier phase completes
#endif
#if CLUSTER > 1
  cluster_sync();  // the peer's consumers no longer arrive on this block's barriers
#endif
}
