// Backward attention on Hopper's warpgroup tensor cores (wgmma, sm_90a), on the kernels/common/sm90
// primitives: dQ, dK, dV of O = softmax(Q K^T * scale) V from Q, K, V, O, dO and the forward's log-sum-exps
// LSE (natural log). Q, O, dO, dQ: fp16 [B, H, S, D], K, V, dK, dV: [B, HKV, SKV, D] (bf16 with -DBF16=1),
// LSE: float [B, H, S]; query head h reads K/V head h / (H / HKV), dK and dV sum over the query heads of the
// group; causal is aligned to the bottom right (query i sees keys j <= i + SKV - S). Three kernels, in launch
// order:
//   flash_attn_bwd_preprocess  Dsum = rowsum(dO * O) and LSE * log2(e) into scratch rows padded to 128 (640
//       with 80-row tiles) a head (padding: 0 and +inf), and (DQ_ATOMIC) the fp32 dQ accumulator zeroed (3:
//       every padded row)
//   flash_attn_bwd_wgmma  one block per (BLOCK_N keys, K/V head, batch): K and V loaded once, then every
//       query block of every query head of the group through a ring of STAGES Q / dO / LSE / Dsum tiles;
//       per tile, each consumer warpgroup owning 64 keys:
//         S^T = K Q^T, dP^T = V dO^T    (A and B K-major in shared memory)
//         P^T = exp2(S^T scale log2(e) - LSE log2(e)), dS^T = P^T (dP^T - Dsum)
//         dV += P^T dO, dK += dS^T Q    (A from registers, B MN-major)
//         dQ (+)= dS K                  (dS^T through shared memory; A and B MN-major; with 80-row
//                                       tiles transposed, dQ^T = K^T dS^T), split among the
//                                       warpgroups, added to an fp32 accumulator (DQ_ATOMIC 1: vector
//                                       atomics; 2: staged in shared memory, bulk reduce-adds, issued by
//                                       the consumers or, DQ_WRITER, by a warp of the producer; 3: the
//                                       same with the accumulator tiled, one bulk reduce-add a unit) or
//                                       stored as this key block's partial (0)
//       then dK * scale and dV in the element type
//   flash_attn_bwd_convert_dq  dQ = scale * the accumulator (or the partials summed in key-block order)
// Roles of the main kernel, in file order: the schedule of a block's query tiles (Schedule), the Q / dO ring
// filled by the consumers with cp.async (SelfLoadedRing) or by a producer warpgroup (WARP_SPECIALIZE: with
// cp.async or, TMA_LOADS, tensor copies; Ring, ProducedRing on sm90::TmaPipeline's barriers), the wgmmas
// (TileMma), P and dS (Gradients), the dS^T tile (DsTile: 4-byte stores or, DS_STMATRIX, stmatrix; its
// layout in bwd_tile_layout.cuh), the dQ writes (DqWriter; with DQ_WRITER the
// producer's writer warp, DqWriterWarp, issues the bulk reduce-adds of the staged units), the dK / dV
// epilogue, the consumers' tile loop (consume_tiles; consume_tiles_overlapped with NEXT_TILE_OVERLAP, which
// issues the next tile's scores before this tile's dQ is written; DS_DOUBLE_BUFFER alternates two dS^T
// tiles). Tuning parameters and problem sizes arrive as #defines (search_spaces/flash_attn_bwd_wgmma.json);
// the design notes (layouts, descriptors, fragments, synchronisation, the dQ strategies) are in
// docs/kernels/attention_bwd.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../common/sm90/arch.cuh"
#include "../common/sm90/cp_async.cuh"
#include "../common/sm90/element_type.cuh"
#include "../common/sm90/head_interleave.cuh"
#include "../common/sm90/mbarrier.cuh"
#include "../common/sm90/named_barrier.cuh"
#include "../common/sm90/pipeline.cuh"
#include "../common/sm90/registers.cuh"
#include "../common/sm90/stmatrix.cuh"
#include "../common/sm90/tma.cuh"
#include "../common/sm90/warpgroup.cuh"
#include "../common/sm90/wgmma.cuh"
#include "bwd_tile_layout.cuh"

#ifndef D
static_assert(false, "D (head dimension) must be #defined");
#endif
#ifndef CAUSAL
static_assert(false, "CAUSAL (0 or 1) must be #defined");
#endif
#ifndef BLOCK_M
static_assert(false, "BLOCK_M must be #defined");
#endif
#ifndef BLOCK_N
static_assert(false, "BLOCK_N must be #defined");
#endif
#ifndef STAGES
static_assert(false, "STAGES must be #defined");
#endif
#ifndef WARP_SPECIALIZE
static_assert(false, "WARP_SPECIALIZE (0 or 1) must be #defined");
#endif
#ifndef TMA_LOADS
static_assert(false, "TMA_LOADS (0 or 1) must be #defined");
#endif
#ifndef DQ_ATOMIC
static_assert(false, "DQ_ATOMIC (0, 1, 2 or 3) must be #defined");
#endif
// The overlaps added later default to 0, today's schedule, so that a config without them compiles as before.
#ifndef DS_DOUBLE_BUFFER
#define DS_DOUBLE_BUFFER 0
#endif
#ifndef NEXT_TILE_OVERLAP
#define NEXT_TILE_OVERLAP 0
#endif
#ifndef DQ_WRITER
#define DQ_WRITER 0
#endif
#ifndef DS_STMATRIX
#define DS_STMATRIX 0
#endif
#ifndef HEAD_INTERLEAVE
#define HEAD_INTERLEAVE 1
#endif
#ifndef DQ_ALTERNATE
#define DQ_ALTERNATE 0
#endif
#ifndef ROW_STATS_EARLY
#define ROW_STATS_EARLY 0
#endif
static_assert(HEAD_INTERLEAVE >= 1, "HEAD_INTERLEAVE: (batch, K/V head) pairs whose key blocks interleave");

