// D = X[:, :32] X[:, :32]^T for a 64 x 64 fp16 X, one element a thread, in fp32.
#include <cuda_fp16.h>

extern "C" __global__ void wgmma_serialized_ref(const half* __restrict__ x, float* __restrict__ d) {
  const int element = blockIdx.x * blockDim.x + threadIdx.x;
  if (element >= 64 * 64) return;
  const int row = element / 64, column = element % 64;
  float sum = 0.0f;
  for (int k = 0; k < 32; ++k) sum += __half2float(x[row * 64 + k]) * __half2float(x[column * 64 + k]);
  d[element] = sum;
}
