// Warpgroup matrix multiply-accumulate (wgmma.mma_async, sm_90a): shared-memory matrix descriptors for the
// 128-byte swizzle, the fence / commit / wait around a batch, and Wgmma<N, Type>, the m64nNk16 instruction
// with fp32 accumulators for N = 8 and every multiple of 16 up to 256, fp16 or bf16 inputs.
//
// Descriptors (64 bits, PTX ISA "matrix descriptor format"): bits 0..13 start address >> 4; 16..29 leading
// dimension byte offset (LBO) >> 4; 32..45 stride dimension byte offset (SBO) >> 4; 49..51 base offset (0:
// atoms 1024-aligned); 62..63 swizzle mode (1 = 128-byte, 3 = 32-byte). With the 128-byte swizzle a tile is
// stored as slabs of 64 16-bit elements a row (128 bytes), the 16-byte chunk c of row r at chunk position c ^
// (r % 8); eight rows are one 1024-byte atom.
//   K-major operand (K contiguous: A row-major, B as [N, K]): rows are M (or N) indices, SBO = 1024 (the next
//   8 rows), LBO unused (1); a k16 step is 32 bytes further along the row.
//   MN-major operand (M or N contiguous: B row-major [K, N], as the instruction's A or B): rows are K
//   indices, 64 M or N columns a slab; SBO = 1024 (the next 8 K rows), LBO = the bytes from one 64-column
//   slab to the next (unused for an A operand: its 64 rows are one slab); a k16 step is 16 rows = 2048 bytes
//   further. With the 32-byte swizzle (desc_mnmajor_sw32) a slab is 16 M or N columns a row (32 bytes), its
//   chunk c (0, 1) of row r at c ^ ((r / 4) % 2); SBO = 256 (the next 8 K rows), LBO = from one 16-column
//   slab to the next; a k16 step is 16 rows = 512 bytes further. The instruction's imm-trans flag (trans-a or
//   trans-b) is 1 for such an operand; 16-bit types only.
//
// Accumulator fragment of m64nNk16 (thread t of the warpgroup: warp w = t / 32, g = (t % 32) / 4, q = t % 4):
// N / 2 floats, d[4j + e] is row 16w + g + 8 (e / 2), column 8j + 2q + e % 2.
// A fragment from registers (16-bit types), 4 registers of 2 elements: a0 = (row 16w + g, k 2q..2q+1),
// a1 = (row + 8, same k), a2 = (row, k 8 + 2q..), a3 = (row + 8, k 8 + 2q..).
#pragma once

#include "arch.cuh"

