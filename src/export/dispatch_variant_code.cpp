// One variant of a dispatching export: the template in a namespace, and its host side as straight-line code.
#include "export/dispatch_variant_code.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "export/export_parts.hpp"
#include "gen/kernel_source.hpp"
#include "gen/local_includes.hpp"
#include "space/device_variables.hpp"
#include "space/expression.hpp"
#include "space/expression_cpp.hpp"

namespace evotune {
namespace {

std::string number(double value) {
  std::ostringstream text;
  text.precision(17);
  text << value;
  std::string out = text.str();
  if (out.find_first_of(".eEn") == std::string::npos) out += ".0";  // n: nan, inf
  return out;
}

// The C++ form of one of the space's expressions, naming the field in the error.
std::string cpp(const std::string& expression, const std::string& field) {
  try {
    return expression_cpp(expression, [](const std::string& name) { return name; });
  } catch (const Error& error) {
    throw Error("the dispatch export cannot translate " + field + ": " + error.what());
  }
}

std::string holds(const std::string& expression, const std::string& field) {
  return "evotune_expr::holds(" + cpp(expression, field) + ")";
}

std::string buffer_type(const ArgumentDecl& argument) {
  const bool read_only = argument.is_input && !argument.is_output;
  return (read_only ? "const " : "") + std::string(cuda_type_name(argument.dtype)) + "*";
}

// A launch's If (or ProgrammaticIf), decided at export time where it reads no run-time size (directly or
// through Expressions): a launch that cannot apply is left out, as its kernel's parameters may be of other
// types in this variant (TMA_LOADS: tensor maps instead of pointers). nullopt: it depends on the sizes of the
// call.
std::optional<bool> fixed_condition(const SearchSpace& space, const DispatchVariant& variant,
                                    const DeviceInfo& device, const std::string& text) {
  if (text.empty()) return true;
  std::set<std::string> run_time;
  for (const auto& size : space.sizes())
    if (!size.compile_time) run_time.insert(size.name);
  VariableTable table;
  auto reads_run_time = [&](const Expression& expression) {
    const auto& names = expression.names();
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string& name) { return run_time.count(name) > 0; });
  };
  for (const auto& parameter : space.parameters())
    table.set(table.add(parameter.name), static_cast<double>(variant.config.at(parameter.name)));
  for (const auto& [name, value] : variant.compile_time)
    table.set(table.add(name), static_cast<double>(value));
  for (const auto& name : run_time) table.add(name);
  for (const auto& [name, value] : device_variables(device)) table.set(table.add(name), value);
  for (const auto& named : space.expressions()) {
    Expression expression(named.text);
    const std::size_t slot = table.add(named.name);
    if (reads_run_time(expression)) {
      run_time.insert(named.name);
      continue;
    }
    expression.bind(table);
    table.set(slot, expression.evaluate());
  }
  Expression condition(text);
  if (reads_run_time(condition)) return std::nullopt;
  condition.bind(table);
  const double value = condition.evaluate();
  return value != 0 && !std::isnan(value);
}

// `extern "C"` kernels keep their names through a namespace, so the name itself carries the space and the
// variant: dispatchers of two spaces of one template (an fp16 space and its bf16 twin) link into one library.
std::string variant_kernel_name(const std::string& prefix, std::size_t index, const std::string& kernel) {
  return prefix + "_v" + std::to_string(index) + "_" + kernel;
}

// The kernel names of the space's launches, each once.
std::set<std::string> kernel_names(const SearchSpace& space) {
  std::set<std::string> names;
  for (const auto& launch : space.launches()) names.insert(launch.kernel.name);
  return names;
}

void write_constants(std::ostream& out, const SearchSpace& space, const DispatchVariant& variant,
                     const DeviceInfo& device) {
  const std::string v = "  [[maybe_unused]] const evotune_expr::value ";
  for (const auto& parameter : space.parameters())
    out << v << parameter.name << " = " << number(static_cast<double>(variant.config.at(parameter.name)))
        << ";\n";
  for (const auto& size : space.sizes()) {
    if (size.compile_time)
      out << v << size.name << " = " << number(static_cast<double>(variant.compile_time.at(size.name)))
          << ";  // compiled in\n";
    else
      out << v << size.name << " = static_cast<double>(size_" << size.name << ");\n";
  }
  for (const auto& [name, value] : device_variables(device))
    out << v << name << " = " << number(value) << ";  // " << device.name << "\n";
  for (const auto& named : space.expressions())
    out << v << named.name << " = " << cpp(named.text, "Expressions." + named.name) << ";\n";
}

