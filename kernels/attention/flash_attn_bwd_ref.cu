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
// BLOCK_ROWS (32) output rows per block, WARP_ROWS (4) a warp, 256 threads, a 1-D grid of cdiv(S, 32) * H * B
// query blocks (dQ rows) followed by cdiv(SKV, 32) * HKV * B key blocks (dK and dV rows), and
// REF_SMEM_BYTES (1024 D + 17920) of dynamic shared memory (the space's Reference.SharedMemory). A query
// block's warps walk the keys in chunks of 32, one a lane; a key block's warps walk the query rows of every
// head of the group in chunks of 32, one a lane, with each chunk's LSE and Dsum (recomputed from O and dO).
// The block's own rows and each chunk are staged in shared memory as float64 (the 16-bit inputs exactly), so
// the loops are float64 multiply-adds only: each lane computes its chunk row's dot products with the warp's
// four rows, then every lane accumulates D / 32 output columns of the warp's rows over the chunk, reading the
// chunk's P and dS from shared memory. O(S * SKV * D) work in all; each element of a chunk read from shared
// memory serves four rows.
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

constexpr int REF_WARPS = 8;
constexpr int WARP_ROWS = 4;                       // output rows per warp
constexpr int BLOCK_ROWS = REF_WARPS * WARP_ROWS;  // output rows per block
constexpr int CHUNK = 32;  // keys (or query rows) per shared-memory chunk, one per lane
constexpr int COLUMNS = D / 32;
// Doubles between a chunk's rows: D + 2 keeps them 16 bytes aligned for double2 reads, and 8 lanes reading 16
// bytes each at the same column hit 8 distinct groups of 4 banks.
constexpr int CHUNK_STRIDE = D + 2;

