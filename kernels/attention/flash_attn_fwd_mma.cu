// FlashAttention-2-style forward pass, O = softmax(Q K^T * scale) V, on mma.sync tensor cores.
//
// Q, K, V, O: fp16 [B, H, S, D] (bf16 when the space compiles with -DBF16=1), contiguous, D fastest; offsets
// are 64-bit. Grid (cdiv(S, BLOCK_M) * SPLITS, H, B); block = 32 * WARPS threads; dynamic shared memory =
// SMEM_BYTES below (the space's SMEM_BYTES expression must equal it; a launch with less traps instead of
// overrunning).
//
// Each warp owns ROWS_PER_WARP = BLOCK_M / WARPS query rows, as M_TILES tiles of 16 rows. Per K/V tile of
// BLOCK_N keys it computes S = Q K^T with mma.sync.m16n8k16 (fp16 in, fp32 accumulate; Q and K fragments
// loaded with ldmatrix), runs the online softmax on the accumulators in registers (base 2, the scale folded
// into one multiply; each lane holds two rows of each 16-row tile, reduced across the lane quad), rescales
// its O accumulators once, and reuses the S accumulators, packed to fp16, as the A operand of P V (V
// fragments loaded with ldmatrix.trans): P never goes through shared memory. O stays in registers until
// the epilogue, which divides by the row sums (0 for a row with every key masked, never NaN), stages the
// fp16 tile in shared memory and writes it with 16-byte stores.
//
// SPLITS > 1 (flash-decoding): the keys of a head are cut into SPLITS ranges of whole K/V tiles, and grid X
// is cdiv(S, BLOCK_M) * SPLITS (block x: query block x / SPLITS, split x % SPLITS). Each block writes its
// rows' O normalised by its own row sums, fp32, to O_part [SPLITS][B][H][S][D], and the base-2 log-sum-exp of
// its scaled scores to L_part [SPLITS][B][H][S] (-inf, with O_part 0, for a row none of its keys reaches:
// causal splits past the diagonal, splits past the last tile); flash_attn_combine below then weighs the
// splits into O. SPLITS = 1 is the single-kernel path: it writes O itself and takes no O_part or L_part.
//
// Keys >= S and (CAUSAL) keys after the query get -inf, on the tiles that need it only (the tail tile, and
// the tiles the diagonal crosses); K/V tiles after a block's last row are not loaded at all (causal), and a
// warp skips the tiles entirely after its own rows.
//
// Tuning parameters (#defined by the tuner, never here):
//   BLOCK_M    query rows per block            BLOCK_N  keys per K/V tile
//   WARPS      warps per block; each owns BLOCK_M / WARPS rows (a multiple of 16)
//   STAGES     K/V ring depth, filled with 16-byte cp.async: 1 = load, wait, compute; 2..4 = the next
//              STAGES - 1 tiles are in flight while one is computed
//   SWIZZLE    1 = shared-memory rows of D halves with their 16-byte chunks XOR-swizzled by (row % 8);
//              0 = rows padded by 8 halves (16 bytes). Either way ldmatrix and cp.async meet no bank
//              conflicts.
//   Q_IN_REGS  1 = the Q fragments are loaded into registers once; 0 = reloaded from shared memory with
//              ldmatrix for every K/V tile (fewer registers)
//   SPLITS     key ranges per query block, each its own thread block (1 = no split, no combine launch)
//   PERSISTENT 1 = a grid of a few blocks per SM (the space's BLOCKS_PER_SM) walks every (query block, head,
//              batch) tile, round robin, the last query blocks (the heaviest when causal) first, with a block
//              barrier between tiles; needs SPLITS = 1. 0 = grid (cdiv(S, BLOCK_M) * SPLITS, H, B).
//   Problem sizes: D (head dimension, 64 or 128), CAUSAL (1 = key j > query i is masked).
//
// Shared memory layout (halves; ROW = D + (SWIZZLE ? 0 : 8)):
//   Q [BLOCK_M][ROW]  (also the output staging)   K [STAGES][BLOCK_N][ROW]   V [STAGES][BLOCK_N][ROW]
#include <cuda_bf16.h>
#include <cuda_fp16.h>

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
#ifndef STAGES
static_assert(false, "STAGES must be #defined");
#endif
#ifndef SWIZZLE
static_assert(false, "SWIZZLE (0 or 1) must be #defined");
#endif
#ifndef Q_IN_REGS
static_assert(false, "Q_IN_REGS (0 or 1) must be #defined");
#endif
#ifndef SPLITS
static_assert(false, "SPLITS must be #defined");
#endif
#ifndef PERSISTENT
static_assert(false, "PERSISTENT (0 or 1) must be #defined");
#endif

