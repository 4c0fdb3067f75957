// out = a * x. MODE 0 writes each element once; MODE 1 and 2 (the same code) sum each element from four warps
// with float atomics in whatever order they run, so the rounding, and the bits, change from launch to launch.
// The space's Validation.Deterministic ("MODE != 2") decides which of them must repeat bit for bit.
static_assert(MODE >= 0 && MODE <= 2, "MODE is 0 (plain), 1 or 2 (order-dependent atomics)");
static_assert(BLOCK % 128 == 0, "four warps share each block's elements");

extern "C" __global__ void deterministic_expression(const float* x, float* out, int n, float a) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
#if MODE == 0
  if (i < n) out[i] = a * x[i];
#else
  // Element t of a block gets four shares of a * x[t], each added by a thread of another warp into one shared
  // float; a clock-seeded delay per warp changes the order of the adds from launch to launch.
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
#endif
}
