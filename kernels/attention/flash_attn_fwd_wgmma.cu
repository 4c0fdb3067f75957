// Forward attention O = softmax(Q K^T * scale) V on Hopper's warpgroup tensor cores (wgmma, sm_90a), on the
// kernels/common/sm90 primitives. Q, O: fp16 [B, H, S, D], K, V: [B, HKV, SKV, D] (bf16 with -DBF16=1),
// contiguous, D fastest; query head h reads K/V head h / (H / HKV), and causal is aligned to the bottom right
// (query i sees keys j <= i + SKV - S). Besides O it writes LSE, fp32 [B, H, S]: each row's log-sum-exp of
// its scaled scores, ln sum_j e^(scale q_i . k_j) over the keys it sees (0 for a row that sees none), what
// the backward pass recomputes P from. A block computes BLOCK_M = 64 * CONSUMER_WARPGROUPS query rows of one
// head; its roles, in file order:
//   scheduler  which work tile a block computes: the grid's, in order or (causal) longest first, or a
//              persistent walk (Scheduler)
//   producer   K/V tiles into a ring of STAGES shared-memory stages: by the consumers themselves with
//   cp.async
//              on block barriers (SelfLoadedKv), or by a producer warpgroup (WARP_SPECIALIZE) on the ring's
//              mbarriers (KvRing, ProducedKv) with cp.async or TMA (TMA_LOADS), in clusters of two blocks
//              through multicast (CLUSTER 2)
//   mainloop   per K/V tile S = Q K^T and O += P V (TileMma), each batch waited for at once or overlapped
//   with
//              the softmax (INTRA_WG_OVERLAP), the consumer warpgroups taking turns (PINGPONG: Turns)
//   softmax    the online softmax in base 2 on the S accumulators (ScoreMask, Softmax)
//   epilogue   O / row sums staged in the Q tile, stored with 16-byte stores or TMA (TMA_STORE); each row's
//              log-sum-exp into LSE
// The kernel at the end composes them. Tuning parameters and problem sizes arrive as #defines
// (search_spaces/flash_attn_fwd_wgmma.json); the design notes (layouts, descriptors, fragments, the
// synchronisation of every mode) are in docs/kernels/attention_wgmma.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../common/sm90/arch.cuh"
#include "../common/sm90/cluster.cuh"
#include "../common/sm90/head_interleave.cuh"
#include "../common/sm90/mbarrier.cuh"
#include "../common/sm90/named_barrier.cuh"
#include "../common/sm90/pipeline.cuh"
#include "../common/sm90/registers.cuh"
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
// Added later; defaults to the grid's own order, so that a config without it compiles as before.
#ifndef HEAD_INTERLEAVE
#define HEAD_INTERLEAVE 1
#endif
#ifndef Q_BUFFERS
#define Q_BUFFERS 1
#endif
#ifndef LAZY_RESCALE
#define LAZY_RESCALE 0
#endif
#ifndef KV_SPLIT
#define KV_SPLIT 0
#endif

namespace attn {

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
constexpr int CHUNKS = D / 8;  // 16-byte chunks per row
// The space's SMEM_BYTES: the tiles, the producer's mbarriers (at most 96 bytes, 128 counted; with KV_SPLIT
// at most 144, 256 counted) and room to align the tiles to 1024 bytes.
constexpr int SMEM_BYTES =
    Q_BUFFERS * Q_BYTES + 2 * STAGES * KV_TILE_BYTES + (WARP_SPECIALIZE ? 128 * (1 + KV_SPLIT) : 0) + 1024;
// The consumers loading the ring themselves: tiles in flight while one is computed (with the overlap two
// stages are being read: K of tile j, V of tile j - 1).
constexpr int PREFETCH = STAGES - 1 - INTRA_WG_OVERLAP;
// setmaxnreg (warp specialisation with 2 or 3 consumer warpgroups; with 1 the block's 256 threads may have
// 255 registers each anyway): producer + consumers fit 64K registers, (PRODUCER_REGS + W CONSUMER_REGS) 128
// <= 65536. REG_SPLIT k moves 8 k registers a thread from each consumer warpgroup to the producer.
constexpr int PRODUCER_REGS = (CONSUMER_WARPGROUPS == 3 ? 32 : 24) + 8 * REG_SPLIT * CONSUMER_WARPGROUPS;
constexpr int CONSUMER_REGS = (CONSUMER_WARPGROUPS == 3 ? 160 : 240) - 8 * REG_SPLIT;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
// (LAZY_RESCALE) how far, base 2, a row's max may lag its scores before it moves: P <= 2^8.
constexpr float kLazyRescaleLog2 = 8.0f;

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
static_assert(
    Q_BUFFERS == 1 || (Q_BUFFERS == 2 && PERSISTENT),
    "Q_BUFFERS 2: a persistent block's next work tile's Q lands in the other Q tile while this one runs");
static_assert(REG_SPLIT >= 0 && REG_SPLIT <= 2, "REG_SPLIT is 0..2");
static_assert(LONGEST_FIRST == 0 || CAUSAL, "LONGEST_FIRST orders work tiles of unequal length: causal only");
static_assert(HEAD_INTERLEAVE == 1 || (LONGEST_FIRST && !PERSISTENT && CLUSTER == 1),
              "HEAD_INTERLEAVE: groups of heads whose query blocks take turns, longest first, one a block");
static_assert(CLUSTER == 1 || (CLUSTER == 2 && TMA_LOADS && !PERSISTENT),
              "CLUSTER 2: two blocks share K/V through TMA multicast, one work tile each");
static_assert(REG_SPLIT == 0 || (WARP_SPECIALIZE && CONSUMER_WARPGROUPS > 1),
              "REG_SPLIT moves registers between the producer and the consumers only where setmaxnreg runs");
static_assert(KV_SPLIT == 0 || (KV_SPLIT == 1 && TMA_LOADS && INTRA_WG_OVERLAP && CLUSTER == 1),
              "KV_SPLIT: the TMA producer loads K a tile ahead of V for the overlapped mainloop, one block a "
              "K/V tile");
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

template <bool Condition, typename IfTrue, typename IfFalse>
struct Select {
  using type = IfTrue;
};
template <typename IfTrue, typename IfFalse>
struct Select<false, IfTrue, IfFalse> {
  using type = IfFalse;
};

__device__ __forceinline__ float neg_inf() { return -__int_as_float(0x7f800000); }

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// ---------------------------------------------------------------------------------------------------------
// Shared memory and named barriers

// The block's shared memory, 1024-byte aligned. A tile of R rows is D / 64 slabs of [R][64] elements, each
// 128-byte row swizzled (chunk c of row r at c ^ (r % 8)); every tile is a multiple of 1024 bytes.
struct SharedStorage {
  elem q[Q_BUFFERS][BLOCK_M * D];  // Q (work tile i's in q[i % Q_BUFFERS]); in the epilogue, the staged O
  elem k[STAGES][BLOCK_N * D];     // the K/V ring
  elem v[STAGES][BLOCK_N * D];
  // WARP_SPECIALIZE only (the space's SMEM_BYTES counts them then; otherwise they lie past it, unused):
  unsigned long long full[STAGES];        // the stage's tile has landed (KV_SPLIT: its K)
  unsigned long long empty[STAGES];       // every consumer warp (of both blocks of a cluster) is done with it
  unsigned long long q_empty[Q_BUFFERS];  // (PERSISTENT) every consumer warpgroup stored O from the Q tile
  unsigned long long full_v[KV_SPLIT ? STAGES : 1];   // (KV_SPLIT) the stage's V has landed
  unsigned long long empty_v[KV_SPLIT ? STAGES : 1];  // (KV_SPLIT) every consumer warp is done with its V
};
// Byte offsets of its members: in order, without padding (NVRTC has no offsetof).
constexpr unsigned OFFSET_Q = 0;
constexpr unsigned OFFSET_K = OFFSET_Q + sizeof(SharedStorage::q);
constexpr unsigned OFFSET_V = OFFSET_K + sizeof(SharedStorage::k);
constexpr unsigned OFFSET_FULL = OFFSET_V + sizeof(SharedStorage::v);
constexpr unsigned OFFSET_EMPTY = OFFSET_FULL + sizeof(SharedStorage::full);
constexpr unsigned OFFSET_Q_EMPTY = OFFSET_EMPTY + sizeof(SharedStorage::empty);
constexpr unsigned OFFSET_FULL_V = OFFSET_Q_EMPTY + sizeof(SharedStorage::q_empty);
constexpr unsigned OFFSET_EMPTY_V = OFFSET_FULL_V + sizeof(SharedStorage::full_v);
static_assert(OFFSET_EMPTY_V + sizeof(SharedStorage::empty_v) == sizeof(SharedStorage),
              "SharedStorage has no padding: the offsets above are its members'");
static_assert(sizeof(SharedStorage::k[0]) == KV_TILE_BYTES, "a stage is one K (or V) tile");
static_assert((WARP_SPECIALIZE ? sizeof(SharedStorage) : OFFSET_FULL) + 1024 <= SMEM_BYTES,
              "SMEM_BYTES (the space's expression) holds the layout and its alignment");

// Shared addresses of the block's SharedStorage (what cp.async, TMA, mbarriers and descriptors take), and the
// generic address of its Q tile (the epilogue's staging stores).
struct Smem {
  unsigned base;  // 1024-aligned
  unsigned char* staging;