// Encodes a launch's tensor maps from the buffers and the sizes of this call.
void write_tensor_map(std::ostream& out, const ArgumentDecl& map, const std::string& field,
                      const SearchSpace& space) {
  const ArgumentDecl* buffer = find_argument(space, map.map_buffer);
  const std::string element = std::to_string(size_of(buffer->dtype));
  const std::string in = "    ";
  auto list = [&](const std::vector<std::string>& expressions, const std::string& part) {
    std::string text;
    for (std::size_t d = 0; d < expressions.size(); ++d)
      text += std::string(d ? ", " : "") + "evotune_expr::whole(" +
              cpp(expressions[d], field + "." + part + "[" + std::to_string(d) + "]") + ", 9.0e15)";
    return text;
  };
  out << in << "CUtensorMap " << map.name << "_encoded;\n" << in << "{\n";
  out << in << "  const long long dims[] = {" << list(map.map_dims, "Dims") << "};\n";
  out << in << "  const long long box[] = {" << list(map.map_box, "Box") << "};\n";
  const std::size_t rank = map.map_dims.size();
  out << in << "  cuuint64_t dims_u[" << rank << "], strides_u[" << (rank > 1 ? rank - 1 : 1) << "] = {};\n";
  out << in << "  cuuint32_t box_u[" << rank << "], element_strides[" << rank << "];\n";
  out << in << "  for (int d = 0; d < " << rank << "; ++d) {\n";
  out << in << "    if (dims[d] < 1 || box[d] < 1) return -4;\n";
  out << in << "    dims_u[d] = static_cast<cuuint64_t>(dims[d]);\n";
  out << in << "    box_u[d] = static_cast<cuuint32_t>(box[d]);\n";
  out << in << "    element_strides[d] = 1;\n" << in << "  }\n";
  if (map.map_strides.empty()) {
    out << in << "  cuuint64_t stride = " << element << ";\n";
    out << in << "  for (int d = 0; d + 1 < " << rank << "; ++d) strides_u[d] = stride *= dims_u[d];\n";
  } else {
    out << in << "  const long long strides[] = {" << list(map.map_strides, "Strides") << "};\n";
    out << in << "  for (int d = 0; d + 1 < " << rank << "; ++d) {\n"
        << in << "    if (strides[d] < 0) return -4;\n"
        << in << "    strides_u[d] = static_cast<cuuint64_t>(strides[d]);\n"
        << in << "  }\n";
  }
  // BufferIf: the first staged copy whose condition holds at these sizes, else Buffer.
  out << in << "  const void* mapped = " << map.map_buffer << ";\n";
  for (std::size_t c = 0; c < map.map_buffer_if.size(); ++c)
    out << in << "  " << (c ? "else if" : "if") << " ("
        << holds(map.map_buffer_if[c].condition, field + ".BufferIf[" + std::to_string(c) + "].If")
        << ") mapped = " << map.map_buffer_if[c].buffer << ";\n";
  out << in << "  const evotune_encode_tiled_fn encode = evotune_tensor_map_encoder();\n";
  out << in << "  if (encode == nullptr) return -6;\n";
  out << in << "  if (encode(&" << map.name << "_encoded, " << data_type_name(buffer->dtype) << ", " << rank
      << ", const_cast<void*>(mapped), dims_u, strides_u, box_u, element_strides, "
         "CU_TENSOR_MAP_INTERLEAVE_NONE, "
      << (map.map_swizzle_bytes ? "CU_TENSOR_MAP_SWIZZLE_" + std::to_string(map.map_swizzle_bytes) + "B"
                                : std::string("CU_TENSOR_MAP_SWIZZLE_NONE"))
      << ", CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)\n";
  out << in << "    return -6;\n" << in << "}\n";
}