namespace sm90 {

__device__ __forceinline__ unsigned long long desc_kmajor_sw128(unsigned address) {
  return static_cast<unsigned long long>((address & 0x3FFFF) >> 4) | 1ull << 16 |
         static_cast<unsigned long long>(1024 >> 4) << 32 | 1ull << 62;
}
__device__ __forceinline__ unsigned long long desc_mnmajor_sw128(unsigned address, unsigned slab_bytes) {
  return static_cast<unsigned long long>((address & 0x3FFFF) >> 4) |
         static_cast<unsigned long long>(slab_bytes >> 4) << 16 |
         static_cast<unsigned long long>(1024 >> 4) << 32 | 1ull << 62;
}
__device__ __forceinline__ unsigned long long desc_mnmajor_sw32(unsigned address, unsigned slab_bytes) {
  return static_cast<unsigned long long>((address & 0x3FFFF) >> 4) |
         static_cast<unsigned long long>(slab_bytes >> 4) << 16 |
         static_cast<unsigned long long>(256 >> 4) << 32 | 3ull << 62;
}
// Where this thread's accumulators of an m64nN wgmma lie in the atom (the fragment above): its first row,
// 16w + g (d[4j + e], e < 2; the row 8 further holds e = 2, 3), and its first column of each 8, 2q.
__device__ __forceinline__ int accumulator_row() {
  const int t = threadIdx.x % 128;
  return 16 * (t / 32) + (t % 32) / 4;
}
__device__ __forceinline__ int accumulator_column() {
  const int t = threadIdx.x % 128;
  return 2 * (t % 4);
}

// A K-major operand without a swizzle, for a tile whose values do not depend on their place (a tile of ones):
// 8-row core matrices of 16 bytes a row (128 bytes), the k-half [8, 16) of a k16 step 128 bytes (LBO) after
// the first, the next 8 rows 256 bytes (SBO) further; a 16 x 8 operand reads 256 bytes from `address`.
__device__ __forceinline__ unsigned long long desc_kmajor_none(unsigned address) {
  return static_cast<unsigned long long>((address & 0x3FFFF) >> 4) |
         static_cast<unsigned long long>(128 >> 4) << 16 | static_cast<unsigned long long>(256 >> 4) << 32;
}
// Orders this warpgroup's register writes (accumulators, A fragments) before the wgmmas that follow.
__device__ __forceinline__ void wgmma_fence() { SM90A_ASM("wgmma.fence.sync.aligned;\n" ::: "memory"); }
// Closes the batch of wgmmas issued since the last commit into one group.
__device__ __forceinline__ void wgmma_commit() {
  SM90A_ASM("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Returns once at most Pending of this warpgroup's committed groups are still running.
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
  SM90A_ASM("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}

struct F16 {};   // fp16 inputs
struct Bf16 {};  // bf16 inputs

// d (64 x N, fp32) = (scale_d ? d : 0) + A (64 x 16) * B (16 x N):
//   ss<TransA, TransB>: A and B from shared memory through descriptors (Trans = 1: MN-major);
//   rs<TransB>: A from registers (the fragment above), B through a descriptor.
template <int N, typename Type>
struct Wgmma;

#define SM90_OPS_G0 "%0, %1, %2, %3, %4, %5, %6, %7"
#define SM90_OPS_G1 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define SM90_OPS_G2 ", %16, %17, %18, %19, %20, %21, %22, %23"
#define SM90_OPS_G3 ", %24, %25, %26, %27, %28, %29, %30, %31"
#define SM90_OPS_G4 ", %32, %33, %34, %35, %36, %37, %38, %39"
#define SM90_OPS_G5 ", %40, %41, %42, %43, %44, %45, %46, %47"
#define SM90_OPS_G6 ", %48, %49, %50, %51, %52, %53, %54, %55"
#define SM90_OPS_G7 ", %56, %57, %58, %59, %60, %61, %62, %63"
#define SM90_OPS_G8 ", %64, %65, %66, %67, %68, %69, %70, %71"
#define SM90_OPS_G9 ", %72, %73, %74, %75, %76, %77, %78, %79"
#define SM90_OPS_G10 ", %80, %81, %82, %83, %84, %85, %86, %87"
#define SM90_OPS_G11 ", %88, %89, %90, %91, %92, %93, %94, %95"
#define SM90_OPS_G12 ", %96, %97, %98, %99, %100, %101, %102, %103"
#define SM90_OPS_G13 ", %104, %105, %106, %107, %108, %109, %110, %111"
#define SM90_OPS_G14 ", %112, %113, %114, %115, %116, %117, %118, %119"
#define SM90_OPS_G15 ", %120, %121, %122, %123, %124, %125, %126, %127"
#define SM90_OPS_4 "%0, %1, %2, %3"
#define SM90_OPS_8 SM90_OPS_G0
#define SM90_OPS_16 SM90_OPS_G0 SM90_OPS_G1
#define SM90_OPS_24 SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2
#define SM90_OPS_32 SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3
#define SM90_OPS_40 SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4
#define SM90_OPS_48 SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4 SM90_OPS_G5
#define SM90_OPS_56 SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4 SM90_OPS_G5 SM90_OPS_G6
#define SM90_OPS_64 \
  SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4 SM90_OPS_G5 SM90_OPS_G6 SM90_OPS_G7
#define SM90_OPS_72 \
  SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4 SM90_OPS_G5 SM90_OPS_G6 SM90_OPS_G7 SM90_OPS_G8
#define SM90_OPS_80                                                                               \
  SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4 SM90_OPS_G5 SM90_OPS_G6 SM90_OPS_G7 \
      SM90_OPS_G8 SM90_OPS_G9
#define SM90_OPS_88                                                                               \
  SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4 SM90_OPS_G5 SM90_OPS_G6 SM90_OPS_G7 \
      SM90_OPS_G8 SM90_OPS_G9 SM90_OPS_G10
#define SM90_OPS_96                                                                               \
  SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4 SM90_OPS_G5 SM90_OPS_G6 SM90_OPS_G7 \
      SM90_OPS_G8 SM90_OPS_G9 SM90_OPS_G10 SM90_OPS_G11
#define SM90_OPS_104                                                                              \
  SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4 SM90_OPS_G5 SM90_OPS_G6 SM90_OPS_G7 \
      SM90_OPS_G8 SM90_OPS_G9 SM90_OPS_G10 SM90_OPS_G11 SM90_OPS_G12
#define SM90_OPS_112                                                                              \
  SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4 SM90_OPS_G5 SM90_OPS_G6 SM90_OPS_G7 \
      SM90_OPS_G8 SM90_OPS_G9 SM90_OPS_G10 SM90_OPS_G11 SM90_OPS_G12 SM90_OPS_G13
#define SM90_OPS_120                                                                              \
  SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4 SM90_OPS_G5 SM90_OPS_G6 SM90_OPS_G7 \
      SM90_OPS_G8 SM90_OPS_G9 SM90_OPS_G10 SM90_OPS_G11 SM90_OPS_G12 SM90_OPS_G13 SM90_OPS_G14
#define SM90_OPS_128                                                                              \
  SM90_OPS_G0 SM90_OPS_G1 SM90_OPS_G2 SM90_OPS_G3 SM90_OPS_G4 SM90_OPS_G5 SM90_OPS_G6 SM90_OPS_G7 \
      SM90_OPS_G8 SM90_OPS_G9 SM90_OPS_G10 SM90_OPS_G11 SM90_OPS_G12 SM90_OPS_G13 SM90_OPS_G14 SM90_OPS_G15
#define SM90_ACC_4 "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
#define SM90_ACC_8 SM90_ACC8(0)
#define SM90_ACC_16 SM90_ACC8(0), SM90_ACC8(8)
#define SM90_ACC_24 SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16)
#define SM90_ACC_32 SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24)
#define SM90_ACC_40 SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32)
#define SM90_ACC_48 SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32), SM90_ACC8(40)
#define SM90_ACC_56 \
  SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32), SM90_ACC8(40), SM90_ACC8(48)
#define SM90_ACC_64                                                                                      \
  SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32), SM90_ACC8(40), SM90_ACC8(48), \
      SM90_ACC8(56)
#define SM90_ACC_72                                                                                      \
  SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32), SM90_ACC8(40), SM90_ACC8(48), \
      SM90_ACC8(56), SM90_ACC8(64)
#define SM90_ACC_80                                                                                      \
  SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32), SM90_ACC8(40), SM90_ACC8(48), \
      SM90_ACC8(56), SM90_ACC8(64), SM90_ACC8(72)