  static __device__ __forceinline__ Smem of(unsigned char* raw) {
    const unsigned raw_address = sm90::smem_address(raw);
    const unsigned base = (raw_address + 1023) & ~1023u;
    return {base, raw + (base - raw_address)};
  }
  __device__ __forceinline__ unsigned q(int buffer = 0) const { return base + OFFSET_Q + buffer * Q_BYTES; }
  __device__ __forceinline__ unsigned k(int stage = 0) const {
    return base + OFFSET_K + stage * KV_TILE_BYTES;
  }
  __device__ __forceinline__ unsigned v(int stage = 0) const {
    return base + OFFSET_V + stage * KV_TILE_BYTES;
  }
  __device__ __forceinline__ unsigned full() const { return base + OFFSET_FULL; }
  __device__ __forceinline__ unsigned empty() const { return base + OFFSET_EMPTY; }
  __device__ __forceinline__ unsigned q_empty(int buffer = 0) const {
    return base + OFFSET_Q_EMPTY + 8 * buffer;
  }
  __device__ __forceinline__ unsigned full_v() const { return base + OFFSET_FULL_V; }
  __device__ __forceinline__ unsigned empty_v() const { return base + OFFSET_EMPTY_V; }
  // The generic address of Q tile `buffer`, where the epilogue stages O.
  __device__ __forceinline__ unsigned char* staging_rows(int buffer) const {
    return staging + buffer * Q_BYTES;
  }
};
// Byte offset of 16-byte chunk `chunk` (elements 8 chunk .. 8 chunk + 7) of row `row` in a swizzled tile of
// ROWS rows.
template <int ROWS>
__device__ __forceinline__ int swizzled_offset(int row, int chunk) {
  return (chunk >> 3) * (ROWS * 128) + row * 128 + (((chunk & 7) ^ (row & 7)) << 4);
}

// Named barriers (0 is __syncthreads); the first of a kind plus w is consumer warpgroup w's.
enum class Barrier : int {
  turn = 2,       // (PINGPONG) warpgroup w's turn to issue its wgmmas: 256 threads, its own and the passer's
  warpgroup = 5,  // warpgroup w alone (its epilogue): 128 threads
};
__device__ __forceinline__ Barrier of_warpgroup(Barrier first, int warpgroup) {
  return static_cast<Barrier>(static_cast<int>(first) + warpgroup);
}

// ---------------------------------------------------------------------------------------------------------
// Scheduler

// One work tile: BLOCK_M query rows of one (batch, head).
struct WorkTile {
  int m0;             // first query row
  int bh;             // batch * H + head
  int kv_bh;          // batch * HKV + its K/V head
  int tiles;          // K/V tiles it needs: all keys, or (causal) up to its last row's last key (at least 1)
  long long head;     // the offset of its (batch, head) in Q and O, in elements
  long long kv_head;  // the offset of its K/V head in K and V, in elements
};

// The work tiles of a block: the grid's one (query block, head, batch), or (PERSISTENT) every gridDim.x-th
// from blockIdx.x. LONGEST_FIRST (causal) starts the longest first: without PERSISTENT the query blocks are
// taken in reverse of blockIdx.x (the hardware starts blocks in blockIdx order, so the short ones fill the
// tail); with it every head's last query block comes first, then every head's last but one, ..., so that each
// round of gridDim.x work tiles is of nearly equal lengths (otherwise head-major: the blocks running at once
// share the K/V of a few heads in L2). HEAD_INTERLEAVE h > 1 (LONGEST_FIRST, not PERSISTENT): the grid's
// blocks are read as groups of h heads taking turns, each head's last query block first
// (sm90::interleaved_block), so that the longest blocks of a group start before any shorter one and the last
// wave holds short ones, while the blocks running at once share the K/V of h heads.
struct Scheduler {
  int first, count, step;  // work tiles first, first + step, ... below count
  int S, bh_count;
  int SKV, H, HKV;

  static __device__ __forceinline__ Scheduler of_block(int S, int SKV, int H, int HKV, int B) {
    Scheduler scheduler{0, 1, 1, S, B * H, SKV, H, HKV};
    if constexpr (PERSISTENT) {
      scheduler.first = static_cast<int>(blockIdx.x);
      scheduler.count = (S + BLOCK_M - 1) / BLOCK_M * H * B;
      scheduler.step = static_cast<int>(gridDim.x);
    }
    return scheduler;
  }
  // The keys query row `row` sees end at row + 1 + causal_offset(): bottom-right aligned, as SDPA's and
  // FlashAttention's causal mask with S != SKV.
  __device__ __forceinline__ int causal_offset() const { return SKV - S; }
  // K/V tiles up to the key_end-th key, at least one: a work tile whose rows see no key (causal, S > SKV)
  // still computes one, fully masked, so that its rows come out 0.
  static __device__ __forceinline__ int tiles_to(int key_end) {
    return max(1, (key_end + BLOCK_N - 1) / BLOCK_N);
  }

  __device__ __forceinline__ WorkTile work_tile(int item) const {
    const int m_blocks = (S + BLOCK_M - 1) / BLOCK_M;
    WorkTile work;
    int m_block;
    // Query head h of batch b reads K/V head h / (H / HKV) of batch b (the space's condition: H % HKV == 0).
    if constexpr (PERSISTENT) {
      work.bh = LONGEST_FIRST ? item % bh_count : item / m_blocks;
      m_block = LONGEST_FIRST ? m_blocks - 1 - item / bh_count : item % m_blocks;
      work.kv_bh = work.bh / H * HKV + work.bh % H / (H / HKV);
    } else if constexpr (HEAD_INTERLEAVE > 1) {
      // groups of HEAD_INTERLEAVE heads take turns, each head's longest query block first
      const sm90::InterleavedBlock place = sm90::interleaved_block<HEAD_INTERLEAVE>();
      work.bh = place.head;  // the grid is (query blocks, H, B): head y + H z
      work.kv_bh = place.head / H * HKV + place.head % H / (H / HKV);
      m_block = last_block() - place.block;
    } else {
      work.bh = blockIdx.z * gridDim.y + blockIdx.y;  // the grid is (query blocks, H, B)
      work.kv_bh = static_cast<int>(blockIdx.z) * HKV + static_cast<int>(blockIdx.y) / (H / HKV);
      m_block = LONGEST_FIRST ? last_block() - static_cast<int>(blockIdx.x) : static_cast<int>(blockIdx.x);
    }
    work.m0 = m_block * BLOCK_M;
    const int key_end = CAUSAL ? min(SKV, work.m0 + BLOCK_M + causal_offset()) : SKV;
    work.tiles = CAUSAL ? tiles_to(key_end) : (key_end + BLOCK_N - 1) / BLOCK_N;
    if constexpr (CLUSTER > 1) {
      // The two blocks of a cluster (adjacent query blocks of one head) go through the same K/V tiles, in
      // step: as many as the later one needs (the other acquires and releases those past its rows, as a
      // warpgroup does for the tiles causal masking lets it skip).
      const int peer_x = static_cast<int>(blockIdx.x ^ 1);
      const int peer_block = LONGEST_FIRST ? last_block() - peer_x : peer_x;
      const int peer_key_end = CAUSAL ? min(SKV, (peer_block + 1) * BLOCK_M + causal_offset()) : SKV;
      work.tiles = max(work.tiles, (peer_key_end + BLOCK_N - 1) / BLOCK_N);
    }
    work.head = static_cast<long long>(work.bh) * S * D;
    work.kv_head = static_cast<long long>(work.kv_bh) * SKV * D;
    return work;
  }

