// The tensor memory accelerator: bulk tensor copies between global and shared memory (cp.async.bulk.tensor),
// completing on an mbarrier (loads) or in bulk groups (stores). Coordinates are in elements, innermost first.
#pragma once

#include "arch.cuh"

namespace sm90 {

// The box of `map` at (c0, c1) into shared memory at `dst`, laid out with the map's swizzle (given a
// 1024-byte-aligned destination for the 128-byte swizzle); its bytes count as transactions of `barrier`'s
// current phase. Elements outside the tensor are written as zeros.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap& map, int c0, int c1,
                                            unsigned barrier) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
      "%3}], "
      "[%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c0), "r"(c1), "r"(barrier)
      : "memory");
}
__device__ __forceinline__ void tma_load_3d(unsigned dst, const TensorMap& map, int c0, int c1, int c2,
                                            unsigned barrier) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, "
      "%4}], [%5];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c0), "r"(c1), "r"(c2), "r"(barrier)
      : "memory");
}

// `bytes` (a multiple of 16) from global `src` to shared `dst` (both 16-byte aligned) as one bulk copy (no
// tensor map), counted as transactions of `barrier`'s current phase.
__device__ __forceinline__ void bulk_load(unsigned dst, const void* src, unsigned bytes, unsigned barrier) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
      "l"(src), "r"(bytes), "r"(barrier)
      : "memory");
}

// As tma_load_*, multicast: the box lands at the same offset `dst` in the shared memory of every block of the
// cluster in `blocks` (a bit per block rank), and counts its bytes on the mbarrier at the same offset in
// each.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const TensorMap& map, int c0, int c1,
                                                      unsigned barrier, unsigned short blocks) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c0), "r"(c1), "r"(barrier), "h"(blocks)
      : "memory");
}
__device__ __forceinline__ void tma_load_3d_multicast(unsigned dst, const TensorMap& map, int c0, int c1,
                                                      int c2, unsigned barrier, unsigned short blocks) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(c0), "r"(c1), "r"(c2), "r"(barrier), "h"(blocks)
      : "memory");
}

// The box of `map` at (c0, c1[, c2]) from shared memory at `src` (the map's swizzle), as one bulk group of
// this thread; elements outside the tensor are not written.
__device__ __forceinline__ void tma_store_2d(const TensorMap& map, unsigned src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                   reinterpret_cast<unsigned long long>(&map)),
               "r"(c0), "r"(c1), "r"(src)
               : "memory");
}
__device__ __forceinline__ void tma_store_3d(const TensorMap& map, unsigned src, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n" ::"l"(
                   reinterpret_cast<unsigned long long>(&map)),
               "r"(c0), "r"(c1), "r"(c2), "r"(src)
               : "memory");
}
__device__ __forceinline__ void tma_commit_stores() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
// All but the newest Pending of this thread's bulk store groups have read their shared memory (which may then
// be overwritten).
template <int Pending = 0>
__device__ __forceinline__ void tma_wait_stores_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(Pending) : "memory");
}
// This thread's bulk stores have completed (their writes are visible in global memory).
__device__ __forceinline__ void tma_wait_stores() {
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

// Adds `bytes` (a multiple of 16) of fp32 values from shared `src` to global `dst` (both 16-byte aligned),
// element by element, as one bulk operation of this thread's current bulk group (tma_commit_stores closes it;
// tma_wait_stores_read and tma_wait_stores wait for it like for a store).
__device__ __forceinline__ void bulk_reduce_add_f32(float* dst, unsigned src, unsigned bytes) {
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n" ::"l"(dst),
               "r"(src), "r"(bytes)
               : "memory");
}

// Fetches a tensor map into the cache ahead of its first use (one thread, at kernel start).
__device__ __forceinline__ void tma_prefetch_map(const TensorMap& map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(&map)) : "memory");
}

}  // namespace sm90
