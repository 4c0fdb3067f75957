// Reference attention backward, float64 on CUDA cores: dQ, dK, dV of O = softmax(Q K^T * scale) V from Q, K,
// V, O, dO and the forward's log-sum-exps LSE (natural log), as a function of those inputs (whatever O and
// LSE hold):
//   P_ij = exp(scale q_i . k_j - LSE_i) where query i sees key j, else 0;  Dsum_i = dO_i . O_i
//   dP_ij = dO_i . v_j;  dS_ij = P_ij (dP_ij - Dsum_i)
//   dQ_i = scale sum_j dS_ij k_j;  dK_j = scale sum_{h, i} dS_ij q_i;  dV_j = sum_{h, i} P_ij dO_i
// with dK and dV summed over the query heads h of the key's group. Q, O, dO, dQ: fp16 [B, H, S, D], K, V, dK,
// dV: [B, HKV, SKV, D] (bf16 when the space compiles with -DBF16=1), LSE: float [B, H, S]; query head h reads
// K/V head h / (H / HKV); causal is aligned to the bottom right (query i sees keys j <= i + SKV - S). D and
// CAUSAL are #defined like for the tuned kernel.
//
// One warp per output row, REF_ROWS rows per block, 256 threads, static shared memory only, a 1-D grid of
// cdiv(S, REF_ROWS) * H * B query blocks (dQ rows) followed by cdiv(SKV, REF_ROWS) * HKV * B key blocks (dK
// and dV rows). A query block's warps walk the keys in chunks of 32, one a lane (the lane computes its key's
// dot products in float64); a key block's warps walk the query rows of every head of the group in chunks of
// 32, one a lane, with each chunk's LSE and Dsum (recomputed from O and dO) staged in float64. Each lane
// accumulates D / 32 output columns in float64. O(S * SKV * D) work in all.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#if defined(BF16) && BF16
typedef __nv_bfloat16 elem;
__device__ __forceinline__ float to_float(elem x) { return __bfloat162float(x); }
__device__ __forceinline__ elem from_double(double x) { return __float2bfloat16(static_cast<float>(x)); }
#else
typedef half elem;
__device__ __forceinline__ float to_float(elem x) { return __half2float(x); }
__device__ __forceinline__ elem from_double(double x) { return __float2half(static_cast<float>(x)); }
#endif

#ifndef D
static_assert(false, "D (head dimension) must be #defined");
#endif
#ifndef CAUSAL
static_assert(false, "CAUSAL (0 or 1) must be #defined");
#endif
static_assert(D % 32 == 0, "each lane owns D / 32 output columns");

constexpr int REF_ROWS = 8;  // warps (output rows) per block
constexpr int CHUNK = 32;    // keys (or query rows) per shared-memory chunk, one per lane
constexpr int COLUMNS = D / 32;

