// The wgmma GEMM template's mainloop: a consumer warpgroup's k loop over a tile, its operands' descriptors,
// the ring's stages released to this block and its cluster's other.
// Included by gemm_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "config.cuh"

namespace gemm {

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

}  // namespace gemm