// A launch of the variant, when its If holds. With `track` (the variant has Programmatic launches), it sets
// `earlier_launch`, and a Programmatic launch is one only after an earlier launch of this call (what precedes
// the first is a scratch clearing or the caller's work) on a device that runs them; a "Programmatic":
// "always" launch is one wherever it runs. `programmatic_if`: empty where the launch is an ordinary one for
// this variant (not Programmatic, or its ProgrammaticIf 0), "true", or the C++ of a ProgrammaticIf that reads
// the call's sizes.
void write_launch(std::ostream& out, const SearchSpace& space, const LaunchDecl& launch, std::size_t l,
                  std::size_t index, const std::string& prefix, bool track,
                  const std::string& programmatic_if) {
  const std::string field = space.launches().size() > 1
                                ? "KernelSpecification.Launches[" + std::to_string(l) + "]"
                                : "KernelSpecification";
  const KernelDecl& kernel = launch.kernel;
  const std::string in = "    ";
  out << "  if (launch" << l << ") {\n";
  const char* axes[] = {"x", "y", "z"};
  auto dims = [&](const char* what, const std::array<std::string, 3>& expressions, const std::string& part) {
    for (int a = 0; a < 3; ++a)
      out << in << "const long long " << what << "_" << axes[a] << " = evotune_expr::whole("
          << cpp(expressions[a], field + "." + part + "." + static_cast<char>('X' + a))
          << ", 4294967295.0);\n";
    out << in << "if (" << what << "_x < 1 || " << what << "_y < 1 || " << what << "_z < 1) return -4;\n";
  };
  dims("grid", kernel.grid, "GlobalSize");
  dims("block", kernel.block, "LocalSize");
  dims("cluster", kernel.cluster, "ClusterSize");
  out << in << "const long long shared_bytes = evotune_expr::whole("
      << cpp(kernel.shared_memory, field + ".SharedMemory") << ", 4294967295.0);\n";
  out << in << "if (shared_bytes < 0) return -4;\n";
  std::string call;
  for (const auto& name : kernel.arguments) {
    const ArgumentDecl& argument = *find_argument(space, name);
    if (argument.is_tensor_map) {
      write_tensor_map(out, argument, "KernelSpecification.Arguments(" + name + ")", space);
      call += ", evotune_tensor_map_arg{&" + name + "_encoded}";
    } else if (argument.is_vector) {
      call += ", " + name;
    } else {
      const std::string value = cpp(argument.value_expr, "KernelSpecification.Arguments(" + name + ").Value");
      const std::string type(cuda_type_name(argument.dtype));
      if (is_floating(argument.dtype)) {
        out << in << "const " << type << " " << name << "_arg = static_cast<" << type
            << ">(evotune_expr::value(" << value << ").v);\n";
      } else {
        const bool wide = size_of(argument.dtype) == 8;
        out << in << "const evotune_expr::value " << name << "_value = " << value << ";\n";
        out << in << "if (!evotune_expr::fits(" << name << "_value, "
            << (wide ? "-9.0e15, 9.0e15" : "-2147483648.0, 2147483647.0") << ")) return -4;\n";
        out << in << "const " << type << " " << name << "_arg = static_cast<" << type << ">(" << name
            << "_value.v);\n";
      }
      call += ", " + name + "_arg";
    }
  }
  const std::string symbol =
      prefix + "_variant" + std::to_string(index) + "::" + variant_kernel_name(prefix, index, kernel.name);
  out << in << "const cudaError_t attribute = evotune_allow_shared_bytes(reinterpret_cast<const void*>("
      << symbol << "), shared_bytes);\n";
  out << in << "if (attribute != cudaSuccess) return attribute;\n";
  out << in << "cudaLaunchConfig_t config = {};\n";
  out << in << "config.gridDim = dim3(unsigned(grid_x), unsigned(grid_y), unsigned(grid_z));\n";
  out << in << "config.blockDim = dim3(unsigned(block_x), unsigned(block_y), unsigned(block_z));\n";
  out << in << "config.dynamicSmemBytes = size_t(shared_bytes);\n" << in << "config.stream = stream;\n";
  out << in << "cudaLaunchAttribute attributes[2];\n";
  out << in << "attributes[0].id = cudaLaunchAttributeClusterDimension;\n";
  out << in << "attributes[0].val.clusterDim.x = unsigned(cluster_x);\n";
  out << in << "attributes[0].val.clusterDim.y = unsigned(cluster_y);\n";
  out << in << "attributes[0].val.clusterDim.z = unsigned(cluster_z);\n";
  out << in << "config.attrs = attributes;\n";
  out << in << "config.numAttrs = cluster_x * cluster_y * cluster_z > 1 ? 1 : 0;\n";
  if (!programmatic_if.empty()) {
    const std::string also = programmatic_if == "true" ? "" : " && " + programmatic_if;
    if (launch.programmatic_first)  // "always": where it runs first too, behind the kernel before the call
      out << in << "if (programmatic" << also
          << ") {  // Programmatic: may start before the kernel before it ends\n";
    else
      out << in << "if (programmatic && earlier_launch" << also
          << ") {  // Programmatic: may start before that launch ends\n";
    out << in << "  attributes[config.numAttrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;\n";
    out << in << "  attributes[config.numAttrs].val.programmaticStreamSerializationAllowed = 1;\n";
    out << in << "  ++config.numAttrs;\n" << in << "}\n";
  }
  out << in << "const cudaError_t launched = cudaLaunchKernelEx(&config, " << symbol << call << ");\n";
  out << in << "if (launched != cudaSuccess) return launched;\n";
  if (track) out << in << "earlier_launch = true;\n";
  out << "  }\n";
}

}  // namespace

