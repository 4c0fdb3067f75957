// Names and sizes of argument element types.
#include "core/dtype.hpp"

#include <array>

namespace evotune {
namespace {
struct DTypeInfo {
  DType dtype;
  std::string_view t1_name;
  std::string_view cuda_name;
  std::size_t size;
  bool floating;
};
constexpr std::array<DTypeInfo, 6> kTypes{{
    {DType::f16, "half", "half", 2, true},
    {DType::bf16, "bfloat16", "__nv_bfloat16", 2, true},
    {DType::f32, "float", "float", 4, true},
    {DType::f64, "double", "double", 8, true},
    {DType::i32, "int32", "int", 4, false},
    {DType::i64, "int64", "long long", 8, false},
}};
const DTypeInfo& info(DType dtype) {
  for (const auto& entry : kTypes)
    if (entry.dtype == dtype) return entry;
  return kTypes[0];
}
}  // namespace

std::optional<DType> dtype_from_string(std::string_view name) {
  for (const auto& entry : kTypes)
    if (entry.t1_name == name) return entry.dtype;
  return std::nullopt;
}
std::string_view to_string(DType dtype) { return info(dtype).t1_name; }
std::string_view cuda_type_name(DType dtype) { return info(dtype).cuda_name; }
std::size_t size_of(DType dtype) { return info(dtype).size; }
bool is_floating(DType dtype) { return info(dtype).floating; }

}  // namespace evotune
