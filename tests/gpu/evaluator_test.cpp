// GpuEvaluator on a real GPU: every status a variant can end with, recovery after a fault, timing.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "compile/compiler.hpp"
#include "cuda/driver.hpp"
#include "cuda/resources.hpp"
#include "eval/gpu_evaluator.hpp"
#include "gpu/saxpy_launch.hpp"

namespace evotune {
namespace evaluator_test {

constexpr int kN = 1 << 20;

class Evaluator : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
    compiler_ = std::make_unique<Compiler>(cuda_include_dirs());
    arch_ = cuda::query_device(0).arch();
  }

  std::string compile(const std::string& source, const std::string& kernel) const {
    const CompileResult result = compiler_->compile({source, kernel + ".cu", kernel, arch_, {"-std=c++17"}});
    EXPECT_EQ(result.status, Status::ok) << result.message << "\n" << result.info.log;
    return result.cubin;
  }

  static LaunchSpec saxpy_launch(const std::string& kernel, unsigned block) {
    return gpu_test::saxpy_launch(kernel, block, kN);
  }

  std::unique_ptr<GpuEvaluator> make_evaluator(
      EvalSettings settings = {.warmup = 3, .repetitions = 10, .flush_l2 = true, .timeout_ms = 10000},
      std::vector<FillSpec> x_special_fills = {}) const {
    std::vector<BufferSpec> buffers{{"x", DType::f32, kN, true, false, {}, std::move(x_special_fills), {}},
                                    {"y", DType::f32, kN, true, false, {}, {}, {}},
                                    {"out", DType::f32, kN, false, true, {}, {}, {}}};
    CompiledKernel reference{compile(gpu_test::kSaxpyReference, "saxpy_ref"), saxpy_launch("saxpy_ref", 256)};
    return std::make_unique<GpuEvaluator>(0, buffers, reference, Tolerances{1e-5, 1e-6}, settings,
                                          compiler_->include_dirs());
  }

  // A variant whose body (inside `if (i < n)`, i being the global index) is `body`.
  CompiledKernel variant(const std::string& body, unsigned block = 128,
                         std::uint32_t dynamic_smem = 0) const {
    const std::string source =
        "extern \"C\" __global__ void v(float* out, const float* x, const float* y, float a, int n) {\n"
        "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) { " +
        body + " }\n}\n";
    CompiledKernel kernel{compile(source, "v"), saxpy_launch("v", block)};
    kernel.launch.dynamic_smem_bytes = dynamic_smem;
    return kernel;
  }

  // The bodies of the two tests that break the CUDA context on purpose (each run in_own_process).
  void fault_then_recovery_or_unhealthy();
  void infinite_loop_times_out();

  std::unique_ptr<Compiler> compiler_;
  std::string arch_;
};

const std::string kCorrect = "out[i] = a * x[i] + y[i];";

// `scenario` (a test body of EXPECTs) with its results captured: each failure to stderr; the exit status a
// child process ends with (0: none failed).
template <typename Scenario>
int run_in_child(Scenario scenario) {
  ::testing::TestPartResultArray results;
  {
    const ::testing::ScopedFakeTestPartResultReporter capture(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ALL_THREADS, &results);
    scenario();
  }
  int failed = 0;
  for (int i = 0; i < results.size(); ++i) {
    const ::testing::TestPartResult& result = results.GetTestPartResult(i);
    if (!result.failed()) continue;
    ++failed;
    std::fprintf(stderr, "%s:%d: %s\n", result.file_name() ? result.file_name() : "?", result.line_number(),
                 result.message());
  }
  std::fflush(stdout);
  return failed ? 1 : 0;
}

// Runs `scenario` in a process of its own: gtest runs this binary again for this test alone (the
// "threadsafe" death-test style: a fresh process, not a fork of this one's CUDA state), and the child's
// failed expectations come back as its stderr and exit status. A variant that faults or hangs on purpose
// breaks its process's CUDA context, which every later test of a whole-binary run would otherwise share
// (under ctest each test has a process of its own anyway).
template <typename Scenario>
void in_own_process(Scenario scenario) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(run_in_child(scenario)), ::testing::ExitedWithCode(0), "");
}

