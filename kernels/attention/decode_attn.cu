// Decode attention over a KV cache, split over the keys (flash-decoding), on mma.sync tensor cores.
//
// q, o: fp16 [B, HQ, SQ, D] (bf16 when the space compiles with -DBF16=1), contiguous; HQ = G * HKV, query
// head hq reads KV head hq / G. The SQ queries are the last SQ positions of their sequence: with cache length
// L = cache_seqlens[b] (clamped to [0, SKV]), query i sits at L - SQ + i and, CAUSAL, sees the keys
// j < L - SQ + 1 + i (bottom-right aligned, as FlashAttention's kvcache path); not CAUSAL, the keys j < L. A
// query that sees no key (L = 0, or L < SQ under CAUSAL) gets 0, never NaN. Key j's row of HKV * D values:
//   PAGED = 0: k_cache, v_cache [B, SKV, HKV, D] (flash_attn_with_kvcache's layout), row b * SKV + j;
//   PAGED = 1: k_cache, v_cache [num_pages, PAGE, HKV, D] and block_table int32 [B, MAX_PAGES],
//              MAX_PAGES = cdiv(SKV, PAGE), row block_table[b][j / PAGE] * PAGE + j % PAGE.
// Keys at or past L are never read (their shared-memory rows are zero-filled), so a page table may hold
// anything past a sequence's last page.
//
// One block per (row block, split, KV head, batch): grid (ROW_BLOCKS * NUM_SPLITS, HKV, B). The G * SQ query
// rows of a KV head (row = head_in_group * SQ + query, so they are one contiguous [G * SQ, D] slab of q and
// o) share every K/V tile the block loads: K and V are read once per group, which keeps decode
// bandwidth-bound. A block takes 16 * M_TILES of them (ROW_BLOCKS = cdiv(G * SQ, 16 * M_TILES) blocks share
// a split, adjacent in the grid, so that the K/V they all read comes from L2 after the first).
//
// Split s of a sequence of T = cdiv(L, BLOCK_N) key tiles takes tiles [s * P, min((s + 1) * P, T)) with
// P = cdiv(T, NUM_SPLITS); later splits are empty. The tiles stream through a ring of STAGES shared-memory
// slots filled with 16-byte cp.async by every thread; each of the WARPS warps computes S = Q K^T for its own
// BLOCK_N / WARPS keys of a tile (mma.sync.m16n8k16, fp32 accumulators, fragments by ldmatrix), runs its own
// online softmax (base 2, the scale folded in) and accumulates P V into its own O, P reused from the S
// accumulators in registers. At the end the warps' (max, sum, O) are merged through shared memory in warp
// order (deterministic), and the block writes
//   NUM_SPLITS = 1: o, normalised (decode_attn);
//   NUM_SPLITS > 1: its normalised O, fp32, to O_part [NUM_SPLITS][B * HQ * SQ][D] and the base-2
//                   log-sum-exp of its scaled scores to L_part [NUM_SPLITS][B * HQ * SQ] (-inf, and O 0,
//                   where it saw no key), then
//     COMBINE = 0:  nothing more (decode_attn_split); a second kernel, decode_attn_combine, weighs the
//                   splits into o;
//     COMBINE = 1:  an arrival on its (row block, KV head, sequence)'s counter in `arrivals` (int32
//                   [B * HKV * ROW_BLOCKS], zero before the launch); the block that arrives last weighs the
//                   NUM_SPLITS partials into o (decode_attn_split_combine): one launch. Both combines take
//                   the splits in split order with the same arithmetic, so o does not depend on which block
//                   arrives last, and is the same bits either way.
//
// Tuning parameters (#defined by the tuner, never here):
//   BLOCK_N     keys per K/V tile
//   WARPS       warps per block; each owns BLOCK_N / WARPS keys of every tile
//   STAGES      K/V ring depth: STAGES - 1 tiles in flight while one is computed
//   M_TILES     16-row query tiles per block (1 or 2)
//   NUM_SPLITS  key ranges per sequence, each its own block; 1 = no combine
//   COMBINE     with NUM_SPLITS > 1: 0 = a combine kernel after the splits, 1 = the last split's block
//   L2_256B     1 = the copies ask L2 to prefetch 256 bytes (cp.async's .L2::256B hint); 0 = no hint
//   PDL         with NUM_SPLITS > 1 and COMBINE = 0: 1 = decode_attn_combine is launched as a programmatic
//               dependent of decode_attn_split (sm_90 and later): its blocks may start while the splits run
//               and wait (griddepcontrol.wait) for the split grid's completion before reading the partials;
//               each split block lets it start (griddepcontrol.launch_dependents) after its last K/V load
//   Problem sizes: D (64 or 128), G (query heads per KV head), SQ (queries per sequence, 1..16), CAUSAL,
//   PAGED, PAGE (page size, keys).
//
// Shared memory (SharedStorage below; the space's SMEM_BYTES must equal its size, a launch with less traps):
//   q [16 * M_TILES][D]; then either the ring k, v [STAGES][BLOCK_N][D] (rows of 16-byte chunks XOR-swizzled
//   by row % 8, so that ldmatrix and cp.async meet no bank conflicts) or, once the keys are done, the merge
//   area: each warp's o [16 * M_TILES][D] fp32 and its row maxima and sums; then, where key tiles cross
//   pages, STAGES slots of a tile's block-table entries (one int otherwise).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../common/sm80/mma.cuh"