std::string buffer_and_size_parameters(const SearchSpace& space) {
  std::string text;
  for (const auto& argument : space.arguments())
    if (is_buffer(argument)) text += buffer_type(argument) + " " + argument.name + ", ";
  for (const auto& size : space.sizes()) text += "long long size_" + size.name + ", ";
  return text.substr(0, text.size() - 2);
}

std::string buffer_and_size_arguments(const SearchSpace& space) {
  std::string text;
  for (const auto& argument : space.arguments())
    if (is_buffer(argument)) text += argument.name + ", ";
  for (const auto& size : space.sizes()) text += "size_" + size.name + ", ";
  return text.substr(0, text.size() - 2);
}

std::string variant_kernel_code(const SearchSpace& space, const DispatchVariant& variant, std::size_t index,
                                const std::string& prefix) {
  const std::string& source = space.template_source();
  const std::size_t headers = header_prefix_length(source);
  // A header the template includes past its prefix (one that reads the parameters) goes into each variant.
  std::string body =
      LocalIncludes(space.kernel().file.parent_path())
          .expand(source.substr(headers), space.kernel().file.filename().string(),
                  static_cast<int>(std::count(source.begin(), source.begin() + headers, '\n')) + 1);
  for (const auto& name : kernel_names(space))
    body =
        std::regex_replace(body, std::regex("\\b" + name + "\\b"), variant_kernel_name(prefix, index, name));
  std::ostringstream out;
  out << "namespace " << prefix << "_variant" << index << " {\n";
  std::set<std::string> defined;
  for (const auto& [name, value] : space.compile_time_constants(variant.config, variant.compile_time)) {
    out << "#define " << name << " " << value << "\n";
    defined.insert(name);
  }
  out << body << (body.empty() || body.back() == '\n' ? "" : "\n");
  out << "}  // namespace " << prefix << "_variant" << index << "\n";
  static const std::regex define(R"(^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*))");
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, define)) defined.insert(match[1].str());
  }
  for (const auto& name : defined) out << "#undef " << name << "\n";
  return out.str();
}

