// Reference decode attention over a KV cache (contiguous or paged): the exact softmax in float64.
//
// The problem of decode_attn.cu, written the plain way: q, o [B, HQ, SQ, D], HQ = G * hkv; k_cache, v_cache
// [B, skv, hkv, D] (PAGED = 0) or [pages, PAGE, hkv, D] through block_table [B, cdiv(skv, PAGE)] (PAGED = 1);
// cache_seqlens [B], clamped to [0, skv]; query i of SQ sees keys j < L - SQ + 1 + i (CAUSAL) or j < L; a
// query that sees no key gets 0. G, SQ, D, CAUSAL, PAGED and PAGE are #defined like for the tuned kernel.
//
// One block of 8 warps per query row (grid B * HQ * SQ); warp w takes keys w, w + 8, ..., its lanes the
// columns lane, lane + 32, ... (coalesced reads of a key's row). Two passes over the row's keys: the largest
// score, then the sum of exp(score - max) and the weighted sum of V, every product and sum in double; the
// warps' partial sums are added in warp order, so the output does not depend on timing.
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

constexpr int REF_WARPS = 8;
constexpr int COLUMNS = D / 32;  // columns per lane
static_assert(D % 32 == 0, "each lane owns D / 32 columns");

__device__ double warp_sum(double x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

extern "C" __global__ void __launch_bounds__(32 * REF_WARPS)
    decode_attn_ref(const elem* q, const elem* k_cache, const elem* v_cache, const int* cache_seqlens,
                    const int* block_table, elem* o, int hkv, int skv, float scale) {
  __shared__ double warp_max[REF_WARPS];
  __shared__ double warp_total[REF_WARPS];
  __shared__ double warp_acc[REF_WARPS][D];

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
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
  double q_lane[COLUMNS];
  for (int c = 0; c < COLUMNS; ++c) q_lane[c] = to_double(q[row * D + lane + 32 * c]);
  auto score = [&](int j) {
    const elem* k = k_cache + key_offset(j);
    double dot = 0.0;
    for (int c = 0; c < COLUMNS; ++c) dot += q_lane[c] * to_double(k[lane + 32 * c]);
    return warp_sum(dot) * static_cast<double>(scale);
  };

  double m = NEG_INF;
  for (int j = warp; j < limit; j += REF_WARPS) m = fmax(m, score(j));
  if (lane == 0) warp_max[warp] = m;
  __syncthreads();
  double row_max = NEG_INF;
  for (int w = 0; w < REF_WARPS; ++w) row_max = fmax(row_max, warp_max[w]);

  double total = 0.0;
  double acc[COLUMNS];
  for (int c = 0; c < COLUMNS; ++c) acc[c] = 0.0;
  for (int j = warp; j < limit; j += REF_WARPS) {
    const double p = exp(score(j) - row_max);
    total += p;
    const elem* v = v_cache + key_offset(j);
    for (int c = 0; c < COLUMNS; ++c) acc[c] += p * to_double(v[lane + 32 * c]);
  }
  if (lane == 0) warp_total[warp] = total;
  for (int c = 0; c < COLUMNS; ++c) warp_acc[warp][lane + 32 * c] = acc[c];
  __syncthreads();
  if (threadIdx.x < D) {
    double out = 0.0, sum = 0.0;
    for (int w = 0; w < REF_WARPS; ++w) {
      out += warp_acc[w][threadIdx.x];
      sum += warp_total[w];
    }
    o[row * D + threadIdx.x] = from_double(limit > 0 ? out / sum : 0.0);
  }
}