#define SM90_ACC_88                                                                                      \
  SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32), SM90_ACC8(40), SM90_ACC8(48), \
      SM90_ACC8(56), SM90_ACC8(64), SM90_ACC8(72), SM90_ACC8(80)
#define SM90_ACC_96                                                                                      \
  SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32), SM90_ACC8(40), SM90_ACC8(48), \
      SM90_ACC8(56), SM90_ACC8(64), SM90_ACC8(72), SM90_ACC8(80), SM90_ACC8(88)
#define SM90_ACC_104                                                                                     \
  SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32), SM90_ACC8(40), SM90_ACC8(48), \
      SM90_ACC8(56), SM90_ACC8(64), SM90_ACC8(72), SM90_ACC8(80), SM90_ACC8(88), SM90_ACC8(96)
#define SM90_ACC_112                                                                                     \
  SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32), SM90_ACC8(40), SM90_ACC8(48), \
      SM90_ACC8(56), SM90_ACC8(64), SM90_ACC8(72), SM90_ACC8(80), SM90_ACC8(88), SM90_ACC8(96),          \
      SM90_ACC8(104)
#define SM90_ACC_120                                                                                     \
  SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32), SM90_ACC8(40), SM90_ACC8(48), \
      SM90_ACC8(56), SM90_ACC8(64), SM90_ACC8(72), SM90_ACC8(80), SM90_ACC8(88), SM90_ACC8(96),          \
      SM90_ACC8(104), SM90_ACC8(112)
