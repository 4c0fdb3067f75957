// The exported launcher bakes in the geometry computed for the tuned problem: no expression evaluator needed.
#include "export/export_variant.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include "export/export_parts.hpp"
#include "gen/kernel_source.hpp"

namespace evotune {
namespace {

std::string list(const std::vector<std::int64_t>& values) {
  std::string text;
  for (const auto value : values) text += (text.empty() ? "" : ", ") + std::to_string(value) + "u";
  return text;
}

// Encodes a launch's tensor maps from the buffers the launcher was given (the tuned problem's dims).
void write_tensor_maps(std::ostream& out, const LaunchSpec& launch, const std::string& indent) {
  for (const ArgSpec& arg : launch.args) {
    if (arg.kind != ArgSpec::Kind::tensor_map) continue;
    const TensorMapSpec& map = arg.map;
    const std::string in = indent + "  ";
    out << indent << "CUtensorMap " << arg.name << "_encoded;\n" << indent << "{\n";
    out << in << "const cuuint64_t dims[] = {" << list(map.dims) << "};\n";
    out << in << "const cuuint64_t strides[] = {" << (map.strides.empty() ? "0u" : list(map.strides))
        << "};\n";
    out << in << "const cuuint32_t box[] = {" << list(map.box) << "};\n";
    out << in << "const cuuint32_t element_strides[] = {"
        << list(std::vector<std::int64_t>(map.dims.size(), 1)) << "};\n";
    out << in << "const evotune_encode_tiled_fn encode = evotune_tensor_map_encoder();\n";
    out << in << "if (encode == nullptr) return cudaErrorNotSupported;\n";
    out << in << "const CUresult encoded = encode(&" << arg.name << "_encoded, " << data_type_name(arg.dtype)
        << ", " << map.dims.size() << ", const_cast<void*>(static_cast<const void*>(" << map.buffer
        << ")), dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, "
        << (map.swizzle_bytes ? "CU_TENSOR_MAP_SWIZZLE_" + std::to_string(map.swizzle_bytes) + "B"
                              : std::string("CU_TENSOR_MAP_SWIZZLE_NONE"))
        << ", CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n";
    out << in << "if (encoded != CUDA_SUCCESS) return cudaErrorInvalidValue;\n" << indent << "}\n";
  }
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

std::string parameter(const ArgSpec& arg, const ArgumentDecl* decl) {
  const bool read_only = decl && decl->is_input && !decl->is_output;
  std::string type = std::string(cuda_type_name(arg.dtype));
  if (arg.kind == ArgSpec::Kind::buffer) type = (read_only ? "const " : "") + type + "*";
  return type + " " + arg.name;
}

// The launcher's parameters: a single-kernel space's kernel arguments in its order (as exports always had);
// otherwise every argument that is not scratch, in KernelSpecification.Arguments order, so that every config
// of the space exports the same signature. Scalars the launches take are given their tuned values.
std::vector<ArgSpec> launcher_arguments(const SearchSpace& space, const LaunchSpec& launch) {
  if (space.launches().size() == 1 && !has_scratch(space) && !has_tensor_map(space)) return launch.args;
  std::vector<ArgSpec> arguments;
  for (const auto& argument : space.arguments()) {
    if (argument.is_scratch || argument.is_tensor_map) continue;  // the launcher builds these
    ArgSpec arg{argument.is_vector ? ArgSpec::Kind::buffer : ArgSpec::Kind::scalar,
                argument.name,
                argument.dtype,
                0.0,
                {}};
    bool taken = false;
    for (const LaunchSpec* step : launch_steps(launch))
      for (const ArgSpec& given : step->args)
        if (given.name == arg.name) {
          arg.value = given.value;
          taken = true;
        }
    arg.value =
        taken ? arg.value : std::numeric_limits<double>::quiet_NaN();  // no launch takes it: unchecked
    arguments.push_back(arg);
  }
  return arguments;
}

// "B != 1 || S != 512": the integer scalars that differ from the tuned problem's.
std::string size_checks(const std::vector<ArgSpec>& arguments) {
  std::string checks;
  for (const ArgSpec& arg : arguments)
    if (arg.kind == ArgSpec::Kind::scalar && !is_floating(arg.dtype) && arg.value == arg.value)
      checks += std::string(checks.empty() ? "" : " || ") + arg.name + " != " + literal(arg);
  return checks;
}

void write_launch(std::ostream& out, const LaunchSpec& launch, const std::string& indent) {
  write_tensor_maps(out, launch, indent);
  std::string call;
  for (const ArgSpec& arg : launch.args)
    call += (call.empty() ? "" : ", ") + (arg.kind == ArgSpec::Kind::tensor_map
                                              ? "evotune_tensor_map_arg{&" + arg.name + "_encoded}"
                                              : arg.name);
  const auto& g = launch.grid;
  const auto& b = launch.block;
  out << indent << "const dim3 grid(" << g[0] << ", " << g[1] << ", " << g[2] << ");\n";
  out << indent << "const dim3 block(" << b[0] << ", " << b[1] << ", " << b[2] << ");\n";
  out << indent << "const unsigned shared_bytes = " << launch.dynamic_smem_bytes << ";\n";
  if (launch.dynamic_smem_bytes > 0) {  // the kernel's static shared memory counts against the 48 KB too
    out << indent << "const cudaError_t attribute = cudaFuncSetAttribute(" << launch.kernel_name
        << ", cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);\n";
    out << indent << "if (attribute != cudaSuccess) return attribute;\n";
  }
  const bool clustered = launch.cluster != std::array<std::uint32_t, 3>{1, 1, 1};
  if (clustered || launch.programmatic) {
    const auto& c = launch.cluster;
    out << indent << "cudaLaunchConfig_t config = {};\n";
    out << indent << "config.gridDim = grid;\n" << indent << "config.blockDim = block;\n";
    out << indent << "config.dynamicSmemBytes = shared_bytes;\n" << indent << "config.stream = stream;\n";
    // A cluster alone: its one attribute in `cluster`; a Programmatic launch: up to two, counted at run time.
    const std::string array = launch.programmatic ? "attributes" : "cluster";
    out << indent << "cudaLaunchAttribute " << array << "[" << (launch.programmatic ? 2 : 1) << "];\n";
    if (launch.programmatic) out << indent << "unsigned attribute_count = 0;\n";
    if (clustered) {
      out << indent << array << "[0].id = cudaLaunchAttributeClusterDimension;\n";
      out << indent << array << "[0].val.clusterDim.x = " << c[0] << ";\n";
      out << indent << array << "[0].val.clusterDim.y = " << c[1] << ";\n";
      out << indent << array << "[0].val.clusterDim.z = " << c[2] << ";\n";
      if (launch.programmatic) out << indent << "attribute_count = 1;\n";
    }
    if (!launch.programmatic) {
      out << indent << "config.attrs = cluster;\n" << indent << "config.numAttrs = 1;\n";
    } else {
      out << indent << "if (programmatic) {  // Programmatic: may start before the launch above has ended\n";
      out << indent
          << "  attributes[attribute_count].id = cudaLaunchAttributeProgrammaticStreamSerialization;\n";
      out << indent << "  attributes[attribute_count].val.programmaticStreamSerializationAllowed = 1;\n";
      out << indent << "  ++attribute_count;\n" << indent << "}\n";
      out << indent << "config.attrs = attributes;\n" << indent << "config.numAttrs = attribute_count;\n";
    }
    out << indent << "const cudaError_t extended = cudaLaunchKernelEx(&config, " << launch.kernel_name << ", "
        << call << ");\n";
    out << indent << "if (extended != cudaSuccess) return extended;\n";
    return;
  }
  out << indent << launch.kernel_name << "<<<grid, block, shared_bytes, stream>>>(" << call << ");\n";
}

// Each scratch buffer's offset in the workspace, and the workspace's size.
std::vector<std::int64_t> scratch_offsets(const LaunchSpec& launch, std::int64_t& total) {
  std::vector<std::int64_t> offsets;
  total = 0;
  for (const ScratchSpec& scratch : launch.scratch) {
    offsets.push_back(total);
    const std::int64_t bytes = scratch.count * static_cast<std::int64_t>(size_of(scratch.dtype));
    total += (bytes + kScratchAlignment - 1) / kScratchAlignment * kScratchAlignment;
  }
  return offsets;
}

}  // namespace

std::string render_export(const SearchSpace& space, const Sizes& sizes, const Config& config,
                          const DeviceInfo& device, const std::string& header) {
  const LaunchSpec launch = space.variant_launch(config, sizes, device);
  const KernelSource source =
      render_source(space.template_source(), space.kernel().file.filename().string(),
                    space.compile_time_constants(config, sizes), false, space.kernel().file.parent_path());
  std::ostringstream out;
  out << header << "\n" << option_defines(space) << source.text << "\n";
  out << "// ---- Host launcher (geometry of the tuned problem) ----\n#include <cuda_runtime.h>\n\n";
  if (has_tensor_map(space)) out << tensor_map_host();
  const auto steps = launch_steps(launch);
  const bool programmatic =
      std::any_of(steps.begin(), steps.end(), [](const LaunchSpec* step) { return step->programmatic; });
  if (programmatic) out << programmatic_launch_host();

  const std::vector<ArgSpec> arguments = launcher_arguments(space, launch);
  std::string parameters, integer_parameters;
  for (const ArgSpec& arg : arguments) {
    parameters += parameter(arg, find_argument(space, arg.name)) + ", ";
    if (arg.kind == ArgSpec::Kind::scalar && !is_floating(arg.dtype))
      integer_parameters += (integer_parameters.empty() ? "" : ", ") + parameter(arg, nullptr);
  }
  const std::string checks = size_checks(arguments);
  const std::string name = space.kernel().name;
  // One signature for every config of a space: the single-launch form only where the space has one launch.
  if (space.launches().size() == 1 && !has_scratch(space)) {
    out << "extern \"C\" cudaError_t " << launch.kernel_name << "_launch(" << parameters
        << "cudaStream_t stream) {\n";
    if (!checks.empty()) out << "  if (" << checks << ") return cudaErrorInvalidValue;\n";
    write_launch(out, launch, "  ");
    out << "  return cudaGetLastError();\n}\n";
    return out.str();
  }

  std::int64_t workspace_bytes = 0;
  const std::vector<std::int64_t> offsets = scratch_offsets(launch, workspace_bytes);
  out << "#include <cstdint>\n\n";
  out << "// Bytes of device memory the launcher needs as `workspace` (256-byte aligned, owned by the "
         "caller, not\n"
         "// used by two launches at once); SIZE_MAX for sizes other than the tuned ones.\n";
  out << "extern \"C\" size_t " << name << "_workspace_bytes("
      << (integer_parameters.empty() ? "void" : integer_parameters) << ") {\n";
  if (!checks.empty()) out << "  if (" << checks << ") return SIZE_MAX;\n";
  out << "  return " << workspace_bytes << ";\n}\n\n";
  out << "// Runs the variant's " << steps.size() << " launch(es) in order on `stream`; allocates nothing.\n";
  out << "extern \"C\" cudaError_t " << name << "_launch(" << parameters
      << "void* workspace, cudaStream_t stream) {\n";
  if (!checks.empty()) out << "  if (" << checks << ") return cudaErrorInvalidValue;\n";
  if (workspace_bytes > 0) out << "  if (workspace == nullptr) return cudaErrorInvalidValue;\n";
  out << "  (void)workspace;\n";
  for (std::size_t i = 0; i < launch.scratch.size(); ++i) {
    const ScratchSpec& scratch = launch.scratch[i];
    const std::string type(cuda_type_name(scratch.dtype));
    out << "  " << type << "* const " << scratch.name << " = reinterpret_cast<" << type
        << "*>(static_cast<char*>(workspace) + " << offsets[i] << ");\n";
  }
  if (programmatic) out << programmatic_query_code("  ");  // before the stream sees anything of this call
  for (const ScratchSpec& scratch : launch.scratch) {
    if (!scratch.zeroed) continue;
    out << "  {  // " << scratch.name
        << " starts at zero (FillType Zero): cleared on the stream, every call\n";
    out << scratch_clear_code(
        scratch.name, std::to_string(scratch.count * static_cast<std::int64_t>(size_of(scratch.dtype))),
        "    ");
    out << "  }\n";
  }
  for (const LaunchSpec* step : steps) {
    out << "  {\n";
    write_launch(out, *step, "    ");
    out << "    const cudaError_t launched = cudaGetLastError();\n";
    out << "    if (launched != cudaSuccess) return launched;\n";
    out << "  }\n";
  }
  out << "  return cudaSuccess;\n}\n";
  return out.str();
}

}  // namespace evotune
