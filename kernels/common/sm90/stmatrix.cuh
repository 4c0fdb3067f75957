// stmatrix (sm_90): a warp stores 8 x 8 matrices of 16-bit elements from registers laid out as an mma
// accumulator packed to 16 bits (lane 4 r + c holds row r, columns 2 c and 2 c + 1 of each matrix, one
// 32-bit register a matrix); lane 8 m + r gives the shared address of row r of matrix m (16 bytes, 16-byte
// aligned). One instruction stores what 4-byte stores would take one per register.
#pragma once

namespace sm90 {

// Four matrices, registers r[m] of every lane, not transposed (a register's two elements are adjacent in its
// row), at the row address `address` (shared window) this lane gives.
__device__ __forceinline__ void stmatrix_x4(unsigned address, const unsigned (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(address), "r"(r[0]),
               "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

}  // namespace sm90
