// Argument checks of an exported attention op (evotune export --torch), free of PyTorch so that they are
// tested without it: the binding describes each tensor and raises the message it gets back. The exporter
// writes this file beside the binding as <space>_checks.h; with EVOTUNE_CHECKS_C_API defined it also has a C
// entry point for the prebuilt library's ctypes path.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace evotune_op {

// What the checks need to know of a tensor.
struct TensorView {
  std::string name;    // the op's argument name: "q"
  std::string dtype;   // torch's name: "float16", "bfloat16", "float32", ...
  std::string device;  // "cuda:0", "cpu", "meta"
  std::vector<std::int64_t> sizes, strides;
};

inline std::string join(const std::vector<std::int64_t>& values) {
  std::string text;
  for (const auto value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
  return "[" + text + "]";
}

// Row-major contiguity; a dimension of size 1 may have any stride, and a tensor with no elements is
// contiguous (PyTorch's own rules: torch.empty(1, 8, 0, 64) has strides [512, 64, 64, 1]).
inline bool contiguous(const TensorView& t) {
  for (const auto size : t.sizes)
    if (size == 0) return true;
  std::int64_t expected = 1;
  for (std::size_t d = t.sizes.size(); d-- > 0;) {
    if (t.sizes[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.sizes[d];
  }
  return true;
}

// "" when q, k and v suit the op `op`: each of dtype `dtype`, 4-dimensional [batch, heads, sequence,
// head_dim], of one shape, contiguous, and (when `need_cuda`) on one CUDA device; else the message to raise.
inline std::string check_attention_inputs(const std::string& op, const std::string& dtype,
                                          const std::vector<TensorView>& tensors, bool need_cuda) {
  const TensorView& first = tensors.front();
  for (const TensorView& t : tensors) {
    if (t.dtype != dtype)
      return op + ": " + t.name + " must be " + dtype + " (the exported kernels were tuned for " + dtype +
             "), got " + t.dtype;
    if (need_cuda && t.device.rfind("cuda", 0) != 0)
      return op + ": " + t.name + " must be a CUDA tensor, got one on " + t.device;
    if (t.sizes.size() != 4)
      return op + ": " + t.name + " must have 4 dimensions [batch, heads, sequence, head_dim], got shape " +
             join(t.sizes);
    if (t.sizes != first.sizes)
      return op + ": " + t.name + " has shape " + join(t.sizes) + " but " + first.name + " has " +
             join(first.sizes) + " (the op takes q, k and v of one shape)";
    if (!contiguous(t))
      return op + ": " + t.name + " must be contiguous (call .contiguous()); its strides are " +
             join(t.strides) + " for shape " + join(t.sizes);
    if (need_cuda && t.device != first.device)
      return op + ": " + t.name + " is on " + t.device + " but " + first.name + " is on " + first.device;
  }
  return "";
}

}  // namespace evotune_op

#ifdef EVOTUNE_CHECKS_C_API
// For ctypes: tensor i has dims[i] sizes and strides at sizes + 8 * i and strides + 8 * i. Writes the message
// (truncated to capacity - 1) and returns its length; 0 when the tensors suit the op.
extern "C" int evotune_check_attention(const char* op, const char* dtype, int count, const char* const* names,
                                       const char* const* dtypes, const char* const* devices, const int* dims,
                                       const long long* sizes, const long long* strides, int need_cuda,
                                       char* message, int capacity) {
  std::vector<evotune_op::TensorView> tensors;
  for (int i = 0; i < count; ++i) {
    evotune_op::TensorView t{names[i], dtypes[i], devices[i], {}, {}};
    for (int d = 0; d < dims[i] && d < 8; ++d) {
      t.sizes.push_back(sizes[8 * i + d]);
      t.strides.push_back(strides[8 * i + d]);
    }
    tensors.push_back(t);
  }
  const std::string problem = evotune_op::check_attention_inputs(op, dtype, tensors, need_cuda != 0);
  if (capacity > 0) {
    const std::size_t n =
        problem.size() < std::size_t(capacity - 1) ? problem.size() : std::size_t(capacity - 1);
    std::memcpy(message, problem.data(), n);
    message[n] = '\0';
  }
  return static_cast<int>(problem.size());
}
#endif
