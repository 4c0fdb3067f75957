// Export: one variant as a standalone .cu (constants baked in) with an extern "C" host launcher.
#pragma once

#include <string>

#include "core/config.hpp"
#include "core/device_info.hpp"
#include "space/search_space.hpp"

namespace evotune {

// The file's text: `header` (already-formatted comment lines: config, device, time, hash), the variant's
// source, and `<kernel>_launch(<kernel arguments>, cudaStream_t)`, whose grid, block and shared memory are
// those of `sizes`; it returns cudaErrorInvalidValue when called with integer sizes other than the tuned
// ones. A space of several launches or with Scratch arguments gets instead `<KernelName>_launch(<every
// argument but the scratch ones, in file order>, void* workspace, cudaStream_t)`, which runs the config's
// launches in order with its scratch buffers carved from `workspace`, and `<KernelName>_workspace_bytes(<the
// integer arguments>)`, the workspace it needs (0 when the config needs none).
std::string render_export(const SearchSpace& space, const Sizes& sizes, const Config& config,
                          const DeviceInfo& device, const std::string& header);

}  // namespace evotune
