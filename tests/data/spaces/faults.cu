// Fault-injection template (out = a * x): FAULT picks a correct kernel or one that fails on purpose.
// FAULT, VEC and BLOCK (tuning parameters) arrive as #define lines; faults.json launches each FAULT as noted.
//
//  FAULT  what the kernel does                                          expected status
//    0    VEC consecutive elements per thread (float4 when VEC == 4)   ok
//    1    the same as a grid-stride loop over 4 blocks per SM          ok
//    2    initialises a float* from a float: a type error              compile_error
//    3    stages x in dynamic shared memory; the launch asks for
//         twice the per-block maximum                                  resource_error
//    4    correct, but launched with blocks of twice the device's
//         maximum thread count                                         resource_error
//    5    stores through a wild pointer (an address made up from an
//         integer, no allocation there)                                launch_error (illegal address)
//    6    float4 loads from x + 1, which is only 4-byte aligned       launch_error (misaligned address)
//    7    stores 2^36 elements (256 GiB) past the end of out           launch_error (illegal address)
//    8    warp 0 waits for warp 1's flag, warp 1 for warp 0's          timeout (deadlock)
//    9    spins until x[i] > 1; x is filled in [-1, 1]                 timeout (endless loop)
//   10    out = a * x + 0.5                                            wrong_result
//   11    leaves every 8th element unwritten (stays NaN-poisoned)      nan
//   12    writes NaN into every 8th element                            nan
static_assert(FAULT >= 0 && FAULT <= 12, "FAULT must be one of the values documented above");
static_assert(VEC == 1 || VEC == 4, "VEC is 1 (scalar) or 4 (float4) elements per thread");
static_assert(FAULT <= 1 || VEC == 1, "the faulty kernels handle one element per thread");
static_assert(BLOCK % 32 == 0 && BLOCK >= 64, "the deadlock needs a whole producer warp and a consumer warp");

// out[item * VEC ...] = a * x[...] for VEC consecutive elements: one float4 access when VEC == 4.
__device__ __forceinline__ void scale_item(const float* __restrict__ x, float* __restrict__ out, int item,
                                           int n, float a) {
  const int first = item * VEC;
#if VEC == 4
  if (first + 4 <= n) {
    const float4 v = reinterpret_cast<const float4*>(x)[item];
    reinterpret_cast<float4*>(out)[item] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
    return;
  }
#endif
  for (int k = first; k < n && k < first + VEC; ++k) out[k] = a * x[k];
}

extern "C" __global__ void faults(const float* __restrict__ x, float* __restrict__ out, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
#if FAULT == 0
  scale_item(x, out, i, n, a);
#elif FAULT == 1
  for (int item = i; item * VEC < n; item += gridDim.x * blockDim.x) scale_item(x, out, item, n, a);
#elif FAULT == 2
  float* scaled = a * x[i];
  if (i < n) out[i] = *scaled;
#elif FAULT == 3
  extern __shared__ float staged[];
  if (i < n) {
    staged[threadIdx.x] = x[i];
    out[i] = a * staged[threadIdx.x];
  }
#elif FAULT == 4
  if (i < n) out[i] = a * x[i];
#elif FAULT == 5
  // Above the 47-bit user space a UVA process can mirror, and a global store: no shared or local window.
  float* const wild = reinterpret_cast<float*>(0xdead00000000ull);
  if (i < n) __stcg(wild + i, a * x[i]);
#elif FAULT == 6
  const float4* const shifted = reinterpret_cast<const float4*>(x + 1);
  if (i < n / 4 - 1) {
    const float4 v = shifted[i];
    out[i] = a * (v.x + v.y + v.z + v.w);
  }
#elif FAULT == 7
  if (i < n) out[i + (1LL << 36)] = a * x[i];
#elif FAULT == 8
  __shared__ volatile int produced, acknowledged;
  if (threadIdx.x == 0) {
    produced = 0;
    acknowledged = 0;
  }
  __syncthreads();
  if (threadIdx.x / 32 == 0) {
    while (acknowledged == 0) {
    }
    produced = 1;
  } else if (threadIdx.x / 32 == 1) {
    while (produced == 0) {
    }
    acknowledged = 1;
  }
  __syncthreads();
  if (i < n) out[i] = a * x[i];
#elif FAULT == 9
  // Volatile: every pass reads memory again, so the compiler may not assume the loop ends.
  const volatile float* const watched = x;
  if (i < n) {
    while (watched[i] <= 1.0f) {
    }
    out[i] = a * x[i];
  }
#elif FAULT == 10
  if (i < n) out[i] = a * x[i] + 0.5f;
#elif FAULT == 11
  if (i < n && i % 8 != 0) out[i] = a * x[i];
#elif FAULT == 12
  if (i < n) out[i] = i % 8 == 0 ? __int_as_float(0x7fc00000) : a * x[i];
#endif
}