std::string variant_run_code(const SearchSpace& space, const DispatchVariant& variant, std::size_t index,
                             const std::string& prefix, const DeviceInfo& device) {
  std::ostringstream out;
  out << "static int " << prefix << "_run" << index << "(int mode, " << buffer_and_size_parameters(space)
      << ", void* workspace, size_t workspace_size, size_t* workspace_needed, cudaStream_t stream) {\n";
  for (const auto& argument : space.arguments())
    if (is_buffer(argument)) out << "  (void)" << argument.name << ";\n";
  for (const auto& size : space.sizes())
    if (size.compile_time) out << "  (void)size_" << size.name << ";  // compiled in; the pick matched it\n";
  write_constants(out, space, variant, device);
  for (std::size_t c = 0; c < space.conditions().size(); ++c) {
    const Condition& condition = space.conditions()[c];
    out << "  if (!" << holds(condition.expression, "condition '" + condition.name + "'") << ") {\n    "
        << prefix << "_refusal = " << cpp_string_literal(condition.name + " (" + condition.reason + ")")
        << ";\n    return 1;\n  }\n";
  }
  const auto& launches = space.launches();
  std::string any;
  std::vector<bool> possible;  // the launches that may apply to this variant
  for (std::size_t l = 0; l < launches.size(); ++l) {
    const std::string& condition = launches[l].condition;
    const std::optional<bool> fixed = fixed_condition(space, variant, device, condition);
    possible.push_back(fixed.value_or(true));
    if (!possible.back()) continue;
    out << "  const bool launch" << l << " = "
        << (fixed ? "true" : holds(condition, "KernelSpecification.Launches[" + std::to_string(l) + "].If"))
        << ";\n";
    any += (any.empty() ? "" : " || ") + std::string("launch") + std::to_string(l);
  }
  if (any.empty()) any = "false";
  out << "  if (!(" << any << ")) {\n    " << prefix
      << "_refusal = " << cpp_string_literal("no launch of the space's KernelSpecification applies")
      << ";\n    return 1;\n  }\n";
  out << "  if (mode == evotune_check) return 0;\n";
  out << "  size_t workspace_bytes = 0;\n";
  std::string scratch;  // the scratch pointers, once the workspace is known to hold them
  for (const auto& argument : space.arguments()) {
    if (!argument.is_scratch) continue;
    std::string used;  // when a launch that may run names it, directly or as a tensor map's buffer
    for (std::size_t l = 0; l < launches.size(); ++l)
      for (const auto& name : possible[l] ? launches[l].kernel.arguments : std::vector<std::string>{}) {
        const std::string launch = "launch" + std::to_string(l);
        const ArgumentDecl& taken = *find_argument(space, name);
        if (name == argument.name || (taken.is_tensor_map && taken.map_buffer == argument.name))
          used += (used.empty() ? "" : " || ") + launch;
        if (!taken.is_tensor_map) continue;
        for (std::size_t c = 0; c < taken.map_buffer_if.size(); ++c)
          if (taken.map_buffer_if[c].buffer == argument.name)
            used += (used.empty() ? "" : " || ") + std::string("(") + launch + " && " +
                    holds(taken.map_buffer_if[c].condition, "KernelSpecification.Arguments(" + name +
                                                                ").BufferIf[" + std::to_string(c) + "].If") +
                    ")";
      }
    if (used.empty()) continue;
    const std::string type(cuda_type_name(argument.dtype));
    out << "  size_t " << argument.name << "_offset = 0;\n";
    if (argument.scratch_zeroed) out << "  size_t " << argument.name << "_bytes = 0;\n";
    out << "  if (" << used << ") {\n";
    out << "    const long long count = evotune_expr::whole("
        << cpp(argument.size_expr, "KernelSpecification.Arguments(" + argument.name + ").Size")
        << ", 9.0e15);\n";
    out << "    if (count < 0) return -4;\n";
    out << "    " << argument.name << "_offset = workspace_bytes;\n";
    if (argument.scratch_zeroed)
      out << "    " << argument.name << "_bytes = size_t(count) * sizeof(" << type << ");\n";
    out << "    workspace_bytes += (size_t(count) * sizeof(" << type << ") + " << kScratchAlignment - 1
        << ") / " << kScratchAlignment << " * " << kScratchAlignment << ";\n";
    out << "  }\n";
    scratch += "  " + type + "* const " + argument.name + " = reinterpret_cast<" + type +
               "*>(static_cast<char*>(workspace) + " + argument.name + "_offset);\n";
    if (argument.scratch_zeroed)  // FillType Zero: cleared on the stream before the launches, every call
      scratch += "  if (" + argument.name + "_bytes > 0) {\n" +
                 scratch_clear_code(argument.name, argument.name + "_bytes", "    ") + "  }\n";
  }
  out << "  if (workspace_needed != nullptr) *workspace_needed = workspace_bytes;\n";
  out << "  if (mode == evotune_size_workspace) return 0;\n";
  out << "  if (workspace_bytes > 0 && (workspace == nullptr || workspace_size < workspace_bytes)) return "
         "-5;\n";
  std::vector<std::string> programmatic_if(launches.size());  // per launch: see write_launch
  for (std::size_t l = 0; l < launches.size(); ++l) {
    if (!launches[l].programmatic || !possible[l]) continue;
    const std::string& condition = launches[l].programmatic_condition;
    const std::optional<bool> fixed = fixed_condition(space, variant, device, condition);
    programmatic_if[l] =
        !fixed   ? holds(condition, "KernelSpecification.Launches[" + std::to_string(l) + "].ProgrammaticIf")
        : *fixed ? "true"
                 : "";
  }
  const bool track = std::any_of(programmatic_if.begin(), programmatic_if.end(),
                                 [](const std::string& condition) { return !condition.empty(); });
  if (track) out << programmatic_query_code("  ");  // before the stream sees anything of this call
  out << scratch;
  if (track) out << "  bool earlier_launch = false;\n";
  for (std::size_t l = 0; l < launches.size(); ++l)
    if (possible[l]) write_launch(out, space, launches[l], l, index, prefix, track, programmatic_if[l]);
  out << "  return 0;\n}\n";
  return out.str();
}

}  // namespace evotune