namespace attn_bwd {

// The tiles' byte layout (bwd_tile_layout.cuh, outside this namespace: an exported dispatcher inlines that
// header once, ahead of every variant's copy of this one).
using namespace attn_bwd_layout;

using element_type::elem;  // the element type of Q, K, V, O, dO and the gradients
using element_type::mma_type;
using element_type::pack_pair;
using element_type::unpack_pair;

constexpr int WARPGROUPS = BLOCK_N / 64;  // consumer warpgroups, each owning 64 keys of the block
constexpr int CONSUMER_THREADS = 128 * WARPGROUPS;
constexpr int THREADS = CONSUMER_THREADS + 128 * WARP_SPECIALIZE;  // the producer warpgroup comes last
constexpr int CHUNKS = D / 8;                                      // 16-byte chunks per row of D elements
constexpr int Q_TILE_BYTES = 2 * BLOCK_M * D;                      // a Q or dO tile
constexpr int KV_TILE_BYTES = 2 * BLOCK_N * D;                     // the K or V tile
constexpr int DS_BYTES = 2 * BLOCK_N * BLOCK_M;                    // a dS^T tile
constexpr int DS_BUFFERS = 1 + DS_DOUBLE_BUFFER;                   // dS^T tiles: tile t writes t % DS_BUFFERS
constexpr int ROW_BYTES = 4 * BLOCK_M;                             // a tile's LSE (or Dsum) values
// BLOCK_M 80 (FlashAttention-3's D = 128 tiles): dQ = dS K would need M = 80 rows, no multiple of 64, so each
// warpgroup computes its unit transposed, dQ^T = K^T dS^T (M = one 64-column slab of D, N = the 80 rows, k =
// the BLOCK_N keys), with dS^T in a 32-byte-swizzled tile (80 columns are no multiple of the 128-byte
// swizzle's 64).
constexpr bool DQ_TRANSPOSED = BLOCK_M == 80;
constexpr bool DS_SWIZZLE_32 = DQ_TRANSPOSED;
// The preprocess pads each head's LSE and Dsum rows to a multiple of this (a multiple of BLOCK_M and of 128).
constexpr int ROW_PAD = DQ_TRANSPOSED ? 640 : 128;
// The dQ of a query tile, BLOCK_M x D, is DQ_TOTAL_UNITS = M_CHUNKS x COL_SPLIT units of DQ_UNIT_ROWS rows by
// DQ_N = 64 columns (one slab of K), each one wgmma batch (m64n64k16, k = BLOCK_N keys; BLOCK_M 80: the
// unit's transpose, m64n80k16) with DQ_ACC accumulators a thread; warpgroup w computes units w, w +
// WARPGROUPS, ... (DQ_UNITS at most), one after the other. With D = 64, 64 rows and two warpgroups there is
// one unit, which warpgroup 0 writes and warpgroup 1 computes for nothing (DQ_IDLE).
constexpr int DQ_UNIT_ROWS = DQ_TRANSPOSED ? BLOCK_M : 64;
constexpr int M_CHUNKS = BLOCK_M / DQ_UNIT_ROWS;
constexpr int DQ_N = 64;
constexpr int DQ_ACC = DQ_UNIT_ROWS * DQ_N / 128;
constexpr int COL_SPLIT = D / DQ_N;
constexpr int DQ_TOTAL_UNITS = M_CHUNKS * COL_SPLIT;
constexpr int DQ_UNITS = (DQ_TOTAL_UNITS + WARPGROUPS - 1) / WARPGROUPS;
constexpr bool DQ_IDLE = DQ_UNITS * WARPGROUPS > DQ_TOTAL_UNITS;
// DQ_ALTERNATE 1 (64- or 128-row tiles, two consumer warpgroups, the tiled accumulator): the whole dQ of tile
// t, BLOCK_M rows by D, is computed by warpgroup t % 2, one wgmma batch a 64-row chunk (m64n{D}k16, k = the
// block's 128 keys; D / 2 accumulators a chunk and thread), staged as the tile's DQ_TOTAL_UNITS units, which
// lie one after the other in the tiled accumulator, and added with one bulk reduce-add; the other warpgroup
// goes on to the next tile meanwhile. At D = 128 half the dQ wgmmas of the split into 64-column units (twice
// as wide, each B read once), at D = 64 with 64 rows no idle warpgroup, and the two warpgroups a dQ batch
// apart, so that one's exponentials overlap the other's wgmmas.
constexpr int DQ_STAGE_UNITS = DQ_ALTERNATE ? DQ_TOTAL_UNITS : 1;  // units a warpgroup stages at once
// DQ_ATOMIC 2 and 3: each consumer warpgroup stages its dQ unit, DQ_UNIT_ROWS rows of DQ_N floats, in shared
// memory for the bulk reduce-adds. 2: rows DQ_STAGE_STRIDE floats apart (8 more: a warp's float2 stores hit
// 2-way bank conflicts at most; rows stay 16-byte aligned), one bulk reduce-add a row. 3: the unit's image in
// the tiled accumulator (16 KiB, BLOCK_M 80: 20 KiB; no padding: its rows' 8-float chunks swizzled, see
// tiled_unit_offset), added by one bulk reduce-add.
constexpr bool DQ_STAGED = DQ_ATOMIC >= 2;
constexpr bool DQ_TILED = DQ_ATOMIC == 3;
constexpr int DQ_STAGE_STRIDE = DQ_TILED ? DQ_N : DQ_N + 8;
constexpr int DQ_WARPGROUP_STAGE_BYTES = DQ_STAGE_UNITS * DQ_UNIT_ROWS * DQ_STAGE_STRIDE * 4;
constexpr int DQ_STAGE_BYTES = DQ_STAGED ? WARPGROUPS * DQ_WARPGROUP_STAGE_BYTES : 0;
constexpr int DQ_UNIT_BYTES = DQ_UNIT_ROWS * DQ_N * 4;  // (DQ_ATOMIC 3) a unit of the tiled accumulator
// The threads of a consumer warpgroup that issue (and wait for) its bulk reduce-adds: one a row, or one.
constexpr int DQ_BULK_WRITERS = DQ_TILED ? 1 : 64;
// DQ_WRITER 1: warp DQ_WRITER_WARP of the producer warpgroup (warp 0 issues the TMA copies) adds the staged
// units to the accumulator; a warpgroup's staging rows pass between it and the writer warp on two named
// barriers of DQ_WRITER_THREADS threads each.
constexpr int DQ_WRITER_WARP = 1;
constexpr int DQ_WRITER_THREADS = 128 + 32;
static_assert(DQ_WRITER_WARP > 0 && DQ_WRITER_WARP < 4,
              "warp 0 of the producer warpgroup issues the TMA copies");
// The space's SMEM_BYTES: the tiles, the producer's mbarriers (64 bytes counted, also before the dQ staging
// area), the dQ staging area and room to align the tiles to 1024 bytes.
constexpr int SMEM_BYTES = 2 * KV_TILE_BYTES + STAGES * (2 * Q_TILE_BYTES + 2 * ROW_BYTES) +
                           DS_BUFFERS * DS_BYTES + 64 * (WARP_SPECIALIZE || DQ_STAGED) + DQ_STAGE_BYTES +
                           1024;
// setmaxnreg with a producer and 2 consumer warpgroups (with one the block's 256 threads may use 255
// registers each anyway): (24 + 2 * 240) * 128 <= 65536.
constexpr int PRODUCER_REGS = 24;  // the TMA thread's warp and (DQ_WRITER) the writer warp alike
constexpr int CONSUMER_REGS = 240;
constexpr float kLog2e = 1.4426950408889634f;

static_assert(D == 64 || D == 128, "D must be 64 or 128 (one or two 64-column slabs)");
static_assert(BLOCK_M == 64 || BLOCK_M == 80 || BLOCK_M == 128,
              "BLOCK_M is the n of the S^T and dP^T wgmmas: 64, 80 or 128");
static_assert(
    BLOCK_M != 80 || (D == 128 && BLOCK_N == 128 && WARP_SPECIALIZE && TMA_LOADS && DQ_ATOMIC == 3 &&
                      !DS_DOUBLE_BUFFER && !NEXT_TILE_OVERLAP && !DQ_WRITER && !DS_STMATRIX),
    "80-row tiles: D = 128, two consumer warpgroups (one 64-column slab of dQ^T each), the TMA "
    "producer, the tiled dQ accumulator's 80-row units, one dS^T tile written by 4-byte stores, the "
    "plain tile loop");
static_assert(BLOCK_N == 64 || BLOCK_N == 128, "BLOCK_N is 64 keys per consumer warpgroup, 1 or 2 of them");
static_assert(STAGES >= 1 && STAGES <= 3, "STAGES must be 1, 2 or 3");
static_assert(WARP_SPECIALIZE == 0 || WARP_SPECIALIZE == 1, "WARP_SPECIALIZE is 0 or 1");
static_assert(TMA_LOADS == 0 || WARP_SPECIALIZE,
              "TMA_LOADS: the producer warpgroup issues the tensor copies");
static_assert(DQ_ATOMIC >= 0 && DQ_ATOMIC <= 3, "DQ_ATOMIC is 0, 1, 2 or 3");
static_assert(DS_DOUBLE_BUFFER == 0 || DS_DOUBLE_BUFFER == 1, "DS_DOUBLE_BUFFER is 0 or 1");
static_assert(NEXT_TILE_OVERLAP >= 0 && NEXT_TILE_OVERLAP <= 2,
              "NEXT_TILE_OVERLAP is 0, 1 (the next tile's S^T) or 2 (its S^T and dP^T)");
static_assert(NEXT_TILE_OVERLAP == 0 || (WARP_SPECIALIZE && STAGES >= 2 && DQ_UNITS == 1),
              "NEXT_TILE_OVERLAP acquires the next tile while this one is held (a producer and 2 or more "
              "stages) and issues its scores after this tile's only dQ unit");
static_assert(DQ_WRITER == 0 || DQ_WRITER == 1, "DQ_WRITER is 0 or 1");
static_assert(DS_STMATRIX == 0 || DS_STMATRIX == 1, "DS_STMATRIX is 0 or 1");
static_assert(
    DQ_WRITER == 0 || (DQ_STAGED && WARP_SPECIALIZE && TMA_LOADS),
    "DQ_WRITER: a warp of the TMA producer (whose other warps are idle) issues the bulk reduce-adds of "
    "the staged dQ units");
static_assert(DQ_ALTERNATE == 0 || DQ_ALTERNATE == 1, "DQ_ALTERNATE is 0 or 1");
static_assert(ROW_STATS_EARLY == 0 || ROW_STATS_EARLY == 1, "ROW_STATS_EARLY is 0 or 1");
static_assert(
    DQ_ALTERNATE == 0 || ((BLOCK_M == 64 || BLOCK_M == 128) && WARPGROUPS == 2 && DQ_TILED && !DQ_WRITER &&
                          !NEXT_TILE_OVERLAP),
    "DQ_ALTERNATE: a 64- or 128-row tile's whole dQ by one of two consumer warpgroups, staged as the "
    "tile's units of the tiled accumulator and added by that warpgroup, in the plain tile loop");
static_assert(ROW_PAD % BLOCK_M == 0, "a query tile's LSE and Dsum rows lie inside the padded rows");
static_assert(!WARP_SPECIALIZE || WARPGROUPS == 1 ||
                  (PRODUCER_REGS + WARPGROUPS * CONSUMER_REGS) * 128 <= 65536,
              "the producer's and the consumers' setmaxnreg counts must fit the 64K registers of an SM");

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// Rows of a head's LSE and Dsum in the preprocess's padded layout.
__host__ __device__ __forceinline__ int padded_rows(int S) { return (S + ROW_PAD - 1) / ROW_PAD * ROW_PAD; }

// DQ_ATOMIC 3, the tiled accumulator [B][H][S_PAD / 64][D / 64][64 rows][64 floats]: each dQ unit (64 query
// rows by one 64-column slab) is one contiguous 16 KiB block, which one bulk reduce-add adds whole, and in
// its rows the 8-float chunks are swizzled (chunk c of row r at c ^ (r % 8)), so that the consumers' float2
// staging stores meet no bank conflict. Offset, in floats, of the unit of first row row0 (a multiple of 64)
// and first column col0 (a multiple of 64) of the head whose padded rows start at rows_head (bh S_PAD): the
// offset of row row0 in [B][H][S_PAD][D] plus 64 col0 (the unit's slab within the row block).
// BLOCK_M 80: [B][H][S_PAD / 80][D / 64][80 rows][64 floats], units of 80 rows (20 KiB).
__host__ __device__ __forceinline__ long long tiled_unit_offset(long long rows_head, int row0, int col0) {
  return (rows_head + row0) * D + col0 * DQ_UNIT_ROWS;
}
// Offset, in floats, of chunk `chunk` (floats 8 chunk .. 8 chunk + 7 of the slab) of row `row` of a unit.
// BLOCK_M 80 stages the transposed fragment with 4-byte stores: its chunks are swizzled by row / 2 instead
// (dq_unit80_chunk_offset, bwd_tile_layout.cuh).
__host__ __device__ __forceinline__ int tiled_chunk_offset(int row, int chunk) {
  if constexpr (DQ_TRANSPOSED) return dq_unit80_chunk_offset(row, chunk);
  return row * DQ_N + ((chunk ^ (row % 8)) << 3);
}
// The tiled accumulator's unit of query row `row`: its first row, and the row's place in it.
__host__ __device__ __forceinline__ int tiled_unit_first_row(int row) {
  return DQ_TRANSPOSED ? row / DQ_UNIT_ROWS * DQ_UNIT_ROWS : row & ~63;
}
__host__ __device__ __forceinline__ int tiled_unit_row(int row) {
  return DQ_TRANSPOSED ? row % DQ_UNIT_ROWS : row % 64;
}

// ---------------------------------------------------------------------------------------------------------
// Shared memory and named barriers

// The block's shared memory, 1024-byte aligned. A tile of R rows is its columns / 64 slabs of [R][64]
// elements, each 128-byte row swizzled (chunk c of row r at c ^ (r % 8)); every tile is a multiple of 1024
// bytes. K and V are [BLOCK_N keys][D], Q and dO [BLOCK_M rows][D], dS^T [BLOCK_N keys][BLOCK_M rows]
// (BLOCK_M 80: 5 slabs of [BLOCK_N][16] with the 32-byte swizzle, swizzled32_offset).
struct SharedStorage {
  elem k[BLOCK_N * D];  // K; in the epilogue, the staged dK
  elem v[BLOCK_N * D];  // V; in the epilogue, the staged dV
  elem q[STAGES][BLOCK_M * D];
  elem dout[STAGES][BLOCK_M * D];
  elem ds[DS_BUFFERS][BLOCK_N * BLOCK_M];
  float lse[STAGES][BLOCK_M];   // LSE * log2(e) of the tile's rows (+inf past S)
  float dsum[STAGES][BLOCK_M];  // Dsum of the tile's rows (0 past S)
  // WARP_SPECIALIZE only (the space's SMEM_BYTES counts them then; otherwise they lie past it, unused):
  unsigned long long full[STAGES];   // the stage's tiles have landed
  unsigned long long empty[STAGES];  // every consumer warp is done with it
};
// Byte offsets of its members: in order, without padding (NVRTC has no offsetof).
constexpr unsigned OFFSET_K = 0;
constexpr unsigned OFFSET_V = OFFSET_K + sizeof(SharedStorage::k);
constexpr unsigned OFFSET_Q = OFFSET_V + sizeof(SharedStorage::v);
constexpr unsigned OFFSET_DO = OFFSET_Q + sizeof(SharedStorage::q);
constexpr unsigned OFFSET_DS = OFFSET_DO + sizeof(SharedStorage::dout);
constexpr unsigned OFFSET_LSE = OFFSET_DS + sizeof(SharedStorage::ds);
constexpr unsigned OFFSET_DSUM = OFFSET_LSE + sizeof(SharedStorage::lse);
constexpr unsigned OFFSET_FULL = OFFSET_DSUM + sizeof(SharedStorage::dsum);
constexpr unsigned OFFSET_EMPTY = OFFSET_FULL + sizeof(SharedStorage::full);
static_assert(OFFSET_EMPTY + sizeof(SharedStorage::empty) == sizeof(SharedStorage),
              "SharedStorage has no padding: the offsets above are its members'");
// (DQ_ATOMIC 2, 3) The dQ staging area follows, past the 64 bytes counted for the mbarriers (16-byte
// aligned, as the bulk copies need).
constexpr unsigned OFFSET_DQ_STAGE = OFFSET_FULL + 64;
static_assert(sizeof(SharedStorage) <= OFFSET_DQ_STAGE, "the mbarriers fit the 64 bytes counted for them");
static_assert(sizeof(SharedStorage::q[0]) == Q_TILE_BYTES && sizeof(SharedStorage::k) == KV_TILE_BYTES,
              "a stage is one Q and one dO tile");
static_assert(OFFSET_DQ_STAGE % 16 == 0, "the bulk reduce-adds read 16-byte aligned shared memory");
static_assert((DQ_STAGED         ? OFFSET_DQ_STAGE + DQ_STAGE_BYTES
               : WARP_SPECIALIZE ? sizeof(SharedStorage)
                                 : OFFSET_FULL) +
                      1024 <=
                  SMEM_BYTES,
              "SMEM_BYTES (the space's expression) holds the layout and its alignment");

// Shared addresses of the block's SharedStorage (what cp.async, TMA, mbarriers, descriptors and stmatrix
// take), and its generic address (the dS^T's 4-byte stores, the LSE and Dsum reads, the epilogue's staging).
struct Smem {
  unsigned base;  // 1024-aligned
  unsigned char* generic;

