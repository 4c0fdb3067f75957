// Element types of kernel arguments, named as in the T1 tuning format.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace evotune {

enum class DType { f16, bf16, f32, f64, i32, i64 };

// T1 names: "half", "bfloat16", "float", "double", "int32", "int64".
std::optional<DType> dtype_from_string(std::string_view name);
std::string_view to_string(DType dtype);
// C++/CUDA spelling used in generated code: "half", "__nv_bfloat16", "float", "double", "int", "long long".
std::string_view cuda_type_name(DType dtype);
std::size_t size_of(DType dtype);
bool is_floating(DType dtype);

}  // namespace evotune