#ifndef D
static_assert(false, "D (head dimension) must be #defined");
#endif
#ifndef G
static_assert(false, "G (query heads per KV head) must be #defined");
#endif
#ifndef SQ
static_assert(false, "SQ (queries per sequence) must be #defined");
#endif
#ifndef CAUSAL
static_assert(false, "CAUSAL (0 or 1) must be #defined");
#endif
#ifndef PAGED
static_assert(false, "PAGED (0 or 1) must be #defined");
#endif
#ifndef PAGE
static_assert(false, "PAGE (page size) must be #defined");
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
#ifndef M_TILES
static_assert(false, "M_TILES must be #defined");
#endif
#ifndef NUM_SPLITS
static_assert(false, "NUM_SPLITS must be #defined");
#endif
#ifndef L2_256B
static_assert(false, "L2_256B (0 or 1) must be #defined");
#endif
#ifndef COMBINE
static_assert(false, "COMBINE (0 a combine kernel, 1 the last split's block) must be #defined");
#endif
#ifndef PDL
static_assert(false, "PDL (1: the combine kernel is a programmatic dependent launch) must be #defined");
#endif

namespace {

#if defined(BF16) && BF16
typedef __nv_bfloat16 elem;
constexpr bool IS_BF16 = true;
__device__ __forceinline__ unsigned pack(float lo, float hi) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&pair);
}
__device__ __forceinline__ elem to_elem(float x) { return __float2bfloat16(x); }
#else
typedef half elem;
constexpr bool IS_BF16 = false;
__device__ __forceinline__ unsigned pack(float lo, float hi) {
  const __half2 pair = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&pair);
}
__device__ __forceinline__ elem to_elem(float x) { return __float2half(x); }
#endif

constexpr int THREADS = 32 * WARPS;
constexpr int ROWS = G * SQ;  // query rows of one KV head
constexpr int BLOCK_ROWS = 16 * M_TILES;
constexpr int ROW_BLOCKS = (ROWS + BLOCK_ROWS - 1) / BLOCK_ROWS;
constexpr int WARP_KEYS = BLOCK_N / WARPS;
constexpr int N_TILES = WARP_KEYS / 8;  // 8-key n tiles of a warp's S
constexpr int D_TILES = D / 8;          // 8-column n tiles of O
constexpr int CHUNKS = D / 8;           // 16-byte chunks of a row
constexpr int TILE_CHUNKS = BLOCK_N * CHUNKS;
constexpr float LOG2E = 1.4426950408889634f;
#define NEG_INF (-__int_as_float(0x7f800000))  // -inf, without <cmath>

static_assert(D == 64 || D == 128, "D is 64 or 128: rows of 8 or 16 chunks, swizzled by row % 8");
static_assert(SQ >= 1 && SQ <= 16 && G >= 1,
              "1 to 16 queries per sequence, at least one query head per KV head");
static_assert(M_TILES == 1 || M_TILES == 2, "a block holds one or two 16-row query tiles");
static_assert(WARP_KEYS % 16 == 0, "each warp's keys of a tile are whole k16 steps of P V");
static_assert(TILE_CHUNKS % THREADS == 0, "every thread copies the same number of 16-byte chunks of a tile");
static_assert(STAGES >= 2, "the ring keeps at least one tile in flight while one is computed");
static_assert(NUM_SPLITS >= 1, "at least one split");
static_assert(COMBINE == 0 || (COMBINE == 1 && NUM_SPLITS > 1),
              "COMBINE 1 weighs the splits in the kernel: there must be splits to weigh");