  static __device__ __forceinline__ Smem of(unsigned char* raw) {
    const unsigned raw_address = sm90::smem_address(raw);
    const unsigned base = (raw_address + 1023) & ~1023u;
    return {base, raw + (base - raw_address)};
  }
  __device__ __forceinline__ unsigned k() const { return base + OFFSET_K; }
  __device__ __forceinline__ unsigned v() const { return base + OFFSET_V; }
  __device__ __forceinline__ unsigned q(int stage) const { return base + OFFSET_Q + stage * Q_TILE_BYTES; }
  __device__ __forceinline__ unsigned dout(int stage) const {
    return base + OFFSET_DO + stage * Q_TILE_BYTES;
  }
  __device__ __forceinline__ unsigned ds(int buffer = 0) const {
    return base + OFFSET_DS + buffer * DS_BYTES;
  }
  __device__ __forceinline__ unsigned lse(int stage) const { return base + OFFSET_LSE + stage * ROW_BYTES; }
  __device__ __forceinline__ unsigned dsum(int stage) const { return base + OFFSET_DSUM + stage * ROW_BYTES; }
  __device__ __forceinline__ unsigned full() const { return base + OFFSET_FULL; }
  __device__ __forceinline__ unsigned empty() const { return base + OFFSET_EMPTY; }
  __device__ __forceinline__ unsigned dq_stage(int warpgroup) const {
    return base + OFFSET_DQ_STAGE + warpgroup * DQ_WARPGROUP_STAGE_BYTES;
  }
  template <typename T>
  __device__ __forceinline__ T* at(unsigned address) const {
    return reinterpret_cast<T*>(generic + (address - base));
  }
};

// Named barriers (0 is __syncthreads), each over the consumer warpgroups' threads.
enum class Barrier : int {
  ds_free = 1,  // every consumer warpgroup's dQ wgmmas of the previous tile (which read dS^T) have completed
                // (one dS^T tile only: with two, ds_ready of the previous tile implies it for the one before)
  ds_ready = 2,   // every consumer thread's dS^T of this tile is in shared memory
  epilogue = 3,   // every consumer warpgroup's wgmmas have completed: K and V may be overwritten
  warpgroup = 4,  // warpgroup w's own, 4 + w: its staged rows are written
  // (DQ_WRITER) warpgroup w's and the writer warp's, 6 + w and 8 + w:
  dq_full = 6,   // the warpgroup's dQ unit is staged (the consumers arrive, the writer waits)
  dq_empty = 8,  // the writer's bulk reduce-adds have read the staged unit (the writer arrives, the consumers
                 // wait before staging the next)
};
// Barrier `first` of warpgroup w (first + w).
__device__ __forceinline__ Barrier of_warpgroup(Barrier first, int warpgroup) {
  return static_cast<Barrier>(static_cast<int>(first) + warpgroup);
}
static_assert(static_cast<int>(Barrier::warpgroup) + WARPGROUPS <= static_cast<int>(Barrier::dq_full) &&
                  static_cast<int>(Barrier::dq_full) + WARPGROUPS <= static_cast<int>(Barrier::dq_empty) &&
                  static_cast<int>(Barrier::dq_empty) + WARPGROUPS <= 16,
              "each warpgroup's barriers have ids of their own, at most 15");

using Lane = sm90::Lane;  // this thread's warpgroup and its place in the accumulator fragments

// ---------------------------------------------------------------------------------------------------------
// Schedule: the query tiles of a block

// A block's keys [n0, n0 + BLOCK_N) of K/V head kv_bh; its query tiles are every query block of every query
// head of the group, head-major, from the first that sees one of its keys (causal) to the last.
struct QueryTile {
  int m0;               // first query row
  int bh;               // batch * H + head
  long long head;       // offset of the head in Q, dO, in elements
  long long rows_head;  // offset of the head's padded LSE and Dsum rows
};

// Which key block, K/V head and batch this block computes: the grid's own (x, y, z) with HEAD_INTERLEAVE 1,
// so that blocks launched one after another walk a head's key blocks from the first (under a causal mask, the
// one most query tiles see) to the last, head after head; with h > 1, groups of h (batch, K/V head) pairs
// take turns (sm90::interleaved_block), so that the heaviest blocks start first and the grid's last wave
// holds light ones.
struct BlockPlace {
  int key_block;
  int kv_head;
  int batch;

  static __device__ __forceinline__ BlockPlace of_block() {
    if constexpr (HEAD_INTERLEAVE == 1) {
      return {static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z)};
    } else {
      const sm90::InterleavedBlock place = sm90::interleaved_block<HEAD_INTERLEAVE>();
      return {place.block, place.head % static_cast<int>(gridDim.y),
              place.head / static_cast<int>(gridDim.y)};
    }
  }
};

struct Schedule {
  int n0;          // first key of the block
  int kv_bh;       // batch * HKV + K/V head
  int h0;          // the group's first query head
  int batch;       // b
  int m_first;     // the first query block any of the block's keys is seen from
  int head_tiles;  // query tiles per head: m_blocks - m_first (0: no query sees any key of the block)
  int tiles;       // group * head_tiles
  int S, SKV, H, HKV;

  static __device__ __forceinline__ Schedule of_block(int S, int SKV, int H, int HKV) {
    Schedule schedule;
    schedule.S = S;
    schedule.SKV = SKV;
    schedule.H = H;
    schedule.HKV = HKV;
    const BlockPlace place = BlockPlace::of_block();
    schedule.n0 = place.key_block * BLOCK_N;
    schedule.batch = place.batch;
    schedule.kv_bh = schedule.batch * HKV + place.kv_head;
    const int group = H / HKV;  // the space's condition: H % HKV == 0
    schedule.h0 = place.kv_head * group;
    const int m_blocks = (S + BLOCK_M - 1) / BLOCK_M;
    // Query i sees key n0 (the block's first) iff i >= n0 - (SKV - S); later rows see more keys.
    const int first_row = CAUSAL ? max(0, schedule.n0 - schedule.causal_offset()) : 0;
    schedule.m_first = first_row / BLOCK_M;
    schedule.head_tiles = max(0, m_blocks - schedule.m_first);
    schedule.tiles = group * schedule.head_tiles;
    return schedule;
  }
  // Query row i sees keys j <= i + causal_offset(): bottom-right aligned, as SDPA's and FlashAttention's.
  __device__ __forceinline__ int causal_offset() const { return SKV - S; }
  __device__ __forceinline__ QueryTile tile(int t) const {
    const int h = h0 + t / head_tiles;
    QueryTile tile;
    tile.m0 = (m_first + t % head_tiles) * BLOCK_M;
    tile.bh = batch * H + h;
    tile.head = static_cast<long long>(tile.bh) * S * D;
    tile.rows_head = static_cast<long long>(tile.bh) * padded_rows(S);
    return tile;
  }
  // The tile after `tile`, without divisions (the producer has 24 registers).
  __device__ __forceinline__ void advance(QueryTile& tile) const {
    tile.m0 += BLOCK_M;
    if (tile.m0 == (m_first + head_tiles) * BLOCK_M) {  // the group's next query head
      tile.m0 = m_first * BLOCK_M;
      tile.bh += 1;
      tile.head += static_cast<long long>(S) * D;
      tile.rows_head += padded_rows(S);
    }
  }
  __device__ __forceinline__ long long kv_head() const { return static_cast<long long>(kv_bh) * SKV * D; }
};

// ---------------------------------------------------------------------------------------------------------
// The Q / dO ring: inputs, copies

// The main kernel's inputs: Q, K, V, dO as pointers or (TMA_LOADS) as tensor maps of [B * H][S][D] (Q, dO,
// boxes of 64 columns by BLOCK_M rows) and [B * HKV][SKV][D] (K, V, boxes of 64 by BLOCK_N), 128-byte
// swizzle; LSE * log2(e) and Dsum as pointers to the padded rows.
struct PointerInputs {
  const elem* q;
  const elem* k;
  const elem* v;
  const elem* dout;
  const float* lse;
  const float* dsum;
};
struct TmaInputs {
  const sm90::TensorMap& q;
  const sm90::TensorMap& k;
  const sm90::TensorMap& v;
  const sm90::TensorMap& dout;
  const float* lse;
  const float* dsum;
};

// ROWS rows of D elements from global (row stride D) into the swizzled tile at shared address `tile`, by
// LOADERS threads; rows at or past `valid_rows` are zero-filled. Thread `loader` copies chunk column loader %
// CHUNKS of rows loader / CHUNKS + k ROW_STEP, so its swizzle (row % 8) and address steps are fixed and it
// needs few registers (the producer warpgroup has 24).
template <int ROWS, int LOADERS>
__device__ __forceinline__ void load_tile(unsigned tile, const elem* global, int valid_rows, int loader) {
  constexpr int ROW_STEP = LOADERS / CHUNKS;
  static_assert(ROW_STEP % 8 == 0 && ROWS % ROW_STEP == 0,
                "the loaders' rows are whole 8-row swizzle atoms and cover the tile exactly");
  const int c = loader % CHUNKS;
  int row = loader / CHUNKS;
  unsigned dst = tile + swizzled_offset<ROWS>(row, c);
  const elem* src = global + row * D + c * 8;
#pragma unroll 1
  for (; row < ROWS; row += ROW_STEP, dst += ROW_STEP * 128, src += ROW_STEP * D) {
    const bool valid = row < valid_rows;
    sm90::copy_16(dst, valid ? src : global, valid);
  }
}

// A query tile's BLOCK_M LSE and Dsum values (padded rows: always inside the scratch, 16-byte aligned), by
// the loaders below BLOCK_M / 2.
__device__ __forceinline__ void load_rows(unsigned lse, unsigned dsum, const PointerInputs& in,
                                          const QueryTile& tile, int loader) {
  constexpr int ROW_CHUNKS = BLOCK_M / 4;
  if (loader < 2 * ROW_CHUNKS) {
    const bool is_dsum = loader >= ROW_CHUNKS;
    const int c = loader % ROW_CHUNKS;
    const float* src = (is_dsum ? in.dsum : in.lse) + tile.rows_head + tile.m0 + 4 * c;
    sm90::copy_16((is_dsum ? dsum : lse) + 16 * c, src, true);
  }
}

// A query tile's Q, dO, LSE and Dsum into stage `stage`, by LOADERS threads.
template <int LOADERS>
__device__ __forceinline__ void load_query_tile(const Smem& smem, int stage, const PointerInputs& in,
                                                const Schedule& schedule, const QueryTile& tile, int loader) {
  const long long offset = tile.head + static_cast<long long>(tile.m0) * D;
  load_tile<BLOCK_M, LOADERS>(smem.q(stage), in.q + offset, schedule.S - tile.m0, loader);
  load_tile<BLOCK_M, LOADERS>(smem.dout(stage), in.dout + offset, schedule.S - tile.m0, loader);
  load_rows(smem.lse(stage), smem.dsum(stage), in, tile, loader);
}

// The block's K and V tiles, keys past SKV zero-filled.
template <int LOADERS>
__device__ __forceinline__ void load_kv(const Smem& smem, const PointerInputs& in, const Schedule& schedule,
                                        int loader) {
  const long long offset = schedule.kv_head() + static_cast<long long>(schedule.n0) * D;
  load_tile<BLOCK_N, LOADERS>(smem.k(), in.k + offset, schedule.SKV - schedule.n0, loader);
  load_tile<BLOCK_N, LOADERS>(smem.v(), in.v + offset, schedule.SKV - schedule.n0, loader);
}

// WARP_SPECIALIZE 0: the consumers load the ring themselves with cp.async, STAGES - 1 tiles ahead, K and V
// with the first, and order it with block barriers.
struct SelfLoadedRing {
  static constexpr int PREFETCH = STAGES - 1;
  PointerInputs in;
  Smem smem;
  const Schedule& schedule;

