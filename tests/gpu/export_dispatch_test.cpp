// The dispatching export of the wgmma space over its eight recorded H100 problems, built with nvcc beside
// tests/gpu/attention_dispatch_harness.cu and run against a float64 CPU reference, directly and from a CUDA
// graph: at a tuned shape, at two untuned ones (nearest tuned problem, geometry computed at run time), and
// refused with its message at an untuned head dimension.
#include "session/export_dispatch.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/known_devices.hpp"
#include "cuda/driver.hpp"
#include "eval/device_query.hpp"
#include "replay/recorded_sweep.hpp"
#include "session/dispatch_bench.hpp"

namespace evotune {
namespace {

const std::vector<std::string> kSweeps{"B_1_H_8_S_512_D_64",  "B_1_H_8_S_1024_D_64", "B_1_H_8_S_2048_D_64",
                                       "B_1_H_8_S_4096_D_64", "B_2_H_8_S_1000_D_64", "B_4_H_8_S_1024_D_64",
                                       "B_8_H_8_S_512_D_64",  "B_2_H_16_S_2048_D_64"};

std::string nvcc() {
  const char* home = std::getenv("CUDA_HOME");
  for (const std::string& root : {std::string(home ? home : ""), std::string("/usr/local/cuda")})
    if (!root.empty() && std::filesystem::exists(root + "/bin/nvcc")) return root + "/bin/nvcc";
  return "";
}

TEST(ExportDispatchGpu, TunedAndUntunedShapesMatchTheReference) {
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  const DeviceInfo device = query_gpu(0);
  if (device.cc_major * 10 + device.cc_minor != 90)
    GTEST_SKIP() << device.name << " is not compute capability 9.0, which alone has wgmma";
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const auto space = SearchSpace::load("search_spaces/flash_attn_fwd_wgmma.json");
  std::vector<TunedProblem> tuned;
  for (const auto& name : kSweeps)
    tuned.push_back(tuned_problem(load_sweep("tests/data/sweeps/wgmma_h100_" + name + ".json")));
  const DispatchTable table({"D", "CAUSAL"}, std::move(tuned));
  const auto folder =
      std::filesystem::temp_directory_path() / ("evotune_export_dispatch_" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "dispatch.cu") << render_dispatch_export(space, table, device, "// test\n");
  const auto binary = folder / "harness";
  const std::string build = nvcc() + " -arch=sm_90a -std=c++17 -DEXPORTED='\"" +
                            (folder / "dispatch.cu").string() +
                            "\"' -DDISPATCH=flash_attn_fwd_wgmma_dispatch -DPICK=flash_attn_fwd_wgmma_pick "
                            "-DERROR_STRING=flash_attn_fwd_wgmma_error_string "
                            "tests/gpu/attention_dispatch_harness.cu -o " +
                            binary.string();
  ASSERT_EQ(std::system(build.c_str()), 0) << build;
  for (const char* shape : {"1 8 512 64 0", "2 4 300 64 0", "1 2 1500 64 0"})
    EXPECT_EQ(std::system((binary.string() + " " + shape).c_str()), 0) << shape;
  EXPECT_EQ(WEXITSTATUS(std::system((binary.string() + " 1 2 256 128 0").c_str())), 3) << "D=128 is untuned";
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace evotune