static_assert(!PAGED || PAGE > 0, "pages hold at least one key");

// A tile never crosses a page: its rows follow its first key's (one block-table read a tile, not a row).
constexpr bool TILE_IN_PAGE = !PAGED || PAGE % BLOCK_N == 0;
// Pages a key tile spans where it crosses them (PAGED, PAGE < BLOCK_N): their block-table entries come into
// shared memory by cp.async, STAGES - 1 tiles ahead of the tile's own copies, so that no thread waits on the
// table before it issues them; 0 where a tile lies in one page.
constexpr int TILE_PAGES = TILE_IN_PAGE ? 0 : BLOCK_N / PAGE;
static_assert(TILE_IN_PAGE || BLOCK_N % PAGE == 0, "a tile that crosses pages spans whole pages");

struct SharedStorage {
  elem q[BLOCK_ROWS * D];
  union {
    struct {
      elem k[STAGES][BLOCK_N * D];
      elem v[STAGES][BLOCK_N * D];
    } ring;
    struct {
      float o[WARPS][BLOCK_ROWS * D];  // each warp's O at the rows' common maximum; merged() adds them
      float max[WARPS][BLOCK_ROWS];    // base 2, scaled; -inf: the warp saw no key of the row
      float sum[WARPS][BLOCK_ROWS];
      float row_max[BLOCK_ROWS];  // over the warps; 0 where every warp's is -inf
      float row_sum[BLOCK_ROWS];
    } merge;
  };
  int pages[STAGES][TILE_PAGES > 0 ? TILE_PAGES : 1];  // slot t % STAGES: key tile t's block-table entries
};

// Element offset of (row, chunk) with the chunk XOR-swizzled by row % 8.
__device__ __forceinline__ int swizzled(int row, int chunk) { return row * D + ((chunk ^ (row & 7)) << 3); }

// Where key j of sequence b, KV head h starts in k_cache and v_cache: the layout's one difference.
struct KeyRows {
  const int* block_table;
  int b, h, hkv, skv, max_pages;
  // The cache row (of hkv * D values) that holds key j.
  __device__ __forceinline__ long long row(int j) const {
    if constexpr (PAGED)
      return static_cast<long long>(block_table[static_cast<long long>(b) * max_pages + j / PAGE]) * PAGE +
             j % PAGE;
    else
      return static_cast<long long>(b) * skv + j;
  }
  __device__ __forceinline__ long long offset(long long cache_row) const { return (cache_row * hkv + h) * D; }
};

// The producer role: every thread copies its chunks of key tile `tile` into ring slot `slot`; rows at or past
// the sequence's length are zero-filled (V rows must be finite: P is 0 there, but 0 * NaN is not). The tile's
// first key is below the length.
// `tile_pages`: where the tile crosses pages, its block-table entries in shared memory (load_tile_pages), or
// nullptr to read them from the table here.
__device__ __forceinline__ void load_tile(SharedStorage& smem, const elem* k_cache, const elem* v_cache,
                                          const KeyRows& rows, int length, int tile, int slot,
                                          const int* tile_pages) {
  const int key0 = tile * BLOCK_N;
  long long row0 = 0;
  if constexpr (TILE_IN_PAGE) row0 = rows.row(key0);
#pragma unroll 4
  for (int i = 0; i < TILE_CHUNKS / THREADS; ++i) {
    const int c = threadIdx.x + i * THREADS;
    const int row = c / CHUNKS, chunk = c % CHUNKS;
    const bool in = key0 + row < length;
    long long offset = 0;
    if (in) {
      long long cache_row;
      if constexpr (TILE_IN_PAGE)
        cache_row = row0 + row;
      else
        cache_row = tile_pages ? static_cast<long long>(tile_pages[row / PAGE]) * PAGE + row % PAGE
                               : rows.row(key0 + row);
      offset = rows.offset(cache_row) + chunk * 8;
    }
    sm80::copy_16<L2_256B != 0>(&smem.ring.k[slot][swizzled(row, chunk)], k_cache + offset, in ? 16 : 0);
    sm80::copy_16<L2_256B != 0>(&smem.ring.v[slot][swizzled(row, chunk)], v_cache + offset, in ? 16 : 0);
  }
}

