// The dispatching export: the variants, the tuned problems as tables, and the rule of DispatchTable::pick
// written out in C++ over them.
#include "export/export_dispatch.hpp"

#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "export/dispatch_variant_code.hpp"
#include "export/export_parts.hpp"
#include "gen/kernel_source.hpp"
#include "gen/local_includes.hpp"
#include "space/expression_cpp.hpp"

namespace evotune {
namespace {

// cudaFuncSetAttribute for any dynamic shared memory (a kernel's static shared memory counts against the
// default 48 KB too), once per kernel, device and size (so a
// call inside a CUDA-graph capture that follows a first call outside it makes no runtime call but this).
constexpr const char* kAllowSharedBytes =
    R"(static cudaError_t evotune_allow_shared_bytes(const void* kernel, long long bytes) {
  if (bytes <= 0) return cudaSuccess;
  int device = 0;
  const cudaError_t found = cudaGetDevice(&device);
  if (found != cudaSuccess) return found;
  struct allowed { const void* kernel; int device; long long bytes; };
  static std::mutex lock;
  static std::vector<allowed> done;
  const std::lock_guard<std::mutex> hold(lock);
  for (const allowed& entry : done)
    if (entry.kernel == kernel && entry.device == device && entry.bytes >= bytes) return cudaSuccess;
  const cudaError_t set =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (set == cudaSuccess) done.push_back({kernel, device, bytes});
  return set;
}

)";

Sizes compile_time_part(const SearchSpace& space, const Sizes& problem) {
  Sizes part;
  for (const auto& size : space.sizes())
    if (size.compile_time) part[size.name] = problem.at(size.name);
  return part;
}

std::string names(const SearchSpace& space, bool compile_time) {
  std::string text;
  for (const auto& size : space.sizes())
    if (size.compile_time == compile_time) text += (text.empty() ? "" : ", ") + size.name;
  return text;
}

std::string size_row(const SearchSpace& space, const Sizes& problem, bool compile_time_only) {
  std::string text;
  for (const auto& size : space.sizes())
    if (!compile_time_only || size.compile_time)
      text += (text.empty() ? "" : ", ") + std::to_string(problem.at(size.name));
  return "{" + text + "}";
}

std::string nulls(const SearchSpace& space) {
  std::string text;
  for (const auto& argument : space.arguments())
    if (argument.is_vector && !argument.is_scratch && !argument.is_tensor_map) text += "nullptr, ";
  return text;
}

std::string size_arguments(const SearchSpace& space) {
  std::string text;
  for (const auto& size : space.sizes())
    text += (text.empty() ? "" : ", ") + std::string("size_") + size.name;
  return text;
}

std::string size_parameters(const SearchSpace& space) {
  std::string text;
  for (const auto& size : space.sizes())
    text += (text.empty() ? "" : ", ") + std::string("long long size_") + size.name;
  return text;
}

}  // namespace

std::string dispatch_symbol_prefix(const SearchSpace& space) {
  std::string prefix = space.name();
  for (char& c : prefix)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (prefix.empty() || std::isdigit(static_cast<unsigned char>(prefix.front()))) prefix = "_" + prefix;
  return prefix;
}

std::vector<DispatchVariant> dispatch_variants(const SearchSpace& space, const DispatchTable& table) {
  std::vector<DispatchVariant> variants;
  auto add = [&](const Sizes& problem, const Config& config) {
    DispatchVariant variant{config, compile_time_part(space, problem)};
    if (std::find(variants.begin(), variants.end(), variant) == variants.end()) variants.push_back(variant);
  };
  for (const auto& [problem, config] : table.problem_winners()) add(problem, config);
  for (const auto& [problem, config] : table.covers()) add(problem, config);
  return variants;
}