  // gridDim.x is the query blocks, or with CLUSTER 2 their number rounded up to even (the extra block's rows
  // are all past S: it computes on zeros and stores nothing).
  static __device__ __forceinline__ int last_block() { return static_cast<int>(gridDim.x) - 1; }
};

// ---------------------------------------------------------------------------------------------------------
// Producer: the K/V ring

// The kernel's inputs: Q, K and V as pointers, or (TMA_LOADS) as tensor maps of [B * H][S][D] (Q) and
// [B * HKV][SKV][D] (K, V) with boxes of 64 columns by BLOCK_M (Q) or BLOCK_N / CLUSTER (K, V) rows and the
// 128-byte swizzle.
struct PointerInputs {
  const elem* q;
  const elem* k;
  const elem* v;
};
struct TmaInputs {
  const sm90::TensorMap& q;
  const sm90::TensorMap& k;
  const sm90::TensorMap& v;
};

// cp.async: 16 bytes from global to shared; src_bytes = 0 writes zeros (rows past S).
__device__ __forceinline__ void copy_16(unsigned dst, const elem* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int PENDING>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

// ROWS rows of D elements from global (row stride D) into the swizzled tile at shared address `tile`, by
// every thread of the block; rows at or past `valid_rows` are zero-filled.
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

// The producer warpgroup's share of a ROWS-row tile (as load_tile, by 128 threads): thread `loader` copies
// chunk column loader % CHUNKS of rows loader / CHUNKS + k ROW_STEP, so its swizzle (row % 8) and address
// steps are fixed and it needs few registers (setmaxnreg leaves the producer 24 or 32).
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

// The ring between the producer warpgroup and the consumers (WARP_SPECIALIZE), on sm90::TmaPipeline's
// barriers. Its tiles are numbered across the block's work tiles: ring tile r sits in stage r % STAGES, in
// round r / STAGES, whose full phase has parity (r / STAGES) & 1; the producer refills the stage once the
// empty phase of the round before has completed.
struct KvRing {
  sm90::TmaPipeline<STAGES> pipe;    // the tiles (KV_SPLIT: their K, and with a work tile's first its Q)
  sm90::TmaPipeline<STAGES> pipe_v;  // (KV_SPLIT) their V

  static __device__ __forceinline__ KvRing of(const Smem& smem) {
    return {{smem.full(), smem.empty()}, {smem.full_v(), smem.empty_v()}};
  }
  static __device__ __forceinline__ sm90::PipelineState<STAGES> at(int ring) {
    return {ring % STAGES, static_cast<unsigned>((ring / STAGES) & 1)};
  }
  // One thread, before the block (cluster) barrier that publishes them: full counts the producer's 128
  // cp.async arrivals, or its one arrival with the TMA bytes; empty one arrival per consumer warp of every
  // block reading the stage; each Q tile's q_empty (Q_BUFFERS of them, 8 bytes apart) one per consumer
  // warpgroup.
  __device__ __forceinline__ void init(unsigned q_empty) const {
#pragma unroll
    for (int stage = 0; stage < STAGES; ++stage) {
      sm90::mbarrier_init(pipe.full_barrier(stage), TMA_LOADS ? 1 : 128);
      sm90::mbarrier_init(pipe.empty_barrier(stage), 4 * CONSUMER_WARPGROUPS * CLUSTER);
    }
#pragma unroll
    for (int buffer = 0; buffer < Q_BUFFERS; ++buffer)
      sm90::mbarrier_init(q_empty + 8 * buffer, CONSUMER_WARPGROUPS);
    if constexpr (KV_SPLIT) {
#pragma unroll
      for (int stage = 0; stage < STAGES; ++stage) {
        sm90::mbarrier_init(pipe_v.full_barrier(stage), 1);
        sm90::mbarrier_init(pipe_v.empty_barrier(stage), 4 * CONSUMER_WARPGROUPS);
      }
    }
    if constexpr (CLUSTER > 1) sm90::mbarrier_fence_init();
  }
  // The stage of ring tile `ring` may be refilled (with CLUSTER 2: the consumers of both blocks released it).
  __device__ __forceinline__ void producer_acquire(int ring) const {
    if (ring >= STAGES) {
      if constexpr (CLUSTER > 1)
        pipe.producer_acquire_cluster(at(ring));
      else
        pipe.producer_acquire(at(ring));
    }
  }
  __device__ __forceinline__ void consumer_wait(int ring) const { pipe.consumer_wait(at(ring)); }
  // (KV_SPLIT) V's barriers: the producer may refill the stage's V, the V has landed, this warp is done with
  // it.
  __device__ __forceinline__ void producer_acquire_v(int ring) const {
    if (ring >= STAGES) pipe_v.producer_acquire(at(ring));
  }
  __device__ __forceinline__ void consumer_wait_v(int ring) const { pipe_v.consumer_wait(at(ring)); }
  __device__ __forceinline__ void consumer_release_v(int ring) const { pipe_v.consumer_release(at(ring)); }
  // Once the warp's wgmmas reading the tile have completed: lane 0 arrives on the stage's empty barrier, and
  // (CLUSTER 2) on the peer block's, whose producer's copies land in this block's stage too.
  __device__ __forceinline__ void consumer_release(int ring, unsigned rank) const {
    __syncwarp();
    if (threadIdx.x % 32 == 0) {
      const unsigned empty = pipe.empty_barrier(ring % STAGES);
      sm90::mbarrier_arrive(empty);
      if constexpr (CLUSTER > 1) sm90::mbarrier_arrive_remote(empty, rank ^ 1);
    }
  }
};

// Tile `tile` of K and V into stage `stage` with TMA, counted on `full`: a box per 64-column slab, or
// (CLUSTER 2) this block's half of the tile's rows, [rank, rank + 1) * BLOCK_N / 2, multicast into the same
// offset of both blocks (each block's full barrier expects the whole tile).
__device__ __forceinline__ void load_kv_tma(const TmaInputs& in, const Smem& smem, int stage, int tile,
                                            int kv_bh, unsigned full, unsigned rank) {
#pragma unroll
  for (int slab = 0; slab < D / 64; ++slab) {
    const unsigned offset = stage * KV_TILE_BYTES + slab * BLOCK_N * 128;
    if constexpr (CLUSTER > 1) {
      const int half = static_cast<int>(rank) * (BLOCK_N / 2);
      const int row = tile * BLOCK_N + half;
      sm90::tma_load_3d_multicast(smem.k() + offset + half * 128, in.k, slab * 64, row, kv_bh, full, 0x3);
      sm90::tma_load_3d_multicast(smem.v() + offset + half * 128, in.v, slab * 64, row, kv_bh, full, 0x3);
    } else {
      sm90::tma_load_3d(smem.k() + offset, in.k, slab * 64, tile * BLOCK_N, kv_bh, full);
      sm90::tma_load_3d(smem.v() + offset, in.v, slab * 64, tile * BLOCK_N, kv_bh, full);
    }
  }
}

// (KV_SPLIT) Tile `tile` of K or V (`map`, head `kv_bh`) into stage `stage` of that ring (`ring_base`:
// smem.k() or smem.v()) with TMA, a box per 64-column slab, counted on `full`.
__device__ __forceinline__ void load_k_or_v_tma(unsigned ring_base, const sm90::TensorMap& map, int stage,
                                                int tile, int kv_bh, unsigned full) {
#pragma unroll
  for (int slab = 0; slab < D / 64; ++slab)
    sm90::tma_load_3d(ring_base + stage * KV_TILE_BYTES + slab * BLOCK_N * 128, map, slab * 64,
                      tile * BLOCK_N, kv_bh, full);
}

// Work tile `done_items`'s Q into Q tile done_items % Q_BUFFERS, counted on `full` (its first K/V tile's),
// once the epilogue of work tile done_items - Q_BUFFERS has left that tile (q_empty).
__device__ __forceinline__ void load_q(const TmaInputs& in, const Smem& smem, const WorkTile& work,
                                       int done_items, unsigned full) {
  const int buffer = done_items % Q_BUFFERS;
  if (done_items >= Q_BUFFERS)
    sm90::mbarrier_wait(smem.q_empty(buffer), ((done_items - Q_BUFFERS) / Q_BUFFERS) & 1);
#pragma unroll
  for (int slab = 0; slab < D / 64; ++slab)
    sm90::tma_load_3d(smem.q(buffer) + slab * BLOCK_M * 128, in.q, slab * 64, work.m0, work.bh, full);
}

// (KV_SPLIT) V of ring tile `ring`, tile `tile` of K/V head `kv_bh`, onto V's own barriers once the stage's
// V is free.
__device__ __forceinline__ void load_v_tma(const TmaInputs& in, const Smem& smem, const KvRing& ring, int r,
                                           int tile, int kv_bh) {
  const sm90::PipelineState<STAGES> state = KvRing::at(r);
  ring.producer_acquire_v(r);
  ring.pipe_v.producer_expect(state, KV_TILE_BYTES);
  load_k_or_v_tma(smem.v(), in.v, state.stage, tile, kv_bh, ring.pipe_v.full_barrier(state.stage));
}

// The producer warpgroup with TMA: one thread issues every copy, per ring tile an arrival expecting the
// tile's bytes (Q's too with a work tile's first), then the K and V boxes. Work tile i's Q goes to Q tile
// i % Q_BUFFERS once the epilogue of work tile i - Q_BUFFERS has left it (q_empty), after its first K/V tile
// is issued, so the ring runs ahead meanwhile; the full phase cannot complete before Q's bytes have landed.
// With one Q tile that waits for the previous work tile's epilogue; with two, the next work tile's Q is in
// flight while this one's last K/V tiles are computed.
// KV_SPLIT (FlashAttention-3's order): K and V on their own barriers, K a ring tile ahead of V: per ring tile
// r its K (the stage's K free once S of ring tile r - STAGES has completed), then V of ring tile r - 1, then
// a work tile's Q; V of the last at the end. V goes before Q: the Q tile is freed by the previous work tile's
// epilogue, which waits for its last P V, which waits for that V.
__device__ __forceinline__ void produce(const TmaInputs& in, const Smem& smem, const KvRing& ring,
                                        const Scheduler& scheduler, unsigned rank) {
  if (threadIdx.x != CONSUMER_THREADS) {
    if constexpr (CLUSTER > 1) sm90::cluster_sync();  // the block stays until its peer no longer arrives here
    return;
  }
  int ring_tile = 0;
  int done_items = 0;
  int v_tile = 0, v_kv_bh = 0;  // (KV_SPLIT) the V still to load: its tile in its work tile, its K/V head
  for (int item = scheduler.first; item < scheduler.count; item += scheduler.step, ++done_items) {
    const WorkTile work = scheduler.work_tile(item);
    for (int tile = 0; tile < work.tiles; ++tile, ++ring_tile) {
      const sm90::PipelineState<STAGES> state = KvRing::at(ring_tile);
      ring.producer_acquire(ring_tile);
      const unsigned full = ring.pipe.full_barrier(state.stage);
      const int q_bytes = tile == 0 ? Q_BYTES : 0;
      if constexpr (KV_SPLIT) {
        ring.pipe.producer_expect(state, KV_TILE_BYTES + q_bytes);
        load_k_or_v_tma(smem.k(), in.k, state.stage, tile, work.kv_bh, full);
        if (ring_tile > 0) load_v_tma(in, smem, ring, ring_tile - 1, v_tile, v_kv_bh);
        v_tile = tile;
        v_kv_bh = work.kv_bh;
      } else {
        ring.pipe.producer_expect(state, 2 * KV_TILE_BYTES + q_bytes);
        load_kv_tma(in, smem, state.stage, tile, work.kv_bh, full, rank);
      }
      if (tile == 0) load_q(in, smem, work, done_items, full);
    }
  }
  if constexpr (KV_SPLIT)
    if (ring_tile > 0) load_v_tma(in, smem, ring, ring_tile - 1, v_tile, v_kv_bh);
  if constexpr (CLUSTER > 1) sm90::cluster_sync();
}

// The producer warpgroup with cp.async: its 128 threads copy Q, then each K/V tile, every thread arriving on
// the stage's full barrier once its copies of the tile have landed. One work tile (PERSISTENT needs TMA).
__device__ __forceinline__ void produce(const PointerInputs& in, const Smem& smem, const KvRing& ring,
                                        const Scheduler& scheduler, unsigned) {
  const int loader = threadIdx.x - CONSUMER_THREADS;
  const WorkTile work = scheduler.work_tile(scheduler.first);
  produce_tile<BLOCK_M>(smem.q(), in.q + work.head + static_cast<long long>(work.m0) * D,
                        scheduler.S - work.m0, loader);
  for (int tile = 0; tile < work.tiles; ++tile) {
    const int stage = tile % STAGES;
    ring.producer_acquire(tile);
    const int n0 = tile * BLOCK_N;
    const long long offset = work.kv_head + static_cast<long long>(n0) * D;
    produce_tile<BLOCK_N>(smem.k(stage), in.k + offset, scheduler.SKV - n0, loader);
    produce_tile<BLOCK_N>(smem.v(stage), in.v + offset, scheduler.SKV - n0, loader);
    sm90::mbarrier_arrive_when_copies_land(ring.pipe.full_barrier(stage));
  }
  commit_copies();
  wait_copies<0>();  // exit with no copy in flight
}

// ---------------------------------------------------------------------------------------------------------
// The K/V tiles as the consumers see them: begin (a work tile), acquire (the tile is in shared memory and
// visible to wgmma), stage (where it is), release (this warp no longer reads it), drain (no copy in flight
// before the epilogue writes the Q tile), end. Tiles count within the work tile. The overlapped mainloop
// acquires and releases a tile's K and V apart (acquire_k, acquire_v, release_k, release_v): with KV_SPLIT on
// their own barriers, otherwise acquire_k and release_v are the tile's acquire and release and the other two
// nothing.

// WARP_SPECIALIZE 1: the producer warpgroup's ring.
struct ProducedKv {
  KvRing ring;
  unsigned rank;
  int ring_base = 0;  // the ring number of this work tile's first K/V tile

  template <typename Inputs>
  __device__ __forceinline__ ProducedKv(const Inputs&, const Smem&, const KvRing& ring, int, int,
                                        unsigned rank)
      : ring(ring), rank(rank) {}
  __device__ __forceinline__ void begin(const WorkTile&) {}  // the producer loads Q
  __device__ __forceinline__ void acquire(int tile) const {
    ring.consumer_wait(ring_base + tile);
    // The producer's cp.async wrote through the generic proxy, wgmma reads through the async one (as TMA
    // writes).
    if constexpr (!TMA_LOADS) sm90::fence_async_shared();
  }
  __device__ __forceinline__ int stage(int tile) const { return (ring_base + tile) % STAGES; }
  __device__ __forceinline__ void release(int tile) const { ring.consumer_release(ring_base + tile, rank); }
  __device__ __forceinline__ void acquire_k(int tile) const { acquire(tile); }
  __device__ __forceinline__ void acquire_v(int tile) const {
    if constexpr (KV_SPLIT) ring.consumer_wait_v(ring_base + tile);
  }
  __device__ __forceinline__ void release_k(int tile) const {
    if constexpr (KV_SPLIT) release(tile);
  }
  __device__ __forceinline__ void release_v(int tile) const {
    if constexpr (KV_SPLIT)
      ring.consumer_release_v(ring_base + tile);
    else
      release(tile);
  }
  __device__ __forceinline__ void drain() const {}
  __device__ __forceinline__ void end(const WorkTile& work) { ring_base += work.tiles; }
};

// WARP_SPECIALIZE 0: the consumers load Q and the K/V tiles themselves with cp.async, PREFETCH tiles ahead,
// and order the ring with block barriers. One work tile (PERSISTENT needs TMA).
struct SelfLoadedKv {
  PointerInputs in;
  Smem smem;
  int S, SKV;
  long long kv_head = 0;
  int tiles = 0;

  __device__ __forceinline__ SelfLoadedKv(const PointerInputs& in, const Smem& smem, const KvRing&, int S,
                                          int SKV, unsigned)
      : in(in), smem(smem), S(S), SKV(SKV) {}
  // Q with the first tile, then up to PREFETCH tiles in flight (empty groups keep the count).
  __device__ __forceinline__ void begin(const WorkTile& work) {
    kv_head = work.kv_head;
    tiles = work.tiles;
    load_tile<BLOCK_M>(smem.q(), in.q + work.head + static_cast<long long>(work.m0) * D, S - work.m0);
#pragma unroll
    for (int tile = 0; tile < PREFETCH; ++tile) {
      if (tile < tiles) load(tile);
      commit_copies();
    }
  }
  __device__ __forceinline__ void load(int tile) const {
    const int stage = tile % STAGES;
    const int n0 = tile * BLOCK_N;
    const long long offset = kv_head + static_cast<long long>(n0) * D;
    load_tile<BLOCK_N>(smem.k(stage), in.k + offset, SKV - n0);
    load_tile<BLOCK_N>(smem.v(stage), in.v + offset, SKV - n0);
  }
  __device__ __forceinline__ void acquire(int tile) const {
    if constexpr (INTRA_WG_OVERLAP) {
      // The tile was loaded during the step before. The barrier also says every warpgroup has waited for its
      // P V of tile - 2: that stage is refilled.
      wait_copies<PREFETCH - 1>();
      sm90::fence_async_shared();
      __syncthreads();
      if (tile + PREFETCH < tiles) load(tile + PREFETCH);
      commit_copies();
    } else {
      if (tile + PREFETCH < tiles) load(tile + PREFETCH);
      commit_copies();
      wait_copies<PREFETCH>();
      sm90::fence_async_shared();
      __syncthreads();
    }
  }
  __device__ __forceinline__ int stage(int tile) const { return tile % STAGES; }
  __device__ __forceinline__ void release(int) const {
    if constexpr (!INTRA_WG_OVERLAP) __syncthreads();  // the stage computed here is refilled by a later step
  }
  __device__ __forceinline__ void acquire_k(int tile) const { acquire(tile); }
  __device__ __forceinline__ void acquire_v(int) const {}
  __device__ __forceinline__ void release_k(int) const {}
  __device__ __forceinline__ void release_v(int tile) const { release(tile); }
  __device__ __forceinline__ void drain() const {
    wait_copies<0>();  // no copy may land in the staging area
    __syncthreads();
  }
  __device__ __forceinline__ void end(const WorkTile&) {}
};

using KvSupply = Select<WARP_SPECIALIZE, ProducedKv, SelfLoadedKv>::type;

// ---------------------------------------------------------------------------------------------------------
// Mainloop

// This thread's warpgroup (the producer's is the last) and, in a consumer warpgroup, its place in the
// accumulator fragments.
struct Lane {
  int warpgroup;
  int warp;   // within the warpgroup
  int group;  // the accumulator row of this lane (and row + 8)
  int quad;   // the accumulator column pair of this lane

  static __device__ __forceinline__ Lane of_thread() {
    const int lane = threadIdx.x % 32;
    return {static_cast<int>(threadIdx.x / 128), static_cast<int>((threadIdx.x / 32) % 4), lane >> 2,
            lane & 3};
  }
};

// PINGPONG: the consumer warpgroups issue their wgmma batches in turn, round robin. Warpgroup w takes its
// turn on its turn barrier (256 threads: its own 128 waiting, the 128 of warpgroup w - 1 passing the turn on)
// and passes it to w + 1 once its batch is committed. Every warpgroup takes tiles + 1 turns per work tile (S
// of tile 0, S of tile j with P V of tile j - 1, the last P V, and an empty turn for each tile it skips);
// without PINGPONG every call is empty.
struct Turns {
  int warpgroup;

  __device__ __forceinline__ void take() const {
    if constexpr (PINGPONG) sm90::barrier_sync<256>(of_warpgroup(Barrier::turn, warpgroup));
  }
  __device__ __forceinline__ void pass() const {
    if constexpr (PINGPONG)
      sm90::barrier_arrive<256>(of_warpgroup(Barrier::turn, (warpgroup + 1) % CONSUMER_WARPGROUPS));
  }
  // The last warpgroup hands warpgroup 0 the first turn; at the end warpgroup 0 takes the last warpgroup's
  // final pass, so that every barrier phase completes.
  __device__ __forceinline__ void start() const {
    if (PINGPONG && warpgroup == CONSUMER_WARPGROUPS - 1) pass();
  }
  __device__ __forceinline__ void finish() const {
    if (PINGPONG && warpgroup == 0) take();
  }
};

template <int N>
using Mma = sm90::Wgmma<N, mma_type>;

// A consumer warpgroup's wgmmas, on 128-byte-swizzled descriptors: S = Q K^T with Q (A) and K (B) K-major in
// shared memory; O += P V with P (A) from registers and V (B) MN-major (imm-trans-b = 1). Issued, not
// committed.
struct TileMma {
  unsigned long long q_desc, k_desc, v_desc;

  static __device__ __forceinline__ TileMma of(const Smem& smem, int warpgroup) {
    return {sm90::desc_kmajor_sw128(smem.q() + warpgroup * 64 * 128), sm90::desc_kmajor_sw128(smem.k()),
            sm90::desc_mnmajor_sw128(smem.v(), BLOCK_N * 128)};
  }
  // The descriptor offset (16-byte units) of a stage.
  static __device__ __forceinline__ unsigned long long stage_offset(int stage) {
    return static_cast<unsigned long long>(stage * KV_TILE_BYTES) >> 4;
  }
  // The same wgmmas reading Q from Q tile `buffer`.
  __device__ __forceinline__ TileMma on_q(int buffer) const {
    return {q_desc + (static_cast<unsigned long long>(buffer * Q_BYTES) >> 4), k_desc, v_desc};
  }
  // S = Q K^T for this warpgroup's 64 rows and the tile's BLOCK_N keys.
  __device__ __forceinline__ void issue_qk(float (&s_acc)[BLOCK_N / 2], unsigned long long offset) const {
#pragma unroll
    for (int ks = 0; ks < D / 16; ++ks) {
      const unsigned long long q_step = ((ks / 4) * (BLOCK_M * 128) + (ks % 4) * 32) >> 4;
      const unsigned long long k_step = ((ks / 4) * (BLOCK_N * 128) + (ks % 4) * 32) >> 4;
      Mma<BLOCK_N>::template ss<0, 0>(s_acc, q_desc + q_step, k_desc + offset + k_step, 1);
    }
  }
  // O += P V: the packed S accumulators of keys [16 kt, 16 kt + 16) are the A fragment of k-step kt.
  __device__ __forceinline__ void issue_pv(float (&o_acc)[D / 2], const unsigned (&p_frag)[BLOCK_N / 16][4],
                                           unsigned long long offset) const {
#pragma unroll
    for (int kt = 0; kt < BLOCK_N / 16; ++kt)
      Mma<D>::template rs<1>(o_acc, p_frag[kt], v_desc + offset + ((kt * 16 * 128) >> 4), 1);
  }
};

// ---------------------------------------------------------------------------------------------------------
// Softmax

// Masks keys >= SKV and (causal) keys after the query's last, row + SKV - S, on the tiles that reach them
// only.
struct ScoreMask {
  int SKV;
  int wg_last_key0;  // (causal) the last key the warpgroup's first query row sees: its row + SKV - S
  Lane me;

  __device__ __forceinline__ void apply(float (&s_acc)[BLOCK_N / 2], int n0) const {
    const bool tail = n0 + BLOCK_N > SKV;
    const bool diagonal = CAUSAL && n0 + BLOCK_N - 1 > wg_last_key0;
    if (tail || diagonal) {
#pragma unroll
      for (int i = 0; i < BLOCK_N / 2; ++i) {
        const int key = n0 + (i / 4) * 8 + me.quad * 2 + (i & 1);
        const int last_key = wg_last_key0 + me.warp * 16 + me.group + ((i >> 1) & 1) * 8;
        if (key >= SKV || (CAUSAL && key > last_key)) s_acc[i] = neg_inf();
      }
    }
  }
};

// O's rows times their factors; with LAZY_RESCALE skipped where every row of the warp keeps its max (a
// warp-uniform branch: the factors are 1).
__device__ __forceinline__ void rescale(float (&o_acc)[D / 2], const float (&factor)[2]) {
  if (LAZY_RESCALE && !__any_sync(0xffffffffu, factor[0] != 1.0f || factor[1] != 1.0f)) return;
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int j = 0; j < D / 8; ++j) {
      o_acc[4 * j + 2 * r] *= factor[r];
      o_acc[4 * j + 2 * r + 1] *= factor[r];
    }
}

// The online softmax of this thread's two rows (g and g + 8 of its warp's 16), base 2 with the scale folded
// into one multiply.
struct Softmax {
  float scale_log2;
  float row_max[2];  // running max of the scaled scores
  float row_sum[2];  // this lane's share of the running sums

