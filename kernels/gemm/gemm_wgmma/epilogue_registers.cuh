// The wgmma GEMM template's register epilogue (EPILOGUE 0, split-K's partial sums): a consumer warpgroup's
// part of the tile stored from its accumulators, rows or (swapped) columns of D.
// Included by gemm_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "epilogue_values.cuh"

namespace gemm {

// Stores a consumer warpgroup's part of the tile from registers, its corner at row m0, column n0 of D: D with
// bias and activation, or (split-K) fp32 partial sums. Unswapped, each thread holds pairs of adjacent columns
// of rows of D and stores them packed.
template <typename T, bool FINISH>
__device__ __forceinline__ void store_rows(const float (&acc)[M_ATOMS][MMA_N / 2], T* __restrict__ out,
                                           const elem* __restrict__ bias, int m0, int n0, int M, int N) {
  const int row_in_atom = sm90::accumulator_row();
  const int col_in_tile = sm90::accumulator_column();
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi)
#pragma unroll
    for (int half_rows = 0; half_rows < 2; ++half_rows) {
      const int row = m0 + mi * 64 + row_in_atom + 8 * half_rows;
      if (row >= M) continue;
      T* row_start = out + static_cast<long long>(row) * N;
#pragma unroll
      for (int j = 0; j < MMA_N / 8; ++j) {
        const int col = n0 + 8 * j + col_in_tile;
        if (col >= N) continue;
        float v0 = acc[mi][4 * j + 2 * half_rows];
        float v1 = acc[mi][4 * j + 2 * half_rows + 1];
        if constexpr (FINISH) {
          v0 = finish(v0, bias, col);
          v1 = col + 1 < N ? finish(v1, bias, col + 1) : 0.0f;
        }
        store_pair(row_start, col, N, v0, v1);
      }
    }
}

// As store_rows, swapped: a thread's accumulator row is a column n of D and its pairs are rows m, m + 1, so
// each value is stored alone (the warp's stores of one instruction: 8 adjacent columns in 4 rows).
template <typename T, bool FINISH>
__device__ __forceinline__ void store_columns(const float (&acc)[M_ATOMS][MMA_N / 2], T* __restrict__ out,
                                              const elem* __restrict__ bias, int m0, int n0, int M, int N) {
  const int col_in_atom = sm90::accumulator_row();  // swapped: the product's rows are D's columns
  const int row_in_tile = sm90::accumulator_column();
#pragma unroll
  for (int mi = 0; mi < M_ATOMS; ++mi)
#pragma unroll
    for (int half_cols = 0; half_cols < 2; ++half_cols) {
      const int col = n0 + mi * 64 + col_in_atom + 8 * half_cols;
      if (col >= N) continue;
#pragma unroll
      for (int j = 0; j < MMA_N / 8; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int row = m0 + 8 * j + row_in_tile + e;
          if (row >= M) continue;
          float value = acc[mi][4 * j + 2 * half_cols + e];
          if constexpr (FINISH) value = finish(value, bias, col);
          out[static_cast<long long>(row) * N + col] = static_cast<T>(value);
        }
    }
}

template <typename T, bool FINISH>
__device__ __forceinline__ void store_tile(const float (&acc)[M_ATOMS][MMA_N / 2], T* __restrict__ out,
                                           const elem* __restrict__ bias, int m0, int n0, int M, int N) {
  if constexpr (SWAP_AB) {
    store_columns<T, FINISH>(acc, out, bias, m0, n0, M, N);
  } else {
    store_rows<T, FINISH>(acc, out, bias, m0, n0, M, N);
  }
}

// Whether a consumer warpgroup's part of the tile (corner m0, n0 of D) lies inside D.
__device__ __forceinline__ bool part_inside(int m0, int n0, int M, int N) {
  return SWAP_AB ? m0 + MMA_N <= M && n0 + M_ATOMS * 64 <= N : m0 + M_ATOMS * 64 <= M && n0 + MMA_N <= N;
}

}  // namespace gemm
