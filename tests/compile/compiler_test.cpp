// NVRTC compilation on the CPU: cubins, resource usage, failures as values, include-dir discovery.
#include "compile/compiler.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "core/error.hpp"
#include "support/scoped_env.hpp"

namespace evotune {
namespace compiler_test {

const char* kSaxpy = R"(
extern "C" __global__ void saxpy(float* y, const float* x, float a, int n) {
  __shared__ float tile[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) y[i] = a * tile[255 - threadIdx.x] + y[i];
}
)";

CompileRequest saxpy_request(const std::string& arch) {
  return {kSaxpy, "saxpy.cu", "saxpy", arch, {"-std=c++17"}};
}

Compiler make_compiler() { return Compiler(cuda_include_dirs()); }

TEST(Compiler, CompilesForSm80AndSm90) {
  const Compiler compiler = make_compiler();
  for (const std::string arch : {"sm_80", "sm_90", "sm_90a"}) {
    const CompileResult result = compiler.compile(saxpy_request(arch));
    ASSERT_EQ(result.status, Status::ok) << arch << ": " << result.message << "\n" << result.info.log;
    EXPECT_FALSE(result.cubin.empty()) << arch;
    EXPECT_EQ(result.cubin.substr(0, 4),
              "\x7f"
              "ELF")
        << arch;
    EXPECT_GT(result.info.registers, 0) << arch;
    EXPECT_EQ(result.info.static_smem_bytes, 256 * 4) << arch;
    EXPECT_EQ(result.info.spill_store_bytes, 0) << arch;
    EXPECT_EQ(result.info.arch, arch);
    EXPECT_GT(result.info.compile_ms, 0.0);
    EXPECT_NE(result.info.log.find("ptxas info"), std::string::npos);
  }
}

TEST(Compiler, SyntaxErrorIsACompileError) {
  CompileRequest request = saxpy_request("sm_90");
  request.source = "extern \"C\" __global__ void bad(float* y) { y[0] = 1 }\n";
  request.kernel_name = "bad";
  const CompileResult result = make_compiler().compile(request);
  EXPECT_EQ(result.status, Status::compile_error);
  EXPECT_NE(result.message.find("error"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("expected a \";\""), std::string::npos) << result.message;
  EXPECT_TRUE(result.cubin.empty());
  EXPECT_FALSE(result.info.log.empty());
}

TEST(Compiler, HugeStaticSharedArrayIsAResourceError) {
  CompileRequest request = saxpy_request("sm_90");
  request.source = R"(
extern "C" __global__ void big(float* y) {
  __shared__ float s[300 * 256];  // 300 KB
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  y[threadIdx.x] = s[threadIdx.x + 7];
})";
  request.kernel_name = "big";
  const CompileResult result = make_compiler().compile(request);
  EXPECT_EQ(result.status, Status::resource_error) << result.message << "\n" << result.info.log;
  // ptxas's reason follows a NUL byte in NVRTC's log: it must reach the message as clean text.
  EXPECT_NE(result.message.find("uses too much shared data"), std::string::npos) << result.message;
  EXPECT_EQ(result.message.find('\0'), std::string::npos);
  EXPECT_EQ(result.info.log.find('\0'), std::string::npos);
  EXPECT_NE(result.info.log.find("Compiling entry function 'big'"), std::string::npos);
  EXPECT_EQ(result.info.static_smem_bytes, 300 * 1024);
}

TEST(Compiler, BadOptionIsACompileErrorNotAThrow) {
  CompileRequest request = saxpy_request("sm_90");
  request.options.push_back("--no-such-option");
  const CompileResult result = make_compiler().compile(request);
  EXPECT_EQ(result.status, Status::compile_error);
  EXPECT_NE(result.message.find("NVRTC_ERROR_INVALID_OPTION"), std::string::npos) << result.message;
}

TEST(Compiler, Fp16AndCcclPipelineHeadersCompile) {
  CompileRequest request = saxpy_request("sm_90");
  request.source = R"(
#include <cuda_fp16.h>
#include <cuda/pipeline>
extern "C" __global__ void halve(half* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hmul(y[i], __float2half(0.5f));
})";
  request.kernel_name = "halve";
  const CompileResult result = make_compiler().compile(request);
  EXPECT_EQ(result.status, Status::ok) << result.message << "\n" << result.info.log;
  EXPECT_FALSE(result.cubin.empty());
}

TEST(Compiler, CompilesFromSeveralThreads) {
  const Compiler compiler = make_compiler();
  std::vector<CompileResult> results(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < results.size(); ++t)
    threads.emplace_back([&, t] { results[t] = compiler.compile(saxpy_request(t % 2 ? "sm_80" : "sm_90")); });
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) {
    EXPECT_EQ(result.status, Status::ok) << result.message;
    EXPECT_GT(result.info.registers, 0);
  }
}

