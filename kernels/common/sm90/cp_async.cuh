// cp.async to a shared address (what the sm90 templates compute their tiles' places as): 16 bytes from global
// memory, zero-filled where the source is not valid (rows past S), in commit groups.
#pragma once

#include "swizzle.cuh"

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

// TILE_ROWS rows of ROW_ELEMS 16-bit elements from global (row stride ROW_ELEMS) into the swizzled tile at
// shared address `tile`, by LOADERS threads; rows at or past `valid_rows` are zero-filled (not read). Thread
// `loader` copies chunk column loader % (ROW_ELEMS / 8) of rows loader / (ROW_ELEMS / 8) + k ROW_STEP, so its
// swizzle (row % 8) and address steps are fixed and it needs few registers (a producer warpgroup's 24 to 40).
template <int TILE_ROWS, int ROW_ELEMS, int LOADERS, typename T>
__device__ __forceinline__ void copy_tile_strided(unsigned tile, const T* global, int valid_rows,
                                                  int loader) {
  constexpr int ROW_CHUNKS = ROW_ELEMS / 8;  // 16-byte chunks a row
  constexpr int ROW_STEP = LOADERS / ROW_CHUNKS;
  static_assert(ROW_STEP % 8 == 0 && TILE_ROWS % ROW_STEP == 0,
                "the loaders' rows are whole 8-row swizzle atoms and cover the tile exactly");
  const int c = loader % ROW_CHUNKS;
  int row = loader / ROW_CHUNKS;
  unsigned dst = tile + swizzled_offset<TILE_ROWS>(row, c);
  const T* src = global + row * ROW_ELEMS + c * 8;
#pragma unroll 1
  for (; row < TILE_ROWS; row += ROW_STEP, dst += ROW_STEP * 128, src += ROW_STEP * ROW_ELEMS) {
    const bool valid = row < valid_rows;
    copy_16(dst, valid ? src : global, valid);
  }
}

}  // namespace sm90
