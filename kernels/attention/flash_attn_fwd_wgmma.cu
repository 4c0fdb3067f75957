// Forward attention O = softmax(Q K^T * scale) V on Hopper's warpgroup tensor cores (wgmma, sm_90a), on the
// kernels/common/sm90 primitives. Q, O: fp16 [B, H, S, D], K, V: [B, HKV, SKV, D] (bf16 with -DBF16=1),
// contiguous, D fastest; query head h reads K/V head h / (H / HKV), and causal is aligned to the bottom right
// (query i sees keys j <= i + SKV - S). Besides O it writes LSE, fp32 [B, H, S]: each row's log-sum-exp of
// its scaled scores, ln sum_j e^(scale q_i . k_j) over the keys it sees (0 for a row that sees none), what
// the backward pass recomputes P from. A block computes BLOCK_M = 64 * CONSUMER_WARPGROUPS query rows of one
// head; its roles, each a header of fwd_wgmma/ (included after the parameters below, in this order):
//   config          the element type, the block's shape and register split, the parameters' checks
//   shared_storage  the shared-memory layout (SharedStorage, Smem) and the named barriers
//   scheduler       which work tile a block computes: the grid's, in order or (causal) longest first, or a
//                   persistent walk (Scheduler)
//   producer        Q and the K/V tiles into a ring of STAGES shared-memory stages by a producer warpgroup
//                   (WARP_SPECIALIZE) on the ring's mbarriers (KvRing), with cp.async or TMA (TMA_LOADS), in
//                   clusters of two blocks through multicast (CLUSTER 2)
//   kv_supply       the ring as the consumers see it: the producer's (ProducedKv) or their own cp.async loads
//                   on block barriers (SelfLoadedKv)
//   tile_mma        per K/V tile S = Q K^T and O += P V (TileMma); the consumer warpgroups' turns (PINGPONG)
//   softmax         the online softmax in base 2 on the S accumulators (ScoreMask, Softmax)
//   pending_store   (persistent, two Q tiles) a work tile's O store waited for after the next one's first S
//   mainloop        a work tile's K/V tiles, each batch waited for at once or overlapped with the softmax
//                   (INTRA_WG_OVERLAP)
//   epilogue        O / row sums staged in the Q tile, stored with 16-byte stores or TMA (TMA_STORE); each
//                   row's log-sum-exp into LSE
// This file composes them: a consumer warpgroup's work tiles (consume) and the kernel. Tuning parameters and
// problem sizes arrive as #defines (search_spaces/flash_attn_fwd_wgmma.json); the design notes (layouts,
// descriptors, fragments, the synchronisation of every mode) are in docs/kernels/attention_wgmma.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../common/sm90/arch.cuh"
#include "../common/sm90/cluster.cuh"
#include "../common/sm90/cp_async.cuh"
#include "../common/sm90/element_type.cuh"
#include "../common/sm90/head_interleave.cuh"
#include "../common/sm90/mbarrier.cuh"
#include "../common/sm90/named_barrier.cuh"
#include "../common/sm90/pipeline.cuh"
#include "../common/sm90/registers.cuh"
#include "../common/sm90/tma.cuh"
#include "../common/sm90/warpgroup.cuh"
#include "../common/sm90/wgmma.cuh"

#ifndef D
static_assert(false, "D (head dimension) must be #defined");
#endif
#ifndef CAUSAL
static_assert(false, "CAUSAL (0 or 1) must be #defined");
#endif
#ifndef CONSUMER_WARPGROUPS
static_assert(false, "CONSUMER_WARPGROUPS must be #defined");
#endif
#ifndef BLOCK_N
static_assert(false, "BLOCK_N must be #defined");
#endif
#ifndef STAGES
static_assert(false, "STAGES must be #defined");
#endif
#ifndef INTRA_WG_OVERLAP
static_assert(false, "INTRA_WG_OVERLAP (0 or 1) must be #defined");
#endif
#ifndef WARP_SPECIALIZE
static_assert(false, "WARP_SPECIALIZE (0 or 1) must be #defined");
#endif
#ifndef PINGPONG
static_assert(false, "PINGPONG (0 or 1) must be #defined");
#endif
#ifndef TMA_LOADS
static_assert(false, "TMA_LOADS (0 or 1) must be #defined");
#endif
#ifndef TMA_STORE
static_assert(false, "TMA_STORE (0 or 1) must be #defined");
#endif
#ifndef PERSISTENT
static_assert(false, "PERSISTENT (0 or 1) must be #defined");
#endif
#ifndef REG_SPLIT
static_assert(false, "REG_SPLIT (0..2) must be #defined");
#endif
#ifndef LONGEST_FIRST
static_assert(false, "LONGEST_FIRST (0 or 1) must be #defined");
#endif
#ifndef CLUSTER
static_assert(false, "CLUSTER (1 or 2) must be #defined");
#endif
// Added later; defaults to the grid's own order, so that a config without it compiles as before.
#ifndef HEAD_INTERLEAVE
#define HEAD_INTERLEAVE 1
#endif
#ifndef Q_BUFFERS
#define Q_BUFFERS 1
#endif
#ifndef LAZY_RESCALE
#define LAZY_RESCALE 0
#endif
#ifndef KV_SPLIT
#define KV_SPLIT 0
#endif
#ifndef ROW_SUM_MMA
#define ROW_SUM_MMA 0
#endif