TEST_F(Evaluator, FaultIsLaunchErrorThenRecoveryOrUnhealthy) {
  in_own_process([&] { fault_then_recovery_or_unhealthy(); });
}

void Evaluator::fault_then_recovery_or_unhealthy() {
  auto evaluator = make_evaluator();
  const Outcome fault = evaluator->evaluate(variant("out[i + (1LL << 36)] = 1.0f;"), 5);
  EXPECT_EQ(fault.status, Status::launch_error);
  EXPECT_NE(fault.message.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << fault.message;
  std::printf("fault message: %s; healthy after: %d (%s)\n", fault.message.c_str(), evaluator->healthy(),
              evaluator->unhealthy_reason().c_str());
  if (!evaluator->healthy()) {
    EXPECT_NE(evaluator->unhealthy_reason().find("restart"), std::string::npos)
        << evaluator->unhealthy_reason();
    const Outcome refused = evaluator->evaluate(variant(kCorrect), 5);
    EXPECT_EQ(refused.status, Status::launch_error);
    EXPECT_NE(refused.message.find("unusable"), std::string::npos) << refused.message;
    return;
  }
  for (const std::uint64_t seed : {5u, 6u}) {
    const Outcome next = evaluator->evaluate(variant(kCorrect), seed);
    EXPECT_EQ(next.status, Status::ok) << next.message;
    EXPECT_TRUE(next.timing.has_value());
  }
}

TEST_F(Evaluator, TooMuchDynamicSharedMemoryIsAResourceError) {
  auto evaluator = make_evaluator();
  const std::uint32_t too_much = static_cast<std::uint32_t>(evaluator->device().max_smem_per_block) + 1024;
  const Outcome outcome = evaluator->evaluate(variant(kCorrect, 128, too_much), 1);
  EXPECT_EQ(outcome.status, Status::resource_error) << outcome.message;
  EXPECT_NE(outcome.message.find("shared memory"), std::string::npos) << outcome.message;
}

TEST_F(Evaluator, LargeButAllowedDynamicSharedMemoryRuns) {
  auto evaluator = make_evaluator();
  const Outcome outcome = evaluator->evaluate(variant(kCorrect, 128, 100 * 1024), 1);
  EXPECT_EQ(outcome.status, Status::ok) << outcome.message;
}

// Static and dynamic shared memory together above 48 KB need the opt-in even when the dynamic part alone is
// 48 KB (the autotuning suite's GEMM: 49152 dynamic bytes beside its static tiles).
TEST_F(Evaluator, StaticBesideFortyEightKilobytesOfDynamicSharedMemoryRuns) {
  auto evaluator = make_evaluator();
  const std::string body =
      "__shared__ float tile[4096]; volatile float* staged = tile; staged[threadIdx.x] = x[i]; "
      "out[i] = a * staged[threadIdx.x] + y[i];";
  const Outcome outcome = evaluator->evaluate(variant(body, 128, 48 * 1024), 1);
  EXPECT_EQ(outcome.status, Status::ok) << outcome.message;
}

// A launch whose arguments are not the kernel's parameters is a launch_error naming both counts, before
// anything runs on garbage (the suite's pnpoly file passes four arguments to a kernel of three).
TEST_F(Evaluator, ArgumentsThatAreNotTheKernelsParametersAreALaunchError) {
  auto evaluator = make_evaluator();
  CompiledKernel missing_n = variant(kCorrect);
  missing_n.launch.args.pop_back();
  const Outcome fewer = evaluator->evaluate(missing_n, 1);
  EXPECT_EQ(fewer.status, Status::launch_error) << fewer.message;
  EXPECT_NE(fewer.message.find("takes more than 4 parameters; the launch passes 4 arguments"),
            std::string::npos)
      << fewer.message;
  CompiledKernel wide_n = variant(kCorrect);
  wide_n.launch.args.back().dtype = DType::i64;
  const Outcome wider = evaluator->evaluate(wide_n, 1);
  EXPECT_EQ(wider.status, Status::launch_error) << wider.message;
  EXPECT_NE(wider.message.find("parameter 5 is 4 bytes; argument 'n' is 8"), std::string::npos)
      << wider.message;
}

// A buffer with a constant symbol is copied into that __constant__ variable of each module before its
// launches (T1's MemType Constant): a variant reading the table from constant memory matches a reference
// reading it through its pointer; a variant without the variable is told so.
TEST_F(Evaluator, ConstantSymbolBuffersReachConstantMemory) {
  constexpr int kTable = 1024;
  const char* reference_source = R"(
extern "C" __global__ void scale_ref(float* out, const float* table, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * table[i];
})";
  const char* constant_source = R"(
__constant__ float table_constant[1024];
extern "C" __global__ void scale(float* out, const float* table, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * table_constant[i];
})";
  const char* no_symbol_source = R"(
