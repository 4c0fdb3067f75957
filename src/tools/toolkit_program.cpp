// Each candidate must be a regular file this user may execute (a folder named ncu is not the program).
#include "tools/toolkit_program.hpp"

#include <unistd.h>

#include <vector>

#include "compile/toolkit_dirs.hpp"
#include "core/error.hpp"

namespace evotune {
namespace {

bool is_executable_file(const std::filesystem::path& file) {
  std::error_code ignored;
  return std::filesystem::is_regular_file(file, ignored) && access(file.c_str(), X_OK) == 0;
}

}  // namespace

std::filesystem::path find_toolkit_program(const std::string& name, const std::string& install_hint) {
  std::string tried;
  for (const std::string& dir : toolkit_bin_candidates()) {
    const std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (is_executable_file(candidate)) return candidate;
    if (tried.size() < 400) tried += (tried.empty() ? "" : ", ") + dir;
  }
  throw Error(name + " not found (looked in " + tried + "): " + install_hint);
}

std::filesystem::path require_program(const std::string& name, const std::filesystem::path& file) {
  if (!is_executable_file(file))
    throw Error(name + " not found: " + file.string() + " is not an executable file");
  return file;
}

}  // namespace evotune
