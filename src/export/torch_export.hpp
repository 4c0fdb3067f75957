// `evotune export SPACE --torch DIR`: the dispatching .cu of an attention space wrapped as a PyTorch op
// (torch.library, evotune::<space>), a loader that builds it with torch.utils.cpp_extension, and a prebuilt
// path through ctypes.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "space/search_space.hpp"

namespace evotune {

// Throws Error (one line) unless the space is attention-shaped: Vector arguments Q, K, V (read-only) and O
// (written) of one 16-bit float type, and problem sizes B, H, S, D with at most CAUSAL besides.
void require_attention_space(const SearchSpace& space);

// The files of the op, by name: <space>_dispatch.cu (`dispatch_source`, render_dispatch_export's text),
// <space>_checks.h, binding.cpp, load.py, build_so.sh and README.md. `arch`: "sm_90" (the space's
// ArchSuffix is added).
std::map<std::string, std::string> torch_op_files(const SearchSpace& space,
                                                  const std::string& dispatch_source,
                                                  const std::string& arch);

// The contents of src/session/torch_op_checks.hpp, written as <space>_checks.h.
const char* torch_op_checks_text();

}  // namespace evotune
