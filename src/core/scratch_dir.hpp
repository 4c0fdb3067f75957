// A folder of this process for scratch files: the compilers' (NVRTC's timing reports and precompiled
// headers), the sanitizer's logs.
#pragma once

#include <filesystem>
#include <string>

namespace evotune {

// Made under the system temp folder as evotune-PURPOSE-PID-XXXXXX and removed with everything in it when
// the object goes (the processes that write there may be killed, so they cannot clean up themselves).
// Folders of that purpose whose process no longer runs (killed with SIGKILL) are removed when a new one is
// made. path() is empty when the folder could not be made: compilers then do without it.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& purpose = "compile");  // purpose: letters only
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // path()/name, made when missing; empty when path() is, or it cannot be made.
  std::filesystem::path subfolder(const std::string& name) const;

 private:
  std::filesystem::path path_;
};

}  // namespace evotune