  __device__ __forceinline__ void reset() {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      row_max[r] = neg_inf();
      row_sum[r] = 0.0f;
    }
  }
  // Turns the (masked) S accumulators into P and updates the running max and sums; factor[r] is what O's row
  // r must be multiplied by, here when RESCALE_NOW. LAZY_RESCALE: a row's max moves only when the tile's
  // exceeds it by more than kLazyRescaleLog2 (base 2), so that most tiles leave O alone (factor 1); P is then
  // at most 2^kLazyRescaleLog2, which fp16/bf16 P and the fp32 sums and O hold without loss.
  template <bool RESCALE_NOW>
  __device__ __forceinline__ void update(float (&s_acc)[BLOCK_N / 2], float (&factor)[2],
                                         float (&o_acc)[D / 2]) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float tile_max = neg_inf();
#pragma unroll
      for (int j = 0; j < BLOCK_N / 8; ++j)
        tile_max = fmaxf(tile_max, fmaxf(s_acc[4 * j + 2 * r], s_acc[4 * j + 2 * r + 1]));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
      float row_factor = 1.0f;
      if (!LAZY_RESCALE || tile_max * scale_log2 > row_max[r] + kLazyRescaleLog2) {
        const float new_max = fmaxf(row_max[r], tile_max * scale_log2);
        // A row with every key so far masked keeps -inf: its factor is then exp2(-inf - 0) = 0.
        row_factor = exp2_approx(row_max[r] - (new_max == neg_inf() ? 0.0f : new_max));
        row_max[r] = new_max;
      }
      // A row with every key so far masked subtracts 0, so that its p are 0.
      const float base = row_max[r] == neg_inf() ? 0.0f : row_max[r];
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
      factor[r] = row_factor;
    }
    if constexpr (RESCALE_NOW) rescale(o_acc, factor);
  }
  // After the last tile: each row's sum over the four lanes sharing it, in every one of them.
  __device__ __forceinline__ void finish() {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      row_sum[r] += __shfl_xor_sync(0xffffffffu, row_sum[r], 1);
      row_sum[r] += __shfl_xor_sync(0xffffffffu, row_sum[r], 2);
    }
  }
  // (After finish.) 1 / row r's sum; 0 for a row with every key masked (never NaN).
  __device__ __forceinline__ float inverse_sum(int r) const {
    return row_sum[r] > 0.0f ? 1.0f / row_sum[r] : 0.0f;
  }
  // (After finish.) Row r's log-sum-exp of the scaled scores, natural log: ln sum_j e^(scale s_j) =
  // (row_max + log2 row_sum) ln 2, the max and the sum being base 2. 0 for a row with every key masked.
  __device__ __forceinline__ float log_sum_exp(int r) const {
    return row_sum[r] > 0.0f ? (row_max[r] + __log2f(row_sum[r])) * kLn2 : 0.0f;
  }
};

