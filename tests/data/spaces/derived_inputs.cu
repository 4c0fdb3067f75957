// out = y - 2 x: 1 wherever y = 2 x + 1, as the space's DerivedInputs kernel (derived_inputs_derive.cu)
// computes it from x after every fill. MODE 1 is a planted fault: it also overwrites its input y.
static_assert(MODE == 0 || MODE == 1, "MODE is 0 (correct) or 1 (writes into its derived input)");

extern "C" __global__ void derived_inputs(const float* x, const float* y, float* out, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i >= n) return;
  out[i] = y[i] - 2.0f * x[i];
#if MODE == 1
  const_cast<float*>(y)[i] = out[i];  // y was 2 x + 1; now about 1
#endif
}