__device__ __forceinline__ double warp_sum(double x) {
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

// The block's shared memory: a chunk of 32 rows of two inputs (K and V, or Q and dO), the block's own rows of
// two inputs (q and dO, or k and v), each warp's P and dS of its rows against the chunk, and (key blocks) the
// chunk's LSE and Dsum.
struct RefShared {
  double chunk_a[CHUNK][CHUNK_STRIDE];
  double chunk_b[CHUNK][CHUNK_STRIDE];
  double own_a[BLOCK_ROWS][D];
  double own_b[BLOCK_ROWS][D];
  double2 p_ds[REF_WARPS][WARP_ROWS][CHUNK];  // (P, dS) of the warp's row r and the chunk's row j
  double lse[CHUNK];
  double dsum[CHUNK];
};
constexpr int REF_SMEM_BYTES = 1024 * D + 17920;
static_assert(sizeof(RefShared) == REF_SMEM_BYTES, "Reference.SharedMemory in the space is 1024 * D + 17920");

// Rows first .. first + count - 1 of a [rows][D] matrix (rows from `limit` on as zeros) into `tile` as
// doubles.
template <int ROWS, int STRIDE>
__device__ __forceinline__ void stage(double (*tile)[STRIDE], const elem* matrix, int first, int limit) {
  for (int e = threadIdx.x; e < ROWS * D; e += blockDim.x) {
    const int i = e / D, d = e % D;
    tile[i][d] = first + i < limit ? to_float(matrix[static_cast<long long>(first + i) * D + d]) : 0.0;
  }
}

// The dot products of the warp's rows with the lane's chunk row: s[r] = own_a[r] . chunk_a[lane], dp[r] =
// own_b[r] . chunk_b[lane], in float64, d in order.
__device__ __forceinline__ void dot_products(const RefShared& sh, int warp, int lane, double (&s)[WARP_ROWS],
                                             double (&dp)[WARP_ROWS]) {
  for (int r = 0; r < WARP_ROWS; ++r) s[r] = dp[r] = 0.0;
  for (int d = 0; d < D; d += 2) {
    const double2 a = *reinterpret_cast<const double2*>(&sh.chunk_a[lane][d]);
    const double2 b = *reinterpret_cast<const double2*>(&sh.chunk_b[lane][d]);
#pragma unroll
    for (int r = 0; r < WARP_ROWS; ++r) {
      const double2 own_a = *reinterpret_cast<const double2*>(&sh.own_a[warp * WARP_ROWS + r][d]);
      const double2 own_b = *reinterpret_cast<const double2*>(&sh.own_b[warp * WARP_ROWS + r][d]);
      s[r] = fma(own_a.y, a.y, fma(own_a.x, a.x, s[r]));
      dp[r] = fma(own_b.y, b.y, fma(own_b.x, b.x, dp[r]));
    }
  }
}

// dQ of the query rows of block `row_block` of head bh: every key they see, 32 at a time.
__device__ void query_rows(RefShared& sh, const elem* Q, const elem* K, const elem* V, const elem* O,
                           const elem* dO, const float* LSE, elem* dQ, int S, int SKV, long long head,
                           long long kv_head, long long bh, int row_block, float scale) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int first = row_block * BLOCK_ROWS;
  const int causal_offset = SKV - S;  // query i sees keys up to i + SKV - S
  const int last_row = min(S, first + BLOCK_ROWS) - 1;
  const int key_end = CAUSAL ? min(SKV, last_row + 1 + causal_offset) : SKV;
  stage<BLOCK_ROWS, D>(sh.own_a, Q + head, first, S);
  stage<BLOCK_ROWS, D>(sh.own_b, dO + head, first, S);

  int row[WARP_ROWS];
  double lse[WARP_ROWS], dsum[WARP_ROWS], acc[WARP_ROWS][COLUMNS];
  for (int r = 0; r < WARP_ROWS; ++r) {
    row[r] = first + warp * WARP_ROWS + r;
    const long long row_offset = head + static_cast<long long>(row[r]) * D;
    double sum = 0.0;
    if (row[r] < S)
      for (int d = lane; d < D; d += 32)
        sum += static_cast<double>(to_float(dO[row_offset + d])) * to_float(O[row_offset + d]);
    dsum[r] = warp_sum(sum);
    lse[r] = row[r] < S ? static_cast<double>(LSE[bh * S + row[r]]) : 0.0;
    for (int c = 0; c < COLUMNS; ++c) acc[r][c] = 0.0;
  }

  for (int k0 = 0; k0 < key_end; k0 += CHUNK) {
    __syncthreads();  // every warp is done with the last chunk
    stage<CHUNK, CHUNK_STRIDE>(sh.chunk_a, K + kv_head, k0, SKV);
    stage<CHUNK, CHUNK_STRIDE>(sh.chunk_b, V + kv_head, k0, SKV);
    __syncthreads();
    double s[WARP_ROWS], dp[WARP_ROWS];
    dot_products(sh, warp, lane, s, dp);
    const int key = k0 + lane;
    for (int r = 0; r < WARP_ROWS; ++r) {
      const bool seen = row[r] < S && key < SKV && (!CAUSAL || key <= row[r] + causal_offset);
      const double ds = seen ? exp(scale * s[r] - lse[r]) * (dp[r] - dsum[r]) : 0.0;
      sh.p_ds[warp][r][lane] = make_double2(0.0, ds);
    }
    __syncwarp();
    for (int j = 0; j < CHUNK; ++j)
#pragma unroll
      for (int c = 0; c < COLUMNS; ++c) {
        const double k = sh.chunk_a[j][lane + 32 * c];
#pragma unroll
        for (int r = 0; r < WARP_ROWS; ++r) acc[r][c] = fma(sh.p_ds[warp][r][j].y, k, acc[r][c]);
      }
  }
  for (int r = 0; r < WARP_ROWS; ++r)
    if (row[r] < S)
      for (int c = 0; c < COLUMNS; ++c)
        dQ[head + static_cast<long long>(row[r]) * D + lane + 32 * c] = from_double(scale * acc[r][c]);
}