#define SM90_ACC_128                                                                                     \
  SM90_ACC8(0), SM90_ACC8(8), SM90_ACC8(16), SM90_ACC8(24), SM90_ACC8(32), SM90_ACC8(40), SM90_ACC8(48), \
      SM90_ACC8(56), SM90_ACC8(64), SM90_ACC8(72), SM90_ACC8(80), SM90_ACC8(88), SM90_ACC8(96),          \
      SM90_ACC8(104), SM90_ACC8(112), SM90_ACC8(120)
#define SM90_ACC8(i)                                                                          \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])

// I0.. are the operand numbers after the N / 2 accumulators.
#define SM90_DEFINE_WGMMA(TYPE, TYPES, N, OPS, ACC, I0, I1, I2, I3, I4, I5, I6, I7)                          \
  template <>                                                                                                \
  struct Wgmma<N, TYPE> {                                                                                    \
    template <int TransA, int TransB>                                                                        \
    static __device__ __forceinline__ void ss(float (&d)[N / 2], unsigned long long a, unsigned long long b, \
                                              int scale_d) {                                                 \
      SM90A_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %" #I2 ", 0;\nwgmma.mma_async.sync.aligned.m64n" #N        \
                "k16.f32." TYPES " {" OPS "}, %" #I0 ", %" #I1 ", p, 1, 1, %" #I3 ", %" #I4 ";\n}\n"         \
                : ACC                                                                                        \
                : "l"(a), "l"(b), "r"(scale_d), "n"(TransA), "n"(TransB)                                     \
                : "memory");                                                                                 \
    }                                                                                                        \
    template <int TransB>                                                                                    \
    static __device__ __forceinline__ void rs(float (&d)[N / 2], const unsigned (&a)[4],                     \
                                              unsigned long long b, int scale_d) {                           \
      SM90A_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %" #I5 ", 0;\nwgmma.mma_async.sync.aligned.m64n" #N        \
                "k16.f32." TYPES " {" OPS "}, {%" #I0 ", %" #I1 ", %" #I2 ", %" #I3 "}, %" #I4               \
                ", p, 1, 1, %" #I6 ";\n}\n"                                                                  \
                : ACC                                                                                        \
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d), "n"(TransB)              \
                : "memory");                                                                                 \
    }                                                                                                        \
  };

