// The attention family's argument checks (evotune export --torch): q, k and v of one [batch, heads,
// sequence, head_dim] shape, on top of the checks every op makes (torch_op_checks.hpp).
#pragma once

#include "torch_op_checks.hpp"

namespace evotune_op {

// "" when q, k and v suit the op `op` (kernels tuned for `dtypes`): the common checks, then 4 dimensions
// [batch, heads, sequence, head_dim] and one shape; else the message to raise.
inline std::string check_attention_inputs(const std::string& op, const std::vector<std::string>& dtypes,
                                          const std::vector<TensorView>& tensors, bool need_cuda) {
  const std::string common = check_tensors(op, dtypes, tensors, need_cuda);
  if (!common.empty()) return common;
  const TensorView& first = tensors.front();
  for (const TensorView& t : tensors) {
    if (t.sizes.size() != 4)
      return op + ": " + t.name + " must have 4 dimensions [batch, heads, sequence, head_dim], got shape " +
             join(t.sizes);
    if (t.sizes != first.sizes)
      return op + ": " + t.name + " has shape " + join(t.sizes) + " but " + first.name + " has " +
             join(first.sizes) + " (the op takes q, k and v of one shape)";
  }
  return "";
}

}  // namespace evotune_op

#ifdef EVOTUNE_CHECKS_C_API
// For ctypes (the arrays as evotune_op::c_tensors reads them; dtypes: the tuned ones, comma-separated).
extern "C" int evotune_check_attention(const char* op, const char* dtypes, int count,
                                       const char* const* names, const char* const* tensor_dtypes,
                                       const char* const* devices, const int* dims, const long long* sizes,
                                       const long long* strides, const unsigned long long* addresses,
                                       int need_cuda, char* message, int capacity) {
  const auto tensors =
      evotune_op::c_tensors(count, names, tensor_dtypes, devices, dims, sizes, strides, addresses);
  return evotune_op::c_message(
      evotune_op::check_attention_inputs(op, evotune_op::c_dtypes(dtypes), tensors, need_cuda != 0), message,
      capacity);
}
#endif