// P as the A fragments of P V, packed pairwise from the S accumulators (P never goes through shared memory).
__device__ __forceinline__ void pack_p(const float (&s_acc)[BLOCK_N / 2],
                                       unsigned (&p_frag)[BLOCK_N / 16][4]) {
#pragma unroll
  for (int kt = 0; kt < BLOCK_N / 16; ++kt) {
#pragma unroll
    for (int i = 0; i < 4; ++i) p_frag[kt][i] = pack_pair(s_acc[8 * kt + 2 * i], s_acc[8 * kt + 2 * i + 1]);
    sm90::pin(p_frag[kt]);
  }
}

__device__ __forceinline__ void clear(float (&acc)[BLOCK_N / 2]) {
#pragma unroll
  for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] = 0.0f;
  sm90::pin(acc);
}

// (PERSISTENT, two Q tiles, TMA store) A work tile's O store is waited for, and its Q tile handed back to the
// producer (q_empty), only once the next work tile's first S = Q K^T is issued: the bulk store reads the
// staging rows meanwhile, instead of holding the warpgroup's first warp (and with it the warpgroup's next
// wgmma) at the end of the epilogue. The producer needs that Q tile back only for the work tile after next.
constexpr bool DEFER_STORE_WAIT = PERSISTENT && Q_BUFFERS == 2 && TMA_STORE;

