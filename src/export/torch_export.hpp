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

// The spaces of one op by role: those of its family (its forward) and, where given, those of the backward
// family that differentiates it (TorchFamily::differentiates), each in the order given.
struct TorchOpPlan {
  const TorchFamily* family = nullptr;
  const TorchFamily* backward = nullptr;  // nullptr: no backward spaces, the op is not differentiable
  std::vector<const SearchSpace*> forward, backward_spaces;
};

// The op over `spaces`; throws Error (one line) unless they make one: the forward spaces each of a family,
// all of one, each of one element type and no two of the same, with the same problem sizes in one order and
// one ArchSuffix; the backward spaces (if any) likewise, of a family that differentiates the forward's, one
// for each of the forward's dtypes, with the forward's problem sizes and ArchSuffix, beside forward spaces
// that write what the backward reads (attention's LSE).
TorchOpPlan require_torch_spaces(const std::vector<const SearchSpace*>& spaces);

// The files of the op `name`, by file name: <space>_dispatch.cu of each space (forward and backward), the
// checks (torch_op_checks.hpp and the family's torch_op_checks_<family>.hpp), binding.cpp, load.py,
// build_so.sh and README.md. `arch`: "sm_90" (the spaces' ArchSuffix is added).
std::map<std::string, std::string> torch_op_files(const std::vector<TorchOpSpace>& spaces,
                                                  const std::string& name, const std::string& arch);

// The contents of src/export/torch_op_checks.hpp, written beside the binding.
const char* torch_op_checks_text();

}  // namespace evotune
