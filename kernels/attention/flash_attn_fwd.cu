// FlashAttention-style forward pass, O = softmax(Q K^T * scale) V, on WMMA tensor cores.
//
// Q, K, V, O: fp16 [B, H, S, D], contiguous, D fastest. Grid (cdiv(S, BLOCK_M), H, B); block =
// 32 * (WARPS + WARP_SPEC) threads; dynamic shared memory = SMEM_BYTES below (the search space's
// SMEM_BYTES expression must equal it; a launch with less traps instead of overrunning).
//
// Each consumer warp owns ROWS_PER_WARP = BLOCK_M / WARPS whole query rows (16-row WMMA tiles).
// Per K/V tile of BLOCK_N keys and per 16-row tile the warp computes the scores Q K^T in fp32
// accumulator fragments, runs the online softmax in fp32 (running max and sum per row; scores
// scaled by scale * log2(e), exponentiated with ex2.approx; the accumulators rescaled by
// exp2(m_old - m_new)), writes the probabilities P to shared memory as fp16 and accumulates
// P V into fp32 accumulator fragments that stay in registers for the whole kernel. Columns >= S
// and (CAUSAL) keys after the query get -inf; K/V tiles entirely after a warp's rows are skipped.
// The warp learns the (opaque) accumulator layout once by loading a tile whose entries encode
// their own row and column; the epilogue uses it to stage the fp16 output in shared memory.
//
// Tuning parameters (#defined by the tuner, never here):
//   BLOCK_M    query rows per block          BLOCK_N  keys per K/V tile
//   WARPS      consumer (compute) warps      PAD      shared-memory row padding, in elements
//   STAGES     K/V ring depth; 1 = plain synchronous loads (WARP_SPEC=0), else cp.async
//   WARP_SPEC  1 = one extra producer warp fills the STAGES-deep K/V ring with cp.async while the
//              consumer warps compute; stages are handed over with named barriers, "full" (producer
//              arrives, consumers sync) and "empty" (consumers arrive, producer syncs); the producer
//              also syncs on the last STAGES "empty" phases so that no barrier is left half-arrived.
//              STAGES=1 is valid: a single buffer, so loads and compute alternate.
//   P_FP32     1 = the score tile goes to shared memory as fp32; the softmax runs there (8 lanes per
//                  row, row statistics in shared memory) and writes fp16 P to a separate tile.
//              0 = P is written as fp16 directly: the softmax runs on the accumulator fragments
//                  (row reductions by quad shuffles, statistics in registers), no fp32 tile. This
//                  relies on the sm_80+ WMMA accumulator layout, checked at start (see acc_row).
//   Problem sizes: D (head dimension, 64 or 128), CAUSAL (1 = key j > query i is masked).
//
// Shared memory layout (bytes; each region's size is a multiple of 256, so every region stays
// aligned for WMMA, which needs 32):
//   Q  [BLOCK_M][D+PAD] half         (also the layout probe's scratch, and the output staging)
//   K  [STAGES][BLOCK_N][D+PAD] half,  V  [STAGES][BLOCK_N][D+PAD] half
//   P  [BLOCK_M][BLOCK_N+PAD] half   (per warp: its ROWS_PER_WARP rows)
//   only with P_FP32 = 1: S [BLOCK_M][BLOCK_N+PAD] float, then row scale, max, sum [BLOCK_M] float
#include <cuda_fp16.h>
#include <mma.h>

#ifndef D
static_assert(false, "D (head dimension) must be #defined");
#endif
#ifndef CAUSAL
static_assert(false, "CAUSAL (0 or 1) must be #defined");
#endif
#ifndef BLOCK_M
static_assert(false, "BLOCK_M must be #defined");
#endif
#ifndef BLOCK_N
static_assert(false, "BLOCK_N must be #defined");
#endif
#ifndef WARPS
static_assert(false, "WARPS must be #defined");
#endif
#ifndef PAD
static_assert(false, "PAD must be #defined");
#endif
#ifndef STAGES
static_assert(false, "STAGES must be #defined");
#endif
#ifndef WARP_SPEC
static_assert(false, "WARP_SPEC must be #defined");
#endif
#ifndef P_FP32
static_assert(false, "P_FP32 must be #defined");
#endif

