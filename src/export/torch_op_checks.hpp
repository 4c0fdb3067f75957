// Argument checks every exported op makes (evotune export --torch), free of PyTorch so that they are tested
// without it: the binding describes each tensor and raises the message it gets back. A family's checks
// (torch_op_checks_<family>.hpp) add its shapes on top. The exporter writes these headers beside the binding;
// with EVOTUNE_CHECKS_C_API defined they also have C entry points for the prebuilt library's ctypes path.
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
  std::uint64_t address;  // of the first element; 0 where unknown (a fake tensor) or empty
};

inline std::string join(const std::vector<std::int64_t>& values) {
  std::string text;
  for (const auto value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
  return "[" + text + "]";
}

// "float16", "float16 or bfloat16".
inline std::string one_of(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
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

// "" when the tensors suit an op whose kernels were tuned for `dtypes`: all of one dtype among them,
// contiguous, and (when `need_cuda`) on one CUDA device with their data on a 16-byte boundary (the kernels'
// vector loads and TMA need it); else the message to raise. The shapes are the family's checks.
inline std::string check_tensors(const std::string& op, const std::vector<std::string>& dtypes,
                                 const std::vector<TensorView>& tensors, bool need_cuda) {
  const TensorView& first = tensors.front();
  for (const TensorView& t : tensors) {
    bool tuned = false;
    for (const auto& dtype : dtypes) tuned = tuned || t.dtype == dtype;
    if (!tuned)
      return op + ": " + t.name + " must be " + one_of(dtypes) + " (the exported kernels were tuned for " +
             one_of(dtypes) + "), got " + t.dtype;
    if (t.dtype != first.dtype)
      return op + ": " + t.name + " is " + t.dtype + " but " + first.name + " is " + first.dtype +
             " (the op takes tensors of one dtype)";
    if (need_cuda && t.device.rfind("cuda", 0) != 0)
      return op + ": " + t.name + " must be a CUDA tensor, got one on " + t.device;
    if (!contiguous(t))
      return op + ": " + t.name + " must be contiguous (call .contiguous()); its strides are " +
             join(t.strides) + " for shape " + join(t.sizes);
    if (need_cuda && t.device != first.device)
      return op + ": " + t.name + " is on " + t.device + " but " + first.name + " is on " + first.device;
    if (need_cuda && t.address % 16 != 0)
      return op + ": " + t.name + "'s data must start on a 16-byte boundary, but it starts " +
             std::to_string(t.address % 16) + " bytes past one (a view at an offset: call .clone())";
  }
  return "";
}

}  // namespace evotune_op

#ifdef EVOTUNE_CHECKS_C_API
namespace evotune_op {

// The tensors of a ctypes call: tensor i has dims[i] sizes and strides at sizes + 8 * i and strides + 8 * i.
inline std::vector<TensorView> c_tensors(int count, const char* const* names, const char* const* dtypes,
                                         const char* const* devices, const int* dims, const long long* sizes,
                                         const long long* strides, const unsigned long long* addresses) {
  std::vector<TensorView> tensors;
  for (int i = 0; i < count; ++i) {
    TensorView t{names[i], dtypes[i], devices[i], {}, {}, addresses[i]};
    for (int d = 0; d < dims[i] && d < 8; ++d) {
      t.sizes.push_back(sizes[8 * i + d]);
      t.strides.push_back(strides[8 * i + d]);
    }
    tensors.push_back(t);
  }
  return tensors;
}

// "float16,bfloat16" -> {"float16", "bfloat16"}.
inline std::vector<std::string> c_dtypes(const char* list) {
  std::vector<std::string> names{""};
  for (const char* c = list; *c; ++c) {
    if (*c == ',')
      names.emplace_back();
    else
      names.back() += *c;
  }
  return names;
}

// Writes the message (truncated to capacity - 1) and returns its length; 0 when there is none.
inline int c_message(const std::string& problem, char* message, int capacity) {
  if (capacity > 0) {
    const std::size_t n =
        problem.size() < std::size_t(capacity - 1) ? problem.size() : std::size_t(capacity - 1);
    std::memcpy(message, problem.data(), n);
    message[n] = '\0';
  }
  return static_cast<int>(problem.size());
}

}  // namespace evotune_op
#endif
