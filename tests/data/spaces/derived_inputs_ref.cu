// Reference of the derived-inputs space: y - 2 x is 1 wherever y was derived as 2 x + 1.
extern "C" __global__ void derived_inputs_ref(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}
