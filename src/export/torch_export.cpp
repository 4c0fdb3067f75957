// The PyTorch op around a dispatching export: a binding, its argument checks, a loader and a ctypes path.
#include "export/torch_export.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "core/error.hpp"
#include "export/export_dispatch.hpp"
#include "export/torch_op_text.hpp"

namespace evotune {
namespace {

const std::map<std::string, std::string> kTensorOf{{"Q", "q"}, {"K", "k"}, {"V", "v"}, {"O", "o"}};

std::string torch_dtype(const SearchSpace& space) {
  for (const auto& argument : space.arguments())
    if (argument.name == "Q") return argument.dtype == DType::bf16 ? "bfloat16" : "float16";
  return "float16";
}

bool has_causal(const SearchSpace& space) {
  return std::any_of(space.sizes().begin(), space.sizes().end(),
                     [](const SizeSpec& size) { return size.name == "CAUSAL"; });
}

// The C++ (binding) or Python (ctypes) expression of each problem size, in the space's order. HKV and SKV
// (grouped heads, key length) are k's; the op's checks keep them H and S for now (q, k and v of one shape).
std::string size_values(const SearchSpace& space, bool python) {
  const std::map<std::string, std::string> cpp{
      {"B", "q.size(0)"},   {"H", "q.size(1)"}, {"HKV", "k.size(1)"},           {"S", "q.size(2)"},
      {"SKV", "k.size(2)"}, {"D", "q.size(3)"}, {"CAUSAL", "is_causal ? 1 : 0"}};
  const std::map<std::string, std::string> py{{"B", "q.shape[0]"},
                                              {"H", "q.shape[1]"},
                                              {"HKV", "k.shape[1]"},
                                              {"S", "q.shape[2]"},
                                              {"SKV", "k.shape[2]"},
                                              {"D", "q.shape[3]"},
                                              {"CAUSAL", "1 if is_causal else 0"}};
  std::string text;
  for (const auto& size : space.sizes())
    text += (text.empty() ? "" : ", ") + (python ? py : cpp).at(size.name);
  return text;
}

// "q.data_ptr(), k.data_ptr(), ..." in the space's order of its buffers.
std::string python_buffers(const SearchSpace& space) {
  std::string text;
  for (const auto& argument : space.arguments())
    if (argument.is_vector && !argument.is_scratch && !argument.is_tensor_map)
      text += kTensorOf.at(argument.name) + ".data_ptr(), ";
  return text;
}

// The template (src/export/torch_op/, embedded at build time) with every {{KEY}} replaced by its value; a
// line holding only a placeholder whose value is empty goes away.
std::string render(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) {
    const std::string placeholder = "{{" + key + "}}";
    if (value.empty())
      for (std::size_t at; (at = text.find(placeholder + "\n")) != std::string::npos;)
        text.erase(at, placeholder.size() + 1);
    for (std::size_t at = 0; (at = text.find(placeholder, at)) != std::string::npos; at += value.size())
      text.replace(at, placeholder.size(), value);
  }
  return text;
}

// The values the binding, the loader, build_so.sh and the README are written with.
std::map<std::string, std::string> template_values(const SearchSpace& space, const std::string& p,
                                                   const std::string& arch) {
  const std::string element = torch_dtype(space) == "bfloat16" ? "__nv_bfloat16" : "half";
  std::string buffers, buffer_types, size_params;
  for (const auto& argument : space.arguments()) {
    if (!argument.is_vector || argument.is_scratch || argument.is_tensor_map) continue;
    const bool read_only = argument.is_input && !argument.is_output;
    const std::string type = std::string(read_only ? "const " : "") + element + "*";
    buffer_types += type + ", ";
    buffers += "static_cast<" + type + ">(" + kTensorOf.at(argument.name) + ".data_ptr()), ";
  }
  for (std::size_t i = 0; i < space.sizes().size(); ++i) size_params += "long long, ";
  const std::string number = arch.substr(3);  // "90a"
  const std::string list = number.substr(0, number.size() - space.arch_suffix().size());
  const std::string torch_arch = list.substr(0, list.size() - 1) + "." + list.back() + space.arch_suffix();
  // The binding's shape goes into its message as text (the template): streaming q.sizes() into TORCH_CHECK
  // crashed an extension built by torch.utils.cpp_extension with PyTorch 2.11 (H200, 2026-11-25).
  return {
      {"NAME", p},
      {"DTYPE", torch_dtype(space)},
      {"ARCH", arch},
      {"TORCH_ARCH", torch_arch},
      {"SIZE_COUNT", std::to_string(space.sizes().size())},
      {"SIZE_PARAMS", size_params},
      {"BUFFER_TYPES", buffer_types},
      {"CPP_BUFFERS", buffers},
      {"CPP_SIZES", size_values(space, false)},
      {"PY_BUFFERS", python_buffers(space)},
      {"PY_SIZES", size_values(space, true)},
      {"CPP_CAUSAL_CHECK",
       has_causal(space)
           ? "  (void)is_causal;"
           : "  TORCH_CHECK(!is_causal, kOp, \": is_causal=True, but the space has no causal variants\");"},
      {"PY_CAUSAL_CHECK",
       has_causal(space) ? ""
                         : "        if is_causal:\n"
                           "            raise RuntimeError(op + \": is_causal=True, but the space has no "
                           "causal variants\")"},
  };
}

}  // namespace

