// The wgmma GEMM template's producer: one thread's TMA loads of A and B into the ring (multicast in
// clusters). Included by gemm_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "scheduler.cuh"

namespace gemm {

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

}  // namespace gemm
