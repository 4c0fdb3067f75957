// Export of a dispatcher: every distinct stored winner of a space once, and one extern "C" entry point that
// picks among them at run time by the dispatch rule (dispatch_table), with launch geometry computed from the
// sizes it is called with.
#pragma once

#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/device_info.hpp"
#include "export/dispatch_variant.hpp"
#include "space/dispatch_table.hpp"
#include "space/search_space.hpp"

namespace evotune {

// The variants an export of `table` holds, in its order (the variant index the generated code returns):
// the tuned problems' winners in the table's order, then its covers, each (config, compile-time sizes) once.
std::vector<DispatchVariant> dispatch_variants(const SearchSpace& space, const DispatchTable& table);

// Error codes of the generated functions (0: success; a positive value is a cudaError_t).
enum DispatchError : int {
  kUntunedCompileTimeSizes = -1,  // no variant was tuned for these compile-time sizes (an untuned D)
  kBadSize = -2,                  // a run-time size below 1
  kNoVariantRuns = -3,            // the space's conditions reject every exported variant at these sizes
  kBadGeometry = -4,              // a grid, block, shared-memory, scratch or scalar value out of range
  kBadWorkspace = -5,             // workspace null or smaller than <space>_workspace_bytes says
  kTensorMapRefused = -6,         // the driver's tensor-map encoder is missing or refused the map
};

// The .cu file. `header`: comment lines for its top. Its extern "C" functions, with <space> the space's name
// and SIZES `long long` values of every problem size in the space's order (B, H, S, D, CAUSAL):
//   int <space>_pick(SIZES, int* rule)       variant index (rule: 0 exact, 1 nearest, 2 default; may be
//                                            null) or a negative error code; touches no GPU
//   int <space>_workspace_bytes(SIZES, size_t* bytes)
//   int <space>_dispatch(BUFFERS, SIZES, void* workspace, size_t workspace_size, cudaStream_t stream)
//   const char* <space>_error_string(int code)
//   int <space>_variant_count(void);  const char* <space>_variant(int index)  (its config and sizes)
// BUFFERS: the space's Vector arguments in file order, typed (const for read-only ones). Scalar arguments
// take their Value expressions' values; scratch buffers are carved from `workspace`. Throws Error when the
// table has no tuned problem or an expression has no C++ form.
std::string render_dispatch_export(const SearchSpace& space, const DispatchTable& table,
                                   const DeviceInfo& device, const std::string& header);

// The prefix of the generated functions' names: the space's name with every character that cannot be part
// of a C identifier replaced by '_'.
std::string dispatch_symbol_prefix(const SearchSpace& space);

}  // namespace evotune