  __device__ __forceinline__ void load(int t) const {
    load_query_tile<CONSUMER_THREADS>(smem, t % STAGES, in, schedule, schedule.tile(t), threadIdx.x);
  }
  // K and V with the first tile (none when the block has no tile), then up to PREFETCH tiles in flight
  // (empty groups keep the count).
  __device__ __forceinline__ void begin() const {
    if (schedule.tiles > 0) load_kv<CONSUMER_THREADS>(smem, in, schedule, threadIdx.x);
#pragma unroll
    for (int t = 0; t < PREFETCH; ++t) {
      if (t < schedule.tiles) load(t);
      sm90::commit_copies();
    }
  }
  __device__ __forceinline__ void acquire(int t) const {
    if (t + PREFETCH < schedule.tiles) load(t + PREFETCH);
    sm90::commit_copies();
    sm90::wait_copies<PREFETCH>();
    sm90::fence_async_shared();  // the copies were generic-proxy writes; wgmma reads through the async proxy
    __syncthreads();
  }
  __device__ __forceinline__ void release(int) const {
    __syncthreads();  // the stage computed here is refilled by a later acquire
  }
  __device__ __forceinline__ void drain() const {
    sm90::wait_copies<0>();  // no copy may land in the staging tiles
    __syncthreads();
  }
};

// WARP_SPECIALIZE 1: the producer warpgroup fills the ring; full[s] counts its arrivals (128 cp.async
// arrivals, or one arrival with the TMA bytes), empty[s] one arrival per consumer warp. Ring tile t sits in
// stage t % STAGES, in round t / STAGES, whose full phase has parity (t / STAGES) & 1.
struct Ring {
  sm90::TmaPipeline<STAGES> pipe;

  static __device__ __forceinline__ Ring of(const Smem& smem) { return {{smem.full(), smem.empty()}}; }
  static __device__ __forceinline__ sm90::PipelineState<STAGES> at(int t) {
    return {t % STAGES, static_cast<unsigned>((t / STAGES) & 1)};
  }
  // One thread, before the block barrier that publishes them (the fence makes them visible to the async
  // proxy, through which TMA's and cp.async's completions arrive).
  __device__ __forceinline__ void init() const {
#pragma unroll
    for (int stage = 0; stage < STAGES; ++stage) {
      sm90::mbarrier_init(pipe.full_barrier(stage), TMA_LOADS ? 1 : 128);
      sm90::mbarrier_init(pipe.empty_barrier(stage), 4 * WARPGROUPS);
    }
    sm90::mbarrier_fence_init();
  }
  // The stage of tile t may be refilled: its consumers released tile t - STAGES.
  __device__ __forceinline__ void producer_acquire(int t) const {
    if (t >= STAGES) pipe.producer_acquire(at(t));
  }
};

// The producer warpgroup with cp.async: its 128 threads copy each tile (K and V with the first) and arrive on
// the stage's full barrier once their copies of it have landed.
__device__ __forceinline__ void produce(const PointerInputs& in, const Smem& smem, const Ring& ring,
                                        const Schedule& schedule) {
  const int loader = threadIdx.x - CONSUMER_THREADS;
  if (schedule.tiles == 0) return;
  load_kv<128>(smem, in, schedule, loader);
  QueryTile tile = schedule.tile(0);
#pragma unroll 1
  for (int t = 0; t < schedule.tiles; ++t, schedule.advance(tile)) {
    const int stage = t % STAGES;
    ring.producer_acquire(t);
    load_query_tile<128>(smem, stage, in, schedule, tile, loader);
    sm90::mbarrier_arrive_when_copies_land(ring.pipe.full_barrier(stage));
  }
  sm90::commit_copies();
  sm90::wait_copies<0>();  // exit with no copy in flight
}

// The producer warpgroup with TMA: one thread issues every copy, per tile an arrival expecting the tile's
// bytes (K's and V's too with the first), the Q and dO boxes (rows past S arrive as zeros) and the LSE and
// Dsum rows (bulk copies).
__device__ __forceinline__ void produce(const TmaInputs& in, const Smem& smem, const Ring& ring,
                                        const Schedule& schedule) {
  if (threadIdx.x != CONSUMER_THREADS) return;
  QueryTile tile = schedule.tile(0);
#pragma unroll 1
  for (int t = 0; t < schedule.tiles; ++t, schedule.advance(tile)) {
    const sm90::PipelineState<STAGES> state = Ring::at(t);
    const unsigned full = ring.pipe.full_barrier(state.stage);
    ring.producer_acquire(t);
    ring.pipe.producer_expect(state, 2 * Q_TILE_BYTES + 2 * ROW_BYTES + (t == 0 ? 2 * KV_TILE_BYTES : 0));
    if (t == 0) {
#pragma unroll
      for (int slab = 0; slab < D / 64; ++slab) {
        sm90::tma_load_3d(smem.k() + slab * BLOCK_N * 128, in.k, slab * 64, schedule.n0, schedule.kv_bh,
                          full);
        sm90::tma_load_3d(smem.v() + slab * BLOCK_N * 128, in.v, slab * 64, schedule.n0, schedule.kv_bh,
                          full);
      }
    }
#pragma unroll
    for (int slab = 0; slab < D / 64; ++slab) {
      sm90::tma_load_3d(smem.q(state.stage) + slab * BLOCK_M * 128, in.q, slab * 64, tile.m0, tile.bh, full);
      sm90::tma_load_3d(smem.dout(state.stage) + slab * BLOCK_M * 128, in.dout, slab * 64, tile.m0, tile.bh,
                        full);
    }
    sm90::bulk_load(smem.lse(state.stage), in.lse + tile.rows_head + tile.m0, ROW_BYTES, full);
    sm90::bulk_load(smem.dsum(state.stage), in.dsum + tile.rows_head + tile.m0, ROW_BYTES, full);
  }
}

// The consumers' side of the producer's ring.
struct ProducedRing {
  Ring ring;

  __device__ __forceinline__ void begin() const {}
  __device__ __forceinline__ void acquire(int t) const {
    ring.pipe.consumer_wait(Ring::at(t));
    // cp.async writes through the generic proxy, wgmma reads through the async one (as TMA writes).
    if constexpr (!TMA_LOADS) sm90::fence_async_shared();
  }
  __device__ __forceinline__ void release(int t) const { ring.pipe.consumer_release(Ring::at(t)); }
  __device__ __forceinline__ void drain() const {}
};

// ---------------------------------------------------------------------------------------------------------
// The wgmmas

template <int N>
using Mma = sm90::Wgmma<N, mma_type>;

// A consumer warpgroup's wgmmas on 128-byte-swizzled descriptors, issued, not committed. The warpgroup owns
// keys [64 w, 64 w + 64) of the block: the rows of its S^T, dP^T, dK and dV. The descriptors are built where
// they are used from the shared-memory base (their upper 32 bits are constants), which costs fewer registers
// than holding eight of them.
struct TileMma {
  Smem smem;
  int warpgroup;

  // acc (64 keys x BLOCK_M rows) = A (the warpgroup's keys of K or V) B^T (a Q or dO tile), both K-major, k
  // over D: k-step ks is 32 bytes into the rows of slab ks / 4.
  // ZERO_INIT: the first k-step ignores acc (the wgmma's scale-d 0), so that acc needs no clearing: writing
  // it with other instructions while another wgmma is in flight made ptxas serialise every wgmma (C7514).
  template <bool ZERO_INIT = false>
  __device__ __forceinline__ void issue_transposed_scores(float (&acc)[BLOCK_M / 2], unsigned a_tile,
                                                          unsigned b_tile) const {
#pragma unroll
    for (int ks = 0; ks < D / 16; ++ks) {
      const unsigned a = a_tile + warpgroup * 64 * 128 + (ks / 4) * (BLOCK_N * 128) + (ks % 4) * 32;
      const unsigned b = b_tile + (ks / 4) * (BLOCK_M * 128) + (ks % 4) * 32;
      Mma<BLOCK_M>::template ss<0, 0>(acc, sm90::desc_kmajor_sw128(a), sm90::desc_kmajor_sw128(b),
                                      ZERO_INIT && ks == 0 ? 0 : 1);
    }
  }
  // S^T = K Q^T and dP^T = V dO^T of stage `stage` (ZERO_INIT: onto acc's previous values ignored).
  template <bool ZERO_INIT = false>
  __device__ __forceinline__ void issue_s(float (&s_acc)[BLOCK_M / 2], int stage) const {
    issue_transposed_scores<ZERO_INIT>(s_acc, smem.k(), smem.q(stage));
  }
  template <bool ZERO_INIT = false>
  __device__ __forceinline__ void issue_dp(float (&dp_acc)[BLOCK_M / 2], int stage) const {
    issue_transposed_scores<ZERO_INIT>(dp_acc, smem.v(), smem.dout(stage));
  }
  // acc (64 keys x D) += A (registers: P^T or dS^T packed, k = the tile's rows) B (dO or Q as [K = rows][N =
  // D], MN-major, a slab per 64 columns): k-step kt reads rows [16 kt, 16 kt + 16), 2048 bytes further.
  __device__ __forceinline__ static void issue_accumulate(float (&acc)[D / 2],
                                                          const unsigned (&frag)[BLOCK_M / 16][4],
                                                          unsigned b_tile) {
#pragma unroll
    for (int kt = 0; kt < BLOCK_M / 16; ++kt)
      Mma<D>::template rs<1>(acc, frag[kt], sm90::desc_mnmajor_sw128(b_tile + kt * 2048, BLOCK_M * 128), 1);
  }
  __device__ __forceinline__ void issue_dv(float (&dv_acc)[D / 2], const unsigned (&p_frag)[BLOCK_M / 16][4],
                                           int stage) const {
    issue_accumulate(dv_acc, p_frag, smem.dout(stage));
  }
  __device__ __forceinline__ void issue_dk(float (&dk_acc)[D / 2], const unsigned (&ds_frag)[BLOCK_M / 16][4],
                                           int stage) const {
    issue_accumulate(dk_acc, ds_frag, smem.q(stage));
  }
  // dQ unit (64 rows of chunk `m_chunk` x DQ_N columns from `col0`) = dS K over the block's BLOCK_N keys. A =
  // dS^T as [K = keys][M = rows] (slab m_chunk), B = K as [K = keys][N = D] from slab col0 / 64, both
  // MN-major: k-step kt reads keys [16 kt, 16 kt + 16), 2048 bytes further. DQ_ALTERNATE: a 64-row chunk's
  // whole dQ, N = D from col0 = 0 (ACC = D / 2; K's next 64 columns BLOCK_N x 128 bytes further, its LBO).
  // BLOCK_M 80, the unit transposed: dQ^T (DQ_N columns from col0 as M x the BLOCK_M rows as N) = K^T dS^T. A
  // = K as [K = keys][M = D] from slab col0 / 64 (the B above, now trans-a), B = dS^T as [K = keys][N =
  // rows], MN-major with the 32-byte swizzle (LBO = BLOCK_N x 32 from one 16-row slab to the next, SBO =
  // 256): k-step kt reads keys [16 kt, 16 kt + 16), 2048 bytes further in K, 512 in dS^T.
  template <int ACC>
  __device__ __forceinline__ void issue_dq(float (&dq_acc)[ACC], int m_chunk, int col0, int ds_buffer) const {
    const unsigned ds_tile = smem.ds(ds_buffer) + (DQ_TRANSPOSED ? 0 : m_chunk * BLOCK_N * 128);
    const unsigned k_slab = smem.k() + (col0 / 64) * BLOCK_N * 128;
#pragma unroll
    for (int kt = 0; kt < BLOCK_N / 16; ++kt) {
      const unsigned long long k_desc = sm90::desc_mnmajor_sw128(k_slab + kt * 2048, BLOCK_N * 128);
      if constexpr (DQ_TRANSPOSED)
        Mma<2 * ACC>::template ss<1, 1>(dq_acc, k_desc,
                                        sm90::desc_mnmajor_sw32(ds_tile + kt * 512, BLOCK_N * 32), 1);
      else
        Mma<2 * ACC>::template ss<1, 1>(dq_acc, sm90::desc_mnmajor_sw128(ds_tile + kt * 2048, BLOCK_N * 128),
                                        k_desc, 1);
    }
  }
};

