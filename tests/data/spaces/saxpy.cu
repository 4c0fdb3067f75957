// saxpy template (y = a * x + y): each thread updates ITEMS consecutive elements; VECTOR uses float4
// accesses. BLOCK, ITEMS, VECTOR (tuning parameters) and ALIGN (compile-time size) arrive as #define lines.
static_assert(!VECTOR || ITEMS % 4 == 0, "float4 accesses need ITEMS to be a multiple of 4");

extern "C" __global__ void __launch_bounds__(BLOCK)
    saxpy(const float* __restrict__ x, float* __restrict__ y, int n, float a) {
  const int base = (blockIdx.x * BLOCK + threadIdx.x) * ITEMS;
#if VECTOR
  if (ALIGN % 4 == 0 && base + ITEMS <= n) {
#pragma unroll
    for (int i = 0; i < ITEMS; i += 4) {
      const float4 xv = *reinterpret_cast<const float4*>(x + base + i);
      float4 yv = *reinterpret_cast<float4*>(y + base + i);
      yv.x = a * xv.x + yv.x;
      yv.y = a * xv.y + yv.y;
      yv.z = a * xv.z + yv.z;
      yv.w = a * xv.w + yv.w;
      *reinterpret_cast<float4*>(y + base + i) = yv;
    }
    return;
  }
#endif
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
    if (base + i < n) y[base + i] = a * x[base + i] + y[base + i];
}
