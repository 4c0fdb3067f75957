// NVRTC calls behind NvrtcProgram.
#include "cuda/nvrtc.hpp"

#include <spdlog/spdlog.h>

#include <string>

namespace evotune::cuda {

void check(nvrtcResult result, const char* call) {
  if (result != NVRTC_SUCCESS)
    throw NvrtcError(result, std::string(call) + ": " + nvrtcGetErrorString(result));
}

NvrtcProgram::NvrtcProgram(const std::string& source, const std::string& file_name) {
  check(nvrtcCreateProgram(&program_, source.c_str(), file_name.c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
}

NvrtcProgram::~NvrtcProgram() {
  const nvrtcResult result = nvrtcDestroyProgram(&program_);
  if (result != NVRTC_SUCCESS) spdlog::warn("nvrtcDestroyProgram failed: {}", nvrtcGetErrorString(result));
}

nvrtcResult NvrtcProgram::compile(const std::vector<std::string>& options) {
  std::vector<const char*> pointers;
  pointers.reserve(options.size());
  for (const auto& option : options) pointers.push_back(option.c_str());
  return nvrtcCompileProgram(program_, static_cast<int>(pointers.size()), pointers.data());
}

std::string NvrtcProgram::log() const {
  std::size_t size = 0;
  check(nvrtcGetProgramLogSize(program_, &size), "nvrtcGetProgramLogSize");
  std::string text(size, '\0');
  check(nvrtcGetProgramLog(program_, text.data()), "nvrtcGetProgramLog");
  // The log is several C strings back to back (ptxas's errors follow its info lines after a NUL, seen with
  // NVRTC 13.0): without the NULs it is one text, and a message taken from it prints whole.
  std::erase(text, '\0');
  return text;
}

std::string NvrtcProgram::cubin() const {
  std::size_t size = 0;
  check(nvrtcGetCUBINSize(program_, &size), "nvrtcGetCUBINSize");
  std::string image(size, '\0');
  if (size > 0) check(nvrtcGetCUBIN(program_, image.data()), "nvrtcGetCUBIN");
  return image;
}

}  // namespace evotune::cuda
