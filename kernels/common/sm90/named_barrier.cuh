// Named barriers (bar.sync / bar.arrive on ids 1..15; 0 is __syncthreads): a kernel names its barriers in an
// enum of its own and passes them here, so that no bare barrier number appears in a template.
#pragma once

namespace sm90 {

// Waits until `threads` threads (a multiple of 32) have arrived at barrier `id`, counting this one.
template <typename Id>
__device__ __forceinline__ void barrier_sync(Id id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(static_cast<int>(id)), "r"(threads) : "memory");
}
// Arrives at barrier `id` (of `threads` threads) without waiting.
template <typename Id>
__device__ __forceinline__ void barrier_arrive(Id id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(static_cast<int>(id)), "r"(threads) : "memory");
}

// As barrier_sync and barrier_arrive with the thread count an immediate of the instruction (Threads a
// multiple of 32), as a hand-written bar.sync would have it.
template <int Threads, typename Id>
__device__ __forceinline__ void barrier_sync(Id id) {
  static_assert(Threads % 32 == 0, "a named barrier counts whole warps");
  asm volatile("bar.sync %0, %1;\n" ::"r"(static_cast<int>(id)), "n"(Threads) : "memory");
}
template <int Threads, typename Id>
__device__ __forceinline__ void barrier_arrive(Id id) {
  static_assert(Threads % 32 == 0, "a named barrier counts whole warps");
  asm volatile("bar.arrive %0, %1;\n" ::"r"(static_cast<int>(id)), "n"(Threads) : "memory");
}

}  // namespace sm90
