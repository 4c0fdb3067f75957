// Row sums of x [rows][cols] (fp32): the multi-launch test template. SPLITS = 1: row_sum, one block per row,
// writes out. SPLITS > 1: row_sum_part (grid SPLITS x rows) writes each split's partial sum of a row to the
// scratch buffer partial [SPLITS][rows], and row_sum_combine (one thread per row) adds them into out.
// BLOCK threads per block of the first two; #defined by the tuner with SPLITS.
#ifndef BLOCK
static_assert(false, "BLOCK must be #defined");
#endif
#ifndef SPLITS
static_assert(false, "SPLITS must be #defined");
#endif
// ROW_SUM_FAULT, for tests only (row_sum_fault_*.cu define it and include this file): 1 = row_sum_part leaves
// split 1's partial sums unwritten; 2 = row_sum_part also writes one float past the end of `partial`.
#ifndef ROW_SUM_FAULT
#define ROW_SUM_FAULT 0
#endif
static_assert(BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0,
              "BLOCK must be a power of two, 32..1024");

// The sum of x[begin, end) over the block's threads; every thread gets it.
__device__ float block_sum(const float* x, int begin, int end) {
  __shared__ float partial[BLOCK];
  float sum = 0.0f;
  for (int i = begin + threadIdx.x; i < end; i += BLOCK) sum += x[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  return partial[0];
}

extern "C" __global__ void __launch_bounds__(BLOCK) row_sum(const float* x, float* out, int rows, int cols) {
  const long long row = blockIdx.x;
  if (row >= rows) return;
  const float sum = block_sum(x + row * cols, 0, cols);
  if (threadIdx.x == 0) out[row] = sum;
}

// Split s of a row sums columns [s * chunk, min(cols, (s + 1) * chunk)), chunk = cdiv(cols, SPLITS); an empty
// split writes 0.
extern "C" __global__ void __launch_bounds__(BLOCK)
    row_sum_part(const float* x, float* partial, int rows, int cols) {
  const int split = blockIdx.x;
  const long long row = blockIdx.y;
  if (row >= rows || (ROW_SUM_FAULT == 1 && split == 1)) return;
  const int chunk = (cols + SPLITS - 1) / SPLITS;
  const int begin = min(cols, split * chunk);
  const int end = min(cols, begin + chunk);
  const float sum = block_sum(x + row * cols, begin, end);
  if (threadIdx.x == 0) partial[static_cast<long long>(split) * rows + row] = sum;
  if (ROW_SUM_FAULT == 2 && threadIdx.x == 0 && split == 0 && row == 0)
    partial[SPLITS * static_cast<long long>(rows)] = sum;
}

extern "C" __global__ void row_sum_combine(const float* partial, float* out, int rows) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int s = 0; s < SPLITS; ++s) sum += partial[s * static_cast<long long>(rows) + row];
  out[row] = sum;
}