// dK and dV of the keys of block `key_block` of K/V head kv_head_index: the query rows of every head of its
// group that see them, 32 at a time.
__device__ void key_rows(RefShared& sh, const elem* Q, const elem* K, const elem* V, const elem* O,
                         const elem* dO, const float* LSE, elem* dK, elem* dV, int H, int HKV, int S, int SKV,
                         int batch, int kv_head_index, int key_block, float scale) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int first = key_block * BLOCK_ROWS;
  const int causal_offset = SKV - S;
  const int group = H / HKV;
  const long long kv_head = (static_cast<long long>(batch) * HKV + kv_head_index) * SKV * D;
  stage<BLOCK_ROWS, D>(sh.own_a, K + kv_head, first, SKV);
  stage<BLOCK_ROWS, D>(sh.own_b, V + kv_head, first, SKV);
  // Query i sees the block's first key iff i >= first key - (SKV - S); later keys are seen from later rows.
  const int first_row = CAUSAL ? max(0, first - causal_offset) : 0;

  int key[WARP_ROWS];
  double dk[WARP_ROWS][COLUMNS], dv[WARP_ROWS][COLUMNS];
  for (int r = 0; r < WARP_ROWS; ++r) {
    key[r] = first + warp * WARP_ROWS + r;
    for (int c = 0; c < COLUMNS; ++c) dk[r][c] = dv[r][c] = 0.0;
  }
  for (int h = kv_head_index * group; h < (kv_head_index + 1) * group; ++h) {
    const long long bh = static_cast<long long>(batch) * H + h;
    const long long head = bh * S * D;
    for (int i0 = first_row; i0 < S; i0 += CHUNK) {
      __syncthreads();  // every warp is done with the last chunk
      stage<CHUNK, CHUNK_STRIDE>(sh.chunk_a, Q + head, i0, S);
      stage<CHUNK, CHUNK_STRIDE>(sh.chunk_b, dO + head, i0, S);
      for (int i = warp; i < CHUNK; i += REF_WARPS) {  // each warp the Dsum of every REF_WARPS-th row
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
      double s[WARP_ROWS], dp[WARP_ROWS];
      dot_products(sh, warp, lane, s, dp);
      const int row = i0 + lane;
      for (int r = 0; r < WARP_ROWS; ++r) {
        const bool seen = key[r] < SKV && row < S && (!CAUSAL || key[r] <= row + causal_offset);
        const double p = seen ? exp(scale * s[r] - sh.lse[lane]) : 0.0;
        sh.p_ds[warp][r][lane] = make_double2(p, p * (dp[r] - sh.dsum[lane]));
      }
      __syncwarp();
      for (int i = 0; i < CHUNK; ++i)
#pragma unroll
        for (int c = 0; c < COLUMNS; ++c) {
          const double q = sh.chunk_a[i][lane + 32 * c];
          const double d_o = sh.chunk_b[i][lane + 32 * c];
#pragma unroll
          for (int r = 0; r < WARP_ROWS; ++r) {
            const double2 p_ds = sh.p_ds[warp][r][i];
            dv[r][c] = fma(p_ds.x, d_o, dv[r][c]);
            dk[r][c] = fma(p_ds.y, q, dk[r][c]);
          }
        }
    }
  }
  for (int r = 0; r < WARP_ROWS; ++r)
    if (key[r] < SKV)
      for (int c = 0; c < COLUMNS; ++c) {
        const long long offset = kv_head + static_cast<long long>(key[r]) * D + lane + 32 * c;
        dK[offset] = from_double(scale * dk[r][c]);
        dV[offset] = from_double(dv[r][c]);
      }
}

extern "C" __global__ void __launch_bounds__(32 * REF_WARPS, 1)
    flash_attn_bwd_ref(const elem* Q, const elem* K, const elem* V, const elem* O, const elem* dO,
                       const float* LSE, elem* dQ, elem* dK, elem* dV, int B, int H, int HKV, int S, int SKV,
                       float scale) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  {
    unsigned dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < sizeof(RefShared)) __trap();  // less than the layout: no overrun
  }
  RefShared& sh = *reinterpret_cast<RefShared*>(smem_raw);
  const int query_blocks_a_head = (S + BLOCK_ROWS - 1) / BLOCK_ROWS;
  const long long query_blocks = static_cast<long long>(query_blocks_a_head) * H * B;
  const long long block = blockIdx.x;
  if (block < query_blocks) {
    const int row_block = static_cast<int>(block % query_blocks_a_head);
    const long long bh = block / query_blocks_a_head;  // batch * H + head
    const long long kv_bh = bh / H * HKV + bh % H / (H / HKV);
    query_rows(sh, Q, K, V, O, dO, LSE, dQ, S, SKV, bh * S * D, kv_bh * SKV * D, bh, row_block, scale);
  } else {
    const int key_blocks_a_head = (SKV + BLOCK_ROWS - 1) / BLOCK_ROWS;
    const long long index = block - query_blocks;
    const int key_block = static_cast<int>(index % key_blocks_a_head);
    const long long kv_bh = index / key_blocks_a_head;
    key_rows(sh, Q, K, V, O, dO, LSE, dK, dV, H, HKV, S, SKV, static_cast<int>(kv_bh / HKV),
             static_cast<int>(kv_bh % HKV), key_block, scale);
  }
}
