// A 5-point 2-D stencil on a WIDTH x HEIGHT grid: each thread computes TILE_Y points down one column; the
// border keeps the input's values. A header: T1 kernel files need not be .cu.
#ifndef BLOCK_X
#define BLOCK_X 32
#endif
#ifndef BLOCK_Y
#define BLOCK_Y 4
#endif
#ifndef TILE_Y
#define TILE_Y 1
#endif

extern "C" __global__ void stencil(float* grid_out, const float* grid_in, int width, int height) {
  const int x = blockIdx.x * BLOCK_X + threadIdx.x;
  const int y0 = (blockIdx.y * BLOCK_Y + threadIdx.y) * TILE_Y;
  if (x >= width) return;
#pragma unroll
  for (int t = 0; t < TILE_Y; ++t) {
    const int y = y0 + t;
    if (y >= height) return;
    const int i = y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
      grid_out[i] = grid_in[i];
    } else {
      grid_out[i] = 0.5f * grid_in[i] +
                    0.125f * (grid_in[i - 1] + grid_in[i + 1] + grid_in[i - width] + grid_in[i + width]);
    }
  }
}
