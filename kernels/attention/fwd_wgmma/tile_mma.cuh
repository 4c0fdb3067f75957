// The wgmma forward template's lanes, pingpong turns and the wgmmas of a K/V tile (S = Q K^T, O += P V).
// Included by flash_attn_fwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "shared_storage.cuh"

namespace attn {

using Lane = sm90::Lane;  // this thread's warpgroup and its place in the accumulator fragments

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
  unsigned long long ones_desc;  // (ROW_SUM_MMA) the warpgroup's 16 x 8 tile of ones

  static __device__ __forceinline__ TileMma of(const Smem& smem, int warpgroup) {
    return {sm90::desc_kmajor_sw128(smem.q() + warpgroup * 64 * 128), sm90::desc_kmajor_sw128(smem.k()),
            sm90::desc_mnmajor_sw128(smem.v(), BLOCK_N * 128),
            ROW_SUM_MMA ? sm90::desc_kmajor_none(smem.ones(warpgroup)) : 0ull};
  }
  // The descriptor offset (16-byte units) of a stage.
  static __device__ __forceinline__ unsigned long long stage_offset(int stage) {
    return static_cast<unsigned long long>(stage * KV_TILE_BYTES) >> 4;
  }
  // The same wgmmas reading Q from Q tile `buffer`.
  __device__ __forceinline__ TileMma on_q(int buffer) const {
    return {q_desc + (static_cast<unsigned long long>(buffer * Q_BYTES) >> 4), k_desc, v_desc, ones_desc};
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
  // O += P V: the packed S accumulators of keys [16 kt, 16 kt + 16) are the A fragment of k-step kt. With
  // ROW_SUM_MMA also row_sums += P 1, an m64n8k16 of the same fragment with a tile of ones: each of the 8
  // columns of row_sums is its row's sum of P (as rounded for P V).
  __device__ __forceinline__ void issue_pv(float (&o_acc)[D / 2], float (&row_sums)[4],
                                           const unsigned (&p_frag)[BLOCK_N / 16][4],
                                           unsigned long long offset) const {
#pragma unroll
    for (int kt = 0; kt < BLOCK_N / 16; ++kt) {
      Mma<D>::template rs<1>(o_acc, p_frag[kt], v_desc + offset + ((kt * 16 * 128) >> 4), 1);
      if constexpr (ROW_SUM_MMA) Mma<8>::template rs<0>(row_sums, p_frag[kt], ones_desc, 1);
    }
  }
};

}  // namespace attn
