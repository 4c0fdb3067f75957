// Backward attention on Hopper's warpgroup tensor cores (wgmma, sm_90a), on the kernels/common/sm90
// primitives: dQ, dK, dV of O = softmax(Q K^T * scale) V from Q, K, V, O, dO and the forward's log-sum-exps
// LSE (natural log). Q, O, dO, dQ: fp16 [B, H, S, D], K, V, dK, dV: [B, HKV, SKV, D] (bf16 with -DBF16=1),
// LSE: float [B, H, S]; query head h reads K/V head h / (H / HKV), dK and dV sum over the query heads of the
// group; causal is aligned to the bottom right (query i sees keys j <= i + SKV - S). Three kernels, in launch
// order:
//   flash_attn_bwd_preprocess  Dsum = rowsum(dO * O) and LSE * log2(e) into scratch rows padded to 128 (640
//       with 80-row tiles) a head (padding: 0 and +inf), and (DQ_ATOMIC) the fp32 dQ accumulator zeroed (3:
//       every padded row)
//   flash_attn_bwd_wgmma  one block per (BLOCK_N keys, K/V head, batch): K and V loaded once, then every
//       query block of every query head of the group through a ring of STAGES Q / dO / LSE / Dsum tiles;
//       per tile, each consumer warpgroup owning 64 keys:
//         S^T = K Q^T, dP^T = V dO^T    (A and B K-major in shared memory)
//         P^T = exp2(S^T scale log2(e) - LSE log2(e)), dS^T = P^T (dP^T - Dsum)
//         dV += P^T dO, dK += dS^T Q    (A from registers, B MN-major)
//         dQ (+)= dS K                  (dS^T through shared memory; A and B MN-major; with 80-row
//                                       tiles transposed, dQ^T = K^T dS^T), split among the
//                                       warpgroups, added to an fp32 accumulator (DQ_ATOMIC 1: vector
//                                       atomics; 2: staged in shared memory, bulk reduce-adds, issued by
//                                       the consumers or, DQ_WRITER, by a warp of the producer; 3: the
//                                       same with the accumulator tiled, one bulk reduce-add a unit) or
//                                       stored as this key block's partial (0)
//       then dK * scale and dV in the element type
//   flash_attn_bwd_convert_dq  dQ = scale * the accumulator (or the partials summed in key-block order)
// Roles of the main kernel, each a header of bwd_wgmma/ (included after the parameters' checks, whose
// #defines they read): config and shared_storage; the schedule of a block's query tiles (schedule.cuh:
// Schedule), the Q / dO ring filled by the consumers with cp.async (ring.cuh: SelfLoadedRing) or by a
// producer warpgroup (WARP_SPECIALIZE: with cp.async or, TMA_LOADS, tensor copies; Ring, ProducedRing on
// sm90::TmaPipeline's barriers), the wgmmas (tile_mma.cuh: TileMma), P and dS (p_ds.cuh: Gradients), the dS^T
// tile (ds_tile.cuh: DsTile, 4-byte stores or, DS_STMATRIX, stmatrix; its layout in bwd_tile_layout.cuh), the
// dQ writes (dq.cuh: DqWriter; with DQ_WRITER the producer's writer warp, DqWriterWarp, issues the bulk
// reduce-adds of the staged units), the dK / dV epilogue (epilogue.cuh), the consumers' tile loop
// (consumer.cuh: consume_tiles; consume_tiles_overlapped with NEXT_TILE_OVERLAP, which issues the next tile's
// scores before this tile's dQ is written; DS_DOUBLE_BUFFER alternates two dS^T tiles). This file holds the
// block's roles on their threads and the three kernels. Tuning parameters and problem sizes arrive as
// #defines (search_spaces/flash_attn_bwd_wgmma.json); the design notes (layouts, descriptors, fragments,
// synchronisation, the dQ strategies) are in docs/kernels/attention_bwd.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../common/sm90/arch.cuh"
#include "../common/sm90/cp_async.cuh"
#include "../common/sm90/element_type.cuh"
#include "../common/sm90/head_interleave.cuh"
#include "../common/sm90/mbarrier.cuh"
#include "../common/sm90/named_barrier.cuh"
#include "../common/sm90/pipeline.cuh"
#include "../common/sm90/registers.cuh"
#include "../common/sm90/stmatrix.cuh"
#include "../common/sm90/tma.cuh"
#include "../common/sm90/warpgroup.cuh"
#include "../common/sm90/wgmma.cuh"
#include "bwd_tile_layout.cuh"

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
#ifndef STAGES
static_assert(false, "STAGES must be #defined");
#endif
#ifndef WARP_SPECIALIZE
static_assert(false, "WARP_SPECIALIZE (0 or 1) must be #defined");
#endif
#ifndef TMA_LOADS
static_assert(false, "TMA_LOADS (0 or 1) must be #defined");
#endif
#ifndef DQ_ATOMIC
static_assert(false, "DQ_ATOMIC (0, 1, 2 or 3) must be #defined");
#endif
// The overlaps added later default to 0, today's schedule, so that a config without them compiles as before.
#ifndef DS_DOUBLE_BUFFER
#define DS_DOUBLE_BUFFER 0
#endif
#ifndef NEXT_TILE_OVERLAP
#define NEXT_TILE_OVERLAP 0
#endif
#ifndef DQ_WRITER
#define DQ_WRITER 0
#endif
#ifndef DS_STMATRIX
#define DS_STMATRIX 0
#endif
#ifndef HEAD_INTERLEAVE
#define HEAD_INTERLEAVE 1
#endif
#ifndef DQ_ALTERNATE
#define DQ_ALTERNATE 0
#endif
#ifndef ROW_STATS_EARLY
#define ROW_STATS_EARLY 0
#endif
static_assert(HEAD_INTERLEAVE >= 1, "HEAD_INTERLEAVE: (batch, K/V head) pairs whose key blocks interleave");

