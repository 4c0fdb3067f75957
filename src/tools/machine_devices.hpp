// What `evotune devices` shows: NVRTC's version and the GPUs of this machine with the limits constraints see.
#pragma once

#include <string>
#include <vector>

#include "core/device_info.hpp"

namespace evotune {

struct MachineDevices {
  std::string nvrtc_version;     // "13.0"
  std::vector<DeviceInfo> gpus;  // by ordinal
  std::string no_gpu_reason;     // why `gpus` is empty
};

// Needs no GPU: a machine without one lists none, with the reason. Throws Error when a present GPU cannot
// be queried.
MachineDevices machine_devices();

}  // namespace evotune