// Where tiles cross pages: the block-table entries of key tile `tile` into page slot `slot`, one thread an
// entry, by cp.async in the caller's commit group (so the wait that lands a tile lands them); entries of
// pages past the sequence's length are zero-filled and never used.
__device__ __forceinline__ void load_tile_pages(SharedStorage& smem, const KeyRows& rows, int length,
                                                int tile, int slot) {
  if constexpr (TILE_PAGES > 0) {
    static_assert(TILE_PAGES <= 32 * WARPS, "a thread an entry");
    // TILE_PAGES itself would be an unsigned comparison with 0 where this branch is discarded (a warning).
    constexpr unsigned ENTRY_THREADS = TILE_PAGES > 0 ? TILE_PAGES : 1;
    if (threadIdx.x < ENTRY_THREADS) {
      const int key = tile * BLOCK_N + static_cast<int>(threadIdx.x) * PAGE;
      const bool in = key < length;
      sm80::copy_4(&smem.pages[slot][threadIdx.x],
                   rows.block_table + static_cast<long long>(rows.b) * rows.max_pages + (in ? key / PAGE : 0),
                   in ? 4 : 0);
    }
  }
}

// One warp's running softmax state and output for the block's 16 * M_TILES rows. Lane (gid = lane / 4,
// tq = lane % 4) holds rows gid and gid + 8 of each m tile (index 2 * mt + half), the accumulator columns
// 2 * tq and 2 * tq + 1 of each 8-column n tile.
struct WarpState {
  float o[M_TILES][D_TILES][4];
  float max[2 * M_TILES];  // base 2, scaled
  float sum[2 * M_TILES];  // this lane's part; the quad's sum at the end
  int limit[2 * M_TILES];  // keys < limit are visible to the row
};

// The consumer role: this warp's keys of the tile in `slot` (key0 its first key) into its state.
__device__ __forceinline__ void consume_tile(const SharedStorage& smem, WarpState& st, int slot, int key0,
                                             bool masked, float scale_log2) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const elem* k_tile = smem.ring.k[slot];
  const elem* v_tile = smem.ring.v[slot];

  float s[M_TILES][N_TILES][4];
#pragma unroll
  for (int mt = 0; mt < M_TILES; ++mt)
#pragma unroll
    for (int nt = 0; nt < N_TILES; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[mt][nt][e] = 0.0f;

#pragma unroll
  for (int ks = 0; ks < D / 16; ++ks) {
    unsigned a[M_TILES][4];
#pragma unroll
    for (int mt = 0; mt < M_TILES; ++mt)
      sm80::ldmatrix_x4(a[mt], smem.q + swizzled(mt * 16 + lane % 16, ks * 2 + lane / 16));
#pragma unroll
    for (int np = 0; np < N_TILES / 2; ++np) {
      unsigned b[4];
      const int key = warp * WARP_KEYS + np * 16 + lane % 8 + (lane / 16) * 8;
      sm80::ldmatrix_x4(b, k_tile + swizzled(key, ks * 2 + (lane / 8) % 2));
#pragma unroll
      for (int mt = 0; mt < M_TILES; ++mt) {
        sm80::mma_16816<IS_BF16>(s[mt][2 * np], a[mt], b[0], b[1]);
        sm80::mma_16816<IS_BF16>(s[mt][2 * np + 1], a[mt], b[2], b[3]);
      }
    }
  }

#pragma unroll
  for (int mt = 0; mt < M_TILES; ++mt) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = 2 * mt + half;
      float tile_max = NEG_INF;
#pragma unroll
      for (int nt = 0; nt < N_TILES; ++nt)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = s[mt][nt][2 * half + e];
          x *= scale_log2;
          if (masked && key0 + warp * WARP_KEYS + nt * 8 + 2 * (lane % 4) + e >= st.limit[r]) x = NEG_INF;
          tile_max = fmaxf(tile_max, x);
        }
      const float new_max = fmaxf(st.max[r], sm80::quad_max(tile_max));
      const float base = new_max == NEG_INF ? 0.0f : new_max;  // every key so far masked: keep 0 * ... finite
      const float correction = exp2f(st.max[r] - base);
      st.max[r] = new_max;
      float tile_sum = 0.0f;
#pragma unroll
      for (int nt = 0; nt < N_TILES; ++nt)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = s[mt][nt][2 * half + e];
          x = exp2f(x - base);
          tile_sum += x;
        }
      st.sum[r] = st.sum[r] * correction + tile_sum;
