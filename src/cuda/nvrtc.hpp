// RAII over one NVRTC program, with check() for nvrtcResult.
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

#include "core/error.hpp"

namespace evotune::cuda {

// A failed NVRTC call. what(): "nvrtcCreateProgram: NVRTC_ERROR_OUT_OF_MEMORY".
class NvrtcError : public Error {
 public:
  NvrtcError(nvrtcResult result, const std::string& message) : Error(message), result_(result) {}
  nvrtcResult result() const { return result_; }

 private:
  nvrtcResult result_;
};

// Throws NvrtcError naming the call when result is not NVRTC_SUCCESS.
void check(nvrtcResult result, const char* call);

// One program: source in, cubin and log out. Not copyable; destroyed with nvrtcDestroyProgram.
class NvrtcProgram {
 public:
  NvrtcProgram(const std::string& source, const std::string& file_name);  // throws NvrtcError
  ~NvrtcProgram();
  NvrtcProgram(const NvrtcProgram&) = delete;
  NvrtcProgram& operator=(const NvrtcProgram&) = delete;

  // nvrtcCompileProgram's result, unchecked: a rejected source is a normal outcome, read log() for why.
  nvrtcResult compile(const std::vector<std::string>& options);
  std::string log() const;    // throws NvrtcError
  std::string cubin() const;  // throws NvrtcError (NVRTC_ERROR_INVALID_INPUT when no cubin was produced)

 private:
  nvrtcProgram program_ = nullptr;
};

}  // namespace evotune::cuda
