// The wgmma forward template's producer: Q and the K/V ring filled by cp.async or TMA on the ring's
// mbarriers. Included by flash_attn_fwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "scheduler.cuh"
#include "shared_storage.cuh"

namespace attn {

// The kernel's inputs: Q, K and V as pointers, or (TMA_LOADS) as tensor maps of [B * H][S][D] (Q) and
// [B * HKV][SKV][D] (K, V) with boxes of 64 columns by BLOCK_M (Q) or BLOCK_N / CLUSTER (K, V) rows and the
// 128-byte swizzle.
struct PointerInputs {
  const elem* q;
  const elem* k;
  const elem* v;
};
struct TmaInputs {
  const sm90::TensorMap& q;
  const sm90::TensorMap& k;
  const sm90::TensorMap& v;
};

// ROWS rows of D elements from global (row stride D) into the swizzled tile at shared address `tile`, by
// every thread of the block; rows at or past `valid_rows` are zero-filled.
template <int ROWS>
__device__ __forceinline__ void load_tile(unsigned tile, const elem* global, int valid_rows) {
  for (int chunk = threadIdx.x; chunk < ROWS * CHUNKS; chunk += THREADS) {
    const int row = chunk / CHUNKS;
    const int c = chunk % CHUNKS;
    const bool valid = row < valid_rows;
    sm90::copy_16(tile + swizzled_offset<ROWS>(row, c),
                  global + (valid ? static_cast<long long>(row) * D + c * 8 : 0), valid);
  }
}

// The ring between the producer warpgroup and the consumers (WARP_SPECIALIZE), on sm90::TmaPipeline's
// barriers. Its tiles are numbered across the block's work tiles: ring tile r sits in stage r % STAGES, in
// round r / STAGES, whose full phase has parity (r / STAGES) & 1; the producer refills the stage once the
// empty phase of the round before has completed.
struct KvRing {
  sm90::TmaPipeline<STAGES> pipe;    // the tiles (KV_SPLIT: their K, and with a work tile's first its Q)
  sm90::TmaPipeline<STAGES> pipe_v;  // (KV_SPLIT) their V

