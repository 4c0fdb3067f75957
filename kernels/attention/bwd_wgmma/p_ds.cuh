// The wgmma backward template's P and dS on the S^T and dP^T accumulators.
// Included by flash_attn_bwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "tile_mma.cuh"

namespace attn_bwd {

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

}  // namespace attn_bwd
