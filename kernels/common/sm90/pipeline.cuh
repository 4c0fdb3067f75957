// A shared-memory ring of Stages buffers between a TMA producer and consumer warps, on two mbarriers a stage
// (full: the producer's arrival and the copies' bytes; empty: one arrival per consumer warp). Four verbs, as
// in CUTLASS's PipelineTmaAsync: producer_acquire (wait until the stage is empty), producer_expect (announce
// its bytes; the copies then land on full), consumer_wait (wait until it is full), consumer_release.
#pragma once

#include "mbarrier.cuh"

namespace sm90 {

// Where a role stands in the ring: the stage, and the parity of the stage's current round.
template <int Stages>
struct PipelineState {
  int stage = 0;
  unsigned phase = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == Stages) {
      stage = 0;
      phase ^= 1;
    }
  }
};

template <int Stages>
struct TmaPipeline {
  unsigned full;   // shared address of full[0]; full[s] is 8 s bytes further
  unsigned empty;  // likewise

  __device__ __forceinline__ unsigned full_barrier(int stage) const { return full + 8 * stage; }
  __device__ __forceinline__ unsigned empty_barrier(int stage) const { return empty + 8 * stage; }

  // One thread, before the block barrier that publishes it: full counts the producer's one arrival (plus
  // bytes), empty counts `consumer_arrivals` (one per consumer warp, or per consumer warp of every block
  // that reads the stage through multicast).
  __device__ __forceinline__ void init(unsigned consumer_arrivals) const {
    for (int s = 0; s < Stages; ++s) {
      mbarrier_init(full_barrier(s), 1);
      mbarrier_init(empty_barrier(s), consumer_arrivals);
    }
    mbarrier_fence_init();
  }
  // The producer may refill the stage: every consumer released its previous round (a fresh ring's first round
  // passes at once: parity 1 of a fresh barrier counts as completed).
  __device__ __forceinline__ void producer_acquire(const PipelineState<Stages>& state) const {
    mbarrier_wait(empty_barrier(state.stage), state.phase ^ 1);
  }
  // As producer_acquire where the stage is filled by multicast into every block of a cluster: its empty
  // barrier counts the consumers of all of them (remote arrivals, released at cluster scope).
  __device__ __forceinline__ void producer_acquire_cluster(const PipelineState<Stages>& state) const {
    mbarrier_wait_cluster(empty_barrier(state.stage), state.phase ^ 1);
  }
  // The producer's arrival on full, announcing the bytes its TMA copies into the stage will bring.
  __device__ __forceinline__ void producer_expect(const PipelineState<Stages>& state, unsigned bytes) const {
    mbarrier_arrive_expect_bytes(full_barrier(state.stage), bytes);
  }
  // The stage's copies have landed and are visible to this thread (and to wgmma).
  __device__ __forceinline__ void consumer_wait(const PipelineState<Stages>& state) const {
    mbarrier_wait(full_barrier(state.stage), state.phase);
  }
  // This warp is done reading the stage (its wgmmas reading it have completed): lane 0 arrives.
  __device__ __forceinline__ void consumer_release(const PipelineState<Stages>& state) const {
    __syncwarp();
    if (threadIdx.x % 32 == 0) mbarrier_arrive(empty_barrier(state.stage));
  }
  // As consumer_release, arriving on the empty barrier of cluster block `block` (multicast stages are
  // refilled only once every block reading them released them).
  __device__ __forceinline__ void consumer_release_remote(const PipelineState<Stages>& state,
                                                          unsigned block) const {
    __syncwarp();
    if (threadIdx.x % 32 == 0) mbarrier_arrive_remote(empty_barrier(state.stage), block);
  }
};

}  // namespace sm90