template <int N>
__device__ __forceinline__ void clear(float (&acc)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = 0.0f;
  sm90::pin(acc);
}

// ---------------------------------------------------------------------------------------------------------
// P and dS, on the S^T and dP^T accumulators: row (key) 16 warp + group + 8 (e / 2) of the warpgroup's 64,
// column (query row) 8 j + 2 quad + e % 2 of the tile, for element 4 j + e.

// A tile's LSE * log2(e) (or Dsum) values a thread needs, read from the stage's shared rows where used.
struct SharedRows {
  const float* rows;
  int quad;
  __device__ __forceinline__ float2 operator()(int j) const {
    return *reinterpret_cast<const float2*>(rows + 8 * j + 2 * quad);
  }
};
// The same values read into registers ahead of their use (ROW_STATS_EARLY), BLOCK_M / 4 of them.
struct HeldRows {
  float2 values[BLOCK_M / 8];
  __device__ __forceinline__ void read(const SharedRows& from) {
#pragma unroll
    for (int j = 0; j < BLOCK_M / 8; ++j) values[j] = from(j);
  }
  __device__ __forceinline__ float2 operator()(int j) const { return values[j]; }
};

// With ROW_STATS_EARLY, `rows` read into registers now; without, `rows` themselves (read where used).
__device__ __forceinline__ auto rows_now(const SharedRows& rows) {
  if constexpr (ROW_STATS_EARLY) {
    HeldRows held;
    held.read(rows);
    return held;
  } else {
    return rows;
  }
}

struct Gradients {
  float scale_log2;
  int SKV;
  int causal_offset;
  Lane me;

  // P^T = exp2(S^T scale log2(e) - LSE log2(e)), 0 where masked: keys >= SKV and (causal) keys after the
  // query's last, on the tiles that reach them only (rows past S have LSE +inf: P is 0 there too).
  // `lse` and `dsum` give the two values of column block j a thread needs, rows 8 j + 2 quad and + 1: from
  // the stage's shared rows (SharedRows) or from registers read ahead (HeldRows).
  template <typename Rows>
  __device__ __forceinline__ void probabilities(float (&s_acc)[BLOCK_M / 2], const Rows& lse, int key0,
                                                int m0) const {
    const bool tail = key0 + 64 > SKV;
    const bool diagonal = CAUSAL && key0 + 63 > m0 + causal_offset;
    const int my_key = key0 + me.warp * 16 + me.group;
#pragma unroll
    for (int j = 0; j < BLOCK_M / 8; ++j) {
      const float2 row_lse = lse(j);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float p = exp2_approx(fmaf(s_acc[4 * j + e], scale_log2, -(e & 1 ? row_lse.y : row_lse.x)));
        if (tail || diagonal) {
          const int key = my_key + 8 * (e >> 1);
          const int row = m0 + 8 * j + 2 * me.quad + (e & 1);
          if (key >= SKV || (CAUSAL && key > row + causal_offset)) p = 0.0f;
        }
        s_acc[4 * j + e] = p;
      }
    }
  }
  // dS^T = P^T (dP^T - Dsum), in place of dP^T.
  template <typename Rows>
  __device__ __forceinline__ void scores_gradient(const float (&p_acc)[BLOCK_M / 2],
                                                  float (&dp_acc)[BLOCK_M / 2], const Rows& dsum) const {
#pragma unroll
    for (int j = 0; j < BLOCK_M / 8; ++j) {
      const float2 row_dsum = dsum(j);
#pragma unroll
      for (int e = 0; e < 4; ++e)
        dp_acc[4 * j + e] = p_acc[4 * j + e] * (dp_acc[4 * j + e] - (e & 1 ? row_dsum.y : row_dsum.x));
    }
  }
};

