// The shared-memory tiles of the wgmma attention backward (flash_attn_bwd_wgmma.cu) and where a consumer
// thread's dS^T fragment goes in its tile: the 128-byte swizzle, the 4-byte store of each fragment register,
// the stmatrix that stores a k-step's four registers at once (DS_STMATRIX), and the 32-byte-swizzled dS^T
// tile of 80-row query tiles (BLOCK_M 80), whose 80 columns no 128-byte swizzle covers. Parameter-free and
// __host__ __device__, so that tests/kernels/attention_bwd_tile_layout_test.cpp emulates the stores with the
// functions the kernel calls.
#pragma once

#if !defined(__CUDACC__)
#include <cuda_runtime_api.h>  // __host__, __device__ and __forceinline__ for a host compiler
#endif

#include "../common/sm90/swizzle.cuh"

namespace attn_bwd_layout {

using sm90::swizzled_offset;  // the tiles' 128-byte swizzle (kernels/common/sm90/swizzle.cuh)

// The packed dS^T fragment of a consumer thread (warp `warp` of warpgroup `wg`, lane = 4 group + quad), the
// S^T / dP^T accumulator's packed pairwise: register i of k-step kt holds key 64 wg + 16 warp + group + 8 (i
// % 2) of the block (a row of dS^T) and query rows (columns) 16 kt + 8 (i / 2) + 2 quad and the one after it,
// low half first.
// DS_STMATRIX 0: byte offset, in a dS^T tile of ROWS keys, of the 16-byte chunk that register i of k-step kt
// goes to, for the thread whose register 0 holds key `key`; the register's two elements, query rows 2 quad
// and 2 quad + 1 of the chunk's 8, are the 4 bytes at 4 quad in it (one 4-byte store).
template <int ROWS>
__host__ __device__ __forceinline__ constexpr int ds_pair_chunk_offset(int key, int kt, int i) {
  return swizzled_offset<ROWS>(key + 8 * (i & 1), 2 * kt + (i >> 1));
}

// BLOCK_M 80: the dS^T tile of 80 query columns, read by dQ^T = K^T dS^T as its MN-major B, is 80 / 16 slabs
// of [ROWS][16] 16-bit elements (32-byte rows) with the 32-byte swizzle: 16-byte chunk c (0 or 1) of row r at
// position c ^ ((r / 4) % 2), the address bit 4 XOR bit 7 of a tile 256-byte aligned (the canonical MN-major
// layout ((8, 2, 5), (8, ROWS / 8)) : ((1, 8, LBO), (16, SBO)) in elements, LBO = ROWS x 32 bytes from slab
// to slab, SBO = 256 bytes from 8 rows to the next). Byte offset of 16-byte chunk `chunk` (columns 8 chunk ..
// 8 chunk + 7) of row `row`:
template <int ROWS>
__host__ __device__ __forceinline__ constexpr int swizzled32_offset(int row, int chunk) {
  return (chunk >> 1) * (ROWS * 32) + row * 32 + (((chunk & 1) ^ ((row >> 2) & 1)) << 4);
}
// and the chunk that register i of k-step kt goes to (the fragment as for ds_pair_chunk_offset: key `key` + 8
// (i % 2), query rows 16 kt + 8 (i / 2) + 2 quad, + 1, the 4 bytes at 4 quad in the chunk): slab kt, chunk i
// / 2 of the row. A warp's store (8 keys g by 4 quads) covers the 32 banks once: keys g and g + 4 lie 128
// bytes apart, and the swizzle puts them in different halves of their 32 bytes.
template <int ROWS>
__host__ __device__ __forceinline__ constexpr int ds_pair_chunk_offset_sw32(int key, int kt, int i) {
  return swizzled32_offset<ROWS>(key + 8 * (i & 1), 2 * kt + (i >> 1));
}

// BLOCK_M 80 with the tiled dQ accumulator: a unit of 80 query rows by 64 columns (one slab of D), staged in
// shared memory as its exact image, row r's 8-float chunk c at floats r 64 + 8 (c ^ ((r / 2) % 8)). The
// consumers compute the unit transposed (dQ^T = K^T dS^T: accumulator element 4 j + e is column 16 warp +
// group
// + 8 (e / 2) and row 8 j + 2 quad + e % 2) and stage each element with a 4-byte store: a warp's store (fixed
// j, e) is 8 consecutive columns (one chunk) of 4 rows 2 apart, whose chunks the swizzle puts in 4 different
// 32-byte quarters of the banks (no conflict). Offset in floats:
__host__ __device__ __forceinline__ constexpr int dq_unit80_chunk_offset(int row, int chunk) {
  return row * 64 + ((chunk ^ ((row >> 1) & 7)) << 3);
}

// DS_STMATRIX 1: one stmatrix.x4 (not transposed) per k-step kt. For each i, the warp's registers i are an
// 8 x 8 matrix of keys key0 + 8 (i % 2) + 0..7 (rows: lane group g holds row g) by query rows 16 kt + 8 (i /
// 2) + 0..7 (columns: quad q holds 2 q, + 1), in the layout stmatrix takes: matrix i is register i of every
// lane. Row r of matrix i, a key's 8 query rows, is one 16-byte chunk of the swizzled tile, whose address
// lane 8 i + r gives: chunk 2 kt + i / 2 of key key0 + 8 (i % 2) + r. The 8 rows of a matrix lie at 8
// different chunk positions (key0 % 8 == 0): no bank conflict.
// The byte offset of that chunk for `lane` at k-step 0, in the warp whose first key is key0 (64 warpgroup +
// 16 warp):
template <int ROWS>
__host__ __device__ __forceinline__ constexpr int ds_matrix_row_offset(int key0, int lane) {
  return swizzled_offset<ROWS>(key0 + 8 * ((lane >> 3) & 1) + (lane & 7), lane >> 4);
}
// and the address of k-step kt's from k-step 0's, `row0`, in a tile that starts on a 128-byte boundary: the
// chunk's position in its row, ((2 kt + lane / 16) % 8) ^ (key % 8), is k-step 0's, (lane / 16) ^ (key % 8),
// XOR kt % 4 in its bits 1 and 2, address bits 5 and 6, which the tile's start and the row's (key x 128)
// leave zero, so one XOR of the address moves there; kt / 4 is a whole slab, ROWS x 128 bytes further. One
// XOR and one add a k-step, from a single address register.
template <int ROWS>
__host__ __device__ __forceinline__ constexpr unsigned ds_matrix_row_address(unsigned row0, int kt) {
  return (row0 ^ (32u * (kt & 3))) + (kt >> 2) * (ROWS * 128u);
}

}  // namespace attn_bwd_layout
