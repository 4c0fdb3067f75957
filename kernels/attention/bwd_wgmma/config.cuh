// The wgmma backward template's types and constants: the element type, the block's shape and register split
// derived from the tuning parameters, and the checks that every combination is one the template implements.
// Included by flash_attn_bwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

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

}  // namespace attn_bwd
