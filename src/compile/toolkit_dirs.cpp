// The candidate toolkit dirs, from the environment, the build's configuration and the default install.
#include "compile/toolkit_dirs.hpp"

#include <cstdlib>

namespace evotune {
namespace {

// $CUDA_HOME/sub and $CUDA_PATH/sub, where set.
void add_env_roots(std::vector<std::string>& candidates, const char* sub) {
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* root = std::getenv(variable);
    if (root != nullptr && *root != '\0') candidates.push_back(std::string(root) + "/" + sub);
  }
}

// Each entry of a list separated by `separator` (CMake's ;-lists, $PATH's :-list), empty ones skipped.
void add_list(std::vector<std::string>& candidates, const std::string& list, char separator) {
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t end = std::min(list.find(separator, start), list.size());
    if (end > start) candidates.push_back(list.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

std::vector<std::string> toolkit_include_candidates() {
  std::vector<std::string> candidates;
  add_env_roots(candidates, "include");
#ifdef EVOTUNE_CUDA_INCLUDE_DIR
  add_list(candidates, EVOTUNE_CUDA_INCLUDE_DIR, ';');
#endif
  candidates.push_back("/usr/local/cuda/include");
  return candidates;
}

std::vector<std::string> toolkit_bin_candidates() {
  std::vector<std::string> candidates;
  add_env_roots(candidates, "bin");
#ifdef EVOTUNE_CUDA_BIN_DIR
  candidates.push_back(EVOTUNE_CUDA_BIN_DIR);
#endif
  candidates.push_back("/usr/local/cuda/bin");
  if (const char* path = std::getenv("PATH")) add_list(candidates, path, ':');
  return candidates;
}

}  // namespace evotune
