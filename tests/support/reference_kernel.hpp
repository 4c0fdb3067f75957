// Runs a space's reference kernel once on inputs a test chooses, for the tests that check a reference against
// a float64 computation on the host (tests/gpu/attention_reference_test.cpp, decode_reference_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compile/compiler.hpp"
#include "cuda/driver.hpp"
#include "cuda/resources.hpp"
#include "eval/launch_args.hpp"
#include "gen/kernel_source.hpp"
#include "space/search_space.hpp"

namespace evotune::test {

// Compiles `kernel` (from `source`, named `file`, with `constants` #defined) for device 0 (its context
// current), uploads `buffers` (each buffer by name, as raw bytes: inputs with their values, outputs with what
// they start as), runs `launch` once, waits, and returns the bytes of each of `outputs` by name. A compile
// error fails the test (and returns nothing).
inline std::map<std::string, std::vector<unsigned char>> run_kernel_outputs(
    const SearchSpace& space, const std::string& source_text, const std::string& file,
    const std::map<std::string, std::int64_t>& constants, const LaunchSpec& launch,
    const std::map<std::string, std::vector<unsigned char>>& buffers,
    const std::vector<std::string>& outputs) {
  const DeviceInfo device = cuda::query_device(0);
  const Compiler compiler(cuda_include_dirs());
  const KernelSource source = render_source(source_text, file, constants);
  const CompileResult compiled = compiler.compile(
      {source.text, source.file_name, launch.kernel_name, device.arch(), space.compiler_options()});
  EXPECT_EQ(compiled.status, Status::ok) << compiled.message;
  if (compiled.status != Status::ok) return {};

  std::map<std::string, cuda::DeviceMemory> memory;
  for (const auto& [name, bytes] : buffers) {
    memory.emplace(name, cuda::DeviceMemory(bytes.size()));
    memory.at(name).upload(bytes.data(), bytes.size());
  }
  KernelArgs args(launch.args, [&](const std::string& name) -> std::optional<std::uint64_t> {
    if (!memory.contains(name)) return std::nullopt;
    return memory.at(name).get();
  });
  const cuda::Module module = cuda::Module::load(compiled.cubin);
  const CUfunction function = module.function(launch.kernel_name);
  if (launch.dynamic_smem_bytes > 48 * 1024)  // past the default limit, as the evaluator opts in
    cuda::check(cuda::driver().cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                  static_cast<int>(launch.dynamic_smem_bytes)),
                "cuFuncSetAttribute");
  const auto& g = launch.grid;
  const auto& b = launch.block;
  cuda::check(cuda::driver().cuLaunchKernel(function, g[0], g[1], g[2], b[0], b[1], b[2],
                                            launch.dynamic_smem_bytes, nullptr, args.params(), nullptr),
              "cuLaunchKernel");
  cuda::check(cuda::driver().cuCtxSynchronize(), "cuCtxSynchronize");
  std::map<std::string, std::vector<unsigned char>> out;
  for (const std::string& output : outputs) {
    std::vector<unsigned char> bytes(buffers.at(output).size());
    memory.at(output).download(bytes.data(), bytes.size());
    out.emplace(output, std::move(bytes));
  }
  return out;
}

// run_kernel_outputs with the reference of `space` for `sizes`.
inline std::map<std::string, std::vector<unsigned char>> run_reference_outputs(
    const SearchSpace& space, const Sizes& sizes,
    const std::map<std::string, std::vector<unsigned char>>& buffers,
    const std::vector<std::string>& outputs) {
  return run_kernel_outputs(space, space.reference_source(), space.reference().file.filename().string(),
                            space.reference_constants(sizes),
                            space.reference_launch(sizes, cuda::query_device(0)), buffers, outputs);
}

// run_kernel_outputs with the DerivedInputs kernel of `space` (which must have one) for `sizes`.
inline std::map<std::string, std::vector<unsigned char>> run_derived_inputs_outputs(
    const SearchSpace& space, const Sizes& sizes,
    const std::map<std::string, std::vector<unsigned char>>& buffers,
    const std::vector<std::string>& outputs) {
  return run_kernel_outputs(space, space.derived_inputs_source(),
                            space.derived_inputs()->file.filename().string(),
                            space.derived_inputs_constants(sizes),
                            *space.derived_inputs_launch(sizes, cuda::query_device(0)), buffers, outputs);
}

// As run_reference_outputs for one output: its bytes (empty after a compile error).
inline std::vector<unsigned char> run_reference(
    const SearchSpace& space, const Sizes& sizes,
    const std::map<std::string, std::vector<unsigned char>>& buffers, const std::string& output) {
  auto outputs = run_reference_outputs(space, sizes, buffers, {output});
  return outputs.empty() ? std::vector<unsigned char>{} : std::move(outputs.at(output));
}

// A parameterised reference test's name: the problem ("B=1,H=2,S=77") with '=' and ',' as '_', and "_bf16"
// when the space is the bf16 one ("_out_f32" when its output is fp32).
inline std::string problem_case_name(const std::string& problem, const std::string& space) {
  std::string name = problem + (space.find("bf16") != std::string::npos ? "_bf16" : "") +
                     (space.find("out_f32") != std::string::npos ? "_out_f32" : "");
  for (char& c : name)
    if (c == '=' || c == ',') c = '_';
  return name;
}

// A vector's bytes, for run_reference.
template <class T>
std::vector<unsigned char> as_bytes(const std::vector<T>& values) {
  const auto* first = reinterpret_cast<const unsigned char*>(values.data());
  return {first, first + values.size() * sizeof(T)};
}

}  // namespace evotune::test