using namespace nvcuda;

constexpr int ROWS_PER_WARP = BLOCK_M / WARPS;
constexpr int M_TILES = ROWS_PER_WARP / 16;  // 16-row WMMA tiles per warp
constexpr int N_TILES = BLOCK_N / 16;
constexpr int D_TILES = D / 16;
constexpr int THREADS = 32 * (WARPS + WARP_SPEC);
constexpr int LDQ = D + PAD;        // Q, K, V, staged O row stride (halves)
constexpr int LDS = BLOCK_N + PAD;  // fp32 score tile row stride (floats)
constexpr int LDP = BLOCK_N + PAD;  // fp16 probability tile row stride (halves)
constexpr int SOFTMAX_LANES = 8;    // P_FP32 = 1: lanes sharing one row in the softmax
constexpr int SOFTMAX_ROWS = 32 / SOFTMAX_LANES;
constexpr int COLS_PER_LANE = BLOCK_N / SOFTMAX_LANES;
constexpr int ROW_PASSES = ROWS_PER_WARP / SOFTMAX_ROWS;

constexpr int Q_BYTES = BLOCK_M * LDQ * 2;
constexpr int KV_STAGE_BYTES = BLOCK_N * LDQ * 2;
constexpr int P_BYTES = BLOCK_M * LDP * 2;
constexpr int S_BYTES = P_FP32 ? BLOCK_M * LDS * 4 : 0;
constexpr int STATS_BYTES = P_FP32 ? 3 * BLOCK_M * 4 : 0;
constexpr int SMEM_BYTES = Q_BYTES + 2 * STAGES * KV_STAGE_BYTES + P_BYTES + S_BYTES + STATS_BYTES;
// = 2*(D+PAD)*(BLOCK_M + 2*STAGES*BLOCK_N) + BLOCK_M*(BLOCK_N+PAD)*(2 + 4*P_FP32) + 12*BLOCK_M*P_FP32

static_assert(D % 16 == 0, "D must be a multiple of 16 (WMMA k and n tiles)");
static_assert(BLOCK_M % (16 * WARPS) == 0, "BLOCK_M must be a multiple of 16 * WARPS");
static_assert(BLOCK_N % 16 == 0, "BLOCK_N must be a multiple of 16");
static_assert(PAD % 8 == 0, "PAD must keep rows 16-byte aligned (multiple of 8 halves)");
static_assert(STAGES >= 1 && STAGES <= 7, "STAGES must leave named barrier ids for the ring");
static_assert(WARP_SPEC == 0 || WARP_SPEC == 1, "WARP_SPEC is 0 or 1");
static_assert(P_FP32 == 0 || P_FP32 == 1, "P_FP32 is 0 or 1");
static_assert(THREADS <= 1024, "at most 1024 threads per block");
static_assert(ROWS_PER_WARP % SOFTMAX_ROWS == 0, "softmax row passes must cover the warp's rows");
static_assert(ROWS_PER_WARP * LDQ * 2 >= 256 * 4,
              "the layout probe's 16x16 fp32 tile fits the warp's Q rows");
static_assert(Q_BYTES % 256 == 0 && KV_STAGE_BYTES % 256 == 0 && P_BYTES % 256 == 0 && S_BYTES % 256 == 0,
              "shared-memory regions must stay 256-byte aligned for WMMA");

using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>;
using FragKt = wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major>;
using FragV = wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major>;
using FragAcc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
constexpr int ACC_ELEMS = FragAcc::num_elements;
static_assert(ACC_ELEMS == 8, "an m16n16k16 fp32 accumulator fragment holds 8 elements per lane");

__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