struct PendingStore {
  bool pending = false;  // (the warpgroup's first thread) a store still reads the staging rows of...
  unsigned q_empty = 0;  // ...the Q tile of this q_empty barrier

  // Waits for the pending store's read of its staging rows and hands the Q tile back; idempotent.
  __device__ __forceinline__ void settle() {
    if constexpr (DEFER_STORE_WAIT) {
      if (pending) {
        sm90::tma_wait_stores_read();
        sm90::mbarrier_arrive(q_empty);
        pending = false;
      }
    }
  }
};

// ---------------------------------------------------------------------------------------------------------
// Mainloop, the two schedules of a work tile's K/V tiles

// INTRA_WG_OVERLAP 0: per tile S = Q K^T, waited for; the softmax with O rescaled at once; O += P V, waited
// for. A warpgroup acquires and releases the tiles past its rows (causal) without computing.
__device__ __forceinline__ void mainloop(KvSupply& kv, const TileMma& mma, const ScoreMask& mask,
                                         Softmax& softmax, float (&o_acc)[D / 2], int tiles,
                                         PendingStore& pending) {
  for (int tile = 0; tile < tiles; ++tile) {
    kv.acquire(tile);
    const int n0 = tile * BLOCK_N;
    if (!CAUSAL || n0 <= mask.wg_last_key0 + 63) {
      const unsigned long long offset = TileMma::stage_offset(kv.stage(tile));
      float s_acc[BLOCK_N / 2];
      clear(s_acc);
      sm90::wgmma_fence();
      mma.issue_qk(s_acc, offset);
      sm90::wgmma_commit();
      pending.settle();
      sm90::wgmma_wait<0>();
      sm90::pin(s_acc);
      float factor[2];
      mask.apply(s_acc, n0);
      softmax.update<true>(s_acc, factor, o_acc);
      unsigned p_frag[BLOCK_N / 16][4];
      pack_p(s_acc, p_frag);
      sm90::pin(o_acc);
      sm90::wgmma_fence();
      mma.issue_pv(o_acc, p_frag, offset);
      sm90::wgmma_commit();
      sm90::wgmma_wait<0>();
      sm90::pin(o_acc);
#pragma unroll
      for (int kt = 0; kt < BLOCK_N / 16; ++kt) sm90::pin(p_frag[kt]);  // read by the wgmmas until the wait
    }
    kv.release(tile);
  }
  pending.settle();  // (causal) where the warpgroup computed no tile
}