namespace {

#if defined(BF16) && BF16
typedef __nv_bfloat16 elem;  // the element type of Q, K, V, O
#define MMA_TYPES "bf16.bf16"
__device__ __forceinline__ unsigned pack_pair(float low, float high) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
  return *reinterpret_cast<const unsigned*>(&pair);
}
#else
typedef half elem;
#define MMA_TYPES "f16.f16"
__device__ __forceinline__ unsigned pack_pair(float low, float high) {
  const __half2 pair = __floats2half2_rn(low, high);
  return *reinterpret_cast<const unsigned*>(&pair);
}
#endif

constexpr int THREADS = 32 * WARPS;
constexpr int ROWS_PER_WARP = BLOCK_M / WARPS;
constexpr int M_TILES = ROWS_PER_WARP / 16;  // 16-row mma tiles per warp
constexpr int N_TILES = BLOCK_N / 8;         // 8-key score tiles per K/V tile
constexpr int D_TILES = D / 8;               // 8-column output tiles
constexpr int K_STEPS = D / 16;              // 16-wide steps of Q K^T
constexpr int ROW = D + (SWIZZLE ? 0 : 8);   // shared-memory row stride, halves
constexpr int CHUNKS = D / 8;                // 16-byte chunks per row
constexpr int SMEM_BYTES = 2 * ROW * (BLOCK_M + 2 * STAGES * BLOCK_N);

static_assert(D == 64 || D == 128, "D must be 64 or 128");
static_assert(ROWS_PER_WARP % 16 == 0 && M_TILES >= 1, "each warp owns whole 16-row tiles");
static_assert(BLOCK_N % 16 == 0, "BLOCK_N must be a multiple of 16 (one mma k-step of P V)");
static_assert(STAGES >= 1 && STAGES <= 4, "STAGES must be 1..4");
static_assert(!SWIZZLE || CHUNKS >= 8, "the swizzle permutes 8 chunks per row");
static_assert(SPLITS >= 1 && SPLITS <= 16, "SPLITS must be 1..16");
static_assert(PERSISTENT == 0 || SPLITS == 1, "a persistent grid walks whole query tiles: SPLITS = 1");

constexpr float kLog2e = 1.4426950408889634f;
#define NEG_INF (-__int_as_float(0x7f800000))  // -inf, without <cmath>

// Offset (halves) of element (row, col) in a tile; col is a multiple of 8 for whole chunks.
__device__ __forceinline__ int tile_offset(int row, int col) {
  if (SWIZZLE) return row * ROW + ((((col >> 3) ^ (row & 7))) << 3) + (col & 7);
  return row * ROW + col;
}

__device__ __forceinline__ unsigned smem_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// 16 bytes from global to shared; src_bytes = 0 writes zeros (rows past S).
__device__ __forceinline__ void copy_16(elem* dst, const elem* src, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(dst)), "l"(src),
               "r"(src_bytes));
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }
template <int PENDING>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}

// `rows` rows of D halves from global (row stride D) into a shared tile; rows at or past `valid_rows`
// are zero-filled.
template <int ROWS>
__device__ __forceinline__ void load_tile(elem* tile, const elem* global, int valid_rows) {
  for (int chunk = threadIdx.x; chunk < ROWS * CHUNKS; chunk += THREADS) {
    const int row = chunk / CHUNKS;
    const int col = (chunk % CHUNKS) * 8;
    const bool valid = row < valid_rows;
    copy_16(tile + tile_offset(row, col), global + (valid ? static_cast<long long>(row) * D + col : 0),
            valid);
  }
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const elem* address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(address)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const elem* address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(address)));
}

