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
//   13    correct, and also writes out[n], one element past the end     out_of_bounds
//   14    correct, and also writes out[-1], one element before it      out_of_bounds
//   15    correct, and also overwrites its input x                     wrong_result (wrote into input)
//   16    sums each element from four warps with float atomics in
//         whatever order they run: right within tolerance, but the
//         bits differ from launch to launch                            nondeterministic
//   17    reads a neighbour warp's shared-memory staging without a
//         barrier (the writer dawdles): right only where it won the race
//                                                                       wrong_result or nondeterministic
//   18    computes once, then replays its first result from a device
//         array on every later launch: right until the inputs change   wrong_result (second round)
//   19    returns at once and leaves the work to a child grid;
//         evotune links no device runtime, so such a kernel cannot
//         be built, let alone hide work from the timing                 compile_error
//   20    handles whole blocks only: right while N is a multiple of
//         BLOCK; the space's extra problem N + 1 leaves one unwritten   nan (at N + 1)
static_assert(FAULT >= 0 && FAULT <= 20, "FAULT must be one of the values documented above");
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

#if FAULT == 19
__global__ void deferred(const float* x, float* out, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i];
}
#endif

#if FAULT == 18
__device__ float replayed[1 << 20];
__device__ unsigned blocks_done;
#endif

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
#elif FAULT == 13
  if (i < n) out[i] = a * x[i];
  if (i == 0) out[n] = 0.0f;
#elif FAULT == 14
  if (i < n) out[i] = a * x[i];
  if (i == 0) out[-1] = 0.0f;
#elif FAULT == 15
  if (i < n) {
    out[i] = a * x[i];
    const_cast<float*>(x)[i] = 0.0f;
  }
#elif FAULT == 16
  // Element t of a block gets four shares of a * x[t], each added by a thread of another warp into one shared
  // float; a clock-seeded delay per warp changes the order of the adds, so the rounding, from launch to
  // launch.
  __shared__ float sums[BLOCK];
  sums[threadIdx.x] = 0.0f;
  __syncthreads();
  const long long start = clock64();
  const unsigned mixed = (static_cast<unsigned>(start) ^ (threadIdx.x / 32 * 40503u)) * 2654435761u;
  while (clock64() - start < (mixed >> 21)) {
  }
  const float shares[4] = {0.7f, 1e-3f, 0.3f, -1e-3f};  // adding up to 1
  for (int k = 0; k < 4; ++k) {
    const int t = (threadIdx.x + k * (BLOCK / 4)) % BLOCK;
    const int e = blockIdx.x * BLOCK + t;
    if (e < n) atomicAdd(&sums[t], a * x[e] * shares[k]);
  }
  __syncthreads();
  if (i < n) out[i] = sums[threadIdx.x];
#elif FAULT == 17
  __shared__ float staged[BLOCK];
  if (threadIdx.x / 32 % 2 == 1) {  // odd warps dawdle before they stage their elements
    const long long start = clock64();
    while (clock64() - start < 2000 * (blockIdx.x % 8)) {
    }
  }
  if (i < n) staged[threadIdx.x] = x[i];
  // Missing __syncthreads(): each thread publishes its partner warp's element.
  const int partner = threadIdx.x ^ 32;
  const int j = blockIdx.x * blockDim.x + partner;
  if (j < n) out[j] = a * staged[partner];
#elif FAULT == 18
  // The first launch computes and keeps its result; a later one (all of the first launch's blocks have
  // counted themselves done by then, and each block reads the count before adding itself) returns the kept
  // result.
  const bool replay = *static_cast<volatile unsigned*>(&blocks_done) >= gridDim.x;
  if (i < n && i < (1 << 20)) {
    if (!replay) replayed[i] = a * x[i];
    out[i] = replayed[i];
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&blocks_done, 1u);
#elif FAULT == 19
  // Returns at once and leaves the work to a child grid (a device-side launch; the device runtime's own
  // streams, cudaStreamCreateWithFlags and the fire-and-forget stream, are not even declared without it).
  // clang-format off
  if (i == 0) deferred<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, out, n, a);
    // clang-format on
#elif FAULT == 20
  if (i < n / BLOCK * BLOCK) out[i] = a * x[i];
#endif
}
