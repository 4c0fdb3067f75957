// Reference attention forward, O = softmax(Q K^T * scale) V and each row's log-sum-exp LSE, in float64 on
// CUDA cores, with grouped K/V heads and key lengths of their own: the same function as
// flash_attn_grouped_ref.cu (which the forward spaces keep as their reference, so that their stored versions
// stay), four query rows a warp, for the backward spaces' DerivedInputs, which run it before every set of
// inputs.
//
// Q, O: fp16 [B, H, S, D], K, V: [B, HKV, SKV, D] (bf16 when the space compiles with -DBF16=1), contiguous, D
// fastest; query head h reads K/V head h / (H / HKV). Causal is aligned to the bottom right: query i sees
// keys j <= i + SKV - S. LSE: fp32 [B, H, S], LSE[b, h, i] = ln sum_j e^(scale q_i . k_j) over the keys row i
// sees (natural log); a row that sees no key has O = 0 and LSE = 0. D and CAUSAL are #defined like for the
// tuned kernel.
//
// BLOCK_ROWS (32) query rows a block, WARP_ROWS (4) a warp: grid (cdiv(S, 32), H, B), 256 threads,
// REF_SMEM_BYTES (768 D + 9216) of dynamic shared memory (the space's DerivedInputs.SharedMemory). The
// block's rows of Q and each chunk of 32 keys of K and V are staged in shared memory as float64 (the 16-bit
// inputs exactly); each lane computes its key's dot products with the warp's four rows, the warp updates each
// row's running max and sum (online softmax), and every lane accumulates D / 32 output columns of the four
// rows over the chunk, reading the chunk's P from shared memory; all in float64, O and LSE rounded once, when
// stored.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#if defined(BF16) && BF16
typedef __nv_bfloat16 elem;
__device__ __forceinline__ float to_float(elem x) { return __bfloat162float(x); }
__device__ __forceinline__ elem from_float(float x) { return __float2bfloat16(x); }
#else
typedef half elem;
__device__ __forceinline__ float to_float(elem x) { return __half2float(x); }
__device__ __forceinline__ elem from_float(float x) { return __float2half(x); }
#endif

#ifndef D
static_assert(false, "D (head dimension) must be #defined");
#endif
#ifndef CAUSAL
static_assert(false, "CAUSAL (0 or 1) must be #defined");
#endif
static_assert(D % 32 == 0, "each lane owns D / 32 output columns");

constexpr int REF_WARPS = 8;
constexpr int WARP_ROWS = 4;                       // query rows per warp
constexpr int BLOCK_ROWS = REF_WARPS * WARP_ROWS;  // query rows per block
constexpr int CHUNK = 32;                          // keys per shared-memory chunk, one per lane
constexpr int COLUMNS = D / 32;
// Doubles between a chunk's rows: D + 2 keeps them 16 bytes aligned for double2 reads, and 8 lanes reading 16
// bytes each at the same column hit 8 distinct groups of 4 banks.
constexpr int CHUNK_STRIDE = D + 2;

struct RefShared {
  double k[CHUNK][CHUNK_STRIDE];
  double v[CHUNK][CHUNK_STRIDE];
  double q[BLOCK_ROWS][D];
  double p[REF_WARPS][WARP_ROWS][CHUNK];  // P of the warp's row r and the chunk's key j (unnormalised)
};
constexpr int REF_SMEM_BYTES = 768 * D + 9216;
static_assert(sizeof(RefShared) == REF_SMEM_BYTES,
              "DerivedInputs.SharedMemory in the space is 768 * D + 9216");

// Rows first .. first + count - 1 of a [rows][D] matrix (rows from `limit` on as zeros) into `tile` as
// doubles.
template <int ROWS, int STRIDE>
__device__ __forceinline__ void stage(double (*tile)[STRIDE], const elem* matrix, int first, int limit) {
  for (int e = threadIdx.x; e < ROWS * D; e += blockDim.x) {
    const int i = e / D, d = e % D;
    tile[i][d] = first + i < limit ? to_float(matrix[static_cast<long long>(first + i) * D + d]) : 0.0;
  }
}