#include "bwd_wgmma/config.cuh"
#include "bwd_wgmma/consumer.cuh"
#include "bwd_wgmma/dq.cuh"
#include "bwd_wgmma/ds_tile.cuh"
#include "bwd_wgmma/epilogue.cuh"
#include "bwd_wgmma/p_ds.cuh"
#include "bwd_wgmma/ring.cuh"
#include "bwd_wgmma/schedule.cuh"
#include "bwd_wgmma/shared_storage.cuh"
#include "bwd_wgmma/tile_mma.cuh"

namespace attn_bwd {

// The main kernel's block: the roles on their threads (Inputs: PointerInputs or TmaInputs; a template, so
// that the path a config does not take is not compiled).
template <typename Inputs>
__device__ __forceinline__ void run_block(const Inputs& inputs, float* dQ_accum, elem* dK, elem* dV, int B,
                                          int H, int HKV, int S, int SKV, float scale) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  {
    unsigned dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < static_cast<unsigned>(SMEM_BYTES)) __trap();  // less than the layout: no overrun
  }
  const Smem smem = Smem::of(smem_raw);
  const Lane me = Lane::of_thread();
  const Schedule schedule = Schedule::of_block(S, SKV, H, HKV);
  // This key block's partial (DQ_ATOMIC 0) or the shared accumulator.
  const long long key_block =
      HEAD_INTERLEAVE == 1 ? static_cast<long long>(blockIdx.x) : schedule.n0 / BLOCK_N;
  const long long partial = DQ_ATOMIC ? 0 : key_block * B * H * S * D;
  const unsigned dq_stage = smem.dq_stage(me.warpgroup);
  const DqWriter dq_writer{dQ_accum + partial, S, dq_stage, smem.at<float>(dq_stage)};
  if constexpr (WARP_SPECIALIZE) {
    const Ring ring = Ring::of(smem);
    if (threadIdx.x == 0) ring.init();
    __syncthreads();
    if (me.warpgroup == WARPGROUPS) {
      if constexpr (WARPGROUPS > 1) sm90::registers_decrease<PRODUCER_REGS>();
      if constexpr (DQ_WRITER) {
        if (me.warp == DQ_WRITER_WARP) {
          DqWriterWarp{dQ_accum, S, smem}.run(schedule);
          return;
        }
      }
      produce(inputs, smem, ring, schedule);
      return;
    }
    if constexpr (WARPGROUPS > 1) sm90::registers_increase<CONSUMER_REGS>();
    consume(ProducedRing{ring}, smem, schedule, dq_writer, dK, dV, scale, me);
  } else {
    consume(SelfLoadedRing{inputs, smem, schedule}, smem, schedule, dq_writer, dK, dV, scale, me);
  }
}

}  // namespace attn_bwd

