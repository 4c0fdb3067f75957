// A folder of this process for the compilers' scratch files: NVRTC's timing reports and precompiled headers.
#pragma once

#include <filesystem>

namespace evotune {

// Made under the system temp folder as evotune-compile-PID-XXXXXX and removed with everything in it when
// the object goes (the compiler processes that write there are killed, so they cannot clean up themselves).
// Folders of this kind whose process no longer runs (killed with SIGKILL) are removed when a new one is
// made. path() is empty when the folder could not be made: compilers then do without it.
class ScratchDir {
 public:
  ScratchDir();
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
