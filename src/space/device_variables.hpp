// The device limits that space-file expressions see, as DEVICE_* variables.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/device_info.hpp"

namespace evotune {

// DEVICE_MAX_SMEM_PER_BLOCK, DEVICE_SMEM_PER_SM, DEVICE_REGS_PER_SM, DEVICE_REGS_PER_BLOCK,
// DEVICE_MAX_THREADS_PER_BLOCK, DEVICE_SM_COUNT, DEVICE_L2_BYTES, DEVICE_CC (cc_major * 10 + cc_minor).
std::vector<std::pair<std::string, double>> device_variables(const DeviceInfo& device);

}  // namespace evotune