// The accumulators of query columns [16 kt, 16 kt + 16), packed pairwise, are the A fragment of k-step kt of
// dV += P^T dO and dK += dS^T Q as they stand (the forward's P V does the same).
__device__ __forceinline__ void pack(const float (&acc)[BLOCK_M / 2], unsigned (&frag)[BLOCK_M / 16][4]) {
#pragma unroll
  for (int kt = 0; kt < BLOCK_M / 16; ++kt) {
#pragma unroll
    for (int i = 0; i < 4; ++i) frag[kt][i] = pack_pair(acc[8 * kt + 2 * i], acc[8 * kt + 2 * i + 1]);
    sm90::pin(frag[kt]);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The dS^T tile: every consumer warpgroup's dS^T in shared memory, the A of every warpgroup's dQ wgmmas (the
// B of the transposed ones with BLOCK_M 80).

// Where register i of k-step kt of the thread whose register 0 holds key `key` goes in the tile (the 4 bytes
// at 4 quad of the chunk at this offset): the 128-byte swizzle, or with BLOCK_M 80 the 32-byte one.
__device__ __forceinline__ int ds_pair_offset(int key, int kt, int i) {
  if constexpr (DS_SWIZZLE_32) return ds_pair_chunk_offset_sw32<BLOCK_N>(key, kt, i);
  return ds_pair_chunk_offset<BLOCK_N>(key, kt, i);
}

struct DsTile {
  Smem smem;  // the block's: its DS_BUFFERS dS^T tiles, smem.ds(buffer)

  // Waits until no warpgroup's dQ wgmma still reads the tile `buffer` (one tile: the previous tile's dS^T;
  // two: the one before it, whose dQ wgmmas every warpgroup completed before it reached ds_ready of the
  // previous tile, which this thread has passed, so that no wait is needed), then writes this thread's dS^T
  // (bwd_tile_layout.cuh): DS_STMATRIX 0, fragment register i of k-step kt, rows (keys) group + 8 (i % 2) and
  // columns (query rows) 16 kt + 8 (i / 2) + 2 quad, + 1, with one 4-byte store (4 bytes of a 16-byte chunk;
  // the 8 rows of a warp's store hit 8 different chunk positions: no bank conflict); DS_STMATRIX 1, the four
  // registers of k-step kt with one stmatrix.x4 of the warp, a 16-byte chunk a matrix row (no bank conflict
  // either). Then makes the writes visible to the async proxy and waits for everyone's.
  __device__ __forceinline__ void write(const unsigned (&ds_frag)[BLOCK_M / 16][4], const Lane& me,
                                        int buffer) const {
    if constexpr (!DS_DOUBLE_BUFFER) sm90::barrier_sync<CONSUMER_THREADS>(Barrier::ds_free);
    if constexpr (DS_STMATRIX) {
      const unsigned row0 = smem.ds(buffer) + ds_matrix_row_offset<BLOCK_N>(me.warpgroup * 64 + me.warp * 16,
                                                                            4 * me.group + me.quad);
#pragma unroll
      for (int kt = 0; kt < BLOCK_M / 16; ++kt)
        sm90::stmatrix_x4(ds_matrix_row_address<BLOCK_N>(row0, kt), ds_frag[kt]);
    } else {
      unsigned char* const tile = smem.at<unsigned char>(smem.ds()) + buffer * DS_BYTES;
      const int key = me.warpgroup * 64 + me.warp * 16 + me.group;
#pragma unroll
      for (int kt = 0; kt < BLOCK_M / 16; ++kt)
#pragma unroll
        for (int i = 0; i < 4; ++i)
          *reinterpret_cast<unsigned*>(tile + ds_pair_offset(key, kt, i) + 4 * me.quad) = ds_frag[kt][i];
    }
    sm90::fence_async_shared();
    sm90::barrier_sync<CONSUMER_THREADS>(Barrier::ds_ready);
  }
};

// ---------------------------------------------------------------------------------------------------------
// dQ: a unit's accumulators (row 16 warp + group + 8 (e / 2), column 8 j + 2 quad + e % 2) into global fp32,
// four consecutive columns a thread: each pair of lanes (quad, quad ^ 1) swaps half its values, so that the
// even lane holds row group and the odd lane row group + 8, columns 8 j + 4 (quad / 2) .. + 3.

// DQ_ATOMIC 1: red.global.add.v4.f32 into the [B, H, S, D] accumulator the preprocess zeroed
// (non-deterministic order). DQ_ATOMIC 0: st.global of this key block's partial, [key blocks][B, H, S, D],
// which the conversion sums in key-block order. DQ_ATOMIC 2 and 3: see write_staged, and with DQ_WRITER
// stage_for_writer.
struct DqWriter {
  float* base;  // the accumulator, or this key block's partial
  int S;
  unsigned stage;     // (DQ_ATOMIC 2, 3) this warpgroup's staging rows, shared address
  float* stage_rows;  // the same, generic address

  template <int ACC>
  __device__ __forceinline__ void write(const float (&dq_acc)[ACC], const QueryTile& tile, int m_chunk,
                                        int col0, const Lane& me) const {
    static_assert(ACC == DQ_ACC || (DQ_ALTERNATE && DQ_TILED && !DQ_WRITER),
                  "a tile's whole dQ (DQ_ALTERNATE) goes through the consumers' staged bulk reduce-add");
    if constexpr (DQ_STAGED) {
      if constexpr (DQ_WRITER)
        stage_for_writer(dq_acc, me);
      else
        write_staged(dq_acc, tile, m_chunk, col0, me);
      return;
    }
    const bool odd = me.quad & 1;
    const int row = tile.m0 + m_chunk * 64 + me.warp * 16 + me.group + (odd ? 8 : 0);
    float* const row_base = base + tile.head + static_cast<long long>(row) * D + col0 + 4 * (me.quad >> 1);
#pragma unroll
    for (int j = 0; j < DQ_N / 8; ++j) {
      const float send0 = odd ? dq_acc[4 * j] : dq_acc[4 * j + 2];
      const float send1 = odd ? dq_acc[4 * j + 1] : dq_acc[4 * j + 3];
      const float got0 = __shfl_xor_sync(0xffffffffu, send0, 1);
      const float got1 = __shfl_xor_sync(0xffffffffu, send1, 1);
      const float4 value = odd ? make_float4(got0, got1, dq_acc[4 * j + 2], dq_acc[4 * j + 3])
                               : make_float4(dq_acc[4 * j], dq_acc[4 * j + 1], got0, got1);
      if (row < S) {
        float* const address = row_base + 8 * j;
        if constexpr (DQ_ATOMIC)
          asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(address), "f"(value.x),
                       "f"(value.y), "f"(value.z), "f"(value.w)
                       : "memory");
        else
          *reinterpret_cast<float4*>(address) = value;
      }
    }
  }

  // DQ_ATOMIC 2, FlashAttention-3's: the unit's rows staged in the warpgroup's shared rows (float2 stores),
  // then thread r < 64 of the warpgroup adds row r to the accumulator with one bulk reduce-add (rows past S:
  // none). Before the staging rows are rewritten, each of those threads waits until its last bulk operation
  // has read them, and the warpgroup's barrier passes that on; the staging writes reach the bulk copies'
  // async proxy through fence.proxy.async and the barrier after them.
  // DQ_ATOMIC 3: the same with the tiled accumulator, where the staged unit is the image of its block: thread
  // 0 of the warpgroup alone waits, and adds the whole unit (rows past S too, whose dS, hence dQ, is 0: their
  // LSE_log2 is +inf and their Q and dO rows zeros, so they add zeros to padding rows the conversion never
  // reads) with one bulk reduce-add.
  // DQ_ALTERNATE: the tile's whole dQ, its ACC / DQ_ACC units, staged and added at once.
  template <int ACC>
  __device__ __forceinline__ void write_staged(const float (&dq_acc)[ACC], const QueryTile& tile, int m_chunk,
                                               int col0, const Lane& me) const {
    const Barrier own = of_warpgroup(Barrier::warpgroup, me.warpgroup);
    const int thread = threadIdx.x % 128;
    if (thread < DQ_BULK_WRITERS) sm90::tma_wait_stores_read<0>();
    sm90::barrier_sync<128>(own);
    stage_unit(dq_acc, me);
    sm90::fence_async_shared();
    sm90::barrier_sync<128>(own);
    if (thread < DQ_BULK_WRITERS) {
      if constexpr (DQ_TILED) {
        sm90::bulk_reduce_add_f32(
            base + tiled_unit_offset(tile.rows_head, tile.m0 + m_chunk * DQ_UNIT_ROWS, col0), stage,
            DQ_UNIT_BYTES * (ACC / DQ_ACC));
      } else {
        const int row = tile.m0 + m_chunk * 64 + thread;
        if (row < S)
          sm90::bulk_reduce_add_f32(base + tile.head + static_cast<long long>(row) * D + col0,
                                    stage + thread * DQ_STAGE_STRIDE * 4, DQ_N * 4);
      }
      sm90::tma_commit_stores();
    }
  }
  // DQ_WRITER 1: the unit's rows staged for the producer's writer warp (DqWriterWarp), which adds them to
  // the accumulator: wait until it has read the warpgroup's previous unit (dq_empty; it arrives once ahead
  // for the first), stage, make the writes visible to the bulk copies' async proxy, and arrive on dq_full
  // without waiting. The consumers issue no bulk operation and wait for none.
  __device__ __forceinline__ void stage_for_writer(const float (&dq_acc)[DQ_ACC], const Lane& me) const {
    sm90::barrier_sync<DQ_WRITER_THREADS>(of_warpgroup(Barrier::dq_empty, me.warpgroup));
    stage_unit(dq_acc, me);
    sm90::fence_async_shared();
    sm90::barrier_arrive<DQ_WRITER_THREADS>(of_warpgroup(Barrier::dq_full, me.warpgroup));
  }
  // The unit's accumulators into the warpgroup's staging rows: row 16 warp + group + 8 r, columns 8 j + 2
  // quad, + 1 (one 8-byte store each). With DQ_WRITER through the rows' 32-bit shared address (st.shared),
  // which leaves the consumers one 64-bit pointer fewer: with the generic one the plain loop of 128-row
  // tiles spilled 4 to 28 bytes (NVRTC, sm_90a, CUDA 13.0). DQ_ATOMIC 3: chunk j of the row at j ^ (row %
  // 8) = j ^ group; a half warp's store (4 rows of one chunk, 32 bytes each) then lands in 4 different
  // 32-byte quarters of the banks (rows 256 bytes apart would put all 4 in the same one): no conflict.
  // BLOCK_M 80 (DQ_ATOMIC 3), the transposed fragment: element 4 j + e is column 16 warp + group + 8 (e / 2)
  // of the unit (a head dimension) and row 8 j + 2 quad + e % 2 (a query row), so a thread's two values of
  // one column and rows 2 quad, + 1 lie 64 floats apart: one 4-byte store each, a warp's covering the 32
  // banks (see tiled_chunk_offset).
  // DQ_ALTERNATE (ACC = BLOCK_M / 64 x D / 2, chunk by chunk): fragment column block j goes to unit j / 8 of
  // the staged tile (its 64-row chunk j / (D / 8), slab j % (D / 8) / 8), DQ_UNIT_BYTES further each.
  template <int ACC>
  __device__ __forceinline__ void stage_unit(const float (&dq_acc)[ACC], const Lane& me) const {
    if constexpr (DQ_TRANSPOSED) {
#pragma unroll
      for (int j = 0; j < DQ_ACC / 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          stage_rows[tiled_chunk_offset(8 * j + 2 * me.quad + (e & 1), 2 * me.warp + (e >> 1)) + me.group] =
              dq_acc[4 * j + e];
      return;
    }
    const int first = (me.warp * 16 + me.group) * DQ_STAGE_STRIDE + 2 * me.quad;  // in floats
#pragma unroll
    for (int r = 0; r < 2; ++r) {
#pragma unroll
      for (int j = 0; j < ACC / 4; ++j) {
        const int offset = DQ_TILED
                               ? (j / 8) * (DQ_UNIT_BYTES / 4) +
                                     tiled_chunk_offset(me.warp * 16 + me.group + 8 * r, j % 8) + 2 * me.quad
                               : first + 8 * r * DQ_STAGE_STRIDE + 8 * j;
        if constexpr (DQ_WRITER)
          asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(stage + 4 * offset),
                       "f"(dq_acc[4 * j + 2 * r]), "f"(dq_acc[4 * j + 2 * r + 1])
                       : "memory");
        else
          *reinterpret_cast<float2*>(stage_rows + offset) =
              make_float2(dq_acc[4 * j + 2 * r], dq_acc[4 * j + 2 * r + 1]);
      }
    }
  }
  // (DQ_ATOMIC 2 and 3, the consumers' bulk reduce-adds) Every bulk reduce-add of this thread has completed
  // (before the block exits); the writer warp waits for its own.
  __device__ __forceinline__ void finish() const {
    if constexpr (DQ_STAGED && !DQ_WRITER)
      if (threadIdx.x % 128 < DQ_BULK_WRITERS) sm90::tma_wait_stores();
  }
};

// DQ_WRITER 1, FlashAttention-3's dQ writer: warp DQ_WRITER_WARP of the producer warpgroup adds every
// consumer warpgroup's staged units to the accumulator, in the order the consumers stage them (tile by tile;
// in a tile unit by unit, warpgroup by warpgroup), so that the consumers' instruction stream holds no bulk
// operation and no wait for one. Per unit: wait for dq_full of its warpgroup, lane l adds rows l and l + 32
// (rows < S) with one bulk reduce-add each (DQ_ATOMIC 3: lane 0 the whole unit with one) and commits; per
// round of units: wait until the bulk operations have read the staging rows, then arrive on dq_empty of each
// warpgroup that stages again (one arrival ahead of each warpgroup's first unit, none after its last, so that
// the consumers' waits and the arrivals pair up exactly). Before exiting, wait until every addition has
// landed.
struct DqWriterWarp {
  float* base;  // the accumulator
  int S;
  Smem smem;

  // Whether warpgroup w writes unit `unit` of each tile (DQ_IDLE: warpgroup 1 none); a warpgroup's units are
  // the first ones of the tile's rounds.
  static __device__ __forceinline__ constexpr bool writes(int warpgroup, int unit) {
    return unit < DQ_UNITS && warpgroup + unit * WARPGROUPS < DQ_TOTAL_UNITS;
  }
  __device__ __forceinline__ void run(const Schedule& schedule) const {
    if (schedule.tiles == 0) return;
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int w = 0; w < WARPGROUPS; ++w)
      if (writes(w, 0)) sm90::barrier_arrive<DQ_WRITER_THREADS>(of_warpgroup(Barrier::dq_empty, w));
    QueryTile tile = schedule.tile(0);
#pragma unroll 1
    for (int t = 0; t < schedule.tiles; ++t, schedule.advance(tile)) {
      const bool last_tile = t + 1 == schedule.tiles;
#pragma unroll
      for (int unit = 0; unit < DQ_UNITS; ++unit) {
#pragma unroll
        for (int w = 0; w < WARPGROUPS; ++w)
          if (writes(w, unit)) {
            sm90::barrier_sync<DQ_WRITER_THREADS>(of_warpgroup(Barrier::dq_full, w));
            add_unit(tile, w + unit * WARPGROUPS, smem.dq_stage(w), lane);
          }
        sm90::tma_wait_stores_read<0>();
#pragma unroll
        for (int w = 0; w < WARPGROUPS; ++w)
          if (writes(w, unit) && (writes(w, unit + 1) || !last_tile))
            sm90::barrier_arrive<DQ_WRITER_THREADS>(of_warpgroup(Barrier::dq_empty, w));
      }
    }
    sm90::tma_wait_stores();
  }
  // Unit `index` of the tile (rows of chunk index / COL_SPLIT, columns of slab index % COL_SPLIT) from the
  // staging rows at shared address `stage`: this lane's two rows (DQ_ATOMIC 3: lane 0 the whole unit), one
  // bulk group.
  __device__ __forceinline__ void add_unit(const QueryTile& tile, int index, unsigned stage, int lane) const {
    const int first_row = tile.m0 + (index / COL_SPLIT) * DQ_UNIT_ROWS;
    const int col0 = (index % COL_SPLIT) * DQ_N;
    if constexpr (DQ_TILED) {
      if (lane == 0)
        sm90::bulk_reduce_add_f32(base + tiled_unit_offset(tile.rows_head, first_row, col0), stage,
                                  DQ_UNIT_BYTES);
    } else {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = lane + 32 * half;
        if (first_row + r < S)
          sm90::bulk_reduce_add_f32(base + tile.head + static_cast<long long>(first_row + r) * D + col0,
                                    stage + r * DQ_STAGE_STRIDE * 4, DQ_N * 4);
      }
    }
    sm90::tma_commit_stores();
  }
};

// ---------------------------------------------------------------------------------------------------------
// Epilogue: dK * scale and dV in the element type, staged swizzled in the K and V tiles (once no warpgroup
// reads them), each warpgroup storing its own 64 keys with 16-byte stores; keys past SKV are not written.

__device__ __forceinline__ void stage_rows(unsigned char* tile, const float (&acc)[D / 2], float factor,
                                           const Lane& me) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = me.warpgroup * 64 + me.warp * 16 + me.group + r * 8;
#pragma unroll
    for (int j = 0; j < D / 8; ++j)
      *reinterpret_cast<unsigned*>(tile + swizzled_offset<BLOCK_N>(row, j) + 4 * me.quad) =
          pack_pair(acc[4 * j + 2 * r] * factor, acc[4 * j + 2 * r + 1] * factor);
  }
}

// `out`: the block's first key row (key0); row r of the tile is key key0 + r.
__device__ __forceinline__ void store_rows(elem* out, const unsigned char* tile, int key0, int first_row,
                                           int SKV, int thread) {
  for (int chunk = thread; chunk < 64 * CHUNKS; chunk += 128) {
    const int row = first_row + chunk / CHUNKS;
    const int c = chunk % CHUNKS;
    if (key0 + row < SKV)
      *reinterpret_cast<uint4*>(out + static_cast<long long>(row) * D + c * 8) =
          *reinterpret_cast<const uint4*>(tile + swizzled_offset<BLOCK_N>(row, c));
  }
}

__device__ __forceinline__ void store_dkv(elem* dK, elem* dV, const Smem& smem, const Schedule& schedule,
                                          const float (&dk_acc)[D / 2], const float (&dv_acc)[D / 2],
                                          float scale, const Lane& me) {
  sm90::barrier_sync<CONSUMER_THREADS>(Barrier::epilogue);  // every dQ wgmma (which read all of K) is done
  unsigned char* const k_tile = smem.at<unsigned char>(smem.k());
  unsigned char* const v_tile = smem.at<unsigned char>(smem.v());
  stage_rows(k_tile, dk_acc, scale, me);
  stage_rows(v_tile, dv_acc, 1.0f, me);
  sm90::barrier_sync<128>(of_warpgroup(Barrier::warpgroup, me.warpgroup));
  const long long offset = schedule.kv_head() + static_cast<long long>(schedule.n0) * D;
  store_rows(dK + offset, k_tile, schedule.n0, me.warpgroup * 64, schedule.SKV, threadIdx.x % 128);
  store_rows(dV + offset, v_tile, schedule.n0, me.warpgroup * 64, schedule.SKV, threadIdx.x % 128);
}

// ---------------------------------------------------------------------------------------------------------
// RingSupply: ProducedRing (WARP_SPECIALIZE) or SelfLoadedRing, with the same verbs: begin, acquire (the
// tile's stage is in shared memory and visible to wgmma), release (this warp no longer reads it), drain (no
// copy in flight before the epilogue writes the K and V tiles).

// What a consumer warpgroup holds for the tiles it walks: its wgmmas, the P / dS math, the dS^T tiles, its
// first key, and the dK and dV accumulators.
struct Consumer {
  TileMma mma;
  Gradients gradients;
  DsTile ds_tile;
  int key0;