#pragma unroll
      for (int dt = 0; dt < D_TILES; ++dt) {
        st.o[mt][dt][2 * half] *= correction;
        st.o[mt][dt][2 * half + 1] *= correction;
      }
    }
  }

#pragma unroll
  for (int kk = 0; kk < WARP_KEYS / 16; ++kk) {
    unsigned p[M_TILES][4];
#pragma unroll
    for (int mt = 0; mt < M_TILES; ++mt) {
      p[mt][0] = pack(s[mt][2 * kk][0], s[mt][2 * kk][1]);
      p[mt][1] = pack(s[mt][2 * kk][2], s[mt][2 * kk][3]);
      p[mt][2] = pack(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
      p[mt][3] = pack(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
    }
    const int key = warp * WARP_KEYS + kk * 16 + lane % 8 + ((lane / 8) % 2) * 8;
#pragma unroll
    for (int dp = 0; dp < D_TILES / 2; ++dp) {
      unsigned b[4];
      sm80::ldmatrix_x4_trans(b, v_tile + swizzled(key, 2 * dp + lane / 16));
#pragma unroll
      for (int mt = 0; mt < M_TILES; ++mt) {
        sm80::mma_16816<IS_BF16>(st.o[mt][2 * dp], p[mt], b[0], b[1]);
        sm80::mma_16816<IS_BF16>(st.o[mt][2 * dp + 1], p[mt], b[2], b[3]);
      }
    }
  }
}

// The merge: the warps' states into smem.merge.o (each warp's, unnormalised, at the rows' common maximum;
// merged() adds them in warp order, so the result does not depend on timing) and each row's maximum and sum.
// Call with the ring drained.
__device__ __forceinline__ void merge_warps(SharedStorage& smem, WarpState& st) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
#pragma unroll
  for (int r = 0; r < 2 * M_TILES; ++r) {
    st.sum[r] = sm80::quad_sum(st.sum[r]);
    if (lane % 4 == 0) {
      const int row = (r / 2) * 16 + lane / 4 + (r % 2) * 8;
      smem.merge.max[warp][row] = st.max[r];
      smem.merge.sum[warp][row] = st.sum[r];
    }
  }
  __syncthreads();
  if (threadIdx.x < BLOCK_ROWS) {
    const int row = threadIdx.x;
    float m = NEG_INF;
    for (int w = 0; w < WARPS; ++w) m = fmaxf(m, smem.merge.max[w][row]);
    const float base = m == NEG_INF ? 0.0f : m;
    float l = 0.0f;
    for (int w = 0; w < WARPS; ++w) l += smem.merge.sum[w][row] * exp2f(smem.merge.max[w][row] - base);
    smem.merge.row_max[row] = base;
    smem.merge.row_sum[row] = l;
  }
  __syncthreads();
  // Every warp at once into its own slot: one barrier, where one warp after another into a shared slot took
  // one a warp.
#pragma unroll
  for (int mt = 0; mt < M_TILES; ++mt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = mt * 16 + lane / 4 + half * 8;
      const float factor = exp2f(st.max[2 * mt + half] - smem.merge.row_max[row]);
#pragma unroll
      for (int dt = 0; dt < D_TILES; ++dt)
#pragma unroll
        for (int e = 0; e < 2; ++e)
          smem.merge.o[warp][row * D + dt * 8 + 2 * (lane % 4) + e] = factor * st.o[mt][dt][2 * half + e];
    }
  __syncthreads();
}

// Element e (row * D + column) of the block's merged O: the warps' parts added in warp order, from 0, so the
// sum does not depend on timing.
__device__ __forceinline__ float merged(const SharedStorage& smem, int e) {
  float sum = 0.0f;
#pragma unroll
  for (int w = 0; w < WARPS; ++w) sum += smem.merge.o[w][e];
  return sum;
}