SM90_DEFINE_WGMMA(F16, "f16.f16", 8, SM90_OPS_4, SM90_ACC_4, 4, 5, 6, 7, 8, 9, 10, 11)
SM90_DEFINE_WGMMA(F16, "f16.f16", 16, SM90_OPS_8, SM90_ACC_8, 8, 9, 10, 11, 12, 13, 14, 15)
SM90_DEFINE_WGMMA(F16, "f16.f16", 32, SM90_OPS_16, SM90_ACC_16, 16, 17, 18, 19, 20, 21, 22, 23)
SM90_DEFINE_WGMMA(F16, "f16.f16", 48, SM90_OPS_24, SM90_ACC_24, 24, 25, 26, 27, 28, 29, 30, 31)
SM90_DEFINE_WGMMA(F16, "f16.f16", 64, SM90_OPS_32, SM90_ACC_32, 32, 33, 34, 35, 36, 37, 38, 39)
SM90_DEFINE_WGMMA(F16, "f16.f16", 80, SM90_OPS_40, SM90_ACC_40, 40, 41, 42, 43, 44, 45, 46, 47)
SM90_DEFINE_WGMMA(F16, "f16.f16", 96, SM90_OPS_48, SM90_ACC_48, 48, 49, 50, 51, 52, 53, 54, 55)
SM90_DEFINE_WGMMA(F16, "f16.f16", 112, SM90_OPS_56, SM90_ACC_56, 56, 57, 58, 59, 60, 61, 62, 63)
SM90_DEFINE_WGMMA(F16, "f16.f16", 128, SM90_OPS_64, SM90_ACC_64, 64, 65, 66, 67, 68, 69, 70, 71)
SM90_DEFINE_WGMMA(F16, "f16.f16", 144, SM90_OPS_72, SM90_ACC_72, 72, 73, 74, 75, 76, 77, 78, 79)
SM90_DEFINE_WGMMA(F16, "f16.f16", 160, SM90_OPS_80, SM90_ACC_80, 80, 81, 82, 83, 84, 85, 86, 87)
SM90_DEFINE_WGMMA(F16, "f16.f16", 176, SM90_OPS_88, SM90_ACC_88, 88, 89, 90, 91, 92, 93, 94, 95)
SM90_DEFINE_WGMMA(F16, "f16.f16", 192, SM90_OPS_96, SM90_ACC_96, 96, 97, 98, 99, 100, 101, 102, 103)
SM90_DEFINE_WGMMA(F16, "f16.f16", 208, SM90_OPS_104, SM90_ACC_104, 104, 105, 106, 107, 108, 109, 110, 111)
SM90_DEFINE_WGMMA(F16, "f16.f16", 224, SM90_OPS_112, SM90_ACC_112, 112, 113, 114, 115, 116, 117, 118, 119)
SM90_DEFINE_WGMMA(F16, "f16.f16", 240, SM90_OPS_120, SM90_ACC_120, 120, 121, 122, 123, 124, 125, 126, 127)
SM90_DEFINE_WGMMA(F16, "f16.f16", 256, SM90_OPS_128, SM90_ACC_128, 128, 129, 130, 131, 132, 133, 134, 135)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 8, SM90_OPS_4, SM90_ACC_4, 4, 5, 6, 7, 8, 9, 10, 11)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 16, SM90_OPS_8, SM90_ACC_8, 8, 9, 10, 11, 12, 13, 14, 15)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 32, SM90_OPS_16, SM90_ACC_16, 16, 17, 18, 19, 20, 21, 22, 23)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 48, SM90_OPS_24, SM90_ACC_24, 24, 25, 26, 27, 28, 29, 30, 31)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 64, SM90_OPS_32, SM90_ACC_32, 32, 33, 34, 35, 36, 37, 38, 39)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 80, SM90_OPS_40, SM90_ACC_40, 40, 41, 42, 43, 44, 45, 46, 47)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 96, SM90_OPS_48, SM90_ACC_48, 48, 49, 50, 51, 52, 53, 54, 55)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 112, SM90_OPS_56, SM90_ACC_56, 56, 57, 58, 59, 60, 61, 62, 63)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 128, SM90_OPS_64, SM90_ACC_64, 64, 65, 66, 67, 68, 69, 70, 71)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 144, SM90_OPS_72, SM90_ACC_72, 72, 73, 74, 75, 76, 77, 78, 79)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 160, SM90_OPS_80, SM90_ACC_80, 80, 81, 82, 83, 84, 85, 86, 87)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 176, SM90_OPS_88, SM90_ACC_88, 88, 89, 90, 91, 92, 93, 94, 95)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 192, SM90_OPS_96, SM90_ACC_96, 96, 97, 98, 99, 100, 101, 102, 103)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 208, SM90_OPS_104, SM90_ACC_104, 104, 105, 106, 107, 108, 109, 110, 111)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 224, SM90_OPS_112, SM90_ACC_112, 112, 113, 114, 115, 116, 117, 118, 119)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 240, SM90_OPS_120, SM90_ACC_120, 120, 121, 122, 123, 124, 125, 126, 127)
SM90_DEFINE_WGMMA(Bf16, "bf16.bf16", 256, SM90_OPS_128, SM90_ACC_128, 128, 129, 130, 131, 132, 133, 134, 135)

}  // namespace sm90
