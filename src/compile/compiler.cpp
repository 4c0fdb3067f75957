// NVRTC compilation to cubin, and the search for the CUDA headers.
#include "compile/compiler.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "compile/nvrtc_time.hpp"
#include "compile/ptxas_log.hpp"
#include "compile/toolkit_dirs.hpp"
#include "core/error.hpp"
#include "cuda/nvrtc.hpp"

namespace evotune {
namespace {

// The file for NVRTC's timing report of one compile (NVRTC appends to it): in the scratch folder, or one of
// this process and call alone in the temp folder. Removed before the compile and with the object.
class TimeFile {
 public:
  explicit TimeFile(const std::filesystem::path& scratch_dir) {
    static std::atomic<unsigned long long> counter = 0;
    std::error_code error;
    if (!scratch_dir.empty()) {
      path_ = scratch_dir / "nvrtc-time.csv";
    } else {
      std::filesystem::path temp = std::filesystem::temp_directory_path(error);
      if (error) temp = "/tmp";
      path_ = temp /
              ("evotune-nvrtc-time-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".csv");
    }
    remove();
  }
  ~TimeFile() { remove(); }
  TimeFile(const TimeFile&) = delete;
  TimeFile& operator=(const TimeFile&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  void remove() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  std::filesystem::path path_;
};

// --time and the precompiled header options: they make a compile measured or faster, never different.
bool is_helper_option(const std::string& option) {
  return option.rfind("--time=", 0) == 0 || option.rfind("--pch", 0) == 0;
}

// NVRTC fails for the helper options alone with these: the timing file could not be written, an option it
// does not know, or a precompiled header it could not write or read (a catastrophic error naming it, or,
// once this process holds a precompiled header, the front end's temporary file it could not open in an
// unwritable or full TMPDIR: "cannot open temporary file", which a compile without --pch does not need).
bool failed_for_helpers(nvrtcResult result, const cuda::NvrtcProgram& program) {
  if (result == NVRTC_ERROR_TIME_FILE_WRITE_FAILED || result == NVRTC_ERROR_INVALID_OPTION) return true;
  if (result != NVRTC_ERROR_COMPILATION) return false;
  const std::string log = program.log();
  for (const char* pch_error :
       {"precompiled header", "PCH directory", "PCH file", "cannot open temporary file"})
    if (log.find(pch_error) != std::string::npos) return true;
  return false;
}

}  // namespace

std::vector<std::string> cuda_include_dirs() { return cuda_include_dirs(toolkit_include_candidates()); }

std::vector<std::string> cuda_include_dirs(const std::vector<std::string>& candidates) {
  namespace fs = std::filesystem;
  std::string tried;
  for (const auto& dir : candidates) {
    std::error_code ignored;
    if (fs::exists(fs::path(dir) / "cuda_fp16.h", ignored)) {
      std::vector<std::string> dirs{dir};
      if (fs::is_directory(fs::path(dir) / "cccl", ignored)) dirs.push_back(dir + "/cccl");
      return dirs;
    }
    spdlog::debug("no cuda_fp16.h in {}", dir);
    tried += (tried.empty() ? "" : ", ") + dir;
  }
  throw Error("CUDA headers not found (no cuda_fp16.h in " +
              (tried.empty() ? std::string("any dir") : tried) + "): set CUDA_HOME to the CUDA toolkit");
}

Compiler::Compiler(std::vector<std::string> include_dirs) : include_dirs_(std::move(include_dirs)) {
  // NVRTC reuses the CUDA JIT cache, and a hit there leaves ptxas's resource report (registers, spills) out
  // of the log (seen on an H100 machine: a second compile of a source logged nothing). The database is our
  // compile cache, so NVRTC's is turned off for this process.
  setenv("CUDA_CACHE_DISABLE", "1", 1);
}

std::vector<std::string> Compiler::effective_options(const CompileRequest& request) const {
  std::vector<std::string> options{"--gpu-architecture=" + request.arch};
  for (const auto& dir : include_dirs_) options.push_back("-I" + dir);
  options.push_back("-Xptxas=-v");
  options.push_back("-lineinfo");
  // Automatic precompiled headers: the headers every variant includes are parsed once per compiler process
  // (render_source puts them ahead of the parameters). Quiet, so that logs do not name scratch folders.
  options.push_back("--pch");
  options.push_back("--pch-messages=false");
  options.push_back("--pch-verbose=false");
  options.insert(options.end(), request.options.begin(), request.options.end());
  return options;
}

// The include folders say where the toolkit is installed, not what is compiled (its headers come with the
// NVRTC version, which the key holds): left out, hosts with the toolkit in different places share compiles.
std::string Compiler::options_key(const CompileRequest& request) const {
  std::string key = "nvrtc=" + nvrtc_version();
  for (const auto& option : effective_options(request)) {
    const bool toolkit_dir = std::any_of(include_dirs_.begin(), include_dirs_.end(),
                                         [&option](const std::string& dir) { return option == "-I" + dir; });
    if (!toolkit_dir) key += ' ' + option;
  }
  return key;
}

std::string Compiler::nvrtc_version() {
  int major = 0;
  int minor = 0;
  cuda::check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

CompileResult Compiler::compile(const CompileRequest& request,
                                const std::filesystem::path& scratch_dir) const {
  const auto start = std::chrono::steady_clock::now();
  CompileResult result;
  result.info.arch = request.arch;
  try {
    const TimeFile time_file(scratch_dir);
    std::vector<std::string> options = effective_options(request);
    if (!scratch_dir.empty()) options.push_back("--pch-dir=" + scratch_dir.string());
    options.push_back("--time=" + time_file.path().string());
    const std::string file_name = request.file_name.empty() ? "kernel.cu" : request.file_name;
    std::optional<cuda::NvrtcProgram> compiling;
    compiling.emplace(request.source, file_name);
    nvrtcResult compiled = compiling->compile(options);
    if (failed_for_helpers(compiled, *compiling)) {
      // The timing report and precompiled headers change no cubin, so they are never a reason to fail (an
      // unwritable or full temp folder, an NVRTC without --time): compile again without them.
      spdlog::debug("NVRTC failed with a timing report or precompiled headers ({}); compiling without them",
                    nvrtcGetErrorString(compiled));
      std::erase_if(options, is_helper_option);
      compiling.emplace(request.source, file_name);
      compiled = compiling->compile(options);
    }
    const cuda::NvrtcProgram& program = *compiling;
    const std::string log = program.log();
    CompileInfo usage = parse_ptxas_log(log, request.kernel_name);
    usage.arch = request.arch;
    usage.log = log;
    result.info = std::move(usage);
    result.info.phases = read_nvrtc_time(time_file.path());
    if (compiled == NVRTC_SUCCESS) {
      result.cubin = program.cubin();
      if (result.cubin.empty()) {
        result.status = Status::compile_error;
        result.message = "no cubin for arch '" + request.arch + "' (need a real arch such as sm_90)";
      }
    } else if (compiled == NVRTC_ERROR_COMPILATION) {
      const CompileFailure failure = diagnose_failure(log, result.info);
      result.status = failure.status;
      result.message = failure.message;
    } else {
      cuda::check(compiled, "nvrtcCompileProgram");
    }
  } catch (const cuda::NvrtcError& e) {
    result.status = Status::compile_error;
    result.message = e.what();
    if (const auto end = result.info.log.find('\n'); !result.info.log.empty())
      result.message += ": " + result.info.log.substr(0, end);
    result.cubin.clear();
  }
  result.info.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace evotune