TEST(Compiler, ReportsThePhaseTimesAndLeavesNoTimingFile) {
  const auto count_time_files = [] {
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
      files += entry.path().filename().string().rfind("evotune-nvrtc-time-" + std::to_string(getpid()) + "-",
                                                      0) == 0;
    return files;
  };
  const CompileResult result = make_compiler().compile(saxpy_request("sm_90"));
  ASSERT_EQ(result.status, Status::ok) << result.message;
  ASSERT_TRUE(result.info.phases);
  EXPECT_GT(result.info.phases->frontend_ms, 0);
  EXPECT_GE(result.info.phases->nvvm_ms, 0);
  EXPECT_GE(result.info.phases->ptxas_ms, 0);
  EXPECT_LE(result.info.phases->frontend_ms + result.info.phases->nvvm_ms + result.info.phases->ptxas_ms,
            result.info.compile_ms + 3);  // whole milliseconds, rounded
  EXPECT_EQ(result.info.log.find("Frontend"), std::string::npos) << result.info.log;
  EXPECT_EQ(count_time_files(), 0);
}

// An unwritable (or full) temp folder costs the phase times, never the compile: also in a process that has
// compiled before, where NVRTC holds a precompiled header and its front end then wants a temporary file
// ("cannot open temporary file" had failed such compiles, in a compiler process that outlived a full /tmp).
TEST(Compiler, UnwritableTimingFileCostsOnlyThePhaseTimes) {
  ASSERT_EQ(make_compiler().compile(saxpy_request("sm_90")).status, Status::ok);  // with TMPDIR as it is
  const CompileResult result = [] {
    const test::ScopedEnv tmpdir("TMPDIR",
                                 "/proc");  // a folder where no file can be created, not even by root
    return make_compiler().compile(saxpy_request("sm_90"));
  }();
  EXPECT_EQ(result.status, Status::ok) << result.message << "\n" << result.info.log;
  EXPECT_FALSE(result.cubin.empty());
  EXPECT_GT(result.info.registers, 0);
  EXPECT_FALSE(result.info.phases);
}

TEST(Compiler, OptionsKeyIsStableAndDistinguishesOptions) {
  const Compiler compiler({"/opt/cuda/include"});
  const CompileRequest request = saxpy_request("sm_90");
  const std::string key = compiler.options_key(request);
  EXPECT_EQ(key, compiler.options_key(request));
  EXPECT_EQ(key, "nvrtc=" + Compiler::nvrtc_version() +
                     " --gpu-architecture=sm_90 -Xptxas=-v -lineinfo --pch --pch-messages=false "
                     "--pch-verbose=false -std=c++17");
  EXPECT_NE(key, compiler.options_key(saxpy_request("sm_90a")));
  CompileRequest other_source = request;
  other_source.source = "different";
  EXPECT_EQ(key, compiler.options_key(other_source));
}

// Hosts sharing a compile cache may have the toolkit in different places: the key must not say where.
TEST(Compiler, OptionsKeyDoesNotDependOnWhereTheToolkitIs) {
  const CompileRequest request = saxpy_request("sm_90");
  EXPECT_EQ(
      Compiler({"/opt/cuda/include"}).options_key(request),
      Compiler({"/usr/local/cuda-13.0/targets/x86_64-linux/include", "/home/me/cccl"}).options_key(request));
}

TEST(Compiler, NvrtcVersionIsMajorDotMinor) {
  const std::string version = Compiler::nvrtc_version();
  EXPECT_NE(version.find('.'), std::string::npos);
  EXPECT_GE(std::stoi(version), 12);
}

using test::ScopedEnv;

TEST(IncludeDirs, HonoursCudaHome) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "evotune_fake_cuda_home";
  fs::remove_all(root);
  fs::create_directories(root / "include" / "cccl");
  std::ofstream(root / "include" / "cuda_fp16.h") << "// fake\n";
  ScopedEnv home("CUDA_HOME", root.string());
  const auto dirs = cuda_include_dirs();
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], (root / "include").string());
  EXPECT_EQ(dirs[1], (root / "include" / "cccl").string());
  fs::remove_all(root);
}

TEST(IncludeDirs, SkipsADirWithoutHeaders) {
  ScopedEnv home("CUDA_HOME", "/nonexistent/cuda");
  const auto dirs = cuda_include_dirs();
  ASSERT_FALSE(dirs.empty());
  EXPECT_NE(dirs[0], "/nonexistent/cuda/include");
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dirs[0]) / "cuda_fp16.h"));
}

TEST(IncludeDirs, NoHeadersAnywhereThrowsNamingTheDirs) {
  try {
    cuda_include_dirs({"/nonexistent/a/include", "/nonexistent/b/include"});
    FAIL() << "expected Error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("/nonexistent/a/include"), std::string::npos) << message;
    EXPECT_NE(message.find("/nonexistent/b/include"), std::string::npos) << message;
    EXPECT_NE(message.find("CUDA_HOME"), std::string::npos) << message;
  }
}

}  // namespace compiler_test
}  // namespace evotune