__device__ __forceinline__ double warp_sum(double x) {
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

// The block's shared memory: a chunk of 32 rows of two inputs (K and V, or Q and dO), each warp's own row of
// two inputs (q and dO, or k and v), and (key blocks) the chunk's LSE and Dsum.
struct RefShared {
  float a[CHUNK][D + 1];  // +1: lanes read different rows without bank conflicts
  float b[CHUNK][D + 1];
  float own_a[REF_ROWS][D];
  float own_b[REF_ROWS][D];
  double lse[CHUNK];
  double dsum[CHUNK];
};

// dQ of query row `row` (one warp): every key it sees, 32 at a time.
__device__ void query_rows(RefShared& sh, const elem* Q, const elem* K, const elem* V, const elem* O,
                           const elem* dO, const float* LSE, elem* dQ, int S, int SKV, long long head,
                           long long kv_head, long long bh, int row_block, float scale) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = row_block * REF_ROWS + warp;
  const bool active = row < S;
  const int causal_offset = SKV - S;  // query i sees keys up to i + SKV - S
  const int last_row = min(S, (row_block + 1) * REF_ROWS) - 1;
  const int key_end = CAUSAL ? min(SKV, last_row + 1 + causal_offset) : SKV;
  const long long row_offset = head + static_cast<long long>(row) * D;

  double dsum = 0.0;
  for (int d = lane; d < D; d += 32) {
    sh.own_a[warp][d] = active ? to_float(Q[row_offset + d]) : 0.0f;
    sh.own_b[warp][d] = active ? to_float(dO[row_offset + d]) : 0.0f;
    if (active) dsum += static_cast<double>(to_float(dO[row_offset + d])) * to_float(O[row_offset + d]);
  }
  dsum = warp_sum(dsum);
  const double lse = active ? static_cast<double>(LSE[bh * S + row]) : 0.0;

  double acc[COLUMNS];
  for (int c = 0; c < COLUMNS; ++c) acc[c] = 0.0;
  for (int k0 = 0; k0 < key_end; k0 += CHUNK) {
    __syncthreads();
    for (int e = threadIdx.x; e < CHUNK * D; e += blockDim.x) {
      const int j = e / D, d = e % D;
      const bool in = k0 + j < SKV;
      const long long g = kv_head + static_cast<long long>(k0 + j) * D + d;
      sh.a[j][d] = in ? to_float(K[g]) : 0.0f;
      sh.b[j][d] = in ? to_float(V[g]) : 0.0f;
    }
    __syncthreads();
    const int key = k0 + lane;
    double s = 0.0, dp = 0.0;
    for (int d = 0; d < D; ++d) {
      s += static_cast<double>(sh.own_a[warp][d]) * sh.a[lane][d];
      dp += static_cast<double>(sh.own_b[warp][d]) * sh.b[lane][d];
    }
    const bool seen = active && key < SKV && (!CAUSAL || key <= row + causal_offset);
    const double ds = seen ? exp(scale * s - lse) * (dp - dsum) : 0.0;
    for (int j = 0; j < CHUNK; ++j) {
      const double ds_j = __shfl_sync(0xffffffffu, ds, j);
      for (int c = 0; c < COLUMNS; ++c) acc[c] += ds_j * sh.a[j][lane + 32 * c];
    }
  }
  if (active)
    for (int c = 0; c < COLUMNS; ++c) dQ[row_offset + lane + 32 * c] = from_double(scale * acc[c]);
}