// acc += a (16x16, row) * b (16x8, col), fp16 or bf16 in, fp32 accumulate.
__device__ __forceinline__ void mma_16816(float (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." MMA_TYPES
               ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// The sum over the four lanes of a quad (the lanes that hold one accumulator row).
__device__ __forceinline__ float quad_sum(float value) {
  value += __shfl_xor_sync(0xffffffffu, value, 1);
  return value + __shfl_xor_sync(0xffffffffu, value, 2);
}

// The A fragment of Q rows [row0, row0 + 16), columns [k0, k0 + 16) of the Q tile.
__device__ __forceinline__ void load_q_fragment(unsigned (&a)[4], const elem* q_tile, int row0, int k0,
                                                int lane) {
  const int row = row0 + (lane & 7) + ((lane >> 3) & 1) * 8;
  const int col = k0 + (lane >> 4) * 8;
  ldmatrix_x4(a, q_tile + tile_offset(row, col));
}

}  // namespace

// One query tile: block_x (query block x / SPLITS, split x % SPLITS), head block_y, batch block_z.
__device__ __forceinline__ void attention_tile(const elem* __restrict__ Q, const elem* __restrict__ K,
                                               const elem* __restrict__ V,
#if SPLITS > 1
                                               float* __restrict__ O_part, float* __restrict__ L_part,
#else
                                               elem* __restrict__ O,
#endif
                                               int B, int H, int S, float scale, int block_x, int block_y,
                                               int block_z) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  {
    unsigned dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < static_cast<unsigned>(SMEM_BYTES)) __trap();
  }
  elem* q_tile = reinterpret_cast<elem*>(smem_raw);
  elem* k_ring = q_tile + BLOCK_M * ROW;
  elem* v_ring = k_ring + STAGES * BLOCK_N * ROW;

  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int group = lane >> 2;  // the accumulator row of this lane (and row + 8)
  const int quad = lane & 3;    // the accumulator column pair of this lane
  const int split = block_x % SPLITS;
  const int m0 = (block_x / SPLITS) * BLOCK_M;
  const long long head = (static_cast<long long>(block_z) * H + block_y) * S * D;
  const elem* q_head = Q + head;
  const elem* k_head = K + head;
  const elem* v_head = V + head;
  const float scale_log2 = scale * kLog2e;

  // Keys this block needs: all of them, or (causal) up to its last row; of those tiles, its split's range
  // (split s of SPLITS takes tiles [s * per_split, (s + 1) * per_split) of the head's; possibly none).
  const int key_end = CAUSAL ? min(S, m0 + BLOCK_M) : S;
  const int per_split = ((S + BLOCK_N - 1) / BLOCK_N + SPLITS - 1) / SPLITS;
  const int first_tile = SPLITS > 1 ? split * per_split : 0;
  const int last_tile = SPLITS > 1 ? min((key_end + BLOCK_N - 1) / BLOCK_N, first_tile + per_split)
                                   : (key_end + BLOCK_N - 1) / BLOCK_N;
  const int tiles = SPLITS > 1 ? max(last_tile - first_tile, 0) : last_tile;  // counted from first_tile
  const int warp_row0 = m0 + warp * ROWS_PER_WARP;                            // first query row of this warp

  // An empty split loads nothing (no copy may be left uncommitted), and writes O_part 0 and L_part -inf.
  if (SPLITS == 1 || tiles > 0) load_tile<BLOCK_M>(q_tile, q_head + static_cast<long long>(m0) * D, S - m0);
  auto load_kv = [&](int tile) {
    const int stage = tile % STAGES;
    const int n0 = (first_tile + tile) * BLOCK_N;
    load_tile<BLOCK_N>(k_ring + stage * BLOCK_N * ROW, k_head + static_cast<long long>(n0) * D, S - n0);
    load_tile<BLOCK_N>(v_ring + stage * BLOCK_N * ROW, v_head + static_cast<long long>(n0) * D, S - n0);
  };
  // Prologue: Q with the first tile, then up to STAGES - 1 tiles in flight (empty groups keep the count).
#pragma unroll
  for (int tile = 0; tile < STAGES - 1; ++tile) {
    if (tile < tiles) load_kv(tile);
    commit_copies();
  }

  float o_acc[M_TILES][D_TILES][4];
  float row_max[M_TILES][2];  // running max of the scaled scores, base 2
  float row_sum[M_TILES][2];  // this lane's share of the running sum
#pragma unroll
  for (int mi = 0; mi < M_TILES; ++mi) {
#pragma unroll
    for (int dt = 0; dt < D_TILES; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e) o_acc[mi][dt][e] = 0.0f;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      row_max[mi][r] = NEG_INF;
      row_sum[mi][r] = 0.0f;
    }
  }
