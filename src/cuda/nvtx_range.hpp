// A named NVTX push/pop range for the lifetime of an object (NVTX 3, header-only, from the toolkit): costs a
// call through a no-op pointer unless a tool (Nsight Compute, Nsight Systems) injected itself.
#pragma once

namespace evotune::cuda {

class NvtxRange {
 public:
  explicit NvtxRange(const char* name);  // nvtxRangePushA on this thread
  ~NvtxRange();                          // nvtxRangePop
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace evotune::cuda