// dK and dV of key `key` (one warp) of K/V head kv_bh: the query rows of every head of its group that see it,
// 32 at a time.
__device__ void key_rows(RefShared& sh, const elem* Q, const elem* K, const elem* V, const elem* O,
                         const elem* dO, const float* LSE, elem* dK, elem* dV, int H, int HKV, int S, int SKV,
                         int batch, int kv_head_index, int key_block, float scale) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int key = key_block * REF_ROWS + warp;
  const bool active = key < SKV;
  const int causal_offset = SKV - S;
  const int group = H / HKV;
  const long long kv_offset =
      (static_cast<long long>(batch) * HKV + kv_head_index) * SKV * D + static_cast<long long>(key) * D;
  for (int d = lane; d < D; d += 32) {
    sh.own_a[warp][d] = active ? to_float(K[kv_offset + d]) : 0.0f;
    sh.own_b[warp][d] = active ? to_float(V[kv_offset + d]) : 0.0f;
  }
  // Query i sees the block's first key iff i >= first key - (SKV - S); later keys are seen from later rows.
  const int first_row = CAUSAL ? max(0, key_block * REF_ROWS - causal_offset) : 0;

  double dk[COLUMNS], dv[COLUMNS];
  for (int c = 0; c < COLUMNS; ++c) dk[c] = dv[c] = 0.0;
  for (int h = kv_head_index * group; h < (kv_head_index + 1) * group; ++h) {
    const long long bh = static_cast<long long>(batch) * H + h;
    const long long head = bh * S * D;
    for (int i0 = first_row; i0 < S; i0 += CHUNK) {
      __syncthreads();
      for (int e = threadIdx.x; e < CHUNK * D; e += blockDim.x) {
        const int i = e / D, d = e % D;
        const bool in = i0 + i < S;
        const long long g = head + static_cast<long long>(i0 + i) * D + d;
        sh.a[i][d] = in ? to_float(Q[g]) : 0.0f;
        sh.b[i][d] = in ? to_float(dO[g]) : 0.0f;
      }
      for (int i = warp; i < CHUNK; i += REF_ROWS) {  // each warp the Dsum of every REF_ROWS-th row
        const bool in = i0 + i < S;
        double sum = 0.0;
        if (in)
          for (int d = lane; d < D; d += 32) {
            const long long g = head + static_cast<long long>(i0 + i) * D + d;
            sum += static_cast<double>(to_float(dO[g])) * to_float(O[g]);
          }
        sum = warp_sum(sum);
        if (lane == 0) {
          sh.dsum[i] = sum;
          sh.lse[i] = in ? static_cast<double>(LSE[bh * S + i0 + i]) : 0.0;
        }
      }
      __syncthreads();
      const int row = i0 + lane;
      double s = 0.0, dp = 0.0;
      for (int d = 0; d < D; ++d) {
        s += static_cast<double>(sh.own_a[warp][d]) * sh.a[lane][d];
        dp += static_cast<double>(sh.own_b[warp][d]) * sh.b[lane][d];
      }
      const bool seen = active && row < S && (!CAUSAL || key <= row + causal_offset);
      const double p = seen ? exp(scale * s - sh.lse[lane]) : 0.0;
      const double ds = p * (dp - sh.dsum[lane]);
      for (int i = 0; i < CHUNK; ++i) {
        const double p_i = __shfl_sync(0xffffffffu, p, i);
        const double ds_i = __shfl_sync(0xffffffffu, ds, i);
        for (int c = 0; c < COLUMNS; ++c) {
          dv[c] += p_i * sh.b[i][lane + 32 * c];
          dk[c] += ds_i * sh.a[i][lane + 32 * c];
        }
      }
    }
  }
  if (active)
    for (int c = 0; c < COLUMNS; ++c) {
      dK[kv_offset + lane + 32 * c] = from_double(scale * dk[c]);
      dV[kv_offset + lane + 32 * c] = from_double(dv[c]);
    }
}

extern "C" __global__ void __launch_bounds__(32 * REF_ROWS)
    flash_attn_bwd_ref(const elem* Q, const elem* K, const elem* V, const elem* O, const elem* dO,
                       const float* LSE, elem* dQ, elem* dK, elem* dV, int B, int H, int HKV, int S, int SKV,
                       float scale) {
  __shared__ RefShared sh;
  const int query_blocks_a_head = (S + REF_ROWS - 1) / REF_ROWS;
  const long long query_blocks = static_cast<long long>(query_blocks_a_head) * H * B;
  const long long block = blockIdx.x;
  if (block < query_blocks) {
    const int row_block = static_cast<int>(block % query_blocks_a_head);
    const long long bh = block / query_blocks_a_head;  // batch * H + head
    const long long kv_bh = bh / H * HKV + bh % H / (H / HKV);
    query_rows(sh, Q, K, V, O, dO, LSE, dQ, S, SKV, bh * S * D, kv_bh * SKV * D, bh, row_block, scale);
  } else {
    const int key_blocks_a_head = (SKV + REF_ROWS - 1) / REF_ROWS;
    const long long index = block - query_blocks;
    const int key_block = static_cast<int>(index % key_blocks_a_head);
    const long long kv_bh = index / key_blocks_a_head;
    key_rows(sh, Q, K, V, O, dO, LSE, dK, dV, H, HKV, S, SKV, static_cast<int>(kv_bh / HKV),
             static_cast<int>(kv_bh % HKV), key_block, scale);
  }
}
