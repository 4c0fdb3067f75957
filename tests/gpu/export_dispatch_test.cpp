// The dispatching export of the wgmma space over its eight recorded H100 problems, built with nvcc beside
// tests/gpu/attention_dispatch_harness.cu and its O and LSE run against a float64 CPU reference, directly and
// from a CUDA graph: at a tuned shape, at two untuned ones (nearest tuned problem, geometry computed at run
// time), and refused with its message at an untuned head dimension.
#include "export/export_dispatch.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bench/dispatch_bench.hpp"
#include "core/known_devices.hpp"
#include "cuda/driver.hpp"
#include "eval/device_query.hpp"
#include "replay/recorded_sweep.hpp"

namespace evotune {
namespace export_dispatch_test {

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
  for (const auto& name :
       kSweeps) {  // recorded before K/V heads and key length were sizes: they take H and S
    RecordedSweep sweep = load_sweep("tests/data/sweeps/wgmma_h100_" + name + ".json");
    sweep.problem = space.complete_problem(sweep.problem);
    tuned.push_back(tuned_problem(sweep));
  }
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

// Row sums through row_sum's dispatcher: the SPLITS = 4 winner (two launches over scratch in the workspace)
// at its tuned size and a nearer untuned one, the SPLITS = 1 winner where 4 splits do not fit; a workspace
// smaller than asked for is refused. Exit 0 when every row matches.
const char* kRowSumHost = R"(
#include <cmath>
#include <cstdio>
#include <vector>

int run(long long rows, long long cols, int expected_variant) {
  std::vector<float> x(size_t(rows * cols));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 7) * 0.25f - 0.75f;
  size_t bytes = 0;
  if (row_sum_workspace_bytes(rows, cols, &bytes) != 0 || row_sum_pick(rows, cols, nullptr) != expected_variant)
    return 3;
  float *dx = nullptr, *dout = nullptr;
  void* workspace = nullptr;
  if (cudaMalloc(&dx, x.size() * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&dout, rows * sizeof(float)) != cudaSuccess || cudaMalloc(&workspace, bytes + 1) != cudaSuccess)
    return 2;
  cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(dout, 0xff, rows * sizeof(float));
  if (bytes > 0 && row_sum_dispatch(dx, dout, rows, cols, workspace, bytes - 1, 0) != -5) return 4;
  const int status = row_sum_dispatch(dx, dout, rows, cols, workspace, bytes, 0);
  if (status != 0 || cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("dispatch: %s\n", row_sum_error_string(status));
    return 2;
  }
  std::vector<float> out(rows);
  cudaMemcpy(out.data(), dout, rows * sizeof(float), cudaMemcpyDeviceToHost);
  for (long long r = 0; r < rows; ++r) {
    double sum = 0;
    for (long long c = 0; c < cols; ++c) sum += x[size_t(r * cols + c)];
    if (!(std::fabs(out[r] - sum) <= 1e-3)) {
      std::printf("%lld x %lld, row %lld: %g, expected %g\n", rows, cols, r, out[r], sum);
      return 1;
    }
  }
  std::printf("%lld x %lld: variant %d, workspace %zu bytes, every row matches\n", rows, cols, expected_variant,
              bytes);
  cudaFree(dx);
  cudaFree(dout);
  cudaFree(workspace);
  return 0;
}

int main() {
  for (const auto& c : {std::array<long long, 3>{100, 1000, 0}, {37, 777, 0}, {50, 2, 1}})
    if (const int failed = run(c[0], c[1], int(c[2]))) return failed;
  return 0;
}
)";

TEST(ExportDispatchGpu, ScratchFromTheWorkspaceServesTunedAndUntunedSizes) {
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const auto space = SearchSpace::load("tests/data/spaces/row_sum.json");
  const DispatchTable table({}, {{{{"ROWS", 100}, {"COLS", 1000}}, {{{{"BLOCK", 128}, {"SPLITS", 4}}, 2.0}}},
                                 {{{"ROWS", 100}, {"COLS", 3}}, {{{{"BLOCK", 64}, {"SPLITS", 1}}, 1.0}}}});
  const auto folder =
      std::filesystem::temp_directory_path() / ("evotune_dispatch_row_sum_" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "row_sum.cu")
      << render_dispatch_export(space, table, query_gpu(0), "// test\n") << "#include <array>\n"
      << kRowSumHost;
  const auto binary = folder / "row_sum";
  const std::string build =
      nvcc() + " -arch=native -std=c++17 " + (folder / "row_sum.cu").string() + " -o " + binary.string();
  ASSERT_EQ(std::system(build.c_str()), 0) << build;
  EXPECT_EQ(std::system(binary.string().c_str()), 0);
  std::filesystem::remove_all(folder);
}

}  // namespace export_dispatch_test
}  // namespace evotune
