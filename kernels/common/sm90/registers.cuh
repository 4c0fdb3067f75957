// The setmaxnreg register split between warpgroups (sm_90a): a producer warpgroup gives registers back, the
// consumer warpgroups take them. Takes effect only when the kernel has a register cap at entry
// (__launch_bounds__(threads, 1)) and each role's call sits in one branch of a single if/else; the counts of
// all warpgroups must fit the SM's 64K registers, or the increasing setmaxnreg waits forever.
#pragma once

#include "arch.cuh"

namespace sm90 {

template <int Registers>
__device__ __forceinline__ void registers_decrease() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256,
                "setmaxnreg takes 24..256, step 8");
  SM90A_ASM("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
}
template <int Registers>
__device__ __forceinline__ void registers_increase() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256,
                "setmaxnreg takes 24..256, step 8");
  SM90A_ASM("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

}  // namespace sm90
