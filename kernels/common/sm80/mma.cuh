// Ampere-and-later primitives a tensor-core template shares: 16-byte cp.async copies into shared memory (with
// zero fill and an optional L2 prefetch hint) in commit groups, ldmatrix (plain and transposed) and
// mma.sync.m16n8k16 with fp32 accumulators, fp16 or bf16 in; the reductions over a quad of lanes that hold
// one accumulator row. Runs on sm_80 and later (sm_90 included).
#pragma once

namespace sm80 {

__device__ __forceinline__ unsigned smem_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// 16 bytes global -> shared; bytes = 0 writes zeros and reads nothing. Prefetch256: the .L2::256B hint (L2
// fetches the 256-byte block around the copy).
template <bool Prefetch256>
__device__ __forceinline__ void copy_16(void* dst, const void* src, int bytes) {
  if constexpr (Prefetch256)
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;\n" ::"r"(smem_address(dst)),
                 "l"(src), "r"(bytes));
  else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(dst)), "l"(src),
                 "r"(bytes));
}
// 4 bytes global -> shared (cp.async.ca: .cg copies 16 bytes only), in the same commit groups; bytes = 0
// writes zeros and reads nothing.
__device__ __forceinline__ void copy_4(void* dst, const void* src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_address(dst)), "l"(src),
               "r"(bytes));
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }
// Until at most Pending of this thread's committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(address)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(address)));
}

// acc += a (16x16, row-major) b (16x8, column-major); a and b fp16 (Bf16 false) or bf16, acc fp32.
template <bool Bf16>
__device__ __forceinline__ void mma_16816(float (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  if constexpr (Bf16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Over the four lanes of a quad (lane / 4 equal): the lanes that hold one row of an mma accumulator.
__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

}  // namespace sm80
