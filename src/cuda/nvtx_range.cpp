// NVTX's return codes are the range depth, or negative where no tool listens: nothing to check or report.
#include "cuda/nvtx_range.hpp"

#include <nvtx3/nvToolsExt.h>

namespace evotune::cuda {

NvtxRange::NvtxRange(const char* name) { nvtxRangePushA(name); }

NvtxRange::~NvtxRange() { nvtxRangePop(); }

}  // namespace evotune::cuda
