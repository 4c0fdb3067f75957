// The wgmma forward template's online softmax on the S accumulators: the mask, the running max and sums, P.
// Included by flash_attn_fwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "tile_mma.cuh"

namespace attn {

// Masks keys >= SKV and (causal) keys after the query's last, row + SKV - S, on the tiles that reach them
// only.
struct ScoreMask {
  int SKV;
  int wg_last_key0;  // (causal) the last key the warpgroup's first query row sees: its row + SKV - S
  Lane me;

  __device__ __forceinline__ void apply(float (&s_acc)[BLOCK_N / 2], int n0) const {
    const bool tail = n0 + BLOCK_N > SKV;
    const bool diagonal = CAUSAL && n0 + BLOCK_N - 1 > wg_last_key0;
    if (tail || diagonal) {
#pragma unroll
      for (int i = 0; i < BLOCK_N / 2; ++i) {
        const int key = n0 + (i / 4) * 8 + me.quad * 2 + (i & 1);
        const int last_key = wg_last_key0 + me.warp * 16 + me.group + ((i >> 1) & 1) * 8;
        if (key >= SKV || (CAUSAL && key > last_key)) s_acc[i] = neg_inf();
      }
    }
  }
};

// O's rows times their factors; with LAZY_RESCALE skipped where every row of the warp keeps its max (a
// warp-uniform branch: the factors are 1).
__device__ __forceinline__ void rescale(float (&o_acc)[D / 2], const float (&factor)[2]) {
  if (LAZY_RESCALE && !__any_sync(0xffffffffu, factor[0] != 1.0f || factor[1] != 1.0f)) return;
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int j = 0; j < D / 8; ++j) {
      o_acc[4 * j + 2 * r] *= factor[r];
      o_acc[4 * j + 2 * r + 1] *= factor[r];
    }
}

// The online softmax of this thread's two rows (g and g + 8 of its warp's 16), base 2 with the scale folded
// into one multiply.
struct Softmax {
  float scale_log2;
  float row_max[2];  // running max of the scaled scores
  float row_sum[2];  // this lane's share of the running sums (ROW_SUM_MMA: the whole sums, after finish)
  // (ROW_SUM_MMA) the running sums as P V's wgmmas add them (P 1 on a tile of ones): the m64n8 accumulator,
  // rows g (0, 1) and g + 8 (2, 3), every column the same sum; rescaled as O is.
  float mma_sums[4];

  __device__ __forceinline__ void reset() {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      row_max[r] = neg_inf();
      row_sum[r] = 0.0f;
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) mma_sums[i] = 0.0f;
  }
  // (ROW_SUM_MMA) keeps the wgmmas' sums in registers across the asynchronous P V (sm90::pin); nothing
  // without, so that the default path carries no such registers.
  __device__ __forceinline__ void pin_sums() {
    if constexpr (ROW_SUM_MMA) sm90::pin(mma_sums);
  }
  // (ROW_SUM_MMA) the running sums times their rows' factors, with O's.
  __device__ __forceinline__ void rescale_sums(const float (&factor)[2]) {
    if constexpr (ROW_SUM_MMA) {
#pragma unroll
      for (int i = 0; i < 4; ++i) mma_sums[i] *= factor[i / 2];
    }
  }
  // Turns the (masked) S accumulators into P and updates the running max and sums; factor[r] is what O's row
  // r must be multiplied by, here when RESCALE_NOW. LAZY_RESCALE: a row's max moves only when the tile's
  // exceeds it by more than kLazyRescaleLog2 (base 2), so that most tiles leave O alone (factor 1); P is then
  // at most 2^kLazyRescaleLog2, which fp16/bf16 P and the fp32 sums and O hold without loss.
  template <bool RESCALE_NOW>
  __device__ __forceinline__ void update(float (&s_acc)[BLOCK_N / 2], float (&factor)[2],
                                         float (&o_acc)[D / 2]) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float tile_max = neg_inf();
#pragma unroll
      for (int j = 0; j < BLOCK_N / 8; ++j)
        tile_max = fmaxf(tile_max, fmaxf(s_acc[4 * j + 2 * r], s_acc[4 * j + 2 * r + 1]));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
      float row_factor = 1.0f;
      if (!LAZY_RESCALE || tile_max * scale_log2 > row_max[r] + kLazyRescaleLog2) {
        const float new_max = fmaxf(row_max[r], tile_max * scale_log2);
        // A row with every key so far masked keeps -inf: its factor is then exp2(-inf - 0) = 0.
        row_factor = exp2_approx(row_max[r] - (new_max == neg_inf() ? 0.0f : new_max));
        row_max[r] = new_max;
      }
      // A row with every key so far masked subtracts 0, so that its p are 0.
      const float base = row_max[r] == neg_inf() ? 0.0f : row_max[r];
      float sum = 0.0f;  // (not with ROW_SUM_MMA, whose wgmmas add P's rows)
#pragma unroll
      for (int j = 0; j < BLOCK_N / 8; ++j)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const float p = exp2_approx(s_acc[4 * j + 2 * r + c] * scale_log2 - base);
          s_acc[4 * j + 2 * r + c] = p;
          if constexpr (!ROW_SUM_MMA) sum += p;
        }
      if constexpr (!ROW_SUM_MMA) row_sum[r] = row_sum[r] * row_factor + sum;
      factor[r] = row_factor;
    }
    if constexpr (RESCALE_NOW) {
      rescale(o_acc, factor);
      rescale_sums(factor);
    }
  }
  // After the last tile: each row's sum over the four lanes sharing it, in every one of them.
  // With ROW_SUM_MMA the wgmmas' sums, complete in every lane (after the last P V has completed).
  __device__ __forceinline__ void finish() {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      if constexpr (ROW_SUM_MMA) {
        row_sum[r] = mma_sums[2 * r];
      } else {
        row_sum[r] += __shfl_xor_sync(0xffffffffu, row_sum[r], 1);
        row_sum[r] += __shfl_xor_sync(0xffffffffu, row_sum[r], 2);
      }
    }
  }
  // (After finish.) 1 / row r's sum; 0 for a row with every key masked (never NaN).
  __device__ __forceinline__ float inverse_sum(int r) const {
    return row_sum[r] > 0.0f ? 1.0f / row_sum[r] : 0.0f;
  }
  // (After finish.) Row r's log-sum-exp of the scaled scores, natural log: ln sum_j e^(scale s_j) =
  // (row_max + log2 row_sum) ln 2, the max and the sum being base 2. 0 for a row with every key masked.
  __device__ __forceinline__ float log_sum_exp(int r) const {
    return row_sum[r] > 0.0f ? (row_max[r] + __log2f(row_sum[r])) * kLn2 : 0.0f;
  }
};

// P as the A fragments of P V, packed pairwise from the S accumulators (P never goes through shared memory).
__device__ __forceinline__ void pack_p(const float (&s_acc)[BLOCK_N / 2],
                                       unsigned (&p_frag)[BLOCK_N / 16][4]) {
#pragma unroll
  for (int kt = 0; kt < BLOCK_N / 16; ++kt) {
#pragma unroll
    for (int i = 0; i < 4; ++i) p_frag[kt][i] = pack_pair(s_acc[8 * kt + 2 * i], s_acc[8 * kt + 2 * i + 1]);
    sm90::pin(p_frag[kt]);
  }
}

__device__ __forceinline__ void clear(float (&acc)[BLOCK_N / 2]) {
#pragma unroll
  for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] = 0.0f;
  sm90::pin(acc);
}

}  // namespace attn
