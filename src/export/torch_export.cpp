// The generic part of an exported PyTorch op: the dispatchers behind one dtype dispatch, the launch, the
// build, the registration and the loader, around the family's part.
#include "export/torch_export.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "export/export_dispatch.hpp"
#include "export/export_parts.hpp"
#include "export/torch_op_text.hpp"

namespace evotune {
namespace {

std::string torch_dtype(DType type) { return type == DType::bf16 ? "bfloat16" : "float16"; }

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

// The family's expressions of the space's sizes (or buffers), in the space's order, as a C++ or Python list.
std::string size_list(const SearchSpace& space, const TorchFamily& family, bool python) {
  std::string text;
  for (const auto& size : space.sizes()) {
    const TorchExpression& e = family.sizes.at(size.name);
    text += (text.empty() ? "" : ", ") + (python ? e.python : e.cpp);
  }
  return text;
}

std::string buffer_list(const SearchSpace& space, const TorchFamily& family, bool python) {
  std::string text;
  for (const auto& argument : space.arguments()) {
    if (!is_buffer(argument)) continue;
    const TorchExpression& e = family.buffers.at(argument.name);
    text += (text.empty() ? "" : ", ") + (python ? e.python : e.cpp);
  }
  return text;
}

// One space's dispatcher declared, and wrapped over arrays of sizes and buffers (the Tuned entry points).
std::string externs(const SearchSpace& space) {
  const std::string p = dispatch_symbol_prefix(space);
  std::string sizes, buffers;
  for (std::size_t i = 0; i < space.sizes().size(); ++i) sizes += "long long, ";
  for (const auto& argument : space.arguments())
    if (is_buffer(argument))
      buffers += std::string(argument.is_input && !argument.is_output ? "const " : "") +
                 std::string(cuda_type_name(argument.dtype)) + "*, ";
  return "extern \"C\" int " + p + "_pick(" + sizes + "int* rule);\n" + "extern \"C\" int " + p +
         "_workspace_bytes(" + sizes + "size_t* bytes);\n" + "extern \"C\" int " + p + "_dispatch(" +
         buffers + sizes + "void* workspace, size_t workspace_size, cudaStream_t stream);\n" +
         "extern \"C\" const char* " + p + "_error_string(int code);\n";
}

std::string wrappers(const SearchSpace& space) {
  const std::string p = dispatch_symbol_prefix(space);
  std::string sizes, buffers;
  for (std::size_t i = 0; i < space.sizes().size(); ++i) sizes += "s[" + std::to_string(i) + "], ";
  std::size_t b = 0;
  for (const auto& argument : space.arguments())
    if (is_buffer(argument))
      buffers += "static_cast<" + std::string(argument.is_input && !argument.is_output ? "const " : "") +
                 std::string(cuda_type_name(argument.dtype)) + "*>(b[" + std::to_string(b++) + "]), ";
  return "int " + p + "_pick_at(const long long* s) { return " + p + "_pick(" + sizes + "nullptr); }\n" +
         "int " + p + "_workspace_at(const long long* s, size_t* bytes) { return " + p + "_workspace_bytes(" +
         sizes + "bytes); }\n" + "int " + p +
         "_dispatch_at(void* const* b, const long long* s, void* workspace, size_t bytes, cudaStream_t "
         "stream) {\n  return " +
         p + "_dispatch(" + buffers + sizes + "workspace, bytes, stream);\n}\n";
}

std::string tuned_entry(const SearchSpace& space) {
  const std::string p = dispatch_symbol_prefix(space);
  return "    {" + std::string(torch_element_type(space) == DType::bf16 ? "at::kBFloat16" : "at::kHalf") +
         ", " + p + "_pick_at, " + p + "_workspace_at, " + p + "_dispatch_at, " + p + "_error_string},\n";
}

// The binding's registrations of the op's forms: the forward family's for `forward`, then the backward
// family's for `backward` (nullptr: none), each declared with its family's schema; CUDA, Meta and CPU
// kernels (the family's op_cuda<suffix>, op_meta<suffix>, op_cpu<suffix>), or a composite form's
// op_composite<suffix> as CompositeImplicitAutograd.
std::string registrations(const TorchOpPlan& plan, const std::string& name) {
  const bool differentiable = plan.backward != nullptr;
  std::vector<std::pair<const TorchFamily*, TorchOpForm>> forms;
  for (const auto& form : plan.family->forms(*plan.forward.front(), differentiable))
    forms.emplace_back(plan.family, form);
  if (differentiable)
    for (const auto& form : plan.backward->forms(*plan.backward_spaces.front(), true))
      forms.emplace_back(plan.backward, form);
  std::string text = "TORCH_LIBRARY_FRAGMENT(evotune, m) {\n";
  for (const auto& [family, form] : forms)
    text += "  m.def(\"" + name + form.suffix + "(" + family->schema + ") -> " + form.returns + "\");\n";
  text += "}\n";
  auto impls = [&](const char* key, const char* function, bool composite) {
    std::string lines;
    for (const auto& [family, form] : forms)
      if (form.composite == composite)
        lines += "  m.impl(\"" + name + form.suffix + "\", &" + function + form.suffix + ");\n";
    return lines.empty() ? ""
                         : std::string("TORCH_LIBRARY_IMPL(evotune, ") + key + ", m) {\n" + lines + "}\n";
  };
  text += impls("CUDA", "op_cuda", false) + impls("Meta", "op_meta", false) + impls("CPU", "op_cpu", false) +
          impls("CompositeImplicitAutograd", "op_composite", true);
  return text;
}

// The space's buffers (Vector arguments that are neither scratch nor tensor maps) by name, in its order.
std::vector<std::string> buffer_names(const SearchSpace& space) {
  std::vector<std::string> names;
  for (const auto& argument : space.arguments())
    if (is_buffer(argument)) names.push_back(argument.name);
  return names;
}

std::vector<std::string> size_names(const SearchSpace& space) {
  std::vector<std::string> names;
  for (const auto& size : space.sizes()) names.push_back(size.name);
  return names;
}

// "9.0a" for arch "sm_90a" and suffix "a", as TORCH_CUDA_ARCH_LIST spells it.
std::string torch_arch(const std::string& arch, const std::string& suffix) {
  const std::string number = arch.substr(3);
  const std::string list = number.substr(0, number.size() - suffix.size());
  return list.substr(0, list.size() - 1) + "." + list.back() + suffix;
}

// The family of `spaces`, the op's spaces of one role (forward or backward); throws Error unless they make
// one dispatch: one family, one space a dtype, the same problem sizes and buffers, one ArchSuffix.
const TorchFamily& require_one_dispatch(const std::vector<const SearchSpace*>& spaces) {
  const SearchSpace& first = *spaces.front();
  const TorchFamily& family = torch_family_of(first);
  const bool first_float32 = torch_float32_outputs(first);
  std::vector<DType> types;
  for (const SearchSpace* space : spaces) {
    const TorchFamily& other = torch_family_of(*space);
    if (other.name != family.name)
      throw Error("--torch makes one op of spaces of one family: " + first.name() + " is " + family.name +
                  ", " + space->name() + " is " + other.name);
    const DType type = torch_element_type(*space);
    if (std::find(types.begin(), types.end(), type) != types.end())
      throw Error("--torch takes one space a dtype: two are " + torch_dtype(type) + " (" + space->name() +
                  " and another); the op dispatches on its inputs' dtype");
    types.push_back(type);
    if (size_names(*space) != size_names(first))
      throw Error("--torch makes one op of spaces with the same problem sizes: " + first.name() + " and " +
                  space->name() + " differ");
    if (buffer_names(*space) != buffer_names(first))
      throw Error("--torch makes one op of spaces with the same buffers: " + first.name() + " and " +
                  space->name() + " differ");
    if (const bool float32 = torch_float32_outputs(*space); float32 != first_float32)
      throw Error("--torch makes one op of spaces whose outputs are of one kind: " + first.name() +
                  (first_float32 ? " writes fp32, " : " writes its inputs' dtype, ") + space->name() +
                  (float32 ? " fp32" : " its inputs' dtype"));
    if (space->arch_suffix() != first.arch_suffix())
      throw Error("--torch makes one op of spaces of one architecture: " + first.name() + " and " +
                  space->name() + " differ in ArchSuffix");
  }
  return family;
}

// Throws Error unless the plan's backward spaces differentiate its forward ones: a backward family of the
// forward's, a backward space for every forward dtype, the forward's problem sizes and ArchSuffix, and
// forward spaces that write what the backward reads.
void require_backward_fits(const TorchOpPlan& plan) {
  const SearchSpace& forward = *plan.forward.front();
  const SearchSpace& backward = *plan.backward_spaces.front();
  if (plan.backward->differentiates != plan.family->name)
    throw Error("--torch: " + backward.name() + " is the backward of " + plan.backward->differentiates +
                " ops, and " + forward.name() + " is " + plan.family->name);
  for (const SearchSpace* space : plan.forward) {
    const DType type = torch_element_type(*space);
    const bool covered = std::any_of(plan.backward_spaces.begin(), plan.backward_spaces.end(),
                                     [&](const SearchSpace* b) { return torch_element_type(*b) == type; });
    if (!covered)
      throw Error("--torch: the backward needs a space for each of the forward's dtypes, and none of " +
                  backward.name() + " and the others is " + torch_dtype(type) + " (as " + space->name() +
                  " is)");
    for (const auto& buffer : plan.backward->forward_buffers)
      if (!has_buffer(*space, buffer))
        throw Error("--torch: the backward (" + backward.name() + ") reads the forward's " + buffer +
                    ", which " + space->name() + " does not write");
  }
  if (plan.backward_spaces.size() != plan.forward.size())
    throw Error("--torch: the backward takes one space for each of the forward's dtypes: " +
                std::to_string(plan.forward.size()) + " forward spaces, " +
                std::to_string(plan.backward_spaces.size()) + " backward");
  if (size_names(backward) != size_names(forward))
    throw Error("--torch: the backward's problem sizes must be the forward's: " + forward.name() + " and " +
                backward.name() + " differ");
  if (backward.arch_suffix() != forward.arch_suffix())
    throw Error("--torch makes one op of spaces of one architecture: " + forward.name() + " and " +
                backward.name() + " differ in ArchSuffix");
}

}  // namespace

TorchOpPlan require_torch_spaces(const std::vector<const SearchSpace*>& spaces) {
  if (spaces.empty()) throw Error("--torch needs a space");
  TorchOpPlan plan;
  for (const SearchSpace* space : spaces)
    (torch_family_of(*space).differentiates.empty() ? plan.forward : plan.backward_spaces).push_back(space);
  if (plan.forward.empty()) {
    const TorchFamily& backward = torch_family_of(*spaces.front());
    throw Error("--torch: " + spaces.front()->name() + " is a backward (" + backward.name +
                "): export it beside the " + backward.differentiates +
                " spaces whose op it differentiates (evotune export FWD_FP16 FWD_BF16 BWD_FP16 BWD_BF16 "
                "--torch DIR)");
  }
  plan.family = &require_one_dispatch(plan.forward);
  if (plan.backward_spaces.empty()) return plan;
  plan.backward = &require_one_dispatch(plan.backward_spaces);
  require_backward_fits(plan);
  return plan;
}

const char* torch_op_checks_text() { return kTorchOpChecksText; }

std::map<std::string, std::string> torch_op_files(const std::vector<TorchOpSpace>& spaces,
                                                  const std::string& name, const std::string& arch) {
  std::vector<const SearchSpace*> list;
  for (const auto& entry : spaces) list.push_back(entry.space);
  const TorchOpPlan plan = require_torch_spaces(list);
  const TorchFamily& family = *plan.family;
  const bool differentiable = plan.backward != nullptr;
  const SearchSpace& first = *plan.forward.front();
  const std::string full_arch = arch + first.arch_suffix();

  std::map<std::string, std::string> files;
  std::string space_names, backward_names, dispatch_files, externs_text, wrappers_text, tuned, backward_tuned,
      dtype_names, dtype_list, py_spaces, backward_py_spaces;
  auto add = [](std::string& list, const std::string& item) { list += (list.empty() ? "" : ", ") + item; };
  for (const auto& entry : spaces) {
    const SearchSpace& space = *entry.space;
    const std::string p = dispatch_symbol_prefix(space);
    const std::string dtype = torch_dtype(torch_element_type(space));
    files[p + "_dispatch.cu"] = entry.dispatch_source;
    dispatch_files += (dispatch_files.empty() ? "" : " ") + p + "_dispatch.cu";
    externs_text += externs(space);
    wrappers_text += wrappers(space);
    if (!torch_family_of(space).differentiates.empty()) {
      add(backward_names, space.name());
      backward_tuned += tuned_entry(space);
      add(backward_py_spaces, "torch." + dtype + ": \"" + p + "\"");
      continue;
    }
    add(space_names, space.name());
    tuned += tuned_entry(space);
    add(dtype_names, "\"" + dtype + "\"");
    add(dtype_list, dtype);
    add(py_spaces, "torch." + dtype + ": \"" + p + "\"");
  }
  files["torch_op_checks.hpp"] = kTorchOpChecksText;
  files["torch_op_checks_" + family.name + ".hpp"] = family.checks;

  std::map<std::string, std::string> family_values = family.values(first, differentiable);
  family_values["SIZES_CPP"] = size_list(first, family, false);
  family_values["SIZES_PY"] = size_list(first, family, true);
  family_values["BUFFERS_CPP"] = buffer_list(first, family, false);
  family_values["BUFFERS_PY"] = buffer_list(first, family, true);
  family_values["BACKWARD"] = differentiable ? "true" : "false";
  family_values["BACKWARD_PY"] = differentiable ? "True" : "False";
  family_values["BACKWARD_SIZES_CPP"] =
      differentiable ? size_list(*plan.backward_spaces.front(), *plan.backward, false) : "";
  family_values["BACKWARD_SIZES_PY"] =
      differentiable ? size_list(*plan.backward_spaces.front(), *plan.backward, true) : "";
  family_values["BACKWARD_BUFFERS_CPP"] =
      differentiable ? buffer_list(*plan.backward_spaces.front(), *plan.backward, false) : "";
  family_values["BACKWARD_BUFFERS_PY"] =
      differentiable ? buffer_list(*plan.backward_spaces.front(), *plan.backward, true) : "";
  family_values["NAME"] = name;

  const std::map<std::string, std::string> values{
      {"NAME", name},
      {"FAMILY", family.name},
      {"SPACES", space_names + (differentiable ? "; backward: " + backward_names : "")},
      {"ARCH", full_arch},
      {"TORCH_ARCH", torch_arch(full_arch, first.arch_suffix())},
      {"EXTERNS", externs_text},
      {"WRAPPERS", wrappers_text},
      {"TUNED", tuned.substr(0, tuned.size() - 1)},
      {"BACKWARD_TUNED", backward_tuned.empty() ? "" : backward_tuned.substr(0, backward_tuned.size() - 1)},
      {"DTYPE_NAMES", dtype_names},
      {"DTYPE_LIST", dtype_list},
      {"PY_SPACES", py_spaces},
      {"BACKWARD_PY_SPACES", backward_py_spaces},
      {"SIZE_COUNT", std::to_string(first.sizes().size())},
      {"BUFFER_COUNT", std::to_string(buffer_names(first).size())},
      {"BACKWARD_BUFFER_COUNT",
       std::to_string(differentiable ? buffer_names(*plan.backward_spaces.front()).size() : 0)},
      {"DISPATCH_FILES", dispatch_files},
      {"USAGE", family.usage},
      {"REGISTRATIONS", registrations(plan, name)},
  };
  auto with_family = [&](const char* family_text) {
    auto all = values;
    all["FAMILY_CODE"] = render(family_text, family_values);
    const std::string readme = render(family.readme, family_values);
    all["FAMILY_README"] = readme.substr(0, readme.find_last_not_of('\n') + 1);
    return all;
  };
  files["binding.cpp"] = render(kTorchBindingTemplate, with_family(family.cpp_code));
  files["load.py"] = render(kTorchLoadTemplate, with_family(family.python_code));
  files["build_so.sh"] = render(kTorchBuildSoTemplate, values);
  files["README.md"] = render(kTorchReadmeTemplate, with_family(family.cpp_code));
  return files;
}

}  // namespace evotune
