// The wgmma forward template's epilogue: O / row sums staged in the Q tile and stored; each row's LSE.
// Included by flash_attn_fwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "pending_store.cuh"
#include "scheduler.cuh"
#include "softmax.cuh"

namespace attn {

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

}  // namespace attn
