// The wgmma backward template's Q / dO ring: its inputs, the consumers' own cp.async loads (SelfLoadedRing)
// or a producer warpgroup's (Ring, produce, ProducedRing). Included by flash_attn_bwd_wgmma.cu after its
// tuning parameters, whose #defines it reads.
#pragma once

#include "schedule.cuh"
#include "shared_storage.cuh"

namespace attn_bwd {

// The main kernel's inputs: Q, K, V, dO as pointers or (TMA_LOADS) as tensor maps of [B * H][S][D] (Q, dO,
// boxes of 64 columns by BLOCK_M rows) and [B * HKV][SKV][D] (K, V, boxes of 64 by BLOCK_N), 128-byte
// swizzle; LSE * log2(e) and Dsum as pointers to the padded rows.
struct PointerInputs {
  const elem* q;
  const elem* k;
  const elem* v;
  const elem* dout;
  const float* lse;
  const float* dsum;
};
struct TmaInputs {
  const sm90::TensorMap& q;
  const sm90::TensorMap& k;
  const sm90::TensorMap& v;
  const sm90::TensorMap& dout;
  const float* lse;
  const float* dsum;
};

// A query tile's BLOCK_M LSE and Dsum values (padded rows: always inside the scratch, 16-byte aligned), by
// the loaders below BLOCK_M / 2.
__device__ __forceinline__ void load_rows(unsigned lse, unsigned dsum, const PointerInputs& in,
                                          const QueryTile& tile, int loader) {
  constexpr int ROW_CHUNKS = BLOCK_M / 4;
  if (loader < 2 * ROW_CHUNKS) {
    const bool is_dsum = loader >= ROW_CHUNKS;
    const int c = loader % ROW_CHUNKS;
    const float* src = (is_dsum ? in.dsum : in.lse) + tile.rows_head + tile.m0 + 4 * c;
    sm90::copy_16((is_dsum ? dsum : lse) + 16 * c, src, true);
  }
}

// A query tile's Q, dO, LSE and Dsum into stage `stage`, by LOADERS threads.
template <int LOADERS>
__device__ __forceinline__ void load_query_tile(const Smem& smem, int stage, const PointerInputs& in,
                                                const Schedule& schedule, const QueryTile& tile, int loader) {
  const long long offset = tile.head + static_cast<long long>(tile.m0) * D;
  sm90::copy_tile_strided<BLOCK_M, D, LOADERS>(smem.q(stage), in.q + offset, schedule.S - tile.m0, loader);
  sm90::copy_tile_strided<BLOCK_M, D, LOADERS>(smem.dout(stage), in.dout + offset, schedule.S - tile.m0,
                                               loader);
  load_rows(smem.lse(stage), smem.dsum(stage), in, tile, loader);
}

// The block's K and V tiles, keys past SKV zero-filled.
template <int LOADERS>
__device__ __forceinline__ void load_kv(const Smem& smem, const PointerInputs& in, const Schedule& schedule,
                                        int loader) {
  const long long offset = schedule.kv_head() + static_cast<long long>(schedule.n0) * D;
  sm90::copy_tile_strided<BLOCK_N, D, LOADERS>(smem.k(), in.k + offset, schedule.SKV - schedule.n0, loader);
  sm90::copy_tile_strided<BLOCK_N, D, LOADERS>(smem.v(), in.v + offset, schedule.SKV - schedule.n0, loader);
}

// WARP_SPECIALIZE 0: the consumers load the ring themselves with cp.async, STAGES - 1 tiles ahead, K and V
// with the first, and order it with block barriers.
struct SelfLoadedRing {
  static constexpr int PREFETCH = STAGES - 1;
  PointerInputs in;
  Smem smem;
  const Schedule& schedule;

  __device__ __forceinline__ void load(int t) const {
    load_query_tile<CONSUMER_THREADS>(smem, t % STAGES, in, schedule, schedule.tile(t), threadIdx.x);
  }
  // K and V with the first tile (none when the block has no tile), then up to PREFETCH tiles in flight
  // (empty groups keep the count).
  __device__ __forceinline__ void begin() const {
    if (schedule.tiles > 0) load_kv<CONSUMER_THREADS>(smem, in, schedule, threadIdx.x);
#pragma unroll
    for (int t = 0; t < PREFETCH; ++t) {
      if (t < schedule.tiles) load(t);
      sm90::commit_copies();
    }
  }
  __device__ __forceinline__ void acquire(int t) const {
    if (t + PREFETCH < schedule.tiles) load(t + PREFETCH);
    sm90::commit_copies();
    sm90::wait_copies<PREFETCH>();
    sm90::fence_async_shared();  // the copies were generic-proxy writes; wgmma reads through the async proxy
    __syncthreads();
  }
  __device__ __forceinline__ void release(int) const {
    __syncthreads();  // the stage computed here is refilled by a later acquire
  }
  __device__ __forceinline__ void drain() const {
    sm90::wait_copies<0>();  // no copy may land in the staging tiles
    __syncthreads();
  }
};

// WARP_SPECIALIZE 1: the producer warpgroup fills the ring; full[s] counts its arrivals (128 cp.async
// arrivals, or one arrival with the TMA bytes), empty[s] one arrival per consumer warp. Ring tile t sits in
// stage t % STAGES, in round t / STAGES, whose full phase has parity (t / STAGES) & 1.
struct Ring {
  sm90::TmaPipeline<STAGES> pipe;

