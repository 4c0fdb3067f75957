// For tests that build exported files: the toolkit's nvcc, a file's text, and a compile's errors.
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

// `nvcc <target> -std=c++17 -c source` (the object and nvcc's output beside the source): "" where it
// compiled, else the command and the first 4000 characters nvcc printed.
inline std::string compile_errors(const std::filesystem::path& source, const std::string& target) {
  const std::string log = source.string() + ".log";
  const std::string build = nvcc() + " " + target + " -std=c++17 -c -o " + source.string() + ".o " +
                            source.string() + " > " + log + " 2>&1";
  if (std::system(build.c_str()) == 0) return "";
  return build + "\n" + read(log).substr(0, 4000);
}

}  // namespace evotune::test
