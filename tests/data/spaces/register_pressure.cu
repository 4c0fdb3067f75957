// out[t] = sum over i of x[(t + 97 i) % n] * x[(t + 97 (LIVE - 1 - i)) % n]: LIVE values loaded before any
// is used, all live at once. Compiled with --maxrregcount 16 (the space's CompilerOptions), LIVE = 4 fits the
// registers and LIVE = 64 spills: what `evotune check` reports. No __launch_bounds__, which would override
// --maxrregcount.
extern "C" __global__ void register_pressure(const float* __restrict__ x, float* __restrict__ out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float v[LIVE];
#pragma unroll
  for (int i = 0; i < LIVE; ++i) v[i] = x[(t + 97 * i) % n];
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < LIVE; ++i) sum += v[i] * v[LIVE - 1 - i];
  out[t] = sum;
}