extern "C" __global__ void scale(float* out, const float* table, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * table[i];
})";
  auto launch_of = [&](const std::string& kernel) {
    LaunchSpec launch;
    launch.kernel_name = kernel;
    launch.grid = {kTable / 128, 1, 1};
    launch.block = {128, 1, 1};
    launch.args = {{ArgSpec::Kind::buffer, "out", DType::f32, 0, {}},
                   {ArgSpec::Kind::buffer, "table", DType::f32, 0, {}},
                   {ArgSpec::Kind::scalar, "n", DType::i32, kTable, {}}};
    return launch;
  };
  std::vector<BufferSpec> buffers{{"table", DType::f32, kTable, true, false, {}, {}, "table_constant"},
                                  {"out", DType::f32, kTable, false, true, {}, {}, {}}};
  // No constant symbol named: the variant reads zeros from its constant memory, which is wrong.
  buffers[0].constant_symbol.clear();
  GpuEvaluator plain(0, buffers, {compile(reference_source, "scale_ref"), launch_of("scale_ref")},
                     Tolerances{1e-6, 1e-6}, {1, 5, false, 10000}, compiler_->include_dirs());
  EXPECT_EQ(plain.evaluate({compile(constant_source, "scale"), launch_of("scale")}, 3).status,
            Status::wrong_result);
  buffers[0].constant_symbol = "table_constant";
  const CompiledKernel reference_with_symbol{compile(constant_source, "scale"), launch_of("scale")};
  GpuEvaluator copying(0, buffers, reference_with_symbol, Tolerances{1e-6, 1e-6}, {1, 5, false, 10000},
                       compiler_->include_dirs());
  const Outcome through_constant =
      copying.evaluate({compile(constant_source, "scale"), launch_of("scale")}, 3);
  EXPECT_EQ(through_constant.status, Status::ok) << through_constant.message;
  const Outcome through_pointer =
      copying.evaluate({compile(no_symbol_source, "scale"), launch_of("scale")}, 3);
  EXPECT_EQ(through_pointer.status, Status::launch_error) << through_pointer.message;
  EXPECT_NE(through_pointer.message.find("no __constant__ variable 'table_constant'"), std::string::npos)
      << through_pointer.message;
}

// A kernel that is not extern "C" is found by its C++ mangling (BAT's pnpoly declares its kernel so).
TEST_F(Evaluator, ACppKernelIsFoundByItsMangledSymbol) {
  auto evaluator = make_evaluator();
  std::string source = gpu_test::kSaxpyReference;  // the reference kernel without its extern "C"
  source.erase(source.find("extern \"C\" "), std::string("extern \"C\" ").size());
  const Outcome outcome =
      evaluator->evaluate({compile(source, "saxpy_ref"), saxpy_launch("saxpy_ref", 256)}, 2);
  EXPECT_EQ(outcome.status, Status::ok) << outcome.message;
}

TEST_F(Evaluator, BlockOverTheKernelsThreadLimitIsAResourceError) {
  auto evaluator = make_evaluator();
  const std::string source =
      "extern \"C\" __global__ void __launch_bounds__(128) v(float* out, const float* x, const float* y, "
      "float a,"
      " int n) { const int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = a * x[i] + y[i]; }";
  CompiledKernel kernel{compile(source, "v"), saxpy_launch("v", 256)};
  const Outcome outcome = evaluator->evaluate(kernel, 1);
  EXPECT_EQ(outcome.status, Status::resource_error) << outcome.message;
  EXPECT_NE(outcome.message.find("threads"), std::string::npos) << outcome.message;
}

