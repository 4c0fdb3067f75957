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

// Compiles the reference of `space` for `sizes` on device 0 (its context current), uploads `buffers` (each of
// the space's buffers by name, as raw bytes: inputs with their values, outputs with what they start as),
// launches the reference once, waits, and returns the bytes of each of `outputs` by name. A compile error
// fails the test (and returns nothing).
inline std::map<std::string, std::vector<unsigned char>> run_reference_outputs(
    const SearchSpace& space, const Sizes& sizes,
    const std::map<std::string, std::vector<unsigned char>>& buffers,
    const std::vector<std::string>& outputs) {
  const DeviceInfo device = cuda::query_device(0);
  const Compiler compiler(cuda_include_dirs());
  const KernelSource source = render_source(
      space.reference_source(), space.reference().file.filename().string(), space.reference_constants(sizes));
  const CompileResult compiled = compiler.compile(
      {source.text, source.file_name, space.reference().name, device.arch(), space.compiler_options()});
  EXPECT_EQ(compiled.status, Status::ok) << compiled.message;
  if (compiled.status != Status::ok) return {};

  std::map<std::string, cuda::DeviceMemory> memory;
  for (const auto& [name, bytes] : buffers) {
    memory.emplace(name, cuda::DeviceMemory(bytes.size()));
    memory.at(name).upload(bytes.data(), bytes.size());
  }
  const LaunchSpec launch = space.reference_launch(sizes, device);
  KernelArgs args(launch.args, [&](const std::string& name) -> std::optional<std::uint64_t> {
    if (!memory.contains(name)) return std::nullopt;
    return memory.at(name).get();
  });
  const cuda::Module module = cuda::Module::load(compiled.cubin);
  const auto& g = launch.grid;
  const auto& b = launch.block;
  cuda::check(cuda::driver().cuLaunchKernel(module.function(launch.kernel_name), g[0], g[1], g[2], b[0], b[1],
                                            b[2], launch.dynamic_smem_bytes, nullptr, args.params(), nullptr),
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

// As run_reference_outputs for one output: its bytes (empty after a compile error).
inline std::vector<unsigned char> run_reference(
    const SearchSpace& space, const Sizes& sizes,
    const std::map<std::string, std::vector<unsigned char>>& buffers, const std::string& output) {
  auto outputs = run_reference_outputs(space, sizes, buffers, {output});
  return outputs.empty() ? std::vector<unsigned char>{} : std::move(outputs.at(output));
}

// A vector's bytes, for run_reference.
template <class T>
std::vector<unsigned char> as_bytes(const std::vector<T>& values) {
  const auto* first = reinterpret_cast<const unsigned char*>(values.data());
  return {first, first + values.size() * sizeof(T)};
}

}  // namespace evotune::test
