// The exported launcher bakes in the geometry computed for the tuned problem: no expression evaluator needed.
#include "session/export_variant.hpp"

#include <sstream>

#include "gen/kernel_source.hpp"

namespace evotune {
namespace {

const ArgumentDecl* find_argument(const SearchSpace& space, const std::string& name) {
  for (const auto& argument : space.arguments())
    if (argument.name == name) return &argument;
  return nullptr;
}

std::string literal(const ArgSpec& arg) {
  std::ostringstream text;
  text.precision(17);
  if (is_floating(arg.dtype))
    text << arg.value;
  else
    text << static_cast<long long>(arg.value);
  return text.str();
}

}  // namespace

std::string render_export(const SearchSpace& space, const Sizes& sizes, const Config& config,
                          const DeviceInfo& device, const std::string& header) {
  const LaunchSpec launch = space.variant_launch(config, sizes, device);
  const KernelSource source = render_source(space.template_source(), space.kernel().file.filename().string(),
                                            space.compile_time_constants(config, sizes), false);
  std::ostringstream out;
  out << header << "\n" << source.text << "\n";
  out << "// ---- Host launcher (geometry of the tuned problem) ----\n#include <cuda_runtime.h>\n\n";

  std::string parameters, call, size_checks;
  for (const ArgSpec& arg : launch.args) {
    const ArgumentDecl* decl = find_argument(space, arg.name);
    const bool read_only = decl && decl->is_input && !decl->is_output;
    std::string type = std::string(cuda_type_name(arg.dtype));
    if (arg.kind == ArgSpec::Kind::buffer) type = (read_only ? "const " : "") + type + "*";
    parameters += type + " " + arg.name + ", ";
    call += (call.empty() ? "" : ", ") + arg.name;
    if (arg.kind == ArgSpec::Kind::scalar && !is_floating(arg.dtype))
      size_checks += std::string(size_checks.empty() ? "" : " || ") + arg.name + " != " + literal(arg);
  }
  const auto& g = launch.grid;
  const auto& b = launch.block;
  out << "extern \"C\" cudaError_t " << launch.kernel_name << "_launch(" << parameters
      << "cudaStream_t stream) {\n";
  if (!size_checks.empty()) out << "  if (" << size_checks << ") return cudaErrorInvalidValue;\n";
  out << "  const dim3 grid(" << g[0] << ", " << g[1] << ", " << g[2] << ");\n";
  out << "  const dim3 block(" << b[0] << ", " << b[1] << ", " << b[2] << ");\n";
  out << "  const unsigned shared_bytes = " << launch.dynamic_smem_bytes << ";\n";
  if (launch.dynamic_smem_bytes > 48 * 1024) {
    out << "  const cudaError_t attribute = cudaFuncSetAttribute(" << launch.kernel_name
        << ", cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);\n";
    out << "  if (attribute != cudaSuccess) return attribute;\n";
  }
  out << "  " << launch.kernel_name << "<<<grid, block, shared_bytes, stream>>>(" << call << ");\n";
  out << "  return cudaGetLastError();\n}\n";
  return out.str();
}

}  // namespace evotune
