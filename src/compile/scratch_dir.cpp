// Scratch folders: made with mkdtemp, removed on destruction, and those of dead processes swept up.
#include "compile/scratch_dir.hpp"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace evotune {
namespace {

constexpr std::string_view kPrefix = "evotune-compile-";

// evotune-compile-PID-XXXXXX of a process that has ended.
bool is_orphan(const std::filesystem::path& folder) {
  const std::string name = folder.filename().string();
  if (name.rfind(kPrefix, 0) != 0) return false;
  const auto end = name.find('-', kPrefix.size());
  if (end == std::string::npos || end == kPrefix.size()) return false;
  const std::string digits = name.substr(kPrefix.size(), end - kPrefix.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) return false;
  const pid_t pid = static_cast<pid_t>(std::stol(digits));
  return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

void remove_orphans(const std::filesystem::path& temp) {
  std::error_code error;
  for (std::filesystem::directory_iterator it(temp, error), end; !error && it != end; it.increment(error)) {
    if (!is_orphan(it->path())) continue;
    std::error_code ignored;
    std::filesystem::remove_all(it->path(), ignored);
  }
}

}  // namespace

ScratchDir::ScratchDir() {
  std::error_code error;
  const std::filesystem::path temp = std::filesystem::temp_directory_path(error);
  if (error) {
    spdlog::debug("no temp folder for compiler scratch files: {}", error.message());
    return;
  }
  remove_orphans(temp);
  std::string pattern = (temp / (std::string(kPrefix) + std::to_string(getpid()) + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    spdlog::debug("cannot make a compiler scratch folder {}: {}", pattern, std::strerror(errno));
    return;
  }
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  std::error_code error;
  std::filesystem::remove_all(path_, error);
  if (error)
    spdlog::warn("cannot remove the compiler scratch folder {}: {}", path_.string(), error.message());
}

std::filesystem::path ScratchDir::subfolder(const std::string& name) const {
  if (path_.empty()) return {};
  const std::filesystem::path folder = path_ / name;
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  return error ? std::filesystem::path() : folder;
}

}  // namespace evotune