  static __device__ __forceinline__ Ring of(const Smem& smem) { return {{smem.full(), smem.empty()}}; }
  static __device__ __forceinline__ sm90::PipelineState<STAGES> at(int t) {
    return {t % STAGES, static_cast<unsigned>((t / STAGES) & 1)};
  }
  // One thread, before the block barrier that publishes them (the fence makes them visible to the async
  // proxy, through which TMA's and cp.async's completions arrive).
  __device__ __forceinline__ void init() const {
#pragma unroll
    for (int stage = 0; stage < STAGES; ++stage) {
      sm90::mbarrier_init(pipe.full_barrier(stage), TMA_LOADS ? 1 : 128);
      sm90::mbarrier_init(pipe.empty_barrier(stage), 4 * WARPGROUPS);
    }
    sm90::mbarrier_fence_init();
  }
  // The stage of tile t may be refilled: its consumers released tile t - STAGES.
  __device__ __forceinline__ void producer_acquire(int t) const {
    if (t >= STAGES) pipe.producer_acquire(at(t));
  }
};

// The producer warpgroup with cp.async: its 128 threads copy each tile (K and V with the first) and arrive on
// the stage's full barrier once their copies of it have landed.
__device__ __forceinline__ void produce(const PointerInputs& in, const Smem& smem, const Ring& ring,
                                        const Schedule& schedule) {
  const int loader = threadIdx.x - CONSUMER_THREADS;
  if (schedule.tiles == 0) return;
  load_kv<128>(smem, in, schedule, loader);
  QueryTile tile = schedule.tile(0);
#pragma unroll 1
  for (int t = 0; t < schedule.tiles; ++t, schedule.advance(tile)) {
    const int stage = t % STAGES;
    ring.producer_acquire(t);
    load_query_tile<128>(smem, stage, in, schedule, tile, loader);
    sm90::mbarrier_arrive_when_copies_land(ring.pipe.full_barrier(stage));
  }
  sm90::commit_copies();
  sm90::wait_copies<0>();  // exit with no copy in flight
}

// The producer warpgroup with TMA: one thread issues every copy, per tile an arrival expecting the tile's
// bytes (K's and V's too with the first), the Q and dO boxes (rows past S arrive as zeros) and the LSE and
// Dsum rows (bulk copies).
__device__ __forceinline__ void produce(const TmaInputs& in, const Smem& smem, const Ring& ring,
                                        const Schedule& schedule) {
  if (threadIdx.x != CONSUMER_THREADS) return;
  QueryTile tile = schedule.tile(0);
#pragma unroll 1
  for (int t = 0; t < schedule.tiles; ++t, schedule.advance(tile)) {
    const sm90::PipelineState<STAGES> state = Ring::at(t);
    const unsigned full = ring.pipe.full_barrier(state.stage);
    ring.producer_acquire(t);
    ring.pipe.producer_expect(state, 2 * Q_TILE_BYTES + 2 * ROW_BYTES + (t == 0 ? 2 * KV_TILE_BYTES : 0));
    if (t == 0) {
#pragma unroll
      for (int slab = 0; slab < D / 64; ++slab) {
        sm90::tma_load_3d(smem.k() + slab * BLOCK_N * 128, in.k, slab * 64, schedule.n0, schedule.kv_bh,
                          full);
        sm90::tma_load_3d(smem.v() + slab * BLOCK_N * 128, in.v, slab * 64, schedule.n0, schedule.kv_bh,
                          full);
      }
    }
#pragma unroll
    for (int slab = 0; slab < D / 64; ++slab) {
      sm90::tma_load_3d(smem.q(state.stage) + slab * BLOCK_M * 128, in.q, slab * 64, tile.m0, tile.bh, full);
      sm90::tma_load_3d(smem.dout(state.stage) + slab * BLOCK_M * 128, in.dout, slab * 64, tile.m0, tile.bh,
                        full);
    }
    sm90::bulk_load(smem.lse(state.stage), in.lse + tile.rows_head + tile.m0, ROW_BYTES, full);
    sm90::bulk_load(smem.dsum(state.stage), in.dsum + tile.rows_head + tile.m0, ROW_BYTES, full);
  }
}

// The consumers' side of the producer's ring.
struct ProducedRing {
  Ring ring;

  __device__ __forceinline__ void begin() const {}
  __device__ __forceinline__ void acquire(int t) const {
    ring.pipe.consumer_wait(Ring::at(t));
    // cp.async writes through the generic proxy, wgmma reads through the async one (as TMA writes).
    if constexpr (!TMA_LOADS) sm90::fence_async_shared();
  }
  __device__ __forceinline__ void release(int t) const { ring.pipe.consumer_release(Ring::at(t)); }
  __device__ __forceinline__ void drain() const {}
};

}  // namespace attn_bwd
