// For tests that build exported files: the toolkit's nvcc, and a file's text.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace evotune::test {

// $CUDA_HOME/bin/nvcc or /usr/local/cuda/bin/nvcc; "" when neither exists (the test skips).
inline std::string nvcc() {
  const char* home = std::getenv("CUDA_HOME");
  for (const std::string& root : {std::string(home ? home : ""), std::string("/usr/local/cuda")})
    if (!root.empty() && std::filesystem::exists(root + "/bin/nvcc")) return root + "/bin/nvcc";
  return "";
}

inline std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace evotune::test
