// `evotune export SPACE... --torch DIR`: the dispatching .cu of one tuned space a dtype wrapped as one
// PyTorch op (torch.library, evotune::<name>) that runs the space of its inputs' dtype, a loader that builds
// it with torch.utils.cpp_extension, and a prebuilt path through ctypes. This is the generic part; what an
// operation's op takes and checks is its family's (torch_family.hpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "export/torch_family.hpp"
#include "space/search_space.hpp"

namespace evotune {

// One tuned space of an op and its dispatcher (render_dispatch_export's text).
struct TorchOpSpace {
  const SearchSpace* space;
  std::string dispatch_source;
};

// The family of the op over `spaces`; throws Error (one line) unless they make one op: each of a family,
// all of one, each of one element type and no two of the same, with the same problem sizes in one order and
// one ArchSuffix.
const TorchFamily& require_torch_spaces(const std::vector<const SearchSpace*>& spaces);

// The files of the op `name`, by file name: <space>_dispatch.cu of each space, the checks
// (torch_op_checks.hpp and the family's torch_op_checks_<family>.hpp), binding.cpp, load.py, build_so.sh and
// README.md. `arch`: "sm_90" (the spaces' ArchSuffix is added).
std::map<std::string, std::string> torch_op_files(const std::vector<TorchOpSpace>& spaces,
                                                  const std::string& name, const std::string& arch);

// The contents of src/export/torch_op_checks.hpp, written beside the binding.
const char* torch_op_checks_text();

}  // namespace evotune
