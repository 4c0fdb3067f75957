// The wgmma GEMM template's epilogue arithmetic: an element to fp32, the bias and activation of a sum, two
// adjacent values of a row stored together.
// Included by gemm_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "config.cuh"

namespace gemm {

__device__ __forceinline__ float to_float(elem x) {
#if defined(BF16) && BF16
  return __bfloat162float(x);
#else
  return __half2float(x);
#endif
}

__device__ __forceinline__ float activate(float x) {
  if constexpr (ACT == 1) return fmaxf(x, 0.0f);
  if constexpr (ACT == 2) return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
  return x;
}

// The epilogue's value at (row, col) from the accumulated sum.
__device__ __forceinline__ float finish(float sum, const elem* __restrict__ bias, int col) {
  if constexpr (BIAS) sum += to_float(bias[col]);
  return activate(sum);
}

// Stores two adjacent values of one row (col even); packed when both fit and the row start is aligned.
template <typename T>
__device__ __forceinline__ void store_pair(T* __restrict__ row_start, int col, int N, float v0, float v1) {
  if (col + 1 < N && (N % 2) == 0) {
    if constexpr (sizeof(T) == 4) {
      *reinterpret_cast<float2*>(row_start + col) = make_float2(v0, v1);
    } else {
#if defined(BF16) && BF16
      *reinterpret_cast<__nv_bfloat162*>(row_start + col) = __floats2bfloat162_rn(v0, v1);
#else
      *reinterpret_cast<__half2*>(row_start + col) = __floats2half2_rn(v0, v1);
#endif
    }
    return;
  }
  if (col < N) row_start[col] = static_cast<T>(v0);
  if (col + 1 < N) row_start[col + 1] = static_cast<T>(v1);
}

}  // namespace gemm
