// The wgmma backward template's wgmmas of a tile: S^T, dP^T, dV, dK and dQ.
// Included by flash_attn_bwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "shared_storage.cuh"

namespace attn_bwd {

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

}  // namespace attn_bwd