  // P^T and dS^T of a tile, packed as the A fragments of dV and dK, from its S^T and dP^T wgmmas, committed
  // in that order as the last two groups in flight: P^T while dP^T may still run.
  __device__ __forceinline__ void fragments(float (&s_acc)[BLOCK_M / 2], float (&dp_acc)[BLOCK_M / 2],
                                            const Smem& smem, int stage, int m0,
                                            unsigned (&p_frag)[BLOCK_M / 16][4],
                                            unsigned (&ds_frag)[BLOCK_M / 16][4]) const {
    const SharedRows lse_rows{smem.at<float>(smem.lse(stage)), gradients.me.quad};
    const SharedRows dsum_rows{smem.at<float>(smem.dsum(stage)), gradients.me.quad};
    // ROW_STATS_EARLY: the LSE values read while the S^T and dP^T wgmmas run, so that the exponentials wait
    // for no load, and the Dsum values while dP^T runs (read with the LSE's, they spill at D = 128 and with
    // 128-row tiles); otherwise each where it is used.
    const auto lse = rows_now(lse_rows);
    sm90::wgmma_wait<1>();  // S^T; dP^T may still run
    sm90::pin(s_acc);
    gradients.probabilities(s_acc, lse, key0, m0);
    sm90::pin(s_acc);
    const auto dsum = rows_now(dsum_rows);
    sm90::wgmma_wait<0>();
    sm90::pin(dp_acc);
    gradients.scores_gradient(s_acc, dp_acc, dsum);
    pack(s_acc, p_frag);
    pack(dp_acc, ds_frag);
  }
};

// The dQ unit `unit` of this warpgroup: its index among the tile's units and where it lies. DQ_IDLE: the idle
// warpgroup recomputes unit 0 and does not write it (a wgmma under a branch that differs between warpgroups
// would make ptxas serialize every wgmma of the kernel).
struct DqUnit {
  int index;
  int m_chunk;
  int col0;

  static __device__ __forceinline__ DqUnit of(int unit, const Lane& me) {
    const int index = me.warpgroup + unit * WARPGROUPS;
    const int computed = DQ_IDLE ? min(index, DQ_TOTAL_UNITS - 1) : index;
    return {index, computed / COL_SPLIT, (computed % COL_SPLIT) * DQ_N};
  }
  __device__ __forceinline__ bool written() const { return !DQ_IDLE || index < DQ_TOTAL_UNITS; }
};

// The part of a tile both loops share, once its S^T and dP^T are issued: P^T and dS^T as register fragments
// (read by the wgmmas until the caller waits for them), dV += P^T dO and dK += dS^T Q issued as one group,
// and dS^T stored to its shared tile for dQ.
__device__ __forceinline__ void accumulate_dk_dv(const Consumer& consumer, const Smem& smem,
                                                 float (&s_acc)[BLOCK_M / 2], float (&dp_acc)[BLOCK_M / 2],
                                                 int stage, int m0, int ds_buffer,
                                                 unsigned (&p_frag)[BLOCK_M / 16][4],
                                                 unsigned (&ds_frag)[BLOCK_M / 16][4], float (&dk_acc)[D / 2],
                                                 float (&dv_acc)[D / 2], const Lane& me) {
  consumer.fragments(s_acc, dp_acc, smem, stage, m0, p_frag, ds_frag);
  sm90::pin(dv_acc);
  sm90::pin(dk_acc);
  sm90::wgmma_fence();
  consumer.mma.issue_dv(dv_acc, p_frag, stage);
  consumer.mma.issue_dk(dk_acc, ds_frag, stage);
  sm90::wgmma_commit();
  consumer.ds_tile.write(ds_frag, me, ds_buffer);
}

// Waits until at most PENDING wgmma groups are in flight, the tile's dV and dK ones done: their accumulators
// and the P^T and dS^T fragments they read are settled (pinned: read by the wgmmas until the wait), and the
// stage's Q and dO are no longer read, so the stage is released.
template <int PENDING, typename RingSupply>
__device__ __forceinline__ void release_after_dk_dv(const RingSupply& ring, int t,
                                                    unsigned (&p_frag)[BLOCK_M / 16][4],
                                                    unsigned (&ds_frag)[BLOCK_M / 16][4],
                                                    float (&dk_acc)[D / 2], float (&dv_acc)[D / 2]) {
  sm90::wgmma_wait<PENDING>();
  sm90::pin(dv_acc);
  sm90::pin(dk_acc);
#pragma unroll
  for (int kt = 0; kt < BLOCK_M / 16; ++kt) {
    sm90::pin(p_frag[kt]);
    sm90::pin(ds_frag[kt]);
  }
  ring.release(t);
}

// DQ_ALTERNATE, once tile t's dV and dK are issued and its dS^T is in shared memory: both warpgroups wait for
// their dV and dK wgmmas and release the stage (issuing the dQ batch before that wait, as the unit split
// does, would keep the packed P^T and dS^T registers live beside its accumulators, and ptxas then serializes
// every wgmma for want of registers: C7512); then warpgroup t % 2 computes the tile's whole dQ, waits for it,
// and stages and adds it, while the other goes on to the next tile. The branch is uniform in each warpgroup.
template <typename RingSupply>
__device__ __forceinline__ void consume_alternate_dq(const RingSupply& ring, const Consumer& consumer,
                                                     const DqWriter& dq_writer, int t, const QueryTile& tile,
                                                     int ds_buffer, unsigned (&p_frag)[BLOCK_M / 16][4],
                                                     unsigned (&ds_frag)[BLOCK_M / 16][4],
                                                     float (&dk_acc)[D / 2], float (&dv_acc)[D / 2],
                                                     const Lane& me) {
  release_after_dk_dv<0>(ring, t, p_frag, ds_frag, dk_acc, dv_acc);
  if (t % 2 != me.warpgroup) return;
  // 64-row chunk m_chunk's accumulators at m_chunk D / 2: the order of the tile's units in the staging area.
  float dq_acc[M_CHUNKS * D / 2];
  clear(dq_acc);
  sm90::wgmma_fence();
#pragma unroll
  for (int m_chunk = 0; m_chunk < M_CHUNKS; ++m_chunk)
    consumer.mma.issue_dq(*reinterpret_cast<float(*)[D / 2]>(dq_acc + m_chunk * (D / 2)), m_chunk, 0,
                          ds_buffer);
  sm90::wgmma_commit();
  sm90::wgmma_wait<0>();
  sm90::pin(dq_acc);
  dq_writer.write(dq_acc, tile, 0, 0, me);
}

// NEXT_TILE_OVERLAP 0: each tile's S^T and dP^T are issued once the tile is acquired; the tensor cores wait
// for P^T, and for dQ's writes to global memory at the end of the tile.
template <typename RingSupply>
__device__ __forceinline__ void consume_tiles(const RingSupply& ring, const Consumer& consumer,
                                              const Smem& smem, const Schedule& schedule,
                                              const DqWriter& dq_writer, float (&dk_acc)[D / 2],
                                              float (&dv_acc)[D / 2], const Lane& me) {
  for (int t = 0; t < schedule.tiles; ++t) {
    const QueryTile tile = schedule.tile(t);
    const int stage = t % STAGES;
    const int ds_buffer = t % DS_BUFFERS;
    ring.acquire(t);
    unsigned p_frag[BLOCK_M / 16][4], ds_frag[BLOCK_M / 16][4];
    {
      float s_acc[BLOCK_M / 2], dp_acc[BLOCK_M / 2];
      clear(s_acc);
      clear(dp_acc);
      sm90::wgmma_fence();
      consumer.mma.issue_s(s_acc, stage);
      sm90::wgmma_commit();
      consumer.mma.issue_dp(dp_acc, stage);
      sm90::wgmma_commit();
      accumulate_dk_dv(consumer, smem, s_acc, dp_acc, stage, tile.m0, ds_buffer, p_frag, ds_frag, dk_acc,
                       dv_acc, me);
    }
    if constexpr (DQ_ALTERNATE) {
      consume_alternate_dq(ring, consumer, dq_writer, t, tile, ds_buffer, p_frag, ds_frag, dk_acc, dv_acc,
                           me);
      continue;
    }
#pragma unroll
    for (int unit = 0; unit < DQ_UNITS; ++unit) {
      const DqUnit dq = DqUnit::of(unit, me);
      float dq_acc[DQ_ACC];
      clear(dq_acc);
      sm90::wgmma_fence();
      consumer.mma.issue_dq(dq_acc, dq.m_chunk, dq.col0, ds_buffer);
      sm90::wgmma_commit();
      if (unit == 0) {
        release_after_dk_dv<1>(ring, t, p_frag, ds_frag, dk_acc, dv_acc);  // the dQ unit may still run
      }
      sm90::wgmma_wait<0>();
      sm90::pin(dq_acc);
      if (dq.written()) dq_writer.write(dq_acc, tile, dq.m_chunk, dq.col0, me);
    }
  }
}

// NEXT_TILE_OVERLAP 1 or 2 (a producer, 2 stages, one dQ unit a warpgroup): right after this tile's dQ
// wgmma, the next tile is acquired and its S^T (1), or S^T and dP^T (2), issued, so that the tensor cores
// compute them while this warpgroup releases the stage and writes dQ (atomics, stores or staging rows);
// with 1, the next tile's dP^T is issued at its start, and runs while P^T is computed, as before. The last
// tile issues its "next" scores on its own stage and K, which nothing refills then, and they are waited for
// before the epilogue overwrites K (one S^T, or S^T and dP^T, a block computes for nothing: a wgmma under a
// branch would make ptxas serialize them all). The scores' accumulators live across the tiles.
template <typename RingSupply>
__device__ __forceinline__ void consume_tiles_overlapped(const RingSupply& ring, const Consumer& consumer,
                                                         const Smem& smem, const Schedule& schedule,
                                                         const DqWriter& dq_writer, float (&dk_acc)[D / 2],
                                                         float (&dv_acc)[D / 2], const Lane& me) {
  constexpr bool BOTH = NEXT_TILE_OVERLAP == 2;
  float s_acc[BLOCK_M / 2], dp_acc[BLOCK_M / 2];
  if (schedule.tiles > 0) ring.acquire(0);
  sm90::wgmma_fence();
  consumer.mma.template issue_s<true>(s_acc, 0);
  sm90::wgmma_commit();
  if constexpr (BOTH) {
    consumer.mma.template issue_dp<true>(dp_acc, 0);
    sm90::wgmma_commit();
  }
  const DqUnit dq = DqUnit::of(0, me);
  for (int t = 0; t < schedule.tiles; ++t) {
    const QueryTile tile = schedule.tile(t);
    const int stage = t % STAGES;
    const int ds_buffer = t % DS_BUFFERS;
    if constexpr (!BOTH) {
      sm90::wgmma_fence();
      consumer.mma.template issue_dp<true>(dp_acc, stage);
      sm90::wgmma_commit();
    }
    unsigned p_frag[BLOCK_M / 16][4], ds_frag[BLOCK_M / 16][4];
    accumulate_dk_dv(consumer, smem, s_acc, dp_acc, stage, tile.m0, ds_buffer, p_frag, ds_frag, dk_acc,
                     dv_acc, me);
    float dq_acc[DQ_ACC];
    clear(dq_acc);
    sm90::wgmma_fence();
    consumer.mma.issue_dq(dq_acc, dq.m_chunk, dq.col0, ds_buffer);
    sm90::wgmma_commit();
    // The next tile's scores (the last tile's: on its own stage, unused).
    const bool more = t + 1 < schedule.tiles;
    if (more) ring.acquire(t + 1);
    const int next_stage = more ? (t + 1) % STAGES : stage;
    sm90::wgmma_fence();
    consumer.mma.template issue_s<true>(s_acc, next_stage);
    sm90::wgmma_commit();
    if constexpr (BOTH) {
      consumer.mma.template issue_dp<true>(dp_acc, next_stage);
      sm90::wgmma_commit();
    }
    // the dQ unit and the next scores may still run
    release_after_dk_dv<NEXT_TILE_OVERLAP + 1>(ring, t, p_frag, ds_frag, dk_acc, dv_acc);
    sm90::wgmma_wait<NEXT_TILE_OVERLAP>();  // the dQ unit; the next scores may still run
    sm90::pin(dq_acc);
    if (dq.written()) dq_writer.write(dq_acc, tile, dq.m_chunk, dq.col0, me);
    // The next scores too: a wgmma in flight across the loop's back edge made ptxas serialise every wgmma
    // (C7514); dQ's writes above still ran beside them.
    sm90::wgmma_wait<0>();
    sm90::pin(s_acc);
    if constexpr (BOTH) sm90::pin(dp_acc);
  }
  sm90::wgmma_wait<0>();  // the last (unused) scores read K, which the epilogue overwrites
  sm90::pin(s_acc);
  sm90::pin(dp_acc);
}

