// DeviceInfo -> named expression variables.
#include "space/device_variables.hpp"

namespace evotune {

std::vector<std::pair<std::string, double>> device_variables(const DeviceInfo& device) {
  return {
      {"DEVICE_MAX_SMEM_PER_BLOCK", device.max_smem_per_block},
      {"DEVICE_SMEM_PER_SM", device.smem_per_sm},
      {"DEVICE_REGS_PER_SM", device.regs_per_sm},
      {"DEVICE_REGS_PER_BLOCK", device.regs_per_block},
      {"DEVICE_MAX_THREADS_PER_BLOCK", device.max_threads_per_block},
      {"DEVICE_SM_COUNT", device.sm_count},
      {"DEVICE_L2_BYTES", static_cast<double>(device.l2_bytes)},
      {"DEVICE_CC", device.cc_major * 10 + device.cc_minor},
  };
}

}  // namespace evotune
