// The saxpy problem the evaluator's GPU tests run variants of: out = a * x + y over n floats, its reference
// kernel and a variant's launch.
#pragma once

#include <string>

#include "core/launch_spec.hpp"

namespace evotune::gpu_test {

inline const char* const kSaxpyReference = R"(
extern "C" __global__ void saxpy_ref(float* out, const float* x, const float* y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
})";

// `kernel`(out, x, y, a = 2.5, n) over n elements, `block` threads a block.
inline LaunchSpec saxpy_launch(const std::string& kernel, unsigned block, int n) {
  LaunchSpec launch;
  launch.kernel_name = kernel;
  launch.grid = {(static_cast<unsigned>(n) + block - 1) / block, 1, 1};
  launch.block = {block, 1, 1};
  launch.args = {{ArgSpec::Kind::buffer, "out", DType::f32, 0, {}},
                 {ArgSpec::Kind::buffer, "x", DType::f32, 0, {}},
                 {ArgSpec::Kind::buffer, "y", DType::f32, 0, {}},
                 {ArgSpec::Kind::scalar, "a", DType::f32, 2.5, {}},
                 {ArgSpec::Kind::scalar, "n", DType::i32, static_cast<double>(n), {}}};
  return launch;
}

}  // namespace evotune::gpu_test