// The whole block: its split's key tiles through the ring, then the merge. Leaves smem.merge filled.
__device__ __forceinline__ void attend(SharedStorage& smem, const elem* q, const elem* k_cache,
                                       const elem* v_cache, const int* cache_seqlens, const int* block_table,
                                       int hkv, int skv, float scale, int& split, int& row0, int& length) {
  unsigned dynamic_bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
  if (dynamic_bytes < sizeof(SharedStorage)) __trap();  // the space's SMEM_BYTES disagrees with this layout

  const int b = blockIdx.z, h = blockIdx.y;
  split = blockIdx.x / ROW_BLOCKS;
  const int row_block = blockIdx.x % ROW_BLOCKS;
  row0 = row_block * BLOCK_ROWS;  // the block's first row among the KV head's ROWS
  length = min(max(cache_seqlens[b], 0), skv);
  const KeyRows rows{block_table, b, h, hkv, skv, (skv + PAGE - 1) / PAGE};

  const int tiles = (length + BLOCK_N - 1) / BLOCK_N;
  const int per_split = (tiles + NUM_SPLITS - 1) / NUM_SPLITS;
  const int first = split * per_split;
  const int count = max(0, min(tiles - first, per_split));

  // Q rows past the group's are zero: their scores are 0, finite, and never written out.
  const elem* q_rows = q + (static_cast<long long>(b) * hkv + h) * ROWS * D;
  for (int c = threadIdx.x; c < BLOCK_ROWS * CHUNKS; c += THREADS) {
    const int row = c / CHUNKS, chunk = c % CHUNKS;
    const bool in = row0 + row < ROWS && count > 0;
    sm80::copy_16<L2_256B != 0>(&smem.q[swizzled(row, chunk)],
                                q_rows + (in ? (row0 + row) * D + chunk * 8 : 0), in ? 16 : 0);
  }
#pragma unroll
  for (int stage = 0; stage < STAGES - 1; ++stage) {
    if (stage < count) load_tile(smem, k_cache, v_cache, rows, length, first + stage, stage, nullptr);
    // The group of tile t carries the page entries of tile t + STAGES - 1: landed by the wait before that
    // tile's copies are issued (the loop's group i is tile i + STAGES - 1's).
    if (stage + STAGES - 1 < count)
      load_tile_pages(smem, rows, length, first + stage + STAGES - 1, (stage + STAGES - 1) % STAGES);
    sm80::commit_copies();  // empty groups too: the wait below counts groups
  }

  WarpState st;
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int r = 0; r < 2 * M_TILES; ++r) {
    const int row = row0 + (r / 2) * 16 + lane / 4 + (r % 2) * 8;
    st.max[r] = NEG_INF;
    st.sum[r] = 0.0f;
    st.limit[r] = CAUSAL ? length - SQ + 1 + row % SQ : length;
  }
#pragma unroll
  for (int mt = 0; mt < M_TILES; ++mt)
#pragma unroll
    for (int dt = 0; dt < D_TILES; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e) st.o[mt][dt][e] = 0.0f;
  // Tiles ending past the first row's limit need the mask (the sequence's tail, and the causal corner).
  const int mask_from = CAUSAL ? length - SQ + 1 : length;
  const float scale_log2 = scale * LOG2E;

  for (int i = 0; i < count; ++i) {
    sm80::wait_copies<STAGES - 2>();
    __syncthreads();  // tile i is in; every warp is done with the slot the next copy overwrites
    if (i + STAGES - 1 < count)
      load_tile(smem, k_cache, v_cache, rows, length, first + i + STAGES - 1, (i + STAGES - 1) % STAGES,
                TILE_PAGES > 0 ? smem.pages[(i + STAGES - 1) % STAGES] : nullptr);
    // Into the slot whose entries (tile i + STAGES - 2's) were read at iteration i - 1, before the barrier.
    if (i + 2 * STAGES - 2 < count)
      load_tile_pages(smem, rows, length, first + i + 2 * STAGES - 2, (i + 2 * STAGES - 2) % STAGES);
    sm80::commit_copies();
    const int key0 = (first + i) * BLOCK_N;
    consume_tile(smem, st, i % STAGES, key0, key0 + BLOCK_N > mask_from, scale_log2);
  }
  sm80::wait_copies<0>();
  __syncthreads();  // the ring becomes the merge area
  merge_warps(smem, st);
}

