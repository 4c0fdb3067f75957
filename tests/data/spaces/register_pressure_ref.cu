// Reference of register_pressure.cu: one pair of values at a time.
extern "C" __global__ void register_pressure_ref(const float* __restrict__ x, float* __restrict__ out, int n,
                                                 int live) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float sum = 0.0f;
  for (int i = 0; i < live; ++i) sum += x[(t + 97 * i) % n] * x[(t + 97 * (live - 1 - i)) % n];
  out[t] = sum;
}
