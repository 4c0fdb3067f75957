// The code of one variant in a dispatching export: its kernels in their own namespace, renamed so that
// several variants of one template coexist, and a host function that checks the space's conditions, sizes
// its workspace and launches it, with every expression evaluated for the sizes it is called with.
#pragma once

#include <cstddef>
#include <string>

#include "core/device_info.hpp"
#include "export/dispatch_variant.hpp"
#include "space/search_space.hpp"

namespace evotune {

// What a variant's run function is asked to do.
constexpr const char* kRunModes =
    "enum { evotune_check = 0, evotune_size_workspace = 1, evotune_launch = 2 };\n";

// `<prefix>_variant<index>` holding the template with the variant's #define lines, its kernels renamed
// `<prefix>_v<index>_<kernel>` (unique across spaces: kernels are extern "C"); every macro it defines is
// #undef'd after it.
std::string variant_kernel_code(const SearchSpace& space, const DispatchVariant& variant, std::size_t index,
                                const std::string& prefix);

// `static int <prefix>_run<index>(int mode, BUFFERS, SIZES, void* workspace, size_t workspace_size,
// size_t* workspace_needed, cudaStream_t stream)`: returns 1 when the conditions reject these sizes (or no
// launch applies), naming the condition and its reason in `<prefix>_refusal` (a thread_local const char* the
// file declares before it), else 0 in evotune_check mode, else the workspace in *workspace_needed in
// evotune_size_workspace mode, else runs the launches and returns 0, a DispatchError or a cudaError_t.
std::string variant_run_code(const SearchSpace& space, const DispatchVariant& variant, std::size_t index,
                             const std::string& prefix, const DeviceInfo& device);

// "const half* Q, const half* K, ..., long long size_B, ..., long long size_CAUSAL" and the same names as a
// call's arguments.
std::string buffer_and_size_parameters(const SearchSpace& space);
std::string buffer_and_size_arguments(const SearchSpace& space);

}  // namespace evotune
