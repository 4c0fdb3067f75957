// Scratch folders: made with mkdtemp, removed on destruction, and those of dead processes swept up.
#include "core/scratch_dir.hpp"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace evotune {
namespace {

// PREFIX-PID-XXXXXX (PREFIX: evotune-PURPOSE-) of a process that has ended.
bool is_orphan(const std::filesystem::path& folder, const std::string& prefix) {
  const std::string name = folder.filename().string();
  if (name.rfind(prefix, 0) != 0) return false;
  const auto end = name.find('-', prefix.size());
  if (end == std::string::npos || end == prefix.size()) return false;
  const std::string digits = name.substr(prefix.size(), end - prefix.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) return false;
  const pid_t pid = static_cast<pid_t>(std::stol(digits));
  return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

void remove_orphans(const std::filesystem::path& temp, const std::string& prefix) {
  std::error_code error;
  for (std::filesystem::directory_iterator it(temp, error), end; !error && it != end; it.increment(error)) {
    if (!is_orphan(it->path(), prefix)) continue;
    std::error_code ignored;
    std::filesystem::remove_all(it->path(), ignored);
  }
}

}  // namespace

ScratchDir::ScratchDir(const std::string& purpose) {
  std::error_code error;
  const std::filesystem::path temp = std::filesystem::temp_directory_path(error);
  if (error) {
    spdlog::debug("no temp folder for {} scratch files: {}", purpose, error.message());
    return;
  }
  const std::string prefix = "evotune-" + purpose + "-";
  remove_orphans(temp, prefix);
  std::string pattern = (temp / (prefix + std::to_string(getpid()) + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    spdlog::debug("cannot make a scratch folder {}: {}", pattern, std::strerror(errno));
    return;
  }
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  std::error_code error;
  std::filesystem::remove_all(path_, error);
  if (error) spdlog::warn("cannot remove the scratch folder {}: {}", path_.string(), error.message());
}

std::filesystem::path ScratchDir::subfolder(const std::string& name) const {
  if (path_.empty()) return {};
  const std::filesystem::path folder = path_ / name;
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  return error ? std::filesystem::path() : folder;
}

}  // namespace evotune