void require_attention_space(const SearchSpace& space) {
  const std::string why =
      "--torch exports attention spaces only (Vector arguments Q, K, V read-only and O "
      "written, of one 16-bit float type; sizes B, H, S, D and optionally CAUSAL, HKV, SKV): ";
  std::set<std::string> buffers;
  std::optional<DType> type;
  for (const auto& argument : space.arguments()) {
    if (!argument.is_vector || argument.is_scratch || argument.is_tensor_map) continue;
    if (!kTensorOf.count(argument.name)) throw Error(why + space.name() + " has the buffer " + argument.name);
    const bool read_only = argument.is_input && !argument.is_output;
    if ((argument.name == "O") == read_only)
      throw Error(why + space.name() + "'s " + argument.name + " is " +
                  (read_only ? "read-only" : "written"));
    if (argument.dtype != DType::f16 && argument.dtype != DType::bf16)
      throw Error(why + space.name() + "'s " + argument.name + " is " +
                  std::string(to_string(argument.dtype)));
    if (type && *type != argument.dtype) throw Error(why + space.name() + " mixes element types");
    type = argument.dtype;
    buffers.insert(argument.name);
  }
  if (buffers.size() != 4) throw Error(why + space.name() + " lacks one of Q, K, V, O");
  std::set<std::string> sizes;
  for (const auto& size : space.sizes()) {
    if (!std::set<std::string>{"B", "H", "S", "D", "CAUSAL", "HKV", "SKV"}.count(size.name))
      throw Error(why + space.name() + " has the size " + size.name);
    sizes.insert(size.name);
  }
  for (const char* needed : {"B", "H", "S", "D"})
    if (!sizes.count(needed)) throw Error(why + space.name() + " lacks the size " + needed);
}

const char* torch_op_checks_text() { return kTorchOpChecksText; }

std::map<std::string, std::string> torch_op_files(const SearchSpace& space,
                                                  const std::string& dispatch_source,
                                                  const std::string& arch) {
  require_attention_space(space);
  const std::string p = dispatch_symbol_prefix(space);
  const std::string full_arch = arch + space.arch_suffix();
  std::map<std::string, std::string> files;
  files[p + "_dispatch.cu"] = dispatch_source;
  files[p + "_checks.h"] = kTorchOpChecksText;
  const auto values = template_values(space, p, full_arch);
  files["binding.cpp"] = render(kTorchBindingTemplate, values);
  files["load.py"] = render(kTorchLoadTemplate, values);
  files["build_so.sh"] = render(kTorchBuildSoTemplate, values);
  files["README.md"] = render(kTorchReadmeTemplate, values);
  return files;
}

}  // namespace evotune
