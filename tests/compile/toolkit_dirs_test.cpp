// The candidate toolkit dirs: the environment first, then the build's toolkit and the default install, and
// $PATH for programs.
#include "compile/toolkit_dirs.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <optional>
#include <string>

#include "support/scoped_env.hpp"

namespace evotune {
namespace toolkit_dirs_test {

using test::ScopedEnv;

std::size_t position(const std::vector<std::string>& list, const std::string& item) {
  return static_cast<std::size_t>(std::find(list.begin(), list.end(), item) - list.begin());
}

TEST(ToolkitDirs, CudaHomeAndCudaPathComeFirstThenTheDefaultInstall) {
  const ScopedEnv home("CUDA_HOME", "/opt/cuda-a");
  const ScopedEnv path("CUDA_PATH", "/opt/cuda-b");
  const auto includes = toolkit_include_candidates();
  ASSERT_GE(includes.size(), 3u);
  EXPECT_EQ(includes[0], "/opt/cuda-a/include");
  EXPECT_EQ(includes[1], "/opt/cuda-b/include");
  EXPECT_EQ(includes.back(), "/usr/local/cuda/include");
  const auto bins = toolkit_bin_candidates();
  EXPECT_EQ(bins[0], "/opt/cuda-a/bin");
  EXPECT_EQ(bins[1], "/opt/cuda-b/bin");
  EXPECT_LT(position(bins, "/usr/local/cuda/bin"), bins.size());
}

TEST(ToolkitDirs, ProgramsAreAlsoLookedForOnThePathInItsOrder) {
  const ScopedEnv home("CUDA_HOME", nullptr);
  const ScopedEnv path("CUDA_PATH", "");
  const ScopedEnv search("PATH", "/x/bin::/y/bin");
  const auto bins = toolkit_bin_candidates();
  EXPECT_NE(bins.front(), "/bin");  // an empty CUDA_PATH adds nothing
  EXPECT_LT(position(bins, "/usr/local/cuda/bin"), position(bins, "/x/bin"));
  EXPECT_EQ(position(bins, "/x/bin") + 1, position(bins, "/y/bin"));
  EXPECT_EQ(bins.back(), "/y/bin");
}

}  // namespace toolkit_dirs_test
}  // namespace evotune
