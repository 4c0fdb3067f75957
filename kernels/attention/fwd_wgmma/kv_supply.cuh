// The wgmma forward template's K/V tiles as the consumers see them: the producer's ring or their own loads.
// Included by flash_attn_fwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "producer.cuh"

namespace attn {

// The K/V tiles as the consumers see them: begin (a work tile), acquire (the tile is in shared memory and
// visible to wgmma), stage (where it is), release (this warp no longer reads it), drain (no copy in flight
// before the epilogue writes the Q tile), end. Tiles count within the work tile. The overlapped mainloop
// acquires and releases a tile's K and V apart (acquire_k, acquire_v, release_k, release_v): with KV_SPLIT on
// their own barriers, otherwise acquire_k and release_v are the tile's acquire and release and the other two
// nothing.

// WARP_SPECIALIZE 1: the producer warpgroup's ring.
struct ProducedKv {
  KvRing ring;
  unsigned rank;
  int ring_base = 0;  // the ring number of this work tile's first K/V tile

  template <typename Inputs>
  __device__ __forceinline__ ProducedKv(const Inputs&, const Smem&, const KvRing& ring, int, int,
                                        unsigned rank)
      : ring(ring), rank(rank) {}
  __device__ __forceinline__ void begin(const WorkTile&) {}  // the producer loads Q
  __device__ __forceinline__ void acquire(int tile) const {
    ring.consumer_wait(ring_base + tile);
    // The producer's cp.async wrote through the generic proxy, wgmma reads through the async one (as TMA
    // writes).
    if constexpr (!TMA_LOADS) sm90::fence_async_shared();
  }
  __device__ __forceinline__ int stage(int tile) const { return (ring_base + tile) % STAGES; }
  __device__ __forceinline__ void release(int tile) const { ring.consumer_release(ring_base + tile, rank); }
  __device__ __forceinline__ void acquire_k(int tile) const { acquire(tile); }
  __device__ __forceinline__ void acquire_v(int tile) const {
    if constexpr (KV_SPLIT) ring.consumer_wait_v(ring_base + tile);
  }
  __device__ __forceinline__ void release_k(int tile) const {
    if constexpr (KV_SPLIT) release(tile);
  }
  __device__ __forceinline__ void release_v(int tile) const {
    if constexpr (KV_SPLIT)
      ring.consumer_release_v(ring_base + tile);
    else
      release(tile);
  }
  __device__ __forceinline__ void drain() const {}
  __device__ __forceinline__ void end(const WorkTile& work) { ring_base += work.tiles; }
};

// WARP_SPECIALIZE 0: the consumers load Q and the K/V tiles themselves with cp.async, PREFETCH tiles ahead,
// and order the ring with block barriers. One work tile (PERSISTENT needs TMA).
struct SelfLoadedKv {
  PointerInputs in;
  Smem smem;
  int S, SKV;
  long long kv_head = 0;
  int tiles = 0;

  __device__ __forceinline__ SelfLoadedKv(const PointerInputs& in, const Smem& smem, const KvRing&, int S,
                                          int SKV, unsigned)
      : in(in), smem(smem), S(S), SKV(SKV) {}
  // Q with the first tile, then up to PREFETCH tiles in flight (empty groups keep the count).
  __device__ __forceinline__ void begin(const WorkTile& work) {
    kv_head = work.kv_head;
    tiles = work.tiles;
    load_tile<BLOCK_M>(smem.q(), in.q + work.head + static_cast<long long>(work.m0) * D, S - work.m0);
#pragma unroll
    for (int tile = 0; tile < PREFETCH; ++tile) {
      if (tile < tiles) load(tile);
      sm90::commit_copies();
    }
  }
  __device__ __forceinline__ void load(int tile) const {
    const int stage = tile % STAGES;
    const int n0 = tile * BLOCK_N;
    const long long offset = kv_head + static_cast<long long>(n0) * D;
    load_tile<BLOCK_N>(smem.k(stage), in.k + offset, SKV - n0);
    load_tile<BLOCK_N>(smem.v(stage), in.v + offset, SKV - n0);
  }
  __device__ __forceinline__ void acquire(int tile) const {
    if constexpr (INTRA_WG_OVERLAP) {
      // The tile was loaded during the step before. The barrier also says every warpgroup has waited for its
      // P V of tile - 2: that stage is refilled.
      sm90::wait_copies<PREFETCH - 1>();
      sm90::fence_async_shared();
      __syncthreads();
      if (tile + PREFETCH < tiles) load(tile + PREFETCH);
      sm90::commit_copies();
    } else {
      if (tile + PREFETCH < tiles) load(tile + PREFETCH);
      sm90::commit_copies();
      sm90::wait_copies<PREFETCH>();
      sm90::fence_async_shared();
      __syncthreads();
    }
  }
  __device__ __forceinline__ int stage(int tile) const { return tile % STAGES; }
  __device__ __forceinline__ void release(int) const {
    if constexpr (!INTRA_WG_OVERLAP) __syncthreads();  // the stage computed here is refilled by a later step
  }
  __device__ __forceinline__ void acquire_k(int tile) const { acquire(tile); }
  __device__ __forceinline__ void acquire_v(int) const {}
  __device__ __forceinline__ void release_k(int) const {}
  __device__ __forceinline__ void release_v(int tile) const { release(tile); }
  __device__ __forceinline__ void drain() const {
    sm90::wait_copies<0>();  // no copy may land in the staging area
    __syncthreads();
  }
  __device__ __forceinline__ void end(const WorkTile&) {}
};

using KvSupply = Select<WARP_SPECIALIZE, ProducedKv, SelfLoadedKv>::type;

}  // namespace attn