// INTRA_WG_OVERLAP 1, FlashAttention-3's intra-warpgroup overlap: S of tile j and P V of tile j - 1 are
// issued together (two commit groups), the softmax of tile j runs once S has completed (wait_group 1) while P
// V still runs, and O is rescaled once P V has completed too (wait_group 0); P of tile j - 1 stays in p_frag
// meanwhile. Each batch is issued in a turn (PINGPONG).
__device__ __forceinline__ void mainloop_overlapped(KvSupply& kv, const TileMma& mma, const ScoreMask& mask,
                                                    Softmax& softmax, const Turns& turns,
                                                    float (&o_acc)[D / 2], int tiles, PendingStore& pending) {
  const int wg_tiles =  // tiles this warpgroup computes, at least one (rows that see no key: fully masked)
      CAUSAL ? min(tiles, max(1, (mask.wg_last_key0 + 63) / BLOCK_N + 1)) : tiles;
  unsigned p_frag[BLOCK_N / 16][4];
  {
    kv.acquire_k(0);
    float s_acc[BLOCK_N / 2];
    clear(s_acc);
    turns.take();
    sm90::wgmma_fence();
    mma.issue_qk(s_acc, TileMma::stage_offset(kv.stage(0)));
    sm90::wgmma_commit();
    turns.pass();
    pending.settle();
    sm90::wgmma_wait<0>();
    sm90::pin(s_acc);
    kv.release_k(0);
    float factor[2];
    mask.apply(s_acc, 0);
    softmax.update<false>(s_acc, factor, o_acc);  // O is still 0
    pack_p(s_acc, p_frag);
  }
  for (int tile = 1; tile < wg_tiles; ++tile) {
    kv.acquire_k(tile);
    kv.acquire_v(tile - 1);
    float s_acc[BLOCK_N / 2];
    clear(s_acc);
    sm90::pin(o_acc);
    turns.take();
    sm90::wgmma_fence();
    mma.issue_qk(s_acc, TileMma::stage_offset(kv.stage(tile)));
    sm90::wgmma_commit();
    mma.issue_pv(o_acc, p_frag, TileMma::stage_offset(kv.stage(tile - 1)));
    sm90::wgmma_commit();
    turns.pass();
    sm90::wgmma_wait<1>();  // S of this tile
    sm90::pin(s_acc);
    kv.release_k(tile);
    float factor[2];
    mask.apply(s_acc, tile * BLOCK_N);
    softmax.update<false>(s_acc, factor, o_acc);
    sm90::pin(s_acc);       // computed before P V is waited for
    sm90::wgmma_wait<0>();  // P V of the previous tile
    sm90::pin(o_acc);
#pragma unroll
    for (int kt = 0; kt < BLOCK_N / 16; ++kt) sm90::pin(p_frag[kt]);  // read by the wgmmas until the wait
    kv.release_v(tile - 1);
    rescale(o_acc, factor);
    pack_p(s_acc, p_frag);
  }
  kv.acquire_v(wg_tiles - 1);
  sm90::pin(o_acc);
  turns.take();
  sm90::wgmma_fence();
  mma.issue_pv(o_acc, p_frag, TileMma::stage_offset(kv.stage(wg_tiles - 1)));
  sm90::wgmma_commit();
  turns.pass();
  sm90::wgmma_wait<0>();
  sm90::pin(o_acc);
#pragma unroll
  for (int kt = 0; kt < BLOCK_N / 16; ++kt) sm90::pin(p_frag[kt]);
  kv.release_v(wg_tiles - 1);
  for (int tile = wg_tiles; tile < tiles; ++tile) {  // (causal) the block's tiles past this warpgroup's rows
    kv.acquire_k(tile);
    kv.acquire_v(tile);
    turns.take();
    turns.pass();
    kv.release_k(tile);
    kv.release_v(tile);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Epilogue

// O / row sums in the element type, staged swizzled in the Q tile: this warpgroup's rows only, which only its
// own (completed) wgmmas read.
__device__ __forceinline__ void stage_o(const Smem& smem, const float (&o_acc)[D / 2], const Softmax& softmax,
                                        const Lane& me, int buffer) {
  // this lane's 4 bytes of each 16-byte chunk
  unsigned char* const staging = smem.staging_rows(buffer) + me.quad * 4;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float inverse = softmax.inverse_sum(r);
    const int row = me.warpgroup * 64 + me.warp * 16 + me.group + r * 8;
#pragma unroll
    for (int j = 0; j < D / 8; ++j)
      *reinterpret_cast<unsigned*>(staging + swizzled_offset<BLOCK_M>(row, j)) =
          pack_pair(o_acc[4 * j + 2 * r] * inverse, o_acc[4 * j + 2 * r + 1] * inverse);
  }
}

// Rows [first_row, first_row + ROWS) of the staged tile to global memory with 16-byte stores, `thread` of
// STORERS taking every STORERS-th chunk; rows past S are not written.
template <int ROWS, int STORERS>
__device__ __forceinline__ void store_staged_rows(elem* o_head, const unsigned char* staging, int m0,
                                                  int first_row, int thread, int S) {
  for (int chunk = thread; chunk < ROWS * CHUNKS; chunk += STORERS) {
    const int row = first_row + chunk / CHUNKS;
    const int c = chunk % CHUNKS;
    if (m0 + row < S)
      *reinterpret_cast<uint4*>(o_head + static_cast<long long>(m0 + row) * D + c * 8) =
          *reinterpret_cast<const uint4*>(staging + swizzled_offset<BLOCK_M>(row, c));
  }
}

// TMA_STORE 0: the consumers loading themselves store the block's rows together (block barrier); with a
// producer each warpgroup stores its own 64 rows once its 128 threads have staged them, and (PERSISTENT)
// tells the producer on q_empty once they have been read, so that a later work tile's Q may land there.
// `buffer`: the Q tile the rows are staged in.
__device__ __forceinline__ void store_o(elem* O, const Smem& smem, const WorkTile& work, int warpgroup, int S,
                                        int buffer, PendingStore&) {
  elem* o_head = O + work.head;
  const unsigned char* staging = smem.staging_rows(buffer);
  if constexpr (!WARP_SPECIALIZE) {
    __syncthreads();
    store_staged_rows<BLOCK_M, CONSUMER_THREADS>(o_head, staging, work.m0, 0, threadIdx.x, S);
  } else {
    const Barrier own = of_warpgroup(Barrier::warpgroup, warpgroup);
    sm90::barrier_sync<128>(own);
    store_staged_rows<64, 128>(o_head, staging, work.m0, warpgroup * 64, threadIdx.x % 128, S);
    if constexpr (PERSISTENT) {
      sm90::fence_async_shared();    // this thread's generic accesses come before the next Q's TMA writes
      sm90::barrier_sync<128>(own);  // every thread's reads of the staging rows are done
      if (threadIdx.x % 128 == 0) sm90::mbarrier_arrive(smem.q_empty(buffer));
    }
  }
}

// TMA_STORE 1: the warpgroup's first thread stores its 64 staged rows with TMA (rows past S are clipped), and
// (PERSISTENT) arrives on the Q tile's q_empty once the bulk store has read them: at once with one Q tile,
// after the next work tile's first S is issued with two (PendingStore).
__device__ __forceinline__ void store_o(const sm90::TensorMap& o_map, const Smem& smem, const WorkTile& work,
                                        int warpgroup, int S, int buffer, PendingStore& pending) {
  sm90::fence_async_shared();  // the staging writes become visible to the TMA engine (the async proxy)
  sm90::barrier_sync<128>(of_warpgroup(Barrier::warpgroup, warpgroup));
  const int wg_row0 = work.m0 + warpgroup * 64;
  if (threadIdx.x % 128 == 0) {
    if (wg_row0 < S) {
#pragma unroll
      for (int slab = 0; slab < D / 64; ++slab)
        sm90::tma_store_3d(o_map, smem.q(buffer) + slab * BLOCK_M * 128 + warpgroup * 64 * 128, slab * 64,
                           wg_row0, work.bh);
      sm90::tma_commit_stores();
      if constexpr (!DEFER_STORE_WAIT) sm90::tma_wait_stores_read();
    }
    if constexpr (DEFER_STORE_WAIT) {
      pending.pending = true;
      pending.q_empty = smem.q_empty(buffer);
    } else if constexpr (PERSISTENT)
      sm90::mbarrier_arrive(smem.q_empty(buffer));
  }
}

// The output: a pointer, or (TMA_STORE) a tensor map of O with boxes of 64 columns by 64 rows.
using Output = Select<TMA_STORE, const sm90::TensorMap&, elem*>::type;

// The rows' log-sum-exps, LSE [B, H, S] fp32 (what a backward pass recomputes P from), written once a row:
// the four lanes of a row group (quad 0..3) hold rows g and g + 8 alike, so quad 0 writes row g and quad 1
// row g + 8 (a warp's 16 rows in one store); rows past S are not written.
__device__ __forceinline__ void store_lse(float* lse, const Softmax& softmax, const WorkTile& work,
                                          const Lane& me, int S) {
  const int row = work.m0 + me.warpgroup * 64 + me.warp * 16 + me.group + 8 * me.quad;
  if (me.quad < 2 && row < S)
    lse[static_cast<long long>(work.bh) * S + row] =
        me.quad == 0 ? softmax.log_sum_exp(0) : softmax.log_sum_exp(1);
}

// ---------------------------------------------------------------------------------------------------------
// A consumer warpgroup: its work tiles, each a mainloop over the K/V tiles and an epilogue.
__device__ __forceinline__ void consume(KvSupply& kv, Output out, float* lse, const Smem& smem,
                                        const Scheduler& scheduler, const Lane& me, float scale_log2) {
  const TileMma first_q_mma = TileMma::of(smem, me.warpgroup);
  const Turns turns{me.warpgroup};
  turns.start();
  int done_items = 0;
  PendingStore pending;
  for (int item = scheduler.first; item < scheduler.count; item += scheduler.step, ++done_items) {
    const WorkTile work = scheduler.work_tile(item);
    const int buffer = done_items % Q_BUFFERS;  // the Q tile the producer loaded this work tile's Q into
    const TileMma mma = first_q_mma.on_q(buffer);
    kv.begin(work);
    float o_acc[D / 2];
#pragma unroll
    for (int i = 0; i < D / 2; ++i) o_acc[i] = 0.0f;
    Softmax softmax{scale_log2};
    softmax.reset();
    const ScoreMask mask{scheduler.SKV, work.m0 + me.warpgroup * 64 + scheduler.causal_offset(), me};
    if constexpr (INTRA_WG_OVERLAP)
      mainloop_overlapped(kv, mma, mask, softmax, turns, o_acc, work.tiles, pending);
    else
      mainloop(kv, mma, mask, softmax, o_acc, work.tiles, pending);
    kv.drain();
    softmax.finish();
    stage_o(smem, o_acc, softmax, me, buffer);
    store_lse(lse, softmax, work, me, scheduler.S);
    store_o(out, smem, work, me.warpgroup, scheduler.S, buffer, pending);
    kv.end(work);
  }
  pending.settle();  // the block's last store has read its rows before the block exits
  turns.finish();
  if constexpr (CLUSTER > 1) sm90::cluster_sync();  // the peer's consumers no longer arrive on this block
}

}  // namespace attn

