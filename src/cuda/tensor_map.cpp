// cuTensorMapEncodeTiled with evotune's fixed choices: no interleave, L2 promotion of 128 bytes, zeros for
// elements out of range, element strides 1.
#include "cuda/tensor_map.hpp"

#include "cuda/driver.hpp"

namespace evotune::cuda {
namespace {

CUtensorMapDataType tensor_map_data_type(DType dtype) {
  switch (dtype) {
    case DType::f16:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case DType::bf16:
      return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case DType::f32:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case DType::f64:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    case DType::i32:
      return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case DType::i64:
      return CU_TENSOR_MAP_DATA_TYPE_INT64;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

CUtensorMapSwizzle swizzle(int bytes) {
  switch (bytes) {
    case 32:
      return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64:
      return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128:
      return CU_TENSOR_MAP_SWIZZLE_128B;
    default:
      return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

std::string join(const std::vector<std::int64_t>& values) {
  std::string text;
  for (const auto value : values) text += (text.empty() ? "" : "x") + std::to_string(value);
  return text;
}

}  // namespace

std::string describe(const TensorMapSpec& spec) {
  return "dims " + join(spec.dims) + ", box " + join(spec.box) + ", strides " +
         (spec.strides.empty() ? std::string("-") : join(spec.strides)) + " bytes, swizzle " +
         (spec.swizzle_bytes ? std::to_string(spec.swizzle_bytes) + "B" : std::string("none"));
}

EncodedTensorMap encode_tensor_map(const std::string& name, const TensorMapSpec& spec, DType dtype,
                                   std::uint64_t address) {
  const std::size_t rank = spec.dims.size();
  const std::string what = "tensor map '" + name + "' over '" + spec.buffer + "' (" + describe(spec) + ")";
  if (rank < 1 || rank > 5 || spec.box.size() != rank || spec.strides.size() + 1 != rank)
    throw TensorMapRefused(what +
                           ": needs 1..5 dimensions, a box entry for each and a stride for each but the "
                           "first");
  // The driver's own answer to these is a bare CUDA_ERROR_INVALID_VALUE: say which rule the map breaks.
  if (address % 16 != 0)
    throw TensorMapRefused(what + ": TMA needs the buffer's address on a 16-byte boundary, but it is " +
                           std::to_string(address % 16) + " bytes past one");
  for (std::size_t i = 0; i + 1 < rank && i < spec.strides.size(); ++i)
    if (spec.strides[i] % 16 != 0)
      throw TensorMapRefused(what + ": TMA needs strides that are multiples of 16 bytes, but dimension " +
                             std::to_string(i + 1) + "'s is " + std::to_string(spec.strides[i]) +
                             " bytes (stage the rows into a padded copy: a BufferIf)");
  cuuint64_t dims[5];
  cuuint64_t strides[5];
  cuuint32_t box[5];
  cuuint32_t element_strides[5];
  for (std::size_t i = 0; i < rank; ++i) {
    dims[i] = static_cast<cuuint64_t>(spec.dims[i]);
    box[i] = static_cast<cuuint32_t>(spec.box[i]);
    element_strides[i] = 1;
    if (i + 1 < rank) strides[i] = static_cast<cuuint64_t>(spec.strides[i]);
  }
  EncodedTensorMap encoded;
  static_assert(sizeof(EncodedTensorMap) == sizeof(CUtensorMap), "a CUtensorMap is 128 bytes");
  const CUresult result = driver().cuTensorMapEncodeTiled(
      reinterpret_cast<CUtensorMap*>(&encoded), tensor_map_data_type(dtype), static_cast<cuuint32_t>(rank),
      reinterpret_cast<void*>(address), dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      swizzle(spec.swizzle_bytes), CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    throw TensorMapRefused("cuTensorMapEncodeTiled refused " + what + ": " + error_text(result));
  return encoded;
}

}  // namespace evotune::cuda
