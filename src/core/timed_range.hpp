// The name of the NVTX range the evaluator opens around a variant's timed executions (and nothing else), so a
// profiler can select exactly those launches: `evotune profile` asks Nsight Compute for the kernels inside
// it.
#pragma once

namespace evotune {

// A push/pop range of NVTX's default domain; ncu selects it with `--nvtx --nvtx-include "NAME/"`. Plain
// characters only: '@', '/', '[', ']' and '*' mean something in ncu's filter syntax.
inline constexpr const char* kTimedRangeName = "evotune_timed_executions";

}  // namespace evotune
