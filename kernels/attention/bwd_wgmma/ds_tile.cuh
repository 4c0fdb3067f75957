// The wgmma backward template's dS^T tile in shared memory, the A operand of every warpgroup's dQ wgmmas.
// Included by flash_attn_bwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "shared_storage.cuh"

namespace attn_bwd {

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

}  // namespace attn_bwd
