// cp.async to a shared address (what the sm90 templates compute their tiles' places as): 16 bytes from global
// memory, zero-filled where the source is not valid (rows past S), in commit groups.
#pragma once

namespace sm90 {

__device__ __forceinline__ void copy_16(unsigned dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Returns once at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

}  // namespace sm90