extern "C" __global__ void __launch_bounds__(32 * REF_WARPS, 1)
    flash_attn_ref_blocked(const elem* Q, const elem* K, const elem* V, elem* O, float* LSE, int B, int H,
                           int HKV, int S, int SKV, float scale) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  {
    unsigned dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < sizeof(RefShared)) __trap();  // less than the layout: no overrun
  }
  RefShared& sh = *reinterpret_cast<RefShared*>(smem_raw);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int first = blockIdx.x * BLOCK_ROWS;
  const long long bh = static_cast<long long>(blockIdx.z) * H + blockIdx.y;
  const long long head = bh * S * D;
  const long long kv_head = (static_cast<long long>(blockIdx.z) * HKV + blockIdx.y / (H / HKV)) * SKV * D;
  const int last_row = min(S, first + BLOCK_ROWS) - 1;
  const int causal_offset = SKV - S;  // query i sees keys up to i + SKV - S
  const int key_end = CAUSAL ? min(SKV, last_row + 1 + causal_offset) : SKV;
  const double inf = 1.0 / 0.0;
  stage<BLOCK_ROWS, D>(sh.q, Q + head, first, S);

  int row[WARP_ROWS];
  double m[WARP_ROWS], l[WARP_ROWS], acc[WARP_ROWS][COLUMNS];
  for (int r = 0; r < WARP_ROWS; ++r) {
    row[r] = first + warp * WARP_ROWS + r;
    m[r] = -inf;
    l[r] = 0.0;
    for (int c = 0; c < COLUMNS; ++c) acc[r][c] = 0.0;
  }

  for (int k0 = 0; k0 < key_end; k0 += CHUNK) {
    __syncthreads();  // every warp is done with the last chunk
    stage<CHUNK, CHUNK_STRIDE>(sh.k, K + kv_head, k0, SKV);
    stage<CHUNK, CHUNK_STRIDE>(sh.v, V + kv_head, k0, SKV);
    __syncthreads();
    double s[WARP_ROWS];
    for (int r = 0; r < WARP_ROWS; ++r) s[r] = 0.0;
    for (int d = 0; d < D; d += 2) {
      const double2 k = *reinterpret_cast<const double2*>(&sh.k[lane][d]);
#pragma unroll
      for (int r = 0; r < WARP_ROWS; ++r) {
        const double2 q = *reinterpret_cast<const double2*>(&sh.q[warp * WARP_ROWS + r][d]);
        s[r] = fma(q.y, k.y, fma(q.x, k.x, s[r]));
      }
    }
    const int key = k0 + lane;
    double corr[WARP_ROWS];
    for (int r = 0; r < WARP_ROWS; ++r) {
      const bool valid = row[r] < S && key < SKV && (!CAUSAL || key <= row[r] + causal_offset);
      const double score = valid ? s[r] * scale : -inf;
      double chunk_max = score;
      for (int offset = 16; offset > 0; offset >>= 1)
        chunk_max = fmax(chunk_max, __shfl_xor_sync(0xffffffffu, chunk_max, offset));
      const double m_new = fmax(m[r], chunk_max);
      // Every key so far masked: nothing to add (P 0, the row's state unchanged).
      const double p = valid ? exp(score - m_new) : 0.0;
      corr[r] = m_new == -inf ? 1.0 : exp(m[r] - m_new);
      double p_sum = p;
      for (int offset = 16; offset > 0; offset >>= 1) p_sum += __shfl_xor_sync(0xffffffffu, p_sum, offset);
      if (m_new != -inf) {
        l[r] = l[r] * corr[r] + p_sum;
        m[r] = m_new;
      }
      sh.p[warp][r][lane] = p;
    }
    __syncwarp();
#pragma unroll
    for (int c = 0; c < COLUMNS; ++c)
      for (int r = 0; r < WARP_ROWS; ++r) acc[r][c] *= corr[r];
    for (int j = 0; j < CHUNK; ++j)
#pragma unroll
      for (int c = 0; c < COLUMNS; ++c) {
        const double v = sh.v[j][lane + 32 * c];
#pragma unroll
        for (int r = 0; r < WARP_ROWS; ++r) acc[r][c] = fma(sh.p[warp][r][j], v, acc[r][c]);
      }
  }
  for (int r = 0; r < WARP_ROWS; ++r) {
    if (row[r] >= S) continue;
    for (int c = 0; c < COLUMNS; ++c)
      O[head + static_cast<long long>(row[r]) * D + lane + 32 * c] =
          from_float(static_cast<float>(l[r] > 0.0 ? acc[r][c] / l[r] : 0.0));
    if (lane == 0) LSE[bh * S + row[r]] = l[r] > 0.0 ? static_cast<float>(m[r] + log(l[r])) : 0.0f;
  }
}