// The kernel takes Q, K and V as pointers, or (TMA_LOADS) as tensor maps, O as a pointer or (TMA_STORE) a
// tensor map, then the LSE pointer and the sizes: the space's Launches pick the arguments.
extern "C" __global__ void __launch_bounds__(attn::THREADS, 1)
#if TMA_LOADS
    flash_attn_fwd_wgmma(const __grid_constant__ sm90::TensorMap q_map,
                         const __grid_constant__ sm90::TensorMap k_map,
                         const __grid_constant__ sm90::TensorMap v_map,
#if TMA_STORE
                         const __grid_constant__ sm90::TensorMap o_map,
#else
                         attn::elem* __restrict__ O,
#endif
                         float* __restrict__ LSE, int B, int H, int HKV, int S, int SKV, float scale) {
  const attn::TmaInputs inputs{q_map, k_map, v_map};
#else
    flash_attn_fwd_wgmma(const attn::elem* __restrict__ Q, const attn::elem* __restrict__ K,
                         const attn::elem* __restrict__ V, attn::elem* __restrict__ O,
                         float* __restrict__ LSE, int B, int H, int HKV, int S, int SKV, float scale) {
  const attn::PointerInputs inputs{Q, K, V};
#endif
#if TMA_STORE
  attn::Output output = o_map;
#else
  attn::Output output = O;
#endif
  using namespace attn;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  {
    unsigned dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < static_cast<unsigned>(SMEM_BYTES)) __trap();  // less than the layout: no overrun
  }
  const Smem smem = Smem::of(smem_raw);
  const Lane me = Lane::of_thread();
  const float scale_log2 = scale * kLog2e;
  const Scheduler scheduler = Scheduler::of_block(S, SKV, H, HKV, B);
  const KvRing ring = KvRing::of(smem);
  const unsigned rank = CLUSTER > 1 ? sm90::cluster_rank() : 0;
  if constexpr (WARP_SPECIALIZE) {
    if (threadIdx.x == 0) ring.init(smem.q_empty());
    if constexpr (CLUSTER > 1)
      sm90::cluster_sync();  // both blocks' barriers are initialised before any copy or arrival reaches them
    else
      __syncthreads();
    if (me.warpgroup == CONSUMER_WARPGROUPS) {
      if constexpr (CONSUMER_WARPGROUPS > 1) sm90::registers_decrease<PRODUCER_REGS>();
      produce(inputs, smem, ring, scheduler, rank);
      return;
    }
    if constexpr (CONSUMER_WARPGROUPS > 1) sm90::registers_increase<CONSUMER_REGS>();
  }
  KvSupply kv(inputs, smem, ring, S, SKV, rank);
  consume(kv, output, LSE, smem, scheduler, me, scale_log2);
}
