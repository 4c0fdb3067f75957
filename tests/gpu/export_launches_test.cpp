// An exported variant of several launches, built with nvcc beside a small host program and run: the launcher
// runs every launch on a workspace the caller allocated, sized by <KernelName>_workspace_bytes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/known_devices.hpp"
#include "cuda/driver.hpp"
#include "export/export_variant.hpp"

namespace evotune {
namespace export_launches_test {

// Row sums of a fixed matrix through the exported launcher, against double sums on the host; exit code 0 when
// all match, 3 for a wrong workspace size or a launcher that takes sizes it was not tuned for.
const char* kHost = R"(
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  const int rows = 100, cols = 1000;
  std::vector<float> x(size_t(rows) * cols);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 7) * 0.25f - 0.75f;
  if (row_sum_workspace_bytes(rows, cols + 1) != SIZE_MAX) return 3;
  const size_t bytes = row_sum_workspace_bytes(rows, cols);
  float *dx = nullptr, *dout = nullptr;
  void* workspace = nullptr;
  if (cudaMalloc(&dx, x.size() * sizeof(float)) != cudaSuccess || cudaMalloc(&dout, rows * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&workspace, bytes > 0 ? bytes : 1) != cudaSuccess)
    return 2;
  cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(dout, 0xff, rows * sizeof(float));  // NaN: a row left unwritten fails
  if (row_sum_launch(dx, dout, rows, cols + 1, workspace, 0) != cudaErrorInvalidValue) return 3;
  const cudaError_t launched = row_sum_launch(dx, dout, rows, cols, workspace, 0);
  if (launched != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("launch: %s\n", cudaGetErrorString(launched));
    return 2;
  }
  std::vector<float> out(rows);
  cudaMemcpy(out.data(), dout, rows * sizeof(float), cudaMemcpyDeviceToHost);
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += x[size_t(r) * cols + c];
    if (!(std::fabs(out[r] - sum) <= 1e-3)) {
      std::printf("row %d: %g, expected %g\n", r, out[r], sum);
      return 1;
    }
  }
  std::printf("workspace %zu bytes, %d rows match\n", bytes, rows);
  return 0;
}
)";

std::string nvcc() {
  const char* home = std::getenv("CUDA_HOME");
  for (const std::string& root : {std::string(home ? home : ""), std::string("/usr/local/cuda")})
    if (!root.empty() && std::filesystem::exists(root + "/bin/nvcc")) return root + "/bin/nvcc";
  return "";
}

TEST(ExportLaunches, TheExportedLauncherRunsEverySplitCount) {
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc in $CUDA_HOME/bin or /usr/local/cuda/bin";
  const auto space = SearchSpace::load("tests/data/spaces/row_sum.json");
  const auto folder =
      std::filesystem::temp_directory_path() / ("evotune_export_launches_" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  for (const ParamValue splits : {1, 2, 4}) {
    const std::string text =
        render_export(space, space.resolve_problem(""), {{"BLOCK", 128}, {"SPLITS", splits}},
                      offline_device("sm_90"), "// test\n");
    const auto source = folder / ("row_sum_" + std::to_string(splits) + ".cu");
    std::ofstream(source) << text << kHost;
    const auto binary = folder / ("row_sum_" + std::to_string(splits));
    const std::string build =
        nvcc() + " -arch=native -std=c++17 " + source.string() + " -o " + binary.string();
    ASSERT_EQ(std::system(build.c_str()), 0) << build;
    EXPECT_EQ(std::system(binary.string().c_str()), 0) << "SPLITS=" << splits;
  }
  std::filesystem::remove_all(folder);
}

}  // namespace export_launches_test
}  // namespace evotune
