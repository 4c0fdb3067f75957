// CompileService with compiler threads and with persistent `evotune compile-worker` processes; dying
// children.
#include "compile/compile_service.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "support/run_command.hpp"

namespace evotune {
namespace compile_service_test {

const char* kTinyKernel = R"(extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2; }
)";

CompileRequest request(std::string source = kTinyKernel) {
  return {std::move(source), "tiny.cu", "k", "sm_90", {"-std=c++17"}};
}

std::vector<std::string> compile_worker() { return {test::evotune_binary(), "compile-worker"}; }

const Compiler& compiler() {
  static const Compiler instance(cuda_include_dirs());
  return instance;
}

// Four requests through two compilers at once: a variant of the tiny kernel each.
std::vector<CompileResult> compile_four(CompileService& service) {
  std::vector<std::future<CompileResult>> futures;
  for (int i = 0; i < 4; ++i)
    futures.push_back(service.submit(request("#define SCALE " + std::to_string(i) + "\n" + kTinyKernel)));
  std::vector<CompileResult> results;
  for (auto& future : futures) results.push_back(future.get());
  return results;
}

TEST(CompileService, ThreadsAndChildProcessesGiveTheSameResults) {
  CompileService threads(compiler(), 2, {});
  CompileService children(compiler(), 2, compile_worker());
  EXPECT_EQ(threads.workers(), 2u);
  EXPECT_EQ(children.workers(), 2u);
  const auto in_process = compile_four(threads);
  const auto in_children = compile_four(children);
  ASSERT_EQ(in_children.size(), in_process.size());
  for (std::size_t i = 0; i < in_process.size(); ++i) {
    SCOPED_TRACE(i);
    const CompileResult& a = in_process[i];
    const CompileResult& b = in_children[i];
    ASSERT_EQ(a.status, Status::ok) << a.message;
    ASSERT_EQ(b.status, Status::ok) << b.message;
    EXPECT_EQ(a.cubin.substr(0, 4),
              "\x7f"
              "ELF");
    EXPECT_EQ(b.cubin, a.cubin);
    EXPECT_GT(a.info.registers, 0);
    EXPECT_EQ(b.info.registers, a.info.registers);
    EXPECT_EQ(b.info.arch, "sm_90");
    EXPECT_EQ(b.info.static_smem_bytes, a.info.static_smem_bytes);
    EXPECT_EQ(b.info.spill_store_bytes, a.info.spill_store_bytes);
    EXPECT_NE(b.info.log.find("Used " + std::to_string(b.info.registers) + " registers"), std::string::npos)
        << b.info.log;  // the log itself differs: it holds ptxas's compile time
    EXPECT_GT(b.info.compile_ms, 0);
  }
}

TEST(CompileService, StatsCountCompilesBusyIdleAndTheQueue) {
  for (const auto& command : {std::vector<std::string>{}, compile_worker()}) {
    SCOPED_TRACE(command.empty() ? "threads" : "child processes");
    const auto started = std::chrono::steady_clock::now();
    CompileService service(compiler(), 2, command);
    const CompileStats before = service.stats();
    EXPECT_EQ(before.compilers, 2);
    EXPECT_EQ(before.compiles, 0);
    EXPECT_EQ(before.busy_ms, 0);
    EXPECT_EQ(before.queue_max, 0);
    ASSERT_EQ(before.per_compiler.size(), 2u);

    // Six requests at once for two compilers: at least four of them wait in the queue.
    std::vector<std::future<CompileResult>> futures;
    for (int i = 0; i < 6; ++i)
      futures.push_back(service.submit(request("#define SCALE " + std::to_string(i) + "\n" + kTinyKernel)));
    double compile_ms = 0;
    for (auto& future : futures) {
      const CompileResult result = future.get();
      EXPECT_EQ(result.status, Status::ok) << result.message;
      compile_ms += result.info.compile_ms;
    }
    const CompileStats stats = service.stats();
    const double lifetime_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(stats.compilers, 2);
    EXPECT_EQ(stats.compiles, 6);
    EXPECT_GE(stats.queue_max, 1);
    EXPECT_LE(stats.queue_max, 6);
    EXPECT_GT(stats.queue_wait_ms, 0);  // requests waited while the compilers were busy
    EXPECT_GT(stats.queue_mean, 0);
    EXPECT_LE(stats.queue_mean, 6);
    EXPECT_GE(stats.busy_ms, compile_ms * 0.99);  // a compiler is busy at least as long as NVRTC
    EXPECT_GT(stats.idle_ms, 0);                  // both waited for the first request
    EXPECT_NEAR(stats.busy_ms + stats.idle_ms, 2 * lifetime_ms, 0.05 * 2 * lifetime_ms + 5);
    std::int64_t compiles = 0;
    double busy_ms = 0;
    for (const CompilerLoad& load : stats.per_compiler) {
      compiles += load.compiles;
      busy_ms += load.busy_ms;
    }
    EXPECT_EQ(compiles, 6);
    EXPECT_DOUBLE_EQ(busy_ms, stats.busy_ms);

    // Idle compilers add idle time, nothing else.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const CompileStats later = service.stats();
    EXPECT_EQ(later.compiles, 6);
    EXPECT_EQ(later.busy_ms, stats.busy_ms);
    EXPECT_GE(later.idle_ms, stats.idle_ms + 2 * 19);
    EXPECT_LT(later.queue_mean, stats.queue_mean);
  }
}

// This process's compiler scratch folders (evotune-compile-PID-*) in the temp folder.
int scratch_folders() {
  const std::string prefix = "evotune-compile-" + std::to_string(getpid()) + "-";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    count += entry.path().filename().string().rfind(prefix, 0) == 0;
  return count;
}

TEST(CompileService, PrecompiledHeadersOfKilledCompilersGoWithTheService) {
  const std::string with_header = "#include <cuda_fp16.h>\n" + std::string(kTinyKernel);
  const int before = scratch_folders();
  {
    CompileService service(compiler(), 2, compile_worker());
    EXPECT_EQ(scratch_folders(), before + 1);
    const auto result = service.submit(request(with_header)).get();
    EXPECT_EQ(result.status, Status::ok) << result.message;
    EXPECT_TRUE(result.info.phases);
  }  // the compiler processes are killed, so they cannot remove their precompiled headers themselves
  EXPECT_EQ(scratch_folders(), before);
}

TEST(CompileService, SourceErrorIsACompileErrorWithTheErrorLine) {
  const auto broken = request("extern \"C\" __global__ void k(float* x) {\n  x[0] = undefined_y;\n}\n");
  for (const auto& command : {std::vector<std::string>{}, compile_worker()}) {
    SCOPED_TRACE(command.empty() ? "threads" : "child processes");
    CompileService service(compiler(), 1, command);
    const CompileResult result = service.submit(broken).get();
    EXPECT_EQ(result.status, Status::compile_error);
    EXPECT_NE(result.message.find("undefined_y"), std::string::npos) << result.message;
    EXPECT_NE(result.message.find("tiny.cu(2)"), std::string::npos) << result.message;
    EXPECT_TRUE(result.cubin.empty());
    const CompileResult next = service.submit(request()).get();  // the compiler is still there
    EXPECT_EQ(next.status, Status::ok) << next.message;
  }
}

TEST(CompileService, CompilerThatExitsIsACompileErrorNamingTheExit) {
  CompileService service(compiler(), 1, {"/bin/sh", "-c", "exit 3"});
  // Far beyond a pipe's buffer: the child ends while the request is still being written.
  const auto big = request(std::string(kTinyKernel) + "// " + std::string(1 << 20, 'x') + "\n");
  for (const auto& each : {big, request(), big}) {
    const CompileResult result = service.submit(each).get();
    EXPECT_EQ(result.status, Status::compile_error);
    EXPECT_EQ(result.message, "the compiler process exited with code 3");
    EXPECT_EQ(result.info.arch, "sm_90");
    EXPECT_TRUE(result.cubin.empty());
  }
}

TEST(CompileService, CompilerThatCrashesIsRestartedForTheNextRequest) {
  const auto dir = std::filesystem::temp_directory_path() / ("evotune_crash_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto flag = (dir / "crashed").string();
  // The first child crashes on its first request; every later one is a real compiler.
  const std::string script = "if [ -e " + flag + " ]; then exec " + test::evotune_binary() +
                             " compile-worker; fi; touch " + flag +
                             "; head -c 1 <&3 >/dev/null; kill -SEGV $$";
  {
    CompileService service(compiler(), 1, {"/bin/sh", "-c", script});
    const CompileResult crashed = service.submit(request()).get();
    EXPECT_EQ(crashed.status, Status::compile_error);
    EXPECT_EQ(crashed.message, "the compiler process was killed by signal 11 (SIGSEGV)");
    for (int i = 0; i < 2; ++i) {
      const CompileResult next = service.submit(request()).get();
      EXPECT_EQ(next.status, Status::ok) << next.message;
      EXPECT_FALSE(next.cubin.empty());
      EXPECT_GT(next.info.registers, 0);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(CompileService, ProgramThatCannotStartIsACompileErrorEveryTime) {
  CompileService service(compiler(), 2, {"/nonexistent/evotune", "compile-worker"});
  for (int i = 0; i < 3; ++i) {
    const CompileResult result = service.submit(request()).get();
    EXPECT_EQ(result.status, Status::compile_error);
    EXPECT_EQ(result.message, "the compiler process exited with code 127");
  }
}

}  // namespace compile_service_test
}  // namespace evotune
