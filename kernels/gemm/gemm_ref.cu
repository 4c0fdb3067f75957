// Reference matrix product D = A B (+ bias) (activation), plain fp32 on CUDA cores.
//
// A [M, K] row-major; B [K, N] row-major, or [N, K] with B_KMAJOR = 1; bias [N]; D [M, N]. fp16 inputs
// (bf16 with -DBF16=1), D of the input type (fp32 with -DOUT_FLOAT=1). B_KMAJOR, BIAS and ACT are #defined
// like for the tuned kernel. A block of 256 threads computes a 64 x 64 tile of D, each thread 4 x 4 of it
// (rows ty + 16 i, columns tx + 16 j), from 16-deep slices of A and B staged in shared memory as fp32;
// elements past M, N and K are zeros. Grid (cdiv(N, 64), cdiv(M, 64)).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#if defined(BF16) && BF16
typedef __nv_bfloat16 elem;
__device__ __forceinline__ float to_float(elem x) { return __bfloat162float(x); }
#else
typedef half elem;
__device__ __forceinline__ float to_float(elem x) { return __half2float(x); }
#endif
#if defined(OUT_FLOAT) && OUT_FLOAT
typedef float out_t;
#else
typedef elem out_t;
#endif

#ifndef B_KMAJOR
static_assert(false, "B_KMAJOR (0: B is [K, N]; 1: B is [N, K]) must be #defined");
#endif
#ifndef BIAS
static_assert(false, "BIAS (0 or 1) must be #defined");
#endif
#ifndef ACT
static_assert(false, "ACT (0 none, 1 ReLU, 2 GELU) must be #defined");
#endif

constexpr int TILE = 64;
constexpr int SLICE = 16;

extern "C" __global__ void __launch_bounds__(256)
    gemm_ref(const elem* __restrict__ A, const elem* __restrict__ B, const elem* __restrict__ bias,
             out_t* __restrict__ D, int M, int N, int K) {
  __shared__ float a_slice[SLICE][TILE];  // [k][row]
  __shared__ float b_slice[SLICE][TILE];  // [k][column]
  const int tx = threadIdx.x % 16;
  const int ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * TILE;
  const int col0 = blockIdx.x * TILE;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += SLICE) {
    for (int i = threadIdx.x; i < TILE * SLICE; i += 256) {
      const int r = i / SLICE, k = i % SLICE;  // consecutive threads: consecutive k of one row of A
      const bool in = row0 + r < M && k0 + k < K;
      a_slice[k][r] = in ? to_float(A[static_cast<long long>(row0 + r) * K + k0 + k]) : 0.0f;
    }
    for (int i = threadIdx.x; i < TILE * SLICE; i += 256) {
#if B_KMAJOR
      const int c = i / SLICE, k = i % SLICE;
      const bool in = col0 + c < N && k0 + k < K;
      b_slice[k][c] = in ? to_float(B[static_cast<long long>(col0 + c) * K + k0 + k]) : 0.0f;
#else
      const int k = i / TILE, c = i % TILE;
      const bool in = col0 + c < N && k0 + k < K;
      b_slice[k][c] = in ? to_float(B[static_cast<long long>(k0 + k) * N + col0 + c]) : 0.0f;
#endif
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < SLICE; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = a_slice[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = b_slice[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int row = row0 + ty + 16 * i, col = col0 + tx + 16 * j;
      if (row >= M || col >= N) continue;
      float value = acc[i][j];
      if (BIAS) value += to_float(bias[col]);
      if (ACT == 1) value = fmaxf(value, 0.0f);
      if (ACT == 2) value = 0.5f * value * (1.0f + erff(value * 0.70710678118654752f));
      D[static_cast<long long>(row) * N + col] = static_cast<out_t>(value);
    }
}