// ---------------------------------------------------------------------------------------------------------
// The preprocess: per row of every head, Dsum = sum_d dO O in fp32 and LSE * log2(e), into rows padded to a
// multiple of 128 a head (rows past S: Dsum 0, LSE +inf, so that P is 0 there), and (DQ_ATOMIC) the row of
// the fp32 dQ accumulator zeroed (DQ_ATOMIC 3: every padded row, D floats a row, of the tiled accumulator,
// which holds S_PAD D floats a head: the rows' zeroed spans cover it whatever its inner order). D / 8
// threads a row, 16 bytes each; grid (padded rows / rows a block, H, B), 256 threads.
extern "C" __global__ void __launch_bounds__(256)
    flash_attn_bwd_preprocess(const attn_bwd::elem* __restrict__ O, const attn_bwd::elem* __restrict__ dO,
                              const float* __restrict__ LSE, float* __restrict__ Dsum,
                              float* __restrict__ LSE_log2, float* __restrict__ dQ_accum, int H, int S) {
  using namespace attn_bwd;
  constexpr int ROWS = 256 / CHUNKS;
  const int row = static_cast<int>(blockIdx.x) * ROWS + static_cast<int>(threadIdx.x) / CHUNKS;
  const int c = static_cast<int>(threadIdx.x) % CHUNKS;
  const long long bh = static_cast<long long>(blockIdx.z) * H + blockIdx.y;
  const long long offset = (bh * S + row) * D + c * 8;
  float sum = 0.0f;
  if (row < S) {
    const uint4 o = *reinterpret_cast<const uint4*>(O + offset);
    const uint4 d = *reinterpret_cast<const uint4*>(dO + offset);
    const unsigned o_bits[4] = {o.x, o.y, o.z, o.w}, d_bits[4] = {d.x, d.y, d.z, d.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 of = unpack_pair(o_bits[i]), df = unpack_pair(d_bits[i]);
      sum = fmaf(of.x, df.x, fmaf(of.y, df.y, sum));
    }
    if constexpr (DQ_ATOMIC && !DQ_TILED) {
      float4* const acc = reinterpret_cast<float4*>(dQ_accum + offset);
      acc[0] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      acc[1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
  }
  if constexpr (DQ_TILED) {
    float4* const acc = reinterpret_cast<float4*>(dQ_accum + (bh * padded_rows(S) + row) * D + c * 8);
    acc[0] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    acc[1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
#pragma unroll
  for (int lanes = 1; lanes < CHUNKS; lanes *= 2) sum += __shfl_xor_sync(0xffffffffu, sum, lanes);
  if (c == 0) {
    const long long padded = bh * padded_rows(S) + row;
    Dsum[padded] = row < S ? sum : 0.0f;
    LSE_log2[padded] = row < S ? LSE[bh * S + row] * kLog2e : __int_as_float(0x7f800000);
  }
}

// The main kernel takes Q, K, V, dO as pointers, or (TMA_LOADS) as tensor maps: the space's Launches pick the
// arguments. Grid (cdiv(SKV, BLOCK_N), HKV, B), THREADS threads, SMEM_BYTES of dynamic shared memory.
extern "C" __global__ void __launch_bounds__(attn_bwd::THREADS, 1)
#if TMA_LOADS
    flash_attn_bwd_wgmma(const __grid_constant__ sm90::TensorMap q_map,
                         const __grid_constant__ sm90::TensorMap k_map,
                         const __grid_constant__ sm90::TensorMap v_map,
                         const __grid_constant__ sm90::TensorMap do_map, const float* __restrict__ LSE_log2,
                         const float* __restrict__ Dsum, float* __restrict__ dQ_accum,
                         attn_bwd::elem* __restrict__ dK, attn_bwd::elem* __restrict__ dV, int B, int H,
                         int HKV, int S, int SKV, float scale) {
  const attn_bwd::TmaInputs inputs{q_map, k_map, v_map, do_map, LSE_log2, Dsum};
#else
    flash_attn_bwd_wgmma(const attn_bwd::elem* __restrict__ Q, const attn_bwd::elem* __restrict__ K,
                         const attn_bwd::elem* __restrict__ V, const attn_bwd::elem* __restrict__ dO,
                         const float* __restrict__ LSE_log2, const float* __restrict__ Dsum,
                         float* __restrict__ dQ_accum, attn_bwd::elem* __restrict__ dK,
                         attn_bwd::elem* __restrict__ dV, int B, int H, int HKV, int S, int SKV,
                         float scale) {
  const attn_bwd::PointerInputs inputs{Q, K, V, dO, LSE_log2, Dsum};
#endif
  attn_bwd::run_block(inputs, dQ_accum, dK, dV, B, H, HKV, S, SKV, scale);
}

// dQ = scale * (the fp32 accumulator, or the key blocks' partials summed in key-block order) in the element
// type. A row sums the partials of the key blocks whose first key it sees (causal), the ones that visited its
// query block and gave it anything; the others never wrote its row. DQ_ATOMIC 3 reads the row's chunk from
// its unit of the tiled accumulator (rows < S only: the padding rows are never read). D / 8 threads a row;
// grid (cdiv(S, rows a block), H, B), 256 threads.
extern "C" __global__ void __launch_bounds__(256)
    flash_attn_bwd_convert_dq(const float* __restrict__ dQ_accum, attn_bwd::elem* __restrict__ dQ, int B,
                              int H, int S, int SKV, float scale) {
  using namespace attn_bwd;
  constexpr int ROWS = 256 / CHUNKS;
  const int row = static_cast<int>(blockIdx.x) * ROWS + static_cast<int>(threadIdx.x) / CHUNKS;
  if (row >= S) return;
  const int c = static_cast<int>(threadIdx.x) % CHUNKS;
  const long long offset = ((static_cast<long long>(blockIdx.z) * H + blockIdx.y) * S + row) * D + c * 8;
  float acc[8] = {};
  const int key_blocks = (SKV + BLOCK_N - 1) / BLOCK_N;
  const int last_key = row + SKV - S;  // (causal) the last key this row sees
  const int blocks = DQ_ATOMIC ? 1
                     : CAUSAL  ? (last_key < 0 ? 0 : min(key_blocks, last_key / BLOCK_N + 1))
                               : key_blocks;
  const long long partial_stride = static_cast<long long>(B) * H * S * D;
  // (DQ_ATOMIC 3) chunk c % 8 of slab c / 8 of the row, in its unit.
  const long long accum_offset =
      DQ_TILED ? tiled_unit_offset((static_cast<long long>(blockIdx.z) * H + blockIdx.y) * padded_rows(S),
                                   tiled_unit_first_row(row), (c / 8) * DQ_N) +
                     tiled_chunk_offset(tiled_unit_row(row), c % 8)
               : offset;
  for (int block = 0; block < blocks; ++block) {
    const float4* const part =
        reinterpret_cast<const float4*>(dQ_accum + block * partial_stride + accum_offset);
    const float4 low = part[0], high = part[1];
    acc[0] += low.x;
    acc[1] += low.y;
    acc[2] += low.z;
    acc[3] += low.w;
    acc[4] += high.x;
    acc[5] += high.y;
    acc[6] += high.z;
    acc[7] += high.w;
  }
  uint4 out;
  out.x = pack_pair(acc[0] * scale, acc[1] * scale);
  out.y = pack_pair(acc[2] * scale, acc[3] * scale);
  out.z = pack_pair(acc[4] * scale, acc[5] * scale);
  out.w = pack_pair(acc[6] * scale, acc[7] * scale);
  *reinterpret_cast<uint4*>(dQ + offset) = out;
}
