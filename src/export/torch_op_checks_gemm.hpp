// The GEMM family's argument checks (evotune export --torch): a [..., K] times b [K, N] (or [N, K],
// F.linear's weight) plus an optional bias [N], on top of the checks every op makes (torch_op_checks.hpp).
#pragma once

#include "torch_op_checks.hpp"

namespace evotune_op {

// The product's sizes: a's leading dimensions are its rows (as F.linear and torch.matmul take them).
struct GemmSizes {
  std::int64_t m, n, k;
};

inline GemmSizes gemm_sizes(const TensorView& a, const TensorView& b, bool b_kmajor) {
  GemmSizes sizes{1, b_kmajor ? b.sizes[0] : b.sizes[1], a.sizes.back()};
  for (std::size_t d = 0; d + 1 < a.sizes.size(); ++d) sizes.m *= a.sizes[d];
  return sizes;
}

// "" when a, b and (a third tensor) the bias suit the op `op` (kernels tuned for `dtypes`): the common
// checks, a of 2 or more dimensions [..., K], b of 2, [K, N] or (b_kmajor) [N, K], bias [N], and K and N
// multiples of `row_alignment` elements (the kernels' TMA needs 16-byte row strides); else the message.
inline std::string check_gemm_inputs(const std::string& op, const std::vector<std::string>& dtypes,
                                     const std::vector<TensorView>& tensors, bool b_kmajor,
                                     std::int64_t row_alignment, bool need_cuda) {
  const std::string common = check_tensors(op, dtypes, tensors, need_cuda);
  if (!common.empty()) return common;
  const TensorView& a = tensors[0];
  const TensorView& b = tensors[1];
  const std::string layout = b_kmajor ? "[N, K] (b_kmajor=True)" : "[K, N]";
  if (a.sizes.size() < 2)
    return op + ": a must have 2 or more dimensions [..., K] (its leading ones are the rows), got shape " +
           join(a.sizes);
  if (b.sizes.size() != 2)
    return op + ": b must have 2 dimensions, " + layout + ", got shape " + join(b.sizes);
  const GemmSizes sizes = gemm_sizes(a, b, b_kmajor);
  if ((b_kmajor ? b.sizes[1] : b.sizes[0]) != sizes.k)
    return op + ": a has K = " + std::to_string(sizes.k) + " (its last dimension) but b, " + layout +
           ", has shape " + join(b.sizes);
  if (tensors.size() > 2 && tensors[2].sizes != std::vector<std::int64_t>{sizes.n})
    return op + ": " + tensors[2].name + " must have shape [N] = [" + std::to_string(sizes.n) + "], got " +
           join(tensors[2].sizes);
  if (sizes.k % row_alignment != 0)
    return op + ": K = " + std::to_string(sizes.k) + " must be a multiple of " +
           std::to_string(row_alignment) +
           ": the kernels load the rows of a and b with TMA, which needs row strides of a multiple of 16 "
           "bytes";
  if (sizes.n % row_alignment != 0)
    return op + ": N = " + std::to_string(sizes.n) + " must be a multiple of " +
           std::to_string(row_alignment) +
           ": the kernels move the rows of b and of the output with TMA, which needs row strides of a "
           "multiple "
           "of 16 bytes";
  return "";
}

}  // namespace evotune_op

#ifdef EVOTUNE_CHECKS_C_API
// For ctypes (the arrays as evotune_op::c_tensors reads them; dtypes: the tuned ones, comma-separated).
extern "C" int evotune_check_gemm(const char* op, const char* dtypes, int count, const char* const* names,
                                  const char* const* tensor_dtypes, const char* const* devices,
                                  const int* dims, const long long* sizes, const long long* strides,
                                  const unsigned long long* addresses, int need_cuda, char* message,
                                  int capacity, int b_kmajor, int row_alignment) {
  const auto tensors =
      evotune_op::c_tensors(count, names, tensor_dtypes, devices, dims, sizes, strides, addresses);
  return evotune_op::c_message(evotune_op::check_gemm_inputs(op, evotune_op::c_dtypes(dtypes), tensors,
                                                             b_kmajor != 0, row_alignment, need_cuda != 0),
                               message, capacity);
}
#endif
