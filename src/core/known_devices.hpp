// Device limits per architecture, for compile-only use (`evotune check --arch sm_XY`) on a machine with no
// GPU.
#pragma once

#include <string>

#include "core/device_info.hpp"

namespace evotune {

// Limits of the architecture's largest data-centre part (sm_80: A100, sm_90: H100). Throws Error for an
// unknown or malformed arch ("sm_90", "sm_90a", "sm_80", ...).
DeviceInfo offline_device(const std::string& arch);

}  // namespace evotune