// Programmatic dependent launch (PDL = 1, sm_90 and later; nothing below, where the combine is an ordinary
// launch). The split blocks let the combine kernel's blocks start once each has read its last K/V (they still
// write their partials after); the combine waits for the whole split grid to complete, its writes visible,
// before it reads a partial. The order of the two never matters for correctness: launch_dependents only lets
// the dependent grid be scheduled.
__device__ __forceinline__ void allow_dependents() {
#if PDL && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void wait_for_splits() {
#if PDL && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// NUM_SPLITS > 1: the block's rows of its split's normalised O and log-sum-exp into O_part and L_part.
__device__ __forceinline__ void store_partials(const SharedStorage& smem, float* O_part, float* L_part,
                                               int batch, int hkv, int split, int row0) {
  const long long total_rows = static_cast<long long>(batch) * hkv * ROWS;
  const long long first_row = static_cast<long long>(split) * total_rows +
                              (static_cast<long long>(blockIdx.z) * hkv + blockIdx.y) * ROWS + row0;
  for (int e = threadIdx.x; e < BLOCK_ROWS * D; e += THREADS) {
    const int row = e / D;
    if (row0 + row >= ROWS) break;
    const float l = smem.merge.row_sum[row];
    O_part[first_row * D + e] = l > 0.0f ? merged(smem, e) / l : 0.0f;
  }
  if (threadIdx.x < BLOCK_ROWS && row0 + static_cast<int>(threadIdx.x) < ROWS) {
    const float l = smem.merge.row_sum[threadIdx.x];
    L_part[first_row + threadIdx.x] = l > 0.0f ? smem.merge.row_max[threadIdx.x] + log2f(l) : NEG_INF;
  }
}

// A lane's D / 32 columns of one partial O row, through L2 (ld.global.cg: the last split block's L1 may not
// see the other blocks' writes).
__device__ __forceinline__ void load_columns(const float* at, float (&part)[D / 32]) {
  if constexpr (D == 128) {
    const float4 v = __ldcg(reinterpret_cast<const float4*>(at));
    part[0] = v.x, part[1] = v.y, part[2] = v.z, part[3] = v.w;
  } else {
    const float2 v = __ldcg(reinterpret_cast<const float2*>(at));
    part[0] = v.x, part[1] = v.y;
  }
}

// One warp weighs the NUM_SPLITS partials of output row `row` (of B * HQ * SQ) into o, in split order; each
// lane owns D / 32 columns. One L2 round trip for up to 16 splits: no load depends on another load, so the
// lanes' log-sum-exps (lane l: splits l, l + 32, ...) and the first EARLY splits' O are all in flight before
// the first is used; later splits' O are loaded in the loop, 8 ahead. A split that saw no key has O 0 and
// log-sum-exp -inf: its weight is 0, and sum + 0, acc + 0 * 0 keep their values; a row no split saw is 0,
// never NaN (every weight is 0).
__device__ __forceinline__ void combine_row(const float* O_part, const float* L_part, elem* o, int total_rows,
                                            int row, int lane) {
  constexpr int SPLIT_ROUNDS = (NUM_SPLITS + 31) / 32;  // splits a lane holds the log-sum-exp of
  constexpr int COLUMNS = D / 32;
  constexpr int EARLY = NUM_SPLITS < 16 ? NUM_SPLITS : 16;  // splits whose O is loaded with the log-sum-exps
  const auto column0 = [&](int s) {
    return O_part + (static_cast<long long>(s) * total_rows + row) * D + lane * COLUMNS;
  };
  float lse_of[SPLIT_ROUNDS];
#pragma unroll
  for (int k = 0; k < SPLIT_ROUNDS; ++k) {
    const int s = k * 32 + lane;
    lse_of[k] = s < NUM_SPLITS ? __ldcg(L_part + static_cast<long long>(s) * total_rows + row) : NEG_INF;
  }
  float early[EARLY][COLUMNS];
#pragma unroll
  for (int s = 0; s < EARLY; ++s) load_columns(column0(s), early[s]);

  float m = NEG_INF;
#pragma unroll
  for (int k = 0; k < SPLIT_ROUNDS; ++k) m = fmaxf(m, lse_of[k]);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
  float acc[COLUMNS];
#pragma unroll
  for (int c = 0; c < COLUMNS; ++c) acc[c] = 0.0f;
  float sum = 0.0f;
  const auto add = [&](float lse, const float(&part)[COLUMNS]) {
    const float w = lse == NEG_INF ? 0.0f : exp2f(lse - m);
    sum += w;
#pragma unroll
    for (int c = 0; c < COLUMNS; ++c) acc[c] += w * part[c];
  };
#pragma unroll
  for (int s = 0; s < EARLY; ++s) add(__shfl_sync(0xffffffffu, lse_of[0], s), early[s]);
#pragma unroll
  for (int k = 0; k < SPLIT_ROUNDS; ++k) {
#pragma unroll 8
    for (int i = k == 0 ? EARLY : 0; i < 32 && k * 32 + i < NUM_SPLITS; ++i) {
      float part[COLUMNS];
      load_columns(column0(k * 32 + i), part);
      add(__shfl_sync(0xffffffffu, lse_of[k], i), part);
    }
  }
#pragma unroll
  for (int c = 0; c < COLUMNS; ++c)
    o[static_cast<long long>(row) * D + lane * COLUMNS + c] = to_elem(sum > 0.0f ? acc[c] / sum : 0.0f);
}

}  // namespace

