// The wgmma backward template's epilogue: dK * scale and dV in the element type, staged and stored.
// Included by flash_attn_bwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "schedule.cuh"
#include "shared_storage.cuh"

namespace attn_bwd {

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

}  // namespace attn_bwd