// A consumer warpgroup: every query tile of the block, then the epilogue.
template <typename RingSupply>
__device__ __forceinline__ void consume(const RingSupply& ring, const Smem& smem, const Schedule& schedule,
                                        const DqWriter& dq_writer, elem* dK, elem* dV, float scale,
                                        const Lane& me) {
  const Consumer consumer{TileMma{smem, me.warpgroup},
                          Gradients{scale * kLog2e, schedule.SKV, schedule.causal_offset(), me}, DsTile{smem},
                          schedule.n0 + me.warpgroup * 64};
  float dk_acc[D / 2], dv_acc[D / 2];
  clear(dk_acc);
  clear(dv_acc);
  ring.begin();
  if constexpr (NEXT_TILE_OVERLAP)
    consume_tiles_overlapped(ring, consumer, smem, schedule, dq_writer, dk_acc, dv_acc, me);
  else
    consume_tiles(ring, consumer, smem, schedule, dq_writer, dk_acc, dv_acc, me);
  ring.drain();
  dq_writer.finish();
  store_dkv(dK, dV, smem, schedule, dk_acc, dv_acc, scale, me);
}

// The main kernel's block: the roles on their threads (Inputs: PointerInputs or TmaInputs; a template, so
// that the path a config does not take is not compiled).
template <typename Inputs>
__device__ __forceinline__ void run_block(const Inputs& inputs, float* dQ_accum, elem* dK, elem* dV, int B,
                                          int H, int HKV, int S, int SKV, float scale) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  {
    unsigned dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < static_cast<unsigned>(SMEM_BYTES)) __trap();  // less than the layout: no overrun
  }
  const Smem smem = Smem::of(smem_raw);
  const Lane me = Lane::of_thread();
  const Schedule schedule = Schedule::of_block(S, SKV, H, HKV);
  // This key block's partial (DQ_ATOMIC 0) or the shared accumulator.
  const long long key_block =
      HEAD_INTERLEAVE == 1 ? static_cast<long long>(blockIdx.x) : schedule.n0 / BLOCK_N;
  const long long partial = DQ_ATOMIC ? 0 : key_block * B * H * S * D;
  const unsigned dq_stage = smem.dq_stage(me.warpgroup);
  const DqWriter dq_writer{dQ_accum + partial, S, dq_stage, smem.at<float>(dq_stage)};
  if constexpr (WARP_SPECIALIZE) {
    const Ring ring = Ring::of(smem);
    if (threadIdx.x == 0) ring.init();
    __syncthreads();
    if (me.warpgroup == WARPGROUPS) {
      if constexpr (WARPGROUPS > 1) sm90::registers_decrease<PRODUCER_REGS>();
      if constexpr (DQ_WRITER) {
        if (me.warp == DQ_WRITER_WARP) {
          DqWriterWarp{dQ_accum, S, smem}.run(schedule);
          return;
        }
      }
      produce(inputs, smem, ring, schedule);
      return;
    }
    if constexpr (WARPGROUPS > 1) sm90::registers_increase<CONSUMER_REGS>();
    consume(ProducedRing{ring}, smem, schedule, dq_writer, dK, dV, scale, me);
  } else {
    consume(SelfLoadedRing{inputs, smem, schedule}, smem, schedule, dq_writer, dK, dV, scale, me);
  }
}

}  // namespace attn_bwd

// ---------------------------------------------------------------------------------------------------------
// The preprocess: per row of every head, Dsum = sum_d dO O in fp32 and LSE * log2(e), into rows padded to a
// multiple of 128 a head (rows past S: Dsum 0, LSE +inf, so that P is 0 there), and (DQ_ATOMIC) the row of
// the fp32 dQ accumulator zeroed (DQ_ATOMIC 3: every padded row, D floats a row, of the tiled accumulator,
// which holds S_PAD D floats a head: the rows' zeroed spans cover it whatever its inner order). D / 8
// threads a row, 16 bytes each; grid (padded rows / rows a block, H, B), 256 threads.
extern "C" __global__ void __launch_bounds__(256)
    flash_attn_bwd_preprocess(const attn_bwd::elem* __restrict__ O, const attn_bwd::elem* __restrict__ dO,
                              const float* __restrict__ LSE, float* __restrict__ Dsum,
                              float* __restrict__ LSE_log2, float* __restrict__ dQ_accum, int H, int S) {
  using namespace attn_bwd;
  constexpr int ROWS = 256 / CHUNKS;
  const int row = static_cast<int>(blockIdx.x) * ROWS + static_cast<int>(threadIdx.x) / CHUNKS;
  const int c = static_cast<int>(threadIdx.x) % CHUNKS;
  const long long bh = static_cast<long long>(blockIdx.z) * H + blockIdx.y;
  const long long offset = (bh * S + row) * D + c * 8;
  float sum = 0.0f;
  if (row < S) {
    const uint4 o = *reinterpret_cast<const uint4*>(O + offset);
    const uint4 d = *reinterpret_cast<const uint4*>(dO + offset);
    const unsigned o_bits[4] = {o.x, o.y, o.z, o.w}, d_bits[4] = {d.x, d.y, d.z, d.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 of = unpack_pair(o_bits[i]), df = unpack_pair(d_bits[i]);
      sum = fmaf(of.x, df.x, fmaf(of.y, df.y, sum));
    }
    if constexpr (DQ_ATOMIC && !DQ_TILED) {
      float4* const acc = reinterpret_cast<float4*>(dQ_accum + offset);
      acc[0] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      acc[1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
  }
  if constexpr (DQ_TILED) {
    float4* const acc = reinterpret_cast<float4*>(dQ_accum + (bh * padded_rows(S) + row) * D + c * 8);
    acc[0] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    acc[1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
#pragma unroll
  for (int lanes = 1; lanes < CHUNKS; lanes *= 2) sum += __shfl_xor_sync(0xffffffffu, sum, lanes);
  if (c == 0) {
    const long long padded = bh * padded_rows(S) + row;
    Dsum[padded] = row < S ? sum : 0.0f;
    LSE_log2[padded] = row < S ? LSE[bh * S + row] * kLog2e : __int_as_float(0x7f800000);
  }
}

// The main kernel takes Q, K, V, dO as pointers, or (TMA_LOADS) as tensor maps: the space's Launches pick the
// arguments. Grid (cdiv(SKV, BLOCK_N), HKV, B), THREADS threads, SMEM_BYTES of dynamic shared memory.
extern "C" __global__ void __launch_bounds__(attn_bwd::THREADS, 1)
#if TMA_LOADS
    flash_attn_bwd_wgmma(const __grid_constant__ sm90::TensorMap q_map,
                         const __grid_constant__ sm90::TensorMap k_map,
                         const __grid_constant__ sm90::TensorMap v_map,
                         const __grid_constant__ sm90::TensorMap do_map, const float* __restrict__ LSE_log2,
                         const float* __restrict__ Dsum, float* __restrict__ dQ_accum,
                         attn_bwd::elem* __restrict__ dK, attn_bwd::elem* __restrict__ dV, int B, int H,
                         int HKV, int S, int SKV, float scale) {
  const attn_bwd::TmaInputs inputs{q_map, k_map, v_map, do_map, LSE_log2, Dsum};
#else
    flash_attn_bwd_wgmma(const attn_bwd::elem* __restrict__ Q, const attn_bwd::elem* __restrict__ K,
                         const attn_bwd::elem* __restrict__ V, const attn_bwd::elem* __restrict__ dO,
                         const float* __restrict__ LSE_log2, const float* __restrict__ Dsum,
                         float* __restrict__ dQ_accum, attn_bwd::elem* __restrict__ dK,
                         attn_bwd::elem* __restrict__ dV, int B, int H, int HKV, int S, int SKV,
                         float scale) {
  const attn_bwd::PointerInputs inputs{Q, K, V, dO, LSE_log2, Dsum};
#endif
  attn_bwd::run_block(inputs, dQ_accum, dK, dV, B, H, HKV, S, SKV, scale);
}

// dQ = scale * (the fp32 accumulator, or the key blocks' partials summed in key-block order) in the element
// type. A row sums the partials of the key blocks whose first key it sees (causal), the ones that visited its
// query block and gave it anything; the others never wrote its row. DQ_ATOMIC 3 reads the row's chunk from
// its unit of the tiled accumulator (rows < S only: the padding rows are never read). D / 8 threads a row;
// grid (cdiv(S, rows a block), H, B), 256 threads.
extern "C" __global__ void __launch_bounds__(256)
    flash_attn_bwd_convert_dq(const float* __restrict__ dQ_accum, attn_bwd::elem* __restrict__ dQ, int B,
                              int H, int S, int SKV, float scale) {
  using namespace attn_bwd;
  constexpr int ROWS = 256 / CHUNKS;
  const int row = static_cast<int>(blockIdx.x) * ROWS + static_cast<int>(threadIdx.x) / CHUNKS;
  if (row >= S) return;
  const int c = static_cast<int>(threadIdx.x) % CHUNKS;
  const long long offset = ((static_cast<long long>(blockIdx.z) * H + blockIdx.y) * S + row) * D + c * 8;
  float acc[8] = {};
  const int key_blocks = (SKV + BLOCK_N - 1) / BLOCK_N;
  const int last_key = row + SKV - S;  // (causal) the last key this row sees
  const int blocks = DQ_ATOMIC ? 1
                     : CAUSAL  ? (last_key < 0 ? 0 : min(key_blocks, last_key / BLOCK_N + 1))
                               : key_blocks;
  const long long partial_stride = static_cast<long long>(B) * H * S * D;
  // (DQ_ATOMIC 3) chunk c % 8 of slab c / 8 of the row, in its unit.
  const long long accum_offset =
      DQ_TILED ? tiled_unit_offset((static_cast<long long>(blockIdx.z) * H + blockIdx.y) * padded_rows(S),
                                   tiled_unit_first_row(row), (c / 8) * DQ_N) +
                     tiled_chunk_offset(tiled_unit_row(row), c % 8)
               : offset;
  for (int block = 0; block < blocks; ++block) {
    const float4* const part =
        reinterpret_cast<const float4*>(dQ_accum + block * partial_stride + accum_offset);
    const float4 low = part[0], high = part[1];
    acc[0] += low.x;
    acc[1] += low.y;
    acc[2] += low.z;
    acc[3] += low.w;
    acc[4] += high.x;
    acc[5] += high.y;
    acc[6] += high.z;
    acc[7] += high.w;
  }
  uint4 out;
  out.x = pack_pair(acc[0] * scale, acc[1] * scale);
  out.y = pack_pair(acc[2] * scale, acc[3] * scale);
  out.z = pack_pair(acc[4] * scale, acc[5] * scale);
  out.w = pack_pair(acc[6] * scale, acc[7] * scale);
  *reinterpret_cast<uint4*>(dQ + offset) = out;
}
