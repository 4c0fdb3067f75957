// Programmatic dependent launch (sm_90): a kernel launched as a programmatic dependent (a space's
// "Programmatic" launch) may start while the grid before it on the stream still runs; it waits for that grid
// before touching global memory, and lets the grid after it start early in turn.
#pragma once

namespace sm90 {

// Waits until the grid this one depends on has completed and its memory writes are visible (returns at once
// where the launch was an ordinary one). Every thread that reads or writes global memory waits first.
__device__ __forceinline__ void wait_prior_grid() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }

// Lets a programmatic dependent of this grid start once every block of this grid has executed it (or exited):
// its blocks then take the SMs this grid leaves free and wait for this grid's completion themselves.
__device__ __forceinline__ void allow_dependent_grid() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

}  // namespace sm90