// 2^x with the hardware approximation (ex2.approx.ftz: relative error ~2^-22, 2^-inf = 0).
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ void cp_async16(half* dst, const half* src, bool valid) {
  unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void bar_sync(int id, int count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// Copies rows [row0, row0 + ROWS) of one head's [S][D] matrix into shared [ROWS][LDQ] with
// 16-byte accesses spread over NTHREADS threads; rows >= S are zero-filled.
template <int ROWS, int NTHREADS, bool ASYNC>
__device__ __forceinline__ void load_rows(half* dst, const half* head, int row0, int S, int tid) {
  constexpr int CHUNKS_PER_ROW = D / 8;
  constexpr int CHUNKS = ROWS * CHUNKS_PER_ROW;
#pragma unroll
  for (int i = 0; i < (CHUNKS + NTHREADS - 1) / NTHREADS; ++i) {
    const int c = tid + i * NTHREADS;
    if (CHUNKS % NTHREADS == 0 || c < CHUNKS) {
      const int r = c / CHUNKS_PER_ROW;
      const int col = (c % CHUNKS_PER_ROW) * 8;
      const bool valid = row0 + r < S;
      const half* src = head + static_cast<long long>(valid ? row0 + r : 0) * D + col;
      half* to = dst + r * LDQ + col;
      if (ASYNC) {
        cp_async16(to, src, valid);
      } else {
        *reinterpret_cast<uint4*>(to) = valid ? *reinterpret_cast<const uint4*>(src) : make_uint4(0, 0, 0, 0);
      }
    }
  }
}

// The accumulator layout of WMMA m16n16k16 on sm_80 and newer (that of two mma.m16n8k16 tiles):
// element i of lane l sits at row l/4 + 8*((i/2)%2), column 2*(l%4) + i%2 + 8*(i/4). Only the
// P_FP32 = 0 path relies on it (to reduce rows with quad shuffles); the kernel checks it against
// the probed layout at start and traps rather than compute garbage if it ever differs.
__device__ __forceinline__ int acc_row(int lane, int i) { return lane / 4 + 8 * ((i / 2) % 2); }
__device__ __forceinline__ int acc_col(int lane, int i) { return 2 * (lane % 4) + i % 2 + 8 * (i / 4); }

// Per-warp state of the online softmax: accumulators and running row statistics.
struct WarpState {
  FragAcc o[M_TILES][D_TILES];
  int rc[ACC_ELEMS];          // row * 16 + col of each accumulator element inside its 16x16 tile
  float row_max[M_TILES][2];  // P_FP32 = 0: rows acc_row(lane, 0) and acc_row(lane, 2)
  float row_sum[M_TILES][2];
};

// s[n] = Q rows [16m, 16m + 16) of this warp times K tile rows [16n, 16n + 16), transposed.
__device__ __forceinline__ void qk_scores(FragAcc (&s)[N_TILES], const half* q_rows, const half* k_s) {
  FragA qa[D_TILES];
#pragma unroll
  for (int k = 0; k < D_TILES; ++k) wmma::load_matrix_sync(qa[k], q_rows + k * 16, LDQ);
#pragma unroll
  for (int n = 0; n < N_TILES; ++n) {
    wmma::fill_fragment(s[n], 0.0f);
#pragma unroll
    for (int k = 0; k < D_TILES; ++k) {
      FragKt kb;
      wmma::load_matrix_sync(kb, k_s + n * 16 * LDQ + k * 16, LDQ);
      wmma::mma_sync(s[n], qa[k], kb, s[n]);
    }
  }
}

// o += P rows [16m, 16m + 16) (fp16, shared) times the V tile.
__device__ __forceinline__ void accumulate_pv(FragAcc (&o)[D_TILES], const half* p_rows, const half* v_s) {
#pragma unroll
  for (int n = 0; n < N_TILES; ++n) {
    FragA pa;
    wmma::load_matrix_sync(pa, p_rows + n * 16, LDP);
#pragma unroll
    for (int d = 0; d < D_TILES; ++d) {
      FragV vb;
      wmma::load_matrix_sync(vb, v_s + n * 16 * LDQ + d * 16, LDQ);
      wmma::mma_sync(o[d], pa, vb, o[d]);
    }
  }
}

// P_FP32 = 0: scores stay in accumulator fragments; row max and sum use quad shuffles; the fp16
// probabilities go straight from registers to the P tile.
__device__ __forceinline__ void consume_tile_regs(WarpState& st, const half* q_w, const half* k_s,
                                                  const half* v_s, half* p_w, int lane, int q_row0, int kv0,
                                                  int S, float scale_log2) {
  const bool need_mask = kv0 + BLOCK_N > S || (CAUSAL && kv0 + BLOCK_N - 1 > q_row0);
#pragma unroll
  for (int m = 0; m < M_TILES; ++m) {
    FragAcc s[N_TILES];
    qk_scores(s, q_w + m * 16 * LDQ, k_s);
    float mx[2] = {neg_inf(), neg_inf()};
#pragma unroll
    for (int n = 0; n < N_TILES; ++n)
#pragma unroll
      for (int i = 0; i < ACC_ELEMS; ++i) {
        const int col = kv0 + n * 16 + acc_col(lane, i);
        if (need_mask && (col >= S || (CAUSAL && col > q_row0 + m * 16 + acc_row(lane, i))))
          s[n].x[i] = neg_inf();
        mx[(i / 2) % 2] = fmaxf(mx[(i / 2) % 2], s[n].x[i]);
      }
    float m_ref[2], alpha[2], sum[2] = {0.0f, 0.0f};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
      const float m_new = fmaxf(st.row_max[m][h], mx[h] * scale_log2);  // scale > 0
      m_ref[h] = m_new == neg_inf() ? 0.0f : m_new;                     // row fully masked so far
      alpha[h] = fast_exp2(st.row_max[m][h] - m_ref[h]);
      st.row_max[m][h] = m_new;
    }
#pragma unroll
    for (int n = 0; n < N_TILES; ++n)
#pragma unroll
      for (int i = 0; i < ACC_ELEMS; ++i) {
        s[n].x[i] = fast_exp2(fmaf(s[n].x[i], scale_log2, -m_ref[(i / 2) % 2]));
        sum[(i / 2) % 2] += s[n].x[i];
      }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      sum[h] += __shfl_xor_sync(0xffffffffu, sum[h], 1);
      sum[h] += __shfl_xor_sync(0xffffffffu, sum[h], 2);
      st.row_sum[m][h] = st.row_sum[m][h] * alpha[h] + sum[h];
    }
#pragma unroll
    for (int d = 0; d < D_TILES; ++d)
#pragma unroll
      for (int i = 0; i < ACC_ELEMS; ++i) st.o[m][d].x[i] *= alpha[(i / 2) % 2];
#pragma unroll
    for (int n = 0; n < N_TILES; ++n)
#pragma unroll
      for (int i = 0; i < ACC_ELEMS; i += 2)
        *reinterpret_cast<half2*>(p_w + (m * 16 + acc_row(lane, i)) * LDP + n * 16 + acc_col(lane, i)) =
            __floats2half2_rn(s[n].x[i], s[n].x[i + 1]);
    __syncwarp();
    accumulate_pv(st.o[m], p_w + m * 16 * LDP, v_s);
  }
  __syncwarp();  // the next tile overwrites p_w
}

