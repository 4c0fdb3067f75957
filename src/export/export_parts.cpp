// Pieces shared by the single-variant and the dispatching export.
#include "export/export_parts.hpp"

namespace evotune {

const ArgumentDecl* find_argument(const SearchSpace& space, const std::string& name) {
  for (const auto& argument : space.arguments())
    if (argument.name == name) return &argument;
  return nullptr;
}

bool is_buffer(const ArgumentDecl& argument) {
  return argument.is_vector && !argument.is_scratch && !argument.is_tensor_map;
}

bool has_scratch(const SearchSpace& space) {
  for (const auto& argument : space.arguments())
    if (argument.is_scratch) return true;
  return false;
}

bool has_tensor_map(const SearchSpace& space) {
  for (const auto& argument : space.arguments())
    if (argument.is_tensor_map) return true;
  return false;
}

bool has_programmatic_launch(const SearchSpace& space) {
  for (const auto& launch : space.launches())
    if (launch.programmatic) return true;
  return false;
}

const char* programmatic_launch_host() {
  return R"(static inline cudaError_t evotune_programmatic_launches(bool* allowed) {
  *allowed = false;
  int device = 0;
  const cudaError_t found = cudaGetDevice(&device);
  if (found != cudaSuccess) return found;
  int major = 0;
  const cudaError_t queried = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (queried != cudaSuccess) return queried;
  *allowed = major >= 9;
  return cudaSuccess;
}

)";
}

std::string programmatic_query_code(const std::string& indent) {
  return indent + "bool programmatic = false;  // compute capability 9.0 and later\n" + indent +
         "const cudaError_t programmatic_known = evotune_programmatic_launches(&programmatic);\n" + indent +
         "if (programmatic_known != cudaSuccess) return programmatic_known;\n";
}

std::string scratch_clear_code(const std::string& name, const std::string& bytes, const std::string& indent) {
  return indent + "const cudaError_t cleared = cudaMemsetAsync(" + name + ", 0, " + bytes + ", stream);\n" +
         indent + "if (cleared != cudaSuccess) return cleared;\n";
}

const char* tensor_map_host() {
  return R"(#include <cuda.h>
#include <cstring>

typedef CUresult (*evotune_encode_tiled_fn)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                            const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                            const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                            CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static evotune_encode_tiled_fn evotune_tensor_map_encoder() {
  static const evotune_encode_tiled_fn encoder = [] {
    void* found = nullptr;
    cudaDriverEntryPointQueryResult status;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &found, 12000, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess)
      return static_cast<evotune_encode_tiled_fn>(nullptr);
    return reinterpret_cast<evotune_encode_tiled_fn>(found);
  }();
  return encoder;
}
struct evotune_tensor_map_arg {
  const CUtensorMap* map;
  template <class T>
  operator T() const {
    static_assert(sizeof(T) == sizeof(CUtensorMap), "a tensor-map parameter is 128 bytes");
    T value;
    std::memcpy(&value, map, sizeof value);
    return value;
  }
};

)";
}

const char* data_type_name(DType dtype) {
  switch (dtype) {
    case DType::f16:
      return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
    case DType::bf16:
      return "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
    case DType::f32:
      return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
    case DType::f64:
      return "CU_TENSOR_MAP_DATA_TYPE_FLOAT64";
    case DType::i32:
      return "CU_TENSOR_MAP_DATA_TYPE_INT32";
    case DType::i64:
      return "CU_TENSOR_MAP_DATA_TYPE_INT64";
  }
  return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
}

std::string option_defines(const SearchSpace& space) {
  std::string defines;
  for (const auto& option : space.compiler_options()) {
    if (option.rfind("-D", 0) != 0 || option.size() == 2) continue;
    const std::string definition = option.substr(2);
    const auto equals = definition.find('=');
    defines +=
        "#define " +
        (equals == std::string::npos ? definition + " 1"
                                     : definition.substr(0, equals) + " " + definition.substr(equals + 1)) +
        "  // CompilerOptions " + option + "\n";
  }
  return defines;
}

std::string cpp_string_literal(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

}  // namespace evotune
