// mbarriers (8 bytes of shared memory each): initialisation, arrivals (local, remote, with expected TMA
// bytes) and parity waits, at block or cluster scope.
#pragma once

#include "arch.cuh"

namespace sm90 {

__device__ __forceinline__ void mbarrier_init(unsigned barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(barrier), "r"(arrivals) : "memory");
}
// Makes the initialisations visible to the async proxy and to the other blocks of a cluster (after init,
// before the barrier that publishes them).
__device__ __forceinline__ void mbarrier_fence_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// Spins on mbarrier.try_wait.parity with semantics and scope SEM_SCOPE ("" is acquire.cta) until the phase
// of `barrier` with parity `parity` has completed.
#define SM90_MBARRIER_WAIT(SEM_SCOPE, barrier, parity)                         \
  do {                                                                         \
    unsigned done;                                                             \
    do {                                                                       \
      asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity" SEM_SCOPE      \
                   ".shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n" \
                   : "=r"(done)                                                \
                   : "r"(barrier), "r"(parity)                                 \
                   : "memory");                                                \
    } while (!done);                                                           \
  } while (0)

// Returns once the phase of `barrier` with this parity has completed (acquire: what the arrivals released,
// and the bytes of the TMA copies it counted, are visible). A fresh barrier counts parity 1 as completed.
__device__ __forceinline__ void mbarrier_wait(unsigned barrier, unsigned parity) {
  SM90_MBARRIER_WAIT("", barrier, parity);
}
// The same wait with cluster scope: what threads of another block released before their remote arrivals is
// visible.
__device__ __forceinline__ void mbarrier_wait_cluster(unsigned barrier, unsigned parity) {
  SM90_MBARRIER_WAIT(".acquire.cluster", barrier, parity);
}

__device__ __forceinline__ void mbarrier_arrive(unsigned barrier) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(barrier)
               : "memory");
}
// One arrival that also expects `bytes` more of asynchronous (TMA) transactions in this phase.
__device__ __forceinline__ void mbarrier_arrive_expect_bytes(unsigned barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(barrier), "r"(bytes)
               : "memory");
}
// One arrival on the mbarrier at the same offset as `barrier` in the shared memory of cluster block `block`.
// The default semantics (release at block scope), as for a local arrival: the reads it releases are the
// async proxy's (wgmma operands, complete once their group was waited for), which a TMA write into the stage
// is ordered after by the barrier itself. Release at cluster scope made every arrival a fence (MEMBAR) that
// waited for the warp's outstanding memory operations: the GEMM's 1 x 2 cluster ran 3.4x slower with it.
__device__ __forceinline__ void mbarrier_arrive_remote(unsigned barrier, unsigned block) {
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(barrier),
      "r"(block)
      : "memory");
}
// One arrival on `barrier` once every cp.async this thread has issued so far has landed (noinc: the arrival
// is one of the count the barrier was initialised with).
__device__ __forceinline__ void mbarrier_arrive_when_copies_land(unsigned barrier) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(barrier) : "memory");
}

}  // namespace sm90