#if Q_IN_REGS
  unsigned q_frag[M_TILES][K_STEPS][4];
#endif

  for (int tile = 0; tile < tiles; ++tile) {
    if (tile + STAGES - 1 < tiles) load_kv(tile + STAGES - 1);
    commit_copies();
    wait_copies<STAGES - 1>();
    __syncthreads();
#if Q_IN_REGS
    if (tile == 0) {
#pragma unroll
      for (int mi = 0; mi < M_TILES; ++mi)
#pragma unroll
        for (int ks = 0; ks < K_STEPS; ++ks)
          load_q_fragment(q_frag[mi][ks], q_tile, warp * ROWS_PER_WARP + mi * 16, ks * 16, lane);
    }
#endif
    const int n0 = (first_tile + tile) * BLOCK_N;
    const bool warp_needs_tile = !CAUSAL || n0 <= warp_row0 + ROWS_PER_WARP - 1;
    if (warp_needs_tile) {
      const elem* k_tile = k_ring + (tile % STAGES) * BLOCK_N * ROW;
      const elem* v_tile = v_ring + (tile % STAGES) * BLOCK_N * ROW;

      // S = Q K^T for this warp's rows and the tile's BLOCK_N keys.
      float s_acc[M_TILES][N_TILES][4];
#pragma unroll
      for (int mi = 0; mi < M_TILES; ++mi)
#pragma unroll
        for (int nt = 0; nt < N_TILES; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) s_acc[mi][nt][e] = 0.0f;
#pragma unroll
      for (int ks = 0; ks < K_STEPS; ++ks) {
        unsigned a[M_TILES][4];
#pragma unroll
        for (int mi = 0; mi < M_TILES; ++mi) {
#if Q_IN_REGS
#pragma unroll
          for (int e = 0; e < 4; ++e) a[mi][e] = q_frag[mi][ks][e];
#else
          load_q_fragment(a[mi], q_tile, warp * ROWS_PER_WARP + mi * 16, ks * 16, lane);
#endif
        }
#pragma unroll
        for (int nt = 0; nt < N_TILES; nt += 2) {
          // Two 8-key B fragments at once: keys [8 nt, 8 nt + 16), columns [16 ks, 16 ks + 16).
          unsigned b[4];
          const int key = nt * 8 + (lane & 7) + (lane >> 4) * 8;
          const int col = ks * 16 + ((lane >> 3) & 1) * 8;
          ldmatrix_x4(b, k_tile + tile_offset(key, col));
#pragma unroll
          for (int mi = 0; mi < M_TILES; ++mi) {
            mma_16816(s_acc[mi][nt], a[mi], b[0], b[1]);
            mma_16816(s_acc[mi][nt + 1], a[mi], b[2], b[3]);
          }
        }
      }

      // Mask keys past S and (causal) after the query, on the tiles that reach them only.
      const bool tail = n0 + BLOCK_N > S;
      const bool diagonal = CAUSAL && n0 + BLOCK_N - 1 > warp_row0;
      if (tail || diagonal) {
#pragma unroll
        for (int mi = 0; mi < M_TILES; ++mi)
#pragma unroll
          for (int nt = 0; nt < N_TILES; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int key = n0 + nt * 8 + quad * 2 + (e & 1);
              const int query = warp_row0 + mi * 16 + group + (e >> 1) * 8;
              if (key >= S || (CAUSAL && key > query)) s_acc[mi][nt][e] = NEG_INF;
            }
      }

      // Online softmax in base 2; O rescaled once per tile.
#pragma unroll
      for (int mi = 0; mi < M_TILES; ++mi) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          float tile_max = NEG_INF;
#pragma unroll
          for (int nt = 0; nt < N_TILES; ++nt)
            tile_max = fmaxf(tile_max, fmaxf(s_acc[mi][nt][2 * r], s_acc[mi][nt][2 * r + 1]));
          tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
          tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
          const float new_max = fmaxf(row_max[mi][r], tile_max * scale_log2);
          // A row with every key so far masked keeps -inf: subtract 0 so that its p and factor are 0.
          const float base = new_max == NEG_INF ? 0.0f : new_max;
          const float factor = exp2_approx(row_max[mi][r] - base);
          row_max[mi][r] = new_max;
          float sum = 0.0f;
#pragma unroll
          for (int nt = 0; nt < N_TILES; ++nt)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
              const float p = exp2_approx(s_acc[mi][nt][2 * r + c] * scale_log2 - base);
              s_acc[mi][nt][2 * r + c] = p;
              sum += p;
            }
          row_sum[mi][r] = row_sum[mi][r] * factor + sum;
#pragma unroll
          for (int dt = 0; dt < D_TILES; ++dt) {
            o_acc[mi][dt][2 * r] *= factor;
            o_acc[mi][dt][2 * r + 1] *= factor;
          }
        }
      }

      // O += P V: the S accumulators of two 8-key tiles are the A fragment of one 16-key step.
