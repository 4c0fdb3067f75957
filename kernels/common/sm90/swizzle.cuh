// The 128-byte swizzle of a shared-memory tile of 16-bit elements, as TMA and the wgmma descriptors lay it
// out: columns / 64 slabs of [ROWS][64] elements (128-byte rows), 16-byte chunk c of row r at c ^ (r % 8).
// __host__ __device__, so that host tests emulate the kernels' stores with it.
#pragma once

#if !defined(__CUDACC__)
#include <cuda_runtime_api.h>  // __host__, __device__ and __forceinline__ for a host compiler
#endif

namespace sm90 {

// Byte offset of 16-byte chunk `chunk` (elements 8 chunk .. 8 chunk + 7) of row `row` in a swizzled tile of
// ROWS rows.
template <int ROWS>
__host__ __device__ __forceinline__ constexpr int swizzled_offset(int row, int chunk) {
  return (chunk >> 3) * (ROWS * 128) + row * 128 + (((chunk & 7) ^ (row & 7)) << 4);
}

}  // namespace sm90
