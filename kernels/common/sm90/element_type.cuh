// The element type of a template's 16-bit tensors: fp16, or bf16 where its space compiles it with -DBF16=1
// (a compiler option, not a tuning parameter); the wgmma input type that goes with it, and two fp32 values as
// one register of its pairs.
#pragma once

#include "warpgroup.cuh"

namespace element_type {

#if defined(BF16) && BF16
typedef __nv_bfloat16 elem;
typedef sm90::Bf16 mma_type;
#else
typedef half elem;
typedef sm90::F16 mma_type;
#endif
__device__ __forceinline__ unsigned pack_pair(float low, float high) {
  return sm90::Pair<mma_type>::pack(low, high);
}
__device__ __forceinline__ float2 unpack_pair(unsigned bits) { return sm90::Pair<mma_type>::unpack(bits); }

}  // namespace element_type
