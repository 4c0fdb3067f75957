// A thread's place in its warpgroup and in the wgmma accumulator fragments (Lane), and the 16-bit pairs an
// fp32 accumulator fragment becomes as a wgmma's A operand from registers (Pair<F16>, Pair<Bf16>).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "wgmma.cuh"

namespace sm90 {

// This thread's warpgroup (the producer's is the last) and, in a consumer warpgroup, its place in the
// accumulator fragments.
struct Lane {
  int warpgroup;
  int warp;   // within the warpgroup
  int group;  // the accumulator row of this lane (and row + 8)
  int quad;   // the accumulator column pair of this lane

  static __device__ __forceinline__ Lane of_thread() {
    const int lane = threadIdx.x % 32;
    return {static_cast<int>(threadIdx.x / 128), static_cast<int>((threadIdx.x / 32) % 4), lane >> 2,
            lane & 3};
  }
};

// Two fp32 values as one register of two 16-bit elements (low first), rounded to nearest, and back.
template <typename Type>
struct Pair;
template <>
struct Pair<F16> {
  static __device__ __forceinline__ unsigned pack(float low, float high) {
    const __half2 pair = __floats2half2_rn(low, high);
    return *reinterpret_cast<const unsigned*>(&pair);
  }
  static __device__ __forceinline__ float2 unpack(unsigned bits) {
    return __half22float2(*reinterpret_cast<const __half2*>(&bits));
  }
};
template <>
struct Pair<Bf16> {
  static __device__ __forceinline__ unsigned pack(float low, float high) {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
    return *reinterpret_cast<const unsigned*>(&pair);
  }
  static __device__ __forceinline__ float2 unpack(unsigned bits) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&bits));
  }
};

}  // namespace sm90