#include "fwd_wgmma/config.cuh"
#include "fwd_wgmma/epilogue.cuh"
#include "fwd_wgmma/kv_supply.cuh"
#include "fwd_wgmma/mainloop.cuh"
#include "fwd_wgmma/pending_store.cuh"
#include "fwd_wgmma/producer.cuh"
#include "fwd_wgmma/scheduler.cuh"
#include "fwd_wgmma/shared_storage.cuh"
#include "fwd_wgmma/softmax.cuh"
#include "fwd_wgmma/tile_mma.cuh"

namespace attn {

// A consumer warpgroup: its work tiles, each a mainloop over the K/V tiles and an epilogue.
__device__ __forceinline__ void consume(KvSupply& kv, Output out, float* lse, const Smem& smem,
                                        const Scheduler& scheduler, const Lane& me, float scale_log2) {
  const TileMma first_q_mma = TileMma::of(smem, me.warpgroup);
  if constexpr (ROW_SUM_MMA) {  // the warpgroup's tile of ones, one element a thread, seen by its wgmmas
    smem.ones_tile(me.warpgroup)[threadIdx.x % 128] = static_cast<elem>(1.0f);
    sm90::fence_async_shared();
    sm90::barrier_sync<128>(of_warpgroup(Barrier::warpgroup, me.warpgroup));
  }
  const Turns turns{me.warpgroup};
  turns.start();
  int done_items = 0;
  PendingStore pending;
  for (int item = scheduler.first; item < scheduler.count; item += scheduler.step, ++done_items) {
    const WorkTile work = scheduler.work_tile(item);
    const int buffer = done_items % Q_BUFFERS;  // the Q tile the producer loaded this work tile's Q into
    const TileMma mma = first_q_mma.on_q(buffer);
    kv.begin(work);
    float o_acc[D / 2];
#pragma unroll
    for (int i = 0; i < D / 2; ++i) o_acc[i] = 0.0f;
    Softmax softmax{scale_log2};
    softmax.reset();
    const ScoreMask mask{scheduler.SKV, work.m0 + me.warpgroup * 64 + scheduler.causal_offset(), me};
    if constexpr (INTRA_WG_OVERLAP)
      mainloop_overlapped(kv, mma, mask, softmax, turns, o_acc, work.tiles, pending);
    else
      mainloop(kv, mma, mask, softmax, o_acc, work.tiles, pending);
    kv.drain();
    softmax.finish();
    stage_o(smem, o_acc, softmax, me, buffer);
    store_lse(lse, softmax, work, me, scheduler.S);
    store_o(out, smem, work, me.warpgroup, scheduler.S, buffer, pending);
    kv.end(work);
  }
  pending.settle();  // the block's last store has read its rows before the block exits
  turns.finish();
  if constexpr (CLUSTER > 1) sm90::cluster_sync();  // the peer's consumers no longer arrive on this block
}

}  // namespace attn

// The kernel takes Q, K and V as pointers, or (TMA_LOADS) as tensor maps, O as a pointer or (TMA_STORE) a
// tensor map, then the LSE pointer and the sizes: the space's Launches pick the arguments.
extern "C" __global__ void __launch_bounds__(attn::THREADS, 1)
#if TMA_LOADS
    flash_attn_fwd_wgmma(const __grid_constant__ sm90::TensorMap q_map,
                         const __grid_constant__ sm90::TensorMap k_map,
                         const __grid_constant__ sm90::TensorMap v_map,
#if TMA_STORE
                         const __grid_constant__ sm90::TensorMap o_map,
#else
                         attn::elem* __restrict__ O,
#endif
                         float* __restrict__ LSE, int B, int H, int HKV, int S, int SKV, float scale) {
  const attn::TmaInputs inputs{q_map, k_map, v_map};
#else
    flash_attn_fwd_wgmma(const attn::elem* __restrict__ Q, const attn::elem* __restrict__ K,
                         const attn::elem* __restrict__ V, attn::elem* __restrict__ O,
                         float* __restrict__ LSE, int B, int H, int HKV, int S, int SKV, float scale) {
  const attn::PointerInputs inputs{Q, K, V};
#endif
#if TMA_STORE
  attn::Output output = o_map;
#else
  attn::Output output = O;
#endif
  using namespace attn;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  {
    unsigned dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < static_cast<unsigned>(SMEM_BYTES)) __trap();  // less than the layout: no overrun
  }
  const Smem smem = Smem::of(smem_raw);
  const Lane me = Lane::of_thread();
  const float scale_log2 = scale * kLog2e;
  const Scheduler scheduler = Scheduler::of_block(S, SKV, H, HKV, B);
  const KvRing ring = KvRing::of(smem);
  const unsigned rank = CLUSTER > 1 ? sm90::cluster_rank() : 0;
  if constexpr (WARP_SPECIALIZE) {
    if (threadIdx.x == 0) ring.init(smem.q_empty());
    if constexpr (CLUSTER > 1)
      sm90::cluster_sync();  // both blocks' barriers are initialised before any copy or arrival reaches them
    else
      __syncthreads();
    if (me.warpgroup == CONSUMER_WARPGROUPS) {
      if constexpr (CONSUMER_WARPGROUPS > 1) sm90::registers_decrease<PRODUCER_REGS>();
      produce(inputs, smem, ring, scheduler, rank);
      return;
    }
    if constexpr (CONSUMER_WARPGROUPS > 1) sm90::registers_increase<CONSUMER_REGS>();
  }
  KvSupply kv(inputs, smem, ring, S, SKV, rank);
  consume(kv, output, LSE, smem, scheduler, me, scale_log2);
}