// P_FP32 = 1: scores go to the fp32 tile in shared memory, the softmax runs there (8 lanes per
// row) and writes fp16 probabilities to the separate P tile.
__device__ __forceinline__ void consume_tile_smem(WarpState& st, const half* q_w, const half* k_s,
                                                  const half* v_s, float* s_w, half* p_w, float* scale_w,
                                                  float* max_w, float* sum_w, int lane, int q_row0, int kv0,
                                                  int S, float scale_log2) {
#pragma unroll
  for (int m = 0; m < M_TILES; ++m) {
    FragAcc s[N_TILES];
    qk_scores(s, q_w + m * 16 * LDQ, k_s);
#pragma unroll
    for (int n = 0; n < N_TILES; ++n)
      wmma::store_matrix_sync(s_w + m * 16 * LDS + n * 16, s[n], LDS, wmma::mem_row_major);
  }
  __syncwarp();

  const bool need_mask = kv0 + BLOCK_N > S || (CAUSAL && kv0 + BLOCK_N - 1 > q_row0);
  const int sub = lane / SOFTMAX_LANES;
  const int col0 = lane % SOFTMAX_LANES;
#pragma unroll
  for (int pass = 0; pass < ROW_PASSES; ++pass) {
    const int r = pass * SOFTMAX_ROWS + sub;
    const int qi = q_row0 + r;
    const float m_old = max_w[r];
    const float l_old = sum_w[r];
    float v[COLS_PER_LANE];
    float mx = neg_inf();
#pragma unroll
    for (int j = 0; j < COLS_PER_LANE; ++j) {
      const int c = col0 + j * SOFTMAX_LANES;
      v[j] = s_w[r * LDS + c] * scale_log2;
      if (need_mask && (kv0 + c >= S || (CAUSAL && kv0 + c > qi))) v[j] = neg_inf();
      mx = fmaxf(mx, v[j]);
    }
#pragma unroll
    for (int off = 1; off < SOFTMAX_LANES; off <<= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
    const float m_new = fmaxf(m_old, mx);
    const float m_ref = m_new == neg_inf() ? 0.0f : m_new;  // row fully masked so far
    const float alpha = fast_exp2(m_old - m_ref);
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < COLS_PER_LANE; ++j) {
      v[j] = fast_exp2(v[j] - m_ref);
      sum += v[j];
    }
#pragma unroll
    for (int off = 1; off < SOFTMAX_LANES; off <<= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (col0 == 0) {
      scale_w[r] = alpha;
      max_w[r] = m_new;
      sum_w[r] = l_old * alpha + sum;
    }
#pragma unroll
    for (int j = 0; j < COLS_PER_LANE; ++j) p_w[r * LDP + col0 + j * SOFTMAX_LANES] = __float2half(v[j]);
  }
  __syncwarp();

#pragma unroll
  for (int m = 0; m < M_TILES; ++m) {
#pragma unroll
    for (int i = 0; i < ACC_ELEMS; ++i) {
      const float a = scale_w[m * 16 + st.rc[i] / 16];
#pragma unroll
      for (int d = 0; d < D_TILES; ++d) st.o[m][d].x[i] *= a;
    }
    accumulate_pv(st.o[m], p_w + m * 16 * LDP, v_s);
  }
  __syncwarp();  // the next tile overwrites s_w / p_w / scale_w
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    flash_attn_fwd(const half* Q, const half* K, const half* V, half* O, int B, int H, int S, float scale) {
  extern __shared__ __align__(256) unsigned char smem[];
  half* q_s = reinterpret_cast<half*>(smem);
  half* k_s = reinterpret_cast<half*>(smem + Q_BYTES);
  half* v_s = reinterpret_cast<half*>(smem + Q_BYTES + STAGES * KV_STAGE_BYTES);
  half* p_s = reinterpret_cast<half*>(smem + Q_BYTES + 2 * STAGES * KV_STAGE_BYTES);
  float* s_s = reinterpret_cast<float*>(smem + Q_BYTES + 2 * STAGES * KV_STAGE_BYTES + P_BYTES);
  float* scale_s = reinterpret_cast<float*>(smem + SMEM_BYTES - STATS_BYTES);
  float* max_s = scale_s + BLOCK_M;
  float* sum_s = max_s + BLOCK_M;

  const long long head = (static_cast<long long>(blockIdx.z) * H + blockIdx.y) * S * D;
  const half* q_head = Q + head;
  const half* k_head = K + head;
  const half* v_head = V + head;
  const int q0 = blockIdx.x * BLOCK_M;
  const int kv_end = CAUSAL ? min(S, q0 + BLOCK_M) : S;
  const int n_tiles = (kv_end + BLOCK_N - 1) / BLOCK_N;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  constexpr int CONSUMER_THREADS = 32 * WARPS;

  unsigned dynamic_smem;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_smem));
  if (dynamic_smem < SMEM_BYTES) __trap();  // launched with less than this layout needs

  if (WARP_SPEC && warp == WARPS) {
    // Producer: fill stage t % STAGES once the consumers have released it. Every consumer
    // arrival on an "empty" barrier is matched by a sync here, the last STAGES at the end.
    for (int t = 0; t < n_tiles; ++t) {
      const int stg = t % STAGES;
      if (t >= STAGES) bar_sync(1 + STAGES + stg, THREADS);
      load_rows<BLOCK_N, 32, true>(k_s + stg * BLOCK_N * LDQ, k_head, t * BLOCK_N, S, lane);
      load_rows<BLOCK_N, 32, true>(v_s + stg * BLOCK_N * LDQ, v_head, t * BLOCK_N, S, lane);
      cp_async_commit();
      cp_async_wait<0>();
      bar_arrive(1 + stg, THREADS);
    }
    for (int t = max(0, n_tiles - STAGES); t < n_tiles; ++t) bar_sync(1 + STAGES + t % STAGES, THREADS);
    return;
  }

  const int q_row0 = q0 + warp * ROWS_PER_WARP;  // first query row of this warp
  const bool warp_active = q_row0 < S;
  half* q_w = q_s + warp * ROWS_PER_WARP * LDQ;
  half* p_w = p_s + warp * ROWS_PER_WARP * LDP;
  float* s_w = s_s + warp * ROWS_PER_WARP * LDS;
  float* scale_w = scale_s + warp * ROWS_PER_WARP;
  float* max_w = max_s + warp * ROWS_PER_WARP;
  float* sum_w = sum_s + warp * ROWS_PER_WARP;

  WarpState st;
  {  // learn the accumulator layout, using the warp's Q rows as scratch
    float* probe_tile = reinterpret_cast<float*>(q_w);
    for (int e = lane; e < 256; e += 32) probe_tile[e] = static_cast<float>(e);
    __syncwarp();
    FragAcc probe;
    wmma::load_matrix_sync(probe, probe_tile, 16, wmma::mem_row_major);
    bool as_assumed = true;
#pragma unroll
    for (int i = 0; i < ACC_ELEMS; ++i) {
      st.rc[i] = static_cast<int>(probe.x[i]);
      as_assumed &= st.rc[i] == acc_row(lane, i) * 16 + acc_col(lane, i);
    }
    if (!P_FP32 && !__all_sync(0xffffffffu, as_assumed)) __trap();
    __syncwarp();
  }
  load_rows<ROWS_PER_WARP, 32, false>(q_w, q_head, q_row0, S, lane);
#pragma unroll
  for (int m = 0; m < M_TILES; ++m) {
#pragma unroll
    for (int d = 0; d < D_TILES; ++d) wmma::fill_fragment(st.o[m][d], 0.0f);
    st.row_max[m][0] = st.row_max[m][1] = neg_inf();
    st.row_sum[m][0] = st.row_sum[m][1] = 0.0f;
  }
  if (P_FP32)
    for (int r = lane; r < ROWS_PER_WARP; r += 32) {
      max_w[r] = neg_inf();
      sum_w[r] = 0.0f;
    }
  __syncwarp();

  const float scale_log2 = scale * 1.4426950408889634f;
  // A warp skips tiles entirely past its rows (causal) or all of them (rows >= S), but keeps
  // taking part in every barrier so that producer and consumers agree on the tile count.
  auto consume = [&](int t, int stg) {
    if (!warp_active || (CAUSAL && t * BLOCK_N > q_row0 + ROWS_PER_WARP - 1)) return;
    const half* k_t = k_s + stg * BLOCK_N * LDQ;
    const half* v_t = v_s + stg * BLOCK_N * LDQ;
    if (P_FP32)
      consume_tile_smem(st, q_w, k_t, v_t, s_w, p_w, scale_w, max_w, sum_w, lane, q_row0, t * BLOCK_N, S,
                        scale_log2);
    else
      consume_tile_regs(st, q_w, k_t, v_t, p_w, lane, q_row0, t * BLOCK_N, S, scale_log2);
  };

  if (WARP_SPEC) {
    for (int t = 0; t < n_tiles; ++t) {
      const int stg = t % STAGES;
      bar_sync(1 + stg, THREADS);
      consume(t, stg);
      bar_arrive(1 + STAGES + stg, THREADS);
    }
  } else if (STAGES == 1) {
    for (int t = 0; t < n_tiles; ++t) {
      load_rows<BLOCK_N, CONSUMER_THREADS, false>(k_s, k_head, t * BLOCK_N, S, threadIdx.x);
      load_rows<BLOCK_N, CONSUMER_THREADS, false>(v_s, v_head, t * BLOCK_N, S, threadIdx.x);
      __syncthreads();
      consume(t, 0);
      __syncthreads();
    }
  } else {
#pragma unroll
    for (int t = 0; t < STAGES - 1; ++t) {
      if (t < n_tiles) {
        load_rows<BLOCK_N, CONSUMER_THREADS, true>(k_s + t * BLOCK_N * LDQ, k_head, t * BLOCK_N, S,
                                                   threadIdx.x);
        load_rows<BLOCK_N, CONSUMER_THREADS, true>(v_s + t * BLOCK_N * LDQ, v_head, t * BLOCK_N, S,
                                                   threadIdx.x);
      }
      cp_async_commit();
    }
    for (int t = 0; t < n_tiles; ++t) {
      const int next = t + STAGES - 1;
      if (next < n_tiles) {
        const int ns = next % STAGES;
        load_rows<BLOCK_N, CONSUMER_THREADS, true>(k_s + ns * BLOCK_N * LDQ, k_head, next * BLOCK_N, S,
                                                   threadIdx.x);
        load_rows<BLOCK_N, CONSUMER_THREADS, true>(v_s + ns * BLOCK_N * LDQ, v_head, next * BLOCK_N, S,
                                                   threadIdx.x);
      }
      cp_async_commit();
      cp_async_wait<STAGES - 1>();
      __syncthreads();
      consume(t, t % STAGES);
      __syncthreads();
    }
  }
  if (!warp_active) return;

    // Epilogue: normalise by the row sums, stage the fp16 rows in this warp's own Q rows, store.
#pragma unroll
  for (int m = 0; m < M_TILES; ++m)
#pragma unroll
    for (int i = 0; i < ACC_ELEMS; ++i) {
      const int r = m * 16 + st.rc[i] / 16;
      const float inv = 1.0f / (P_FP32 ? sum_w[r] : st.row_sum[m][(i / 2) % 2]);
#pragma unroll
      for (int d = 0; d < D_TILES; ++d)
        q_w[r * LDQ + d * 16 + st.rc[i] % 16] = __float2half(st.o[m][d].x[i] * inv);
    }
  __syncwarp();
  constexpr int CHUNKS_PER_ROW = D / 8;
  static_assert(ROWS_PER_WARP * CHUNKS_PER_ROW % 32 == 0, "output chunks split evenly over lanes");
#pragma unroll
  for (int i = 0; i < ROWS_PER_WARP * CHUNKS_PER_ROW / 32; ++i) {
    const int c = lane + 32 * i;
    const int r = c / CHUNKS_PER_ROW;
    const int col = (c % CHUNKS_PER_ROW) * 8;
    if (q_row0 + r < S)
      *reinterpret_cast<uint4*>(O + head + static_cast<long long>(q_row0 + r) * D + col) =
          *reinterpret_cast<const uint4*>(q_w + r * LDQ + col);
  }
}
