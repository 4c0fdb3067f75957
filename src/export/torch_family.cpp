// The families an op can be exported for, and how a space's family is recognised.
#include "export/torch_family.hpp"

#include <algorithm>
#include <optional>

#include "core/error.hpp"

namespace evotune {
namespace {

bool among(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

const std::vector<TorchFamily>& torch_families() {
  static const std::vector<TorchFamily> families{attention_torch_family(), attention_backward_torch_family(),
                                                 gemm_torch_family(), decode_torch_family()};
  return families;
}

const TorchFamily& torch_family_of(const SearchSpace& space) {
  std::string names, reasons;
  for (const auto& family : torch_families()) {
    const std::string why = family.refusal(space);
    if (why.empty()) return family;
    names += (names.empty() ? "" : " or ") + family.name;
    reasons += (reasons.empty() ? "" : "; ") + family.name + ": " + why;
  }
  throw Error("--torch exports " + names + " spaces only, and " + space.name() + " is none of them (" +
              reasons + ")");
}

DType torch_element_type(const SearchSpace& space) {
  const TorchFamily& family = torch_family_of(space);
  std::optional<DType> type;
  for (const auto& argument : space.arguments()) {
    if (!argument.is_vector || argument.is_scratch || argument.is_tensor_map) continue;
    if (argument.dtype == DType::i32 || argument.dtype == DType::i64) continue;  // lengths, tables
    if (among(family.float32_buffers, argument.name)) {
      if (argument.dtype != DType::f32)
        throw Error("--torch: " + space.name() + "'s " + argument.name +
                    " must be float (fp32 whatever the op's dtype), not " +
                    std::string(to_string(argument.dtype)));
      continue;
    }
    if (among(family.float32_or_dtype_outputs, argument.name) && argument.dtype == DType::f32) continue;
    if (argument.dtype != DType::f16 && argument.dtype != DType::bf16)
      throw Error("--torch exports spaces of 16-bit float buffers: " + space.name() + "'s " + argument.name +
                  " is " + std::string(to_string(argument.dtype)));
    if (type && *type != argument.dtype)
      throw Error("--torch exports spaces of one element type: " + space.name() + " mixes them");
    type = argument.dtype;
  }
  if (!type) throw Error("--torch: " + space.name() + " has no buffers");
  return *type;
}

bool torch_float32_outputs(const SearchSpace& space) {
  const TorchFamily& family = torch_family_of(space);
  std::optional<bool> float32;
  for (const auto& argument : space.arguments()) {
    if (!argument.is_vector || argument.is_scratch || argument.is_tensor_map) continue;
    if (!among(family.float32_or_dtype_outputs, argument.name)) continue;
    const bool this_one = argument.dtype == DType::f32;
    if (float32 && *float32 != this_one)
      throw Error("--torch: " + space.name() + " holds some of its outputs in fp32 and some not");
    float32 = this_one;
  }
  return float32.value_or(false);
}

bool has_size(const SearchSpace& space, const std::string& name) {
  const auto& sizes = space.sizes();
  return std::any_of(sizes.begin(), sizes.end(), [&](const SizeSpec& size) { return size.name == name; });
}

bool has_buffer(const SearchSpace& space, const std::string& name) {
  const auto& arguments = space.arguments();
  return std::any_of(arguments.begin(), arguments.end(), [&](const ArgumentDecl& argument) {
    return argument.name == name && argument.is_vector && !argument.is_scratch && !argument.is_tensor_map;
  });
}

std::string buffers_and_sizes_refusal(const SearchSpace& space, const std::vector<std::string>& inputs,
                                      const std::vector<std::string>& outputs,
                                      const std::vector<std::string>& optional_buffers,
                                      const std::vector<std::string>& sizes,
                                      const std::vector<std::string>& optional_sizes) {
  std::vector<std::string> seen;
  for (const auto& argument : space.arguments()) {
    if (!argument.is_vector || argument.is_scratch || argument.is_tensor_map) continue;
    const bool output = among(outputs, argument.name);
    if (!among(inputs, argument.name) && !output) return "it has the buffer " + argument.name;
    const bool read_only = argument.is_input && !argument.is_output;
    if (output == read_only) return argument.name + " is " + (read_only ? "read-only" : "written");
    seen.push_back(argument.name);
  }
  for (const auto& names : {inputs, outputs})
    for (const auto& name : names)
      if (!among(seen, name) && !among(optional_buffers, name)) return "it lacks the buffer " + name;
  for (const auto& size : space.sizes())
    if (!among(sizes, size.name)) return "it has the size " + size.name;
  for (const auto& name : sizes)
    if (!has_size(space, name) && !among(optional_sizes, name)) return "it lacks the size " + name;
  return "";
}

}  // namespace evotune