std::string render_dispatch_export(const SearchSpace& space, const DispatchTable& table,
                                   const DeviceInfo& device, const std::string& header) {
  const auto& tuned = table.problem_winners();
  if (tuned.empty()) throw Error("no stored problem has a working variant: nothing to dispatch");
  for (const auto& [problem, config] : tuned)
    for (const auto& size : space.sizes())
      if (!problem.count(size.name))
        throw Error("the stored problem " + key_value_text(problem) + " lacks the size " + size.name);
  const std::string p = dispatch_symbol_prefix(space);
  const std::vector<DispatchVariant> variants = dispatch_variants(space, table);
  auto variant_of = [&](const Sizes& problem, const Config& config) {
    const DispatchVariant wanted{config, compile_time_part(space, problem)};
    return std::find(variants.begin(), variants.end(), wanted) - variants.begin();
  };

  std::ostringstream out;
  const std::string& source = space.template_source();
  // The template's own headers (kernels/common/sm90) inlined once, ahead of every variant, as NVRTC saw them.
  out << header << "\n"
      << option_defines(space)
      << LocalIncludes(space.kernel().file.parent_path())
             .expand(source.substr(0, header_prefix_length(source)), space.kernel().file.filename().string())
      << "\n";
  out << "#include <cuda_runtime.h>\n#include <cstddef>\n#include <mutex>\n#include <string>\n#include "
         "<vector>\n\n";
  out << expression_cpp_prelude() << "\n";
  if (has_tensor_map(space)) out << tensor_map_host();
  if (has_programmatic_launch(space)) out << programmatic_launch_host();
  out << kAllowSharedBytes << kRunModes << "\n";
  for (std::size_t i = 0; i < variants.size(); ++i) {
    out << "// ---- Variant " << i << ": " << canonical_json(variants[i].config) << " compiled for "
        << key_value_text(variants[i].compile_time) << " ----\n";
    out << variant_kernel_code(space, variants[i], i, p) << "\n";
  }
  out << "// ---- Host side: each variant's conditions, workspace and launches for the sizes of a call "
         "----\n";
  out << "// The condition (name and reason) that the last variant checked on this thread failed, and the "
         "one\n"
         "// the nearest tuned problem's winner failed where the last pick found nothing that runs (error "
         "-3).\n";
  out << "static thread_local const char* " << p << "_refusal = nullptr;\n";
  out << "static thread_local const char* " << p << "_pick_refusal = nullptr;\n\n";
  for (std::size_t i = 0; i < variants.size(); ++i)
    out << variant_run_code(space, variants[i], i, p, device) << "\n";
  out << "static int " << p << "_run(int variant, int mode, " << buffer_and_size_parameters(space)
      << ", void* workspace, size_t workspace_size, size_t* workspace_needed, cudaStream_t stream) {\n";
  out << "  switch (variant) {\n";
  for (std::size_t i = 0; i < variants.size(); ++i)
    out << "    case " << i << ":\n      return " << p << "_run" << i << "(mode, "
        << buffer_and_size_arguments(space) << ", workspace, workspace_size, workspace_needed, stream);\n";
  out << "  }\n  return 1;\n}\n\n";

  // The tuned problems and, per set of compile-time sizes, the robust default's order.
  std::vector<Sizes> groups;
  for (const auto& [problem, config] : tuned)
    if (std::find(groups.begin(), groups.end(), compile_time_part(space, problem)) == groups.end())
      groups.push_back(compile_time_part(space, problem));
  const std::size_t count = space.sizes().size();
  out << "// The tuned problems (" << names(space, false) << ", " << names(space, true)
      << ") and the variant that won each.\n";
  out << "static const int " << p << "_tuned_count = " << tuned.size() << ";\n";
  out << "static const long long " << p << "_tuned[" << tuned.size() << "][" << count << "] = {\n";
  for (const auto& [problem, config] : tuned) out << "    " << size_row(space, problem, false) << ",\n";
  out << "};\nstatic const int " << p << "_tuned_variant[" << tuned.size() << "] = {";
  for (std::size_t t = 0; t < tuned.size(); ++t)
    out << (t ? ", " : "") << variant_of(tuned[t].first, tuned[t].second);
  out << "};\nstatic const int " << p << "_tuned_group[" << tuned.size() << "] = {";
  for (std::size_t t = 0; t < tuned.size(); ++t)
    out << (t ? ", " : "")
        << std::find(groups.begin(), groups.end(), compile_time_part(space, tuned[t].first)) - groups.begin();
  out << "};\n";
  const std::size_t compile_time = std::count_if(space.sizes().begin(), space.sizes().end(),
                                                 [](const SizeSpec& size) { return size.compile_time; });
  out << "// Each set of compile-time sizes (" << names(space, true)
      << ") and its default: the variants in the order they are tried when no tuned problem's winner runs\n"
         "// (least geometric-mean slowdown over that set's tuned problems first, then the most central "
         "problem's winner,\n"
         "// then the covers: configs measured beside the winners, for sizes next to the tuned ones where no "
         "winner runs);\n"
         "// -1 ends a list.\n";
  out << "static const int " << p << "_group_count = " << groups.size() << ";\n";
  // Unread where the space has no compile-time sizes (one group of none).
  out << "[[maybe_unused]] static const long long " << p << "_groups[" << groups.size() << "]["
      << std::max<std::size_t>(compile_time, 1) << "] = {";
  for (const auto& group : groups)
    out << (compile_time ? size_row(space, group, true) : std::string("{0}")) << ", ";
  out << "};\nstatic const int " << p << "_defaults[" << groups.size() << "]["
      << tuned.size() + table.covers().size() + 2 << "] = {\n";
  for (const auto& group : groups) {
    Sizes any = tuned[0].first;
    for (const auto& [name, value] : group) any[name] = value;
    out << "    {";
    for (const std::size_t w : table.default_order(any))
      out << variant_of(tuned[w].first, tuned[w].second) << ", ";
    for (const std::size_t c : table.cover_order(any))
      out << variant_of(table.covers()[c].first, table.covers()[c].second) << ", ";
    out << "-1},\n";
  }
  out << "};\n\n";

  std::string tuned_text;
  for (const auto& group : groups) tuned_text += (tuned_text.empty() ? "" : "; ") + key_value_text(group);
  out << "static double " << p << "_distance(const long long* a, const long long* b) {\n"
      << "  double sum = 0;\n  for (int i = 0; i < " << count << "; ++i) {\n"
      << "    if (a[i] > 0 && b[i] > 0) {\n"
      << "      const double gap = std::log2(static_cast<double>(a[i])) - "
         "std::log2(static_cast<double>(b[i]));\n"
      << "      sum += gap * gap;\n    } else if (a[i] != b[i]) {\n      sum += 1;\n    }\n  }\n"
      << "  return std::sqrt(sum);\n}\n\n";

  out << "// The variant for these sizes: the exact tuned problem's winner, else the winner of the nearest "
         "tuned\n"
         "// problem with the same compile-time sizes (distance in log2 space; ties: the earlier), else the\n"
         "// default, then the covers; each only if the space's conditions accept it at these sizes. Touches "
         "no GPU.\n";
  out << "extern \"C\" int " << p << "_pick(" << size_parameters(space) << ", int* rule) {\n";
  out << "  const long long sizes[" << count << "] = {" << size_arguments(space) << "};\n";
  for (const auto& size : space.sizes())
    if (!size.compile_time) out << "  if (size_" << size.name << " < 1) return -2;\n";
  out << "  int group = -1;\n  for (int g = 0; g < " << p << "_group_count && group < 0; ++g) {\n"
      << "    bool same = true;\n";
  std::size_t c = 0;
  for (const auto& size : space.sizes())
    if (size.compile_time)
      out << "    same = same && " << p << "_groups[g][" << c++ << "] == size_" << size.name << ";\n";
  out << "    if (same) group = g;\n  }\n  if (group < 0) return -1;\n";
  out << "  int order[" << tuned.size() << "];\n  double distance[" << tuned.size()
      << "];\n  int candidates = 0;\n";
  out << "  for (int t = 0; t < " << p << "_tuned_count; ++t) {\n"
      << "    if (" << p << "_tuned_group[t] != group) continue;\n"
      << "    const double d = " << p << "_distance(" << p << "_tuned[t], sizes);\n"
      << "    int at = candidates++;\n"
      << "    for (; at > 0 && distance[at - 1] > d; --at) {\n"
      << "      distance[at] = distance[at - 1];\n      order[at] = order[at - 1];\n    }\n"
      << "    distance[at] = d;\n    order[at] = t;\n  }\n";
  const std::string check = "(variant, evotune_check, " + nulls(space) + size_arguments(space) +
                            ", nullptr, 0, nullptr, nullptr) == 0";
  out << "  const char* nearest_refusal = nullptr;\n";
  out << "  for (int k = 0; k < candidates; ++k) {\n"
      << "    const int variant = " << p << "_tuned_variant[order[k]];\n"
      << "    if (" << p << "_run" << check << ") {\n"
      << "      bool exact = true;\n"
      << "      for (int i = 0; i < " << count << "; ++i) exact = exact && " << p
      << "_tuned[order[k]][i] == sizes[i];\n"
      << "      if (rule != nullptr) *rule = exact ? 0 : 1;\n      return variant;\n    }\n"
      << "    if (k == 0) nearest_refusal = " << p << "_refusal;\n  }\n";
  out << "  for (int k = 0; " << p << "_defaults[group][k] >= 0; ++k) {\n"
      << "    const int variant = " << p << "_defaults[group][k];\n"
      << "    if (" << p << "_run" << check << ") {\n"
      << "      if (rule != nullptr) *rule = 2;\n      return variant;\n    }\n  }\n"
      << "  " << p << "_pick_refusal = nearest_refusal;\n  return -3;\n}\n\n";

  out << "// Bytes of device memory `workspace` must hold for these sizes (0: none; 256-byte aligned, owned "
         "by the\n"
         "// caller, not used by two calls at once).\n";
  out << "extern \"C\" int " << p << "_workspace_bytes(" << size_parameters(space) << ", size_t* bytes) {\n"
      << "  const int variant = " << p << "_pick(" << size_arguments(space) << ", nullptr);\n"
      << "  if (variant < 0) return variant;\n  size_t needed = 0;\n"
      << "  const int sized = " << p << "_run(variant, evotune_size_workspace, " << nulls(space)
      << size_arguments(space) << ", nullptr, 0, &needed, nullptr);\n"
      << "  if (sized != 0) return sized == 1 ? -3 : sized;\n"
      << "  if (bytes != nullptr) *bytes = needed;\n  return 0;\n}\n\n";
  out << "// Picks the variant for these sizes and runs its launches on `stream`; allocates nothing. 0, a "
         "negative\n"
         "// code ("
      << p << "_error_string) or a cudaError_t.\n";
  out << "extern \"C\" int " << p << "_dispatch(" << buffer_and_size_parameters(space)
      << ", void* workspace, size_t workspace_size, cudaStream_t stream) {\n"
      << "  const int variant = " << p << "_pick(" << size_arguments(space) << ", nullptr);\n"
      << "  if (variant < 0) return variant;\n"
      << "  const int ran = " << p << "_run(variant, evotune_launch, " << buffer_and_size_arguments(space)
      << ", workspace, workspace_size, nullptr, stream);\n"
      << "  return ran == 1 ? -3 : ran;\n}\n\n";
  out << "extern \"C\" const char* " << p << "_error_string(int code) {\n  switch (code) {\n"
      << "    case 0:\n      return \"success\";\n"
      << "    case -1:\n      return "
      << cpp_string_literal(p + ": no variant was tuned for these compile-time sizes (" + names(space, true) +
                            "); tuned: " + tuned_text)
      << ";\n"
      << "    case -2:\n      return "
      << cpp_string_literal(p + ": a size (" + names(space, false) + ") is below 1") << ";\n"
      << "    case -3: {\n      static thread_local std::string text;\n      text = "
      << cpp_string_literal(p +
                            ": the space's conditions reject every exported variant at these sizes (tune a "
                            "problem near them and export again)")
      << ";\n      if (" << p
      << "_pick_refusal != nullptr)\n        text += std::string(\"; the nearest tuned "
      << "problem's winner fails \") + " << p << "_pick_refusal;\n      return text.c_str();\n    }\n"
      << "    case -4:\n      return "
      << cpp_string_literal(
             p +
             ": a launch's grid, block, shared memory, scratch size or scalar is out of range at these sizes")
      << ";\n"
      << "    case -5:\n      return "
      << cpp_string_literal(p + ": the workspace is null or smaller than " + p + "_workspace_bytes") << ";\n"
      << "    case -6:\n      return "
      << cpp_string_literal(p + ": the driver's tensor-map encoder is missing or refused a map") << ";\n"
      << "  }\n  return code > 0 ? cudaGetErrorString(static_cast<cudaError_t>(code)) : "
      << cpp_string_literal(p + ": unknown error code") << ";\n}\n\n";
  out << "extern \"C\" int " << p << "_variant_count(void) { return " << variants.size() << "; }\n\n";
  out << "extern \"C\" const char* " << p << "_variant(int index) {\n  switch (index) {\n";
  for (std::size_t i = 0; i < variants.size(); ++i)
    out << "    case " << i << ":\n      return "
        << cpp_string_literal(canonical_json(variants[i].config) + " compiled for " +
                              key_value_text(variants[i].compile_time))
        << ";\n";
  out << "  }\n  return \"\";\n}\n";
  return out.str();
}

}  // namespace evotune
