// Reference attention forward with grouped K/V heads and key lengths of their own, O = softmax(Q K^T * scale)
// V and each row's log-sum-exp LSE, plain fp64 arithmetic on CUDA cores. flash_attn_ref.cu is O alone, in
// fp32, at HKV = H, SKV = S, kept as it was so that the spaces that use it keep their stored versions; a
// space moves here when its template takes HKV and SKV and writes LSE.
//
// Q, O: fp16 [B, H, S, D], K, V: [B, HKV, SKV, D] (bf16 when the space compiles with -DBF16=1), contiguous, D
// fastest; query head h reads K/V head h / (H / HKV). Causal is aligned to the bottom right: query i sees
// keys j <= i + SKV - S. LSE: fp32 [B, H, S], LSE[b, h, i] = ln sum_j e^(scale q_i . k_j) over the keys row i
// sees (natural log); a row that sees no key has O = 0 and LSE = 0. D and CAUSAL are #defined like for the
// tuned kernel. One warp per query row, REF_ROWS rows per block: grid (cdiv(S, 8), H, B), block 256 threads,
// static shared memory only. Keys go through shared memory (as fp32, which holds the 16-bit inputs exactly)
// in chunks of 32 (one per lane): each lane computes one full dot product, the warp updates the running max
// and sum (online softmax) and every lane accumulates D / 32 output columns, all in fp64; O and LSE are
// rounded once, when stored.
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

constexpr int REF_ROWS = 8;  // warps (query rows) per block
constexpr int CHUNK = 32;    // keys per shared-memory chunk, one per lane

extern "C" __global__ void __launch_bounds__(32 * REF_ROWS)
    flash_attn_grouped_ref(const elem* Q, const elem* K, const elem* V, elem* O, float* LSE, int B, int H,
                           int HKV, int S, int SKV, float scale) {
  __shared__ float k_s[CHUNK][D + 1];  // +1: lanes read different rows without bank conflicts
  __shared__ float v_s[CHUNK][D];
  __shared__ float q_s[REF_ROWS][D];

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int row = blockIdx.x * REF_ROWS + warp;
  const bool active = row < S;
  const long long bh = static_cast<long long>(blockIdx.z) * H + blockIdx.y;
  const long long head = bh * S * D;
  const long long kv_head = (static_cast<long long>(blockIdx.z) * HKV + blockIdx.y / (H / HKV)) * SKV * D;
  const int last_row = min(S, (blockIdx.x + 1) * REF_ROWS) - 1;
  const int causal_offset = SKV - S;  // query i sees keys up to i + SKV - S
  const int key_end = CAUSAL ? min(SKV, last_row + 1 + causal_offset) : SKV;
  const double inf = 1.0 / 0.0;

  for (int d = lane; d < D; d += 32)
    q_s[warp][d] = active ? to_float(Q[head + static_cast<long long>(row) * D + d]) : 0.0f;

  double m = -inf;
  double l = 0.0;
  double acc[D / 32];
  for (int c = 0; c < D / 32; ++c) acc[c] = 0.0;

  for (int k0 = 0; k0 < key_end; k0 += CHUNK) {
    __syncthreads();
    for (int e = threadIdx.x; e < CHUNK * D; e += blockDim.x) {
      const int j = e / D, d = e % D;
      const bool in = k0 + j < SKV;
      const long long g = kv_head + static_cast<long long>(k0 + j) * D + d;
      k_s[j][d] = in ? to_float(K[g]) : 0.0f;
      v_s[j][d] = in ? to_float(V[g]) : 0.0f;
    }
    __syncthreads();
    if (!active) continue;

    const int key = k0 + lane;
    double s = 0.0;
    for (int d = 0; d < D; ++d) s += static_cast<double>(q_s[warp][d]) * k_s[lane][d];
    s *= scale;
    const bool valid = key < SKV && (!CAUSAL || key <= row + causal_offset);
    if (!valid) s = -inf;

    double chunk_max = s;
    for (int off = 16; off > 0; off >>= 1)
      chunk_max = fmax(chunk_max, __shfl_xor_sync(0xffffffffu, chunk_max, off));
    const double m_new = fmax(m, chunk_max);
    if (m_new == -inf) continue;  // every key so far masked: nothing to add
    const double p = valid ? exp(s - m_new) : 0.0;
    const double corr = exp(m - m_new);
    double p_sum = p;
    for (int off = 16; off > 0; off >>= 1) p_sum += __shfl_xor_sync(0xffffffffu, p_sum, off);
    l = l * corr + p_sum;
    m = m_new;
    for (int c = 0; c < D / 32; ++c) {
      double o = acc[c] * corr;
      for (int j = 0; j < CHUNK; ++j) o += __shfl_sync(0xffffffffu, p, j) * v_s[j][lane + 32 * c];
      acc[c] = o;
    }
  }
  if (!active) return;
  for (int c = 0; c < D / 32; ++c)
    O[head + static_cast<long long>(row) * D + lane + 32 * c] =
        from_float(static_cast<float>(l > 0.0 ? acc[c] / l : 0.0));
  if (lane == 0) LSE[bh * S + row] = l > 0.0 ? static_cast<float>(m + log(l)) : 0.0f;
}
