// Compiler: CUDA C++ source -> cubin through NVRTC, with the resource usage ptxas reports.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/outcome.hpp"
#include "core/status.hpp"

namespace evotune {

// Include dirs for NVRTC: the first of toolkit_include_candidates() (compile/toolkit_dirs.hpp) that holds
// cuda_fp16.h, plus its cccl/ subdir when present. Throws Error naming every dir tried when none has them.
std::vector<std::string> cuda_include_dirs();
// The same search over an explicit list of candidate include dirs (the first that holds cuda_fp16.h wins).
std::vector<std::string> cuda_include_dirs(const std::vector<std::string>& candidates);

struct CompileRequest {
  std::string source;
  std::string file_name;  // shown in diagnostics, e.g. "attention_fwd.cu"
  std::string
      kernel_name;   // the extern "C" kernel whose resource usage is reported; "": the module's largest
  std::string arch;  // "sm_90" or "sm_90a": always a real arch, the result is a cubin
  std::vector<std::string> options;  // extra NVRTC options, e.g. "-std=c++17"
};

struct CompileResult {
  Status status = Status::ok;  // ok, compile_error or resource_error
  std::string message;         // first error line when status != ok
  CompileInfo info;            // registers, smem, spills, log and compile time (also when it failed)
  std::string cubin;           // empty unless ok
};

class Compiler {
 public:
  explicit Compiler(std::vector<std::string> include_dirs);

  // Never throws for a bad source: failures are a status and a message. Thread-safe (no shared state).
  // `scratch_dir`, a folder of this compiler's alone (one per process or thread), holds NVRTC's timing report
  // and precompiled headers; without one they go to the system temp folder (NVRTC removes its precompiled
  // headers when the process exits normally).
  CompileResult compile(const CompileRequest& request, const std::filesystem::path& scratch_dir = {}) const;
  const std::vector<std::string>& include_dirs() const { return include_dirs_; }

  // Canonical text of everything that decides the cubin apart from the source: NVRTC version, then the
  // effective options in the order they are passed. Same request, same text.
  std::string options_key(const CompileRequest& request) const;

  static std::string nvrtc_version();  // "13.0"

 private:
  std::vector<std::string> effective_options(const CompileRequest& request) const;

  std::vector<std::string> include_dirs_;
};

}  // namespace evotune