#pragma unroll
      for (int kt = 0; kt < BLOCK_N / 16; ++kt) {
        unsigned p[M_TILES][4];
#pragma unroll
        for (int mi = 0; mi < M_TILES; ++mi) {
          p[mi][0] = pack_pair(s_acc[mi][2 * kt][0], s_acc[mi][2 * kt][1]);
          p[mi][1] = pack_pair(s_acc[mi][2 * kt][2], s_acc[mi][2 * kt][3]);
          p[mi][2] = pack_pair(s_acc[mi][2 * kt + 1][0], s_acc[mi][2 * kt + 1][1]);
          p[mi][3] = pack_pair(s_acc[mi][2 * kt + 1][2], s_acc[mi][2 * kt + 1][3]);
        }
#pragma unroll
        for (int dt = 0; dt < D_TILES; dt += 2) {
          // V rows (keys) [16 kt, 16 kt + 16), columns [8 dt, 8 dt + 16), transposed into B fragments.
          unsigned b[4];
          const int key = kt * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
          const int col = dt * 8 + (lane >> 4) * 8;
          ldmatrix_x4_trans(b, v_tile + tile_offset(key, col));
#pragma unroll
          for (int mi = 0; mi < M_TILES; ++mi) {
            mma_16816(o_acc[mi][dt], p[mi], b[0], b[1]);
            mma_16816(o_acc[mi][dt + 1], p[mi], b[2], b[3]);
          }
        }
      }
    }
    __syncthreads();  // the stage computed here is refilled by a later iteration
  }
  wait_copies<0>();  // no copy may land in the staging area below

#if SPLITS > 1
  // Partial epilogue: this split's O / its row sum as fp32 straight from the accumulators, and its
  // log-sum-exp m + log2(sum) (base 2, in units of the scaled scores); -inf and 0 where it saw no key.
  const long long rows = static_cast<long long>(B) * H * S;
  const long long row_base = split * rows + (static_cast<long long>(block_z) * H + block_y) * S;
#pragma unroll
  for (int mi = 0; mi < M_TILES; ++mi) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float total = quad_sum(row_sum[mi][r]);
      const float inverse = total > 0.0f ? 1.0f / total : 0.0f;
      const int row = warp_row0 + mi * 16 + group + r * 8;
      if (row < S) {
        float* o_row = O_part + (row_base + row) * D;
#pragma unroll
        for (int dt = 0; dt < D_TILES; ++dt)
          *reinterpret_cast<float2*>(o_row + dt * 8 + quad * 2) =
              make_float2(o_acc[mi][dt][2 * r] * inverse, o_acc[mi][dt][2 * r + 1] * inverse);
        if (quad == 0) L_part[row_base + row] = total > 0.0f ? row_max[mi][r] + __log2f(total) : NEG_INF;
      }
    }
  }
#else

  // Epilogue: O / row sum (0 where every key was masked) as fp16, staged in the Q tile, 16-byte stores.
#pragma unroll
  for (int mi = 0; mi < M_TILES; ++mi) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float total = quad_sum(row_sum[mi][r]);
      const float inverse = total > 0.0f ? 1.0f / total : 0.0f;
      const int row = warp * ROWS_PER_WARP + mi * 16 + group + r * 8;
#pragma unroll
      for (int dt = 0; dt < D_TILES; ++dt) {
        const int col = dt * 8 + quad * 2;
        *reinterpret_cast<unsigned*>(q_tile + tile_offset(row, col)) =
            pack_pair(o_acc[mi][dt][2 * r] * inverse, o_acc[mi][dt][2 * r + 1] * inverse);
      }
    }
  }
  __syncthreads();
  elem* o_head = O + head;
  for (int chunk = threadIdx.x; chunk < BLOCK_M * CHUNKS; chunk += THREADS) {
    const int row = chunk / CHUNKS;
    const int col = (chunk % CHUNKS) * 8;
    if (m0 + row < S)
      *reinterpret_cast<uint4*>(o_head + static_cast<long long>(m0 + row) * D + col) =
          *reinterpret_cast<const uint4*>(q_tile + tile_offset(row, col));
  }