  static __device__ __forceinline__ KvRing of(const Smem& smem) {
    return {{smem.full(), smem.empty()}, {smem.full_v(), smem.empty_v()}};
  }
  static __device__ __forceinline__ sm90::PipelineState<STAGES> at(int ring) {
    return {ring % STAGES, static_cast<unsigned>((ring / STAGES) & 1)};
  }
  // One thread, before the block (cluster) barrier that publishes them: full counts the producer's 128
  // cp.async arrivals, or its one arrival with the TMA bytes; empty one arrival per consumer warp of every
  // block reading the stage; each Q tile's q_empty (Q_BUFFERS of them, 8 bytes apart) one per consumer
  // warpgroup.
  __device__ __forceinline__ void init(unsigned q_empty) const {
#pragma unroll
    for (int stage = 0; stage < STAGES; ++stage) {
      sm90::mbarrier_init(pipe.full_barrier(stage), TMA_LOADS ? 1 : 128);
      sm90::mbarrier_init(pipe.empty_barrier(stage), 4 * CONSUMER_WARPGROUPS * CLUSTER);
    }
#pragma unroll
    for (int buffer = 0; buffer < Q_BUFFERS; ++buffer)
      sm90::mbarrier_init(q_empty + 8 * buffer, CONSUMER_WARPGROUPS);
    if constexpr (KV_SPLIT) {
#pragma unroll
      for (int stage = 0; stage < STAGES; ++stage) {
        sm90::mbarrier_init(pipe_v.full_barrier(stage), 1);
        sm90::mbarrier_init(pipe_v.empty_barrier(stage), 4 * CONSUMER_WARPGROUPS);
      }
    }
    if constexpr (CLUSTER > 1) sm90::mbarrier_fence_init();
  }
  // The stage of ring tile `ring` may be refilled (with CLUSTER 2: the consumers of both blocks released it).
  __device__ __forceinline__ void producer_acquire(int ring) const {
    if (ring >= STAGES) {
      if constexpr (CLUSTER > 1)
        pipe.producer_acquire_cluster(at(ring));
      else
        pipe.producer_acquire(at(ring));
    }
  }
  __device__ __forceinline__ void consumer_wait(int ring) const { pipe.consumer_wait(at(ring)); }
  // (KV_SPLIT) V's barriers: the producer may refill the stage's V, the V has landed, this warp is done with
  // it.
  __device__ __forceinline__ void producer_acquire_v(int ring) const {
    if (ring >= STAGES) pipe_v.producer_acquire(at(ring));
  }
  __device__ __forceinline__ void consumer_wait_v(int ring) const { pipe_v.consumer_wait(at(ring)); }
  __device__ __forceinline__ void consumer_release_v(int ring) const { pipe_v.consumer_release(at(ring)); }
  // Once the warp's wgmmas reading the tile have completed: lane 0 arrives on the stage's empty barrier, and
  // (CLUSTER 2) on the peer block's, whose producer's copies land in this block's stage too.
  __device__ __forceinline__ void consumer_release(int ring, unsigned rank) const {
    __syncwarp();
    if (threadIdx.x % 32 == 0) {
      const unsigned empty = pipe.empty_barrier(ring % STAGES);
      sm90::mbarrier_arrive(empty);
      if constexpr (CLUSTER > 1) sm90::mbarrier_arrive_remote(empty, rank ^ 1);
    }
  }
};

// Tile `tile` of K and V into stage `stage` with TMA, counted on `full`: a box per 64-column slab, or
// (CLUSTER 2) this block's half of the tile's rows, [rank, rank + 1) * BLOCK_N / 2, multicast into the same
// offset of both blocks (each block's full barrier expects the whole tile).
__device__ __forceinline__ void load_kv_tma(const TmaInputs& in, const Smem& smem, int stage, int tile,
                                            int kv_bh, unsigned full, unsigned rank) {
#pragma unroll
  for (int slab = 0; slab < D / 64; ++slab) {
    const unsigned offset = stage * KV_TILE_BYTES + slab * BLOCK_N * 128;
    if constexpr (CLUSTER > 1) {
      const int half = static_cast<int>(rank) * (BLOCK_N / 2);
      const int row = tile * BLOCK_N + half;
      sm90::tma_load_3d_multicast(smem.k() + offset + half * 128, in.k, slab * 64, row, kv_bh, full, 0x3);
      sm90::tma_load_3d_multicast(smem.v() + offset + half * 128, in.v, slab * 64, row, kv_bh, full, 0x3);
    } else {
      sm90::tma_load_3d(smem.k() + offset, in.k, slab * 64, tile * BLOCK_N, kv_bh, full);
      sm90::tma_load_3d(smem.v() + offset, in.v, slab * 64, tile * BLOCK_N, kv_bh, full);
    }
  }
}

// (KV_SPLIT) Tile `tile` of K or V (`map`, head `kv_bh`) into stage `stage` of that ring (`ring_base`:
// smem.k() or smem.v()) with TMA, a box per 64-column slab, counted on `full`.
__device__ __forceinline__ void load_k_or_v_tma(unsigned ring_base, const sm90::TensorMap& map, int stage,
                                                int tile, int kv_bh, unsigned full) {
#pragma unroll
  for (int slab = 0; slab < D / 64; ++slab)
    sm90::tma_load_3d(ring_base + stage * KV_TILE_BYTES + slab * BLOCK_N * 128, map, slab * 64,
                      tile * BLOCK_N, kv_bh, full);
}

// Work tile `done_items`'s Q into Q tile done_items % Q_BUFFERS, counted on `full` (its first K/V tile's),
// once the epilogue of work tile done_items - Q_BUFFERS has left that tile (q_empty).
__device__ __forceinline__ void load_q(const TmaInputs& in, const Smem& smem, const WorkTile& work,
                                       int done_items, unsigned full) {
  const int buffer = done_items % Q_BUFFERS;
  if (done_items >= Q_BUFFERS)
    sm90::mbarrier_wait(smem.q_empty(buffer), ((done_items - Q_BUFFERS) / Q_BUFFERS) & 1);
#pragma unroll
  for (int slab = 0; slab < D / 64; ++slab)
    sm90::tma_load_3d(smem.q(buffer) + slab * BLOCK_M * 128, in.q, slab * 64, work.m0, work.bh, full);
}

// (KV_SPLIT) V of ring tile `ring`, tile `tile` of K/V head `kv_bh`, onto V's own barriers once the stage's
// V is free.
__device__ __forceinline__ void load_v_tma(const TmaInputs& in, const Smem& smem, const KvRing& ring, int r,
                                           int tile, int kv_bh) {
  const sm90::PipelineState<STAGES> state = KvRing::at(r);
  ring.producer_acquire_v(r);
  ring.pipe_v.producer_expect(state, KV_TILE_BYTES);
  load_k_or_v_tma(smem.v(), in.v, state.stage, tile, kv_bh, ring.pipe_v.full_barrier(state.stage));
}

// The producer warpgroup with TMA: one thread issues every copy, per ring tile an arrival expecting the
// tile's bytes (Q's too with a work tile's first), then the K and V boxes. Work tile i's Q goes to Q tile
// i % Q_BUFFERS once the epilogue of work tile i - Q_BUFFERS has left it (q_empty), after its first K/V tile
// is issued, so the ring runs ahead meanwhile; the full phase cannot complete before Q's bytes have landed.
// With one Q tile that waits for the previous work tile's epilogue; with two, the next work tile's Q is in
// flight while this one's last K/V tiles are computed.
// KV_SPLIT (FlashAttention-3's order): K and V on their own barriers, K a ring tile ahead of V: per ring tile
// r its K (the stage's K free once S of ring tile r - STAGES has completed), then V of ring tile r - 1, then
// a work tile's Q; V of the last at the end. V goes before Q: the Q tile is freed by the previous work tile's
// epilogue, which waits for its last P V, which waits for that V.
__device__ __forceinline__ void produce(const TmaInputs& in, const Smem& smem, const KvRing& ring,
                                        const Scheduler& scheduler, unsigned rank) {
  if (threadIdx.x != CONSUMER_THREADS) {
    if constexpr (CLUSTER > 1) sm90::cluster_sync();  // the block stays until its peer no longer arrives here
    return;
  }
  int ring_tile = 0;
  int done_items = 0;
  int v_tile = 0, v_kv_bh = 0;  // (KV_SPLIT) the V still to load: its tile in its work tile, its K/V head
  for (int item = scheduler.first; item < scheduler.count; item += scheduler.step, ++done_items) {
    const WorkTile work = scheduler.work_tile(item);
    for (int tile = 0; tile < work.tiles; ++tile, ++ring_tile) {
      const sm90::PipelineState<STAGES> state = KvRing::at(ring_tile);
      ring.producer_acquire(ring_tile);
      const unsigned full = ring.pipe.full_barrier(state.stage);
      const int q_bytes = tile == 0 ? Q_BYTES : 0;
      if constexpr (KV_SPLIT) {
        ring.pipe.producer_expect(state, KV_TILE_BYTES + q_bytes);
        load_k_or_v_tma(smem.k(), in.k, state.stage, tile, work.kv_bh, full);
        if (ring_tile > 0) load_v_tma(in, smem, ring, ring_tile - 1, v_tile, v_kv_bh);
        v_tile = tile;
        v_kv_bh = work.kv_bh;
      } else {
        ring.pipe.producer_expect(state, 2 * KV_TILE_BYTES + q_bytes);
        load_kv_tma(in, smem, state.stage, tile, work.kv_bh, full, rank);
      }
      if (tile == 0) load_q(in, smem, work, done_items, full);
    }
  }
  if constexpr (KV_SPLIT)
    if (ring_tile > 0) load_v_tma(in, smem, ring, ring_tile - 1, v_tile, v_kv_bh);
  if constexpr (CLUSTER > 1) sm90::cluster_sync();
}

// The producer warpgroup with cp.async: its 128 threads copy Q, then each K/V tile, every thread arriving on
// the stage's full barrier once its copies of the tile have landed. One work tile (PERSISTENT needs TMA).
__device__ __forceinline__ void produce(const PointerInputs& in, const Smem& smem, const KvRing& ring,
                                        const Scheduler& scheduler, unsigned) {
  const int loader = threadIdx.x - CONSUMER_THREADS;
  const WorkTile work = scheduler.work_tile(scheduler.first);
  sm90::copy_tile_strided<BLOCK_M, D, 128>(smem.q(), in.q + work.head + static_cast<long long>(work.m0) * D,
                                           scheduler.S - work.m0, loader);
  for (int tile = 0; tile < work.tiles; ++tile) {
    const int stage = tile % STAGES;
    ring.producer_acquire(tile);
    const int n0 = tile * BLOCK_N;
    const long long offset = work.kv_head + static_cast<long long>(n0) * D;
    sm90::copy_tile_strided<BLOCK_N, D, 128>(smem.k(stage), in.k + offset, scheduler.SKV - n0, loader);
    sm90::copy_tile_strided<BLOCK_N, D, 128>(smem.v(stage), in.v + offset, scheduler.SKV - n0, loader);
    sm90::mbarrier_arrive_when_copies_land(ring.pipe.full_barrier(stage));
  }
  sm90::commit_copies();
  sm90::wait_copies<0>();  // exit with no copy in flight
}

}  // namespace attn
