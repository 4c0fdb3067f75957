// Hopper basics every sm90 primitive uses: the sm_90a instruction guard, the tensor-map parameter type and
// shared-memory addresses. Parameter-free: a template includes it before its #defines.
#pragma once

// wgmma and setmaxnreg exist on sm_90a only (a space sets ArchSuffix "a"). nvcc -arch=sm_90a (an exported
// variant) also emits compute_90 PTX for later GPUs; in that pass each such instruction is a trap, so that
// the file builds but never computes wrongly.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SM90A_ASM(...) __trap()
#else
#define SM90A_ASM(...) asm volatile(__VA_ARGS__)
#endif

namespace sm90 {

// A CUtensorMap (a space's TensorMap argument, encoded by the host with cuTensorMapEncodeTiled): 128 opaque
// bytes, passed by value as a __grid_constant__ kernel parameter.
struct alignas(64) TensorMap {
  unsigned long long words[16];
};

// The 32-bit shared-window address of a pointer into shared memory (what every async instruction takes).
__device__ __forceinline__ unsigned smem_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// The block's dynamic shared memory from its first 1024-byte boundary (the 128-byte swizzle's atoms must
// start on one), aligned in the shared window: its
// shared address (what TMA, mbarriers and wgmma descriptors take) and its generic pointer (ordinary loads and
// stores).
struct AlignedSmem {
  unsigned shared;
  unsigned char* generic;
};
__device__ __forceinline__ AlignedSmem align_smem_1024(unsigned char* raw) {
  const unsigned raw_address = smem_address(raw);
  const unsigned base = (raw_address + 1023) & ~1023u;
  return {base, raw + (base - raw_address)};
}

// Makes this thread's ordinary shared-memory writes visible to the async proxy (TMA stores, wgmma reads):
// each writing thread, before the barrier that orders them.
__device__ __forceinline__ void fence_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Pins registers in place: the compiler cannot move their reads and writes across this point (nor across the
// wgmma fence and wait next to it), which it would otherwise do, not knowing wgmma is asynchronous.
template <int N>
__device__ __forceinline__ void pin(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void pin(unsigned (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

__host__ __device__ constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }

}  // namespace sm90
