// Reference decode attention over a KV cache (contiguous or paged): the exact softmax in float64.
//
// The problem of decode_attn.cu, written the plain way: q, o [B, HQ, SQ, D], HQ = G * hkv; k_cache, v_cache
// [B, skv, hkv, D] (PAGED = 0) or [pages, PAGE, hkv, D] through block_table [B, cdiv(skv, PAGE)] (PAGED = 1);
// cache_seqlens [B], clamped to [0, skv]; query i of SQ sees keys j < L - SQ + 1 + i (CAUSAL) or j < L; a
// query that sees no key gets 0. G, SQ, D, CAUSAL, PAGED and PAGE are #defined like for the tuned kernel.
//
// One block of 256 threads per query row (grid B * HQ * SQ), two passes over the row's keys: the largest
// score, then the sum of exp(score - max) and the weighted sum of V, every product and sum in double; the
// partial sums are added in a fixed order, so the output does not depend on timing.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#if defined(BF16) && BF16
typedef __nv_bfloat16 elem;
__device__ __forceinline__ double to_double(elem x) { return static_cast<double>(__bfloat162float(x)); }
__device__ __forceinline__ elem from_double(double x) { return __double2bfloat16(x); }
#else
typedef half elem;
__device__ __forceinline__ double to_double(elem x) { return static_cast<double>(__half2float(x)); }
__device__ __forceinline__ elem from_double(double x) { return __double2half(x); }
#endif

#if !defined(D) || !defined(G) || !defined(SQ) || !defined(CAUSAL) || !defined(PAGED) || !defined(PAGE)
static_assert(false, "D, G, SQ, CAUSAL, PAGED and PAGE must be #defined");
#endif

#define NEG_INF (-__longlong_as_double(0x7ff0000000000000LL))  // -inf, without <cmath>

constexpr int REF_THREADS = 256;
constexpr int PARTS = REF_THREADS / D;  // threads per output column in the second pass
static_assert(REF_THREADS % D == 0, "the block's threads cover the columns a whole number of times");

__device__ double block_reduce(double x, double* scratch, bool take_max) {
  scratch[threadIdx.x] = x;
  __syncthreads();
  for (int stride = REF_THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      const double other = scratch[threadIdx.x + stride];
      scratch[threadIdx.x] = take_max ? fmax(scratch[threadIdx.x], other) : scratch[threadIdx.x] + other;
    }
    __syncthreads();
  }
  const double result = scratch[0];
  __syncthreads();
  return result;
}

extern "C" __global__ void __launch_bounds__(REF_THREADS)
    decode_attn_ref(const elem* q, const elem* k_cache, const elem* v_cache, const int* cache_seqlens,
                    const int* block_table, elem* o, int hkv, int skv, float scale) {
  __shared__ double q_s[D];
  __shared__ double p_s[REF_THREADS];
  __shared__ double scratch[REF_THREADS];

  const long long row = blockIdx.x;  // (b * HQ + head) * SQ + i
  const int hq = G * hkv;
  const int i = static_cast<int>(row % SQ);
  const int head = static_cast<int>((row / SQ) % hq);
  const int b = static_cast<int>(row / (static_cast<long long>(SQ) * hq));
  const int h = head / G;
  const int length = min(max(cache_seqlens[b], 0), skv);
  const int limit = CAUSAL ? length - SQ + 1 + i : length;
  const int max_pages = (skv + PAGE - 1) / PAGE;

  auto key_offset = [&](int j) {
    const long long key_row =
        PAGED ? static_cast<long long>(block_table[static_cast<long long>(b) * max_pages + j / PAGE]) * PAGE +
                    j % PAGE
              : static_cast<long long>(b) * skv + j;
    return (key_row * hkv + h) * D;
  };
  auto score = [&](int j) {
    const elem* k = k_cache + key_offset(j);
    double dot = 0.0;
    for (int d = 0; d < D; ++d) dot += q_s[d] * to_double(k[d]);
    return dot * static_cast<double>(scale);
  };

  for (int d = threadIdx.x; d < D; d += REF_THREADS) q_s[d] = to_double(q[row * D + d]);
  __syncthreads();

  double local_max = NEG_INF;
  for (int j = threadIdx.x; j < limit; j += REF_THREADS) local_max = fmax(local_max, score(j));
  const double row_max = block_reduce(local_max, scratch, true);

  double local_sum = 0.0;
  double acc = 0.0;  // column threadIdx.x % D over keys of this thread's part
  const int column = threadIdx.x % D, part = threadIdx.x / D;
  for (int j0 = 0; j0 < limit; j0 += REF_THREADS) {
    const int j = j0 + threadIdx.x;
    const double p = j < limit ? exp(score(j) - row_max) : 0.0;
    p_s[threadIdx.x] = p;
    local_sum += p;
    __syncthreads();
    for (int jj = part; jj < REF_THREADS && j0 + jj < limit; jj += PARTS)
      acc += p_s[jj] * to_double(v_cache[key_offset(j0 + jj) + column]);
    __syncthreads();
  }
  const double sum = block_reduce(local_sum, scratch, false);
  scratch[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x < D) {
    double out = 0.0;
    for (int k = 0; k < PARTS; ++k) out += scratch[k * D + threadIdx.x];
    o[row * D + threadIdx.x] = from_double(limit > 0 ? out / sum : 0.0);
  }
}
