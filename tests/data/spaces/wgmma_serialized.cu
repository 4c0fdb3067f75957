// A 64 x 64 product of X's first 32 columns with their transpose, D = X[:, :32] X[:, :32]^T, in two 64 x 64 x
// 16 wgmmas from a 128-byte-swizzled shared tile. READ_EARLY 1 reads accumulators between a wgmma's commit
// and its wait (into a comparison that never holds for inputs in [-1, 1]), which makes ptxas serialise the
// kernel's wgmmas (its C7514 "Potential Performance Loss"): for evotune check's report of such variants.
#include <cuda_fp16.h>

#include "../../../kernels/common/sm90/arch.cuh"
#include "../../../kernels/common/sm90/wgmma.cuh"

extern "C" __global__ void __launch_bounds__(128)
    wgmma_serialized(const half* __restrict__ x, float* __restrict__ d) {
  __shared__ __align__(1024) unsigned char tile[64 * 128];
  for (int chunk = threadIdx.x; chunk < 64 * 8; chunk += 128) {  // 16-byte chunks, swizzled by row
    const int row = chunk / 8, column = chunk % 8;
    *reinterpret_cast<uint4*>(tile + row * 128 + ((column ^ (row & 7)) << 4)) =
        *reinterpret_cast<const uint4*>(x + row * 64 + column * 8);
  }
  __syncthreads();
  const unsigned long long desc = sm90::desc_kmajor_sw128(sm90::smem_address(tile));
  float acc[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) acc[i] = 0.0f;
  bool impossible = false;
#pragma unroll
  for (int step = 0; step < 2; ++step) {
    sm90::wgmma_fence();
    sm90::Wgmma<64, sm90::F16>::ss<0, 0>(acc, desc + 2 * step, desc + 2 * step, 1);
    sm90::wgmma_commit();
#if READ_EARLY
    impossible = impossible || acc[step] > 1.0e6f;
#endif
    sm90::wgmma_wait<0>();
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const int row = warp * 16 + lane / 4 + 8 * ((i / 2) % 2);
    const int column = (i / 4) * 8 + (lane % 4) * 2 + i % 2;
    d[row * 64 + column] = impossible ? 0.0f : acc[i];
  }
}