#endif  // SPLITS > 1
}

extern "C" __global__ void __launch_bounds__(THREADS)
    flash_attn_fwd_mma(const elem* __restrict__ Q, const elem* __restrict__ K, const elem* __restrict__ V,
#if SPLITS > 1
                       float* __restrict__ O_part, float* __restrict__ L_part,
#else
                       elem* __restrict__ O,
#endif
                       int B, int H, int S, float scale) {
#if PERSISTENT
  // A grid of a few blocks per SM walks every (query block, head, batch) tile: tile t is query block
  // m_blocks - 1 - t / (H * B) (the last query blocks, the heaviest when causal, first), head and batch
  // fastest. Block b takes tiles b, b + gridDim.x, ...; the barrier between tiles keeps the next tile's Q and
  // K/V copies from landing in shared memory that the last one's epilogue still reads.
  const int m_blocks = (S + BLOCK_M - 1) / BLOCK_M;
  const int heads = H * B;
  const long long total = static_cast<long long>(m_blocks) * heads;
  for (long long t = blockIdx.x; t < total; t += gridDim.x) {
    const int bh = static_cast<int>(t % heads);
    attention_tile(Q, K, V, O, B, H, S, scale, m_blocks - 1 - static_cast<int>(t / heads), bh % H, bh / H);
    __syncthreads();
  }
#else
  attention_tile(Q, K, V,
#if SPLITS > 1
                 O_part, L_part,
#else
                 O,
#endif
                 B, H, S, scale, blockIdx.x, blockIdx.y, blockIdx.z);
#endif
}

#if SPLITS > 1
namespace {
constexpr int COMBINE_THREADS = 128;
constexpr int COMBINE_COLUMNS = 4;  // per thread: one float4 of each split's partial O
}  // namespace

// O = sum_s w_s O_part[s] / sum_s w_s with w_s = 2^(L_part[s] - max_s L_part[s]), per row; a split that saw
// no key of the row has w_s = 0 (its O_part is 0), and a row no split saw is 0. One thread per 4 columns of
// a row: grid cdiv(B * H * S * D, 4 * COMBINE_THREADS), block COMBINE_THREADS.
extern "C" __global__ void __launch_bounds__(COMBINE_THREADS)
    flash_attn_combine(const float* __restrict__ O_part, const float* __restrict__ L_part,
                       elem* __restrict__ O, int B, int H, int S) {
  const long long rows = static_cast<long long>(B) * H * S;
  const long long first =
      (static_cast<long long>(blockIdx.x) * COMBINE_THREADS + threadIdx.x) * COMBINE_COLUMNS;
  const long long row = first / D;
  const int col = static_cast<int>(first % D);
  if (row >= rows) return;
  float lse[SPLITS];
  float top = NEG_INF;
#pragma unroll
  for (int s = 0; s < SPLITS; ++s) {
    lse[s] = L_part[s * rows + row];
    top = fmaxf(top, lse[s]);
  }
  float acc[COMBINE_COLUMNS] = {0.0f, 0.0f, 0.0f, 0.0f};
  float weights = 0.0f;
  if (top != NEG_INF) {
#pragma unroll
    for (int s = 0; s < SPLITS; ++s) {
      const float weight = exp2f(lse[s] - top);
      const float4 part = *reinterpret_cast<const float4*>(O_part + (s * rows + row) * D + col);
      acc[0] += weight * part.x;
      acc[1] += weight * part.y;
      acc[2] += weight * part.z;
      acc[3] += weight * part.w;
      weights += weight;
    }
  }
  const float inverse = weights > 0.0f ? 1.0f / weights : 0.0f;
  uint2 packed;
  packed.x = pack_pair(acc[0] * inverse, acc[1] * inverse);
  packed.y = pack_pair(acc[2] * inverse, acc[3] * inverse);
  *reinterpret_cast<uint2*>(O + row * D + col) = packed;
}
#endif  // SPLITS > 1