TEST_F(Evaluator, MissingKernelAndBadCubinAreLaunchErrors) {
  auto evaluator = make_evaluator();
  CompiledKernel renamed = variant(kCorrect);
  renamed.launch.kernel_name = "not_there";
  const Outcome missing = evaluator->evaluate(renamed, 1);
  EXPECT_EQ(missing.status, Status::launch_error);
  EXPECT_NE(missing.message.find("not_there"), std::string::npos) << missing.message;

  CompiledKernel garbage{"this is not a cubin", saxpy_launch("v", 128)};
  const Outcome bad = evaluator->evaluate(garbage, 1);
  EXPECT_EQ(bad.status, Status::launch_error) << bad.message;
  EXPECT_EQ(evaluator->evaluate(variant(kCorrect), 1).status, Status::ok);
}

TEST_F(Evaluator, ReadWriteBufferAndHalfScalars) {
  // y = a * x + y in place, in half precision: both copies of y start from the same seeded data.
  const char* source = R"(
#include <cuda_fp16.h>
extern "C" __global__ void axpy_h(half* y, const half* x, half a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hadd(__hmul(a, x[i]), y[i]);
})";
  LaunchSpec launch;
  launch.kernel_name = "axpy_h";
  launch.grid = {kN / 256, 1, 1};
  launch.block = {256, 1, 1};
  launch.args = {{ArgSpec::Kind::buffer, "y", DType::f16, 0, {}},
                 {ArgSpec::Kind::buffer, "x", DType::f16, 0, {}},
                 {ArgSpec::Kind::scalar, "a", DType::f16, 0.5, {}},
                 {ArgSpec::Kind::scalar, "n", DType::i32, kN, {}}};
  std::vector<BufferSpec> buffers{{"x", DType::f16, kN, true, false, {}, {}, {}},
                                  {"y", DType::f16, kN, true, true, {}, {}, {}}};
  GpuEvaluator evaluator(0, buffers, {compile(source, "axpy_h"), launch}, Tolerances{}, {1, 5, false, 10000},
                         compiler_->include_dirs());
  const Outcome same = evaluator.evaluate({compile(source, "axpy_h"), launch}, 9);
  EXPECT_EQ(same.status, Status::ok) << same.message;
  ASSERT_TRUE(same.error.has_value());
  EXPECT_EQ(same.error->max_abs, 0);
  LaunchSpec doubled = launch;
  doubled.args[2].value = 1.0;
  EXPECT_EQ(evaluator.evaluate({compile(source, "axpy_h"), doubled}, 9).status, Status::wrong_result);
}

TEST_F(Evaluator, BrokenReferenceIsASetUpError) {
  std::vector<BufferSpec> buffers{{"out", DType::f32, kN, false, true, {}, {}, {}}};
  LaunchSpec launch = saxpy_launch("saxpy_ref", 256);
  EXPECT_THROW(GpuEvaluator(0, buffers, {compile(gpu_test::kSaxpyReference, "saxpy_ref"), launch}, {}, {},
                            compiler_->include_dirs()),
               Error);  // no x, y
}

TEST_F(Evaluator, InfiniteLoopTimesOut) {
  in_own_process([&] { infinite_loop_times_out(); });
}

void Evaluator::infinite_loop_times_out() {
  auto evaluator = make_evaluator({1, 3, true, 500});
  const Outcome outcome = evaluator->evaluate(
      variant("volatile const float* p = x; while (p[0] < 100.0f) {} out[i] = 0;", 128), 1);
  EXPECT_EQ(outcome.status, Status::timeout) << outcome.message;
  std::printf("timeout message: %s; healthy after: %d (%s)\n", outcome.message.c_str(), evaluator->healthy(),
              evaluator->unhealthy_reason().c_str());
  if (evaluator->healthy()) {
    const Outcome next = evaluator->evaluate(variant(kCorrect), 2);
    EXPECT_EQ(next.status, Status::ok) << next.message;
  } else {
    EXPECT_FALSE(evaluator->unhealthy_reason().empty());
    EXPECT_EQ(evaluator->evaluate(variant(kCorrect), 2).status, Status::launch_error);
  }
}

}  // namespace evaluator_test
}  // namespace evotune