// NUM_SPLITS = 1: o directly.
extern "C" __global__ void __launch_bounds__(THREADS)
    decode_attn(const elem* q, const elem* k_cache, const elem* v_cache, const int* cache_seqlens,
                const int* block_table, elem* o, int hkv, int skv, float scale) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(smem_bytes);
  int split, row0, length;
  attend(smem, q, k_cache, v_cache, cache_seqlens, block_table, hkv, skv, scale, split, row0, length);
  elem* o_rows = o + (static_cast<long long>(blockIdx.z) * hkv + blockIdx.y) * ROWS * D;
  for (int e = threadIdx.x; e < BLOCK_ROWS * D; e += THREADS) {
    const int row = e / D;
    if (row0 + row >= ROWS) break;
    const float l = smem.merge.row_sum[row];
    o_rows[static_cast<long long>(row0) * D + e] = to_elem(l > 0.0f ? merged(smem, e) / l : 0.0f);
  }
}

// NUM_SPLITS > 1, COMBINE = 0: this split's normalised O and log-sum-exp, for decode_attn_combine.
extern "C" __global__ void __launch_bounds__(THREADS)
    decode_attn_split(const elem* q, const elem* k_cache, const elem* v_cache, const int* cache_seqlens,
                      const int* block_table, float* O_part, float* L_part, int batch, int hkv, int skv,
                      float scale) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(smem_bytes);
  int split, row0, length;
  attend(smem, q, k_cache, v_cache, cache_seqlens, block_table, hkv, skv, scale, split, row0, length);
  allow_dependents();
  store_partials(smem, O_part, L_part, batch, hkv, split, row0);
}

// The combine: one warp per output row (of B * HQ * SQ), 4 warps a block.
extern "C" __global__ void __launch_bounds__(128)
    decode_attn_combine(const float* O_part, const float* L_part, elem* o, int total_rows) {
  wait_for_splits();  // every thread, before any exits: the grid completes only after the splits have
  const int row = blockIdx.x * 4 + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= total_rows) return;
  combine_row(O_part, L_part, o, total_rows, row, lane);
}

#if COMBINE
namespace {

// Whether this block is the last of its NUM_SPLITS to arrive at `counter` (zero before the launch). Every
// thread's partials are on the device before the block arrives (the fence, then the barrier), and the last
// block reads the others' after their arrivals (thread 0's fence after the atomic, then the barrier).
__device__ __forceinline__ bool last_to_arrive(int* counter) {
  __threadfence();
  __syncthreads();
  int last = 0;
  if (threadIdx.x == 0) {
    last = atomicAdd(counter, 1) == NUM_SPLITS - 1;
    __threadfence();
  }
  return __syncthreads_or(last) != 0;
}

}  // namespace

// NUM_SPLITS > 1, COMBINE = 1: this split's partials, then, in the block that arrives last at its (row block,
// KV head, sequence), o from every split's, a warp a row. `arrivals` must be zero before the launch.
extern "C" __global__ void __launch_bounds__(THREADS)
    decode_attn_split_combine(const elem* q, const elem* k_cache, const elem* v_cache,
                              const int* cache_seqlens, const int* block_table, float* O_part, float* L_part,
                              int* arrivals, elem* o, int batch, int hkv, int skv, float scale) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(smem_bytes);
  int split, row0, length;
  attend(smem, q, k_cache, v_cache, cache_seqlens, block_table, hkv, skv, scale, split, row0, length);
  store_partials(smem, O_part, L_part, batch, hkv, split, row0);
  const int head_rows = static_cast<int>(blockIdx.z) * hkv + static_cast<int>(blockIdx.y);  // ROWS rows of o
  if (!last_to_arrive(arrivals + head_rows * ROW_BLOCKS + blockIdx.x % ROW_BLOCKS)) return;
  const int total_rows = batch * hkv * ROWS;
  const int rows = min(BLOCK_ROWS, ROWS - row0);
  for (int r = threadIdx.x / 32; r < rows; r += WARPS)
    combine_row(O_part, L_part, o, total_rows, head_rows * ROWS + row0 + r, threadIdx.x % 32);
}
#endif
