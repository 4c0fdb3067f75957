// GpuEvaluator on a real GPU: every status a variant can end with, recovery after a fault, timing.
#include <gtest/gtest.h>

#include "compile/compiler.hpp"
#include "cuda/driver.hpp"
#include "cuda/resources.hpp"
#include "eval/gpu_evaluator.hpp"
#include "gpu/saxpy_launch.hpp"

namespace evotune {
namespace {

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

  std::unique_ptr<Compiler> compiler_;
  std::string arch_;
};

const std::string kCorrect = "out[i] = a * x[i] + y[i];";

TEST_F(Evaluator, CorrectVariantIsOkAndTimed) {
  auto evaluator = make_evaluator();
  const Outcome outcome = evaluator->evaluate(variant(kCorrect), 1234);
  ASSERT_EQ(outcome.status, Status::ok) << outcome.message;
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(outcome.error->max_abs, 0);
  EXPECT_EQ(outcome.error->non_finite, 0);
  EXPECT_EQ(outcome.error->elements, kN);
  ASSERT_TRUE(outcome.timing.has_value());
  const TimingStats& t = *outcome.timing;
  std::printf(
      "saxpy n=%d: median %.2f us, min %.2f, p20 %.2f, p80 %.2f, stddev %.2f; validate %.1f ms, bench %.1f "
      "ms\n",
      kN, t.median_us, t.min_us, t.p20_us, t.p80_us, t.stddev_us, outcome.validate_ms, outcome.bench_ms);
  EXPECT_EQ(t.samples, 10);
  EXPECT_GT(t.min_us, 0);
  EXPECT_LE(t.min_us, t.p20_us);
  EXPECT_LE(t.p20_us, t.median_us);
  EXPECT_LE(t.median_us, t.p80_us);
  EXPECT_LT(t.median_us, 10000);
  EXPECT_EQ(outcome.validation_seed, 1234u);
  EXPECT_GT(outcome.validate_ms, 0);
  EXPECT_GT(outcome.bench_ms, 0);
  EXPECT_TRUE(evaluator->healthy());
  EXPECT_EQ(evaluator->device().arch(), arch_);
}

TEST_F(Evaluator, GraphTimingReplaysSeveralExecutionsAndARetimingSkipsValidation) {
  const EvalSettings settings{
      .warmup = 3, .repetitions = 10, .flush_l2 = true, .timeout_ms = 10000, .timing = TimingMode::graph};
  auto evaluator = make_evaluator(settings);
  const Outcome graph = evaluator->evaluate(variant(kCorrect), 1234);
  ASSERT_EQ(graph.status, Status::ok) << graph.message;
  ASSERT_TRUE(graph.timing && graph.timing->method);
  const TimingMethod& method = *graph.timing->method;
  EXPECT_TRUE(method.graph) << method.fallback;
  EXPECT_GE(method.graph_executions, 1);
  EXPECT_LE(method.graph_executions, kGraphMaxExecutions);
  EXPECT_TRUE(method.flush_l2);
  EXPECT_EQ(graph.timing->samples, 10);
  EXPECT_GT(graph.timing->min_us, 0);
  std::printf("saxpy n=%d as a graph of %d: median %.2f us\n", kN, method.graph_executions,
              graph.timing->median_us);

  // A retiming times on the seed's inputs and checks nothing: even a wrong variant comes back ok and timed.
  const Outcome retimed = evaluator->evaluate(variant("out[i] = 0.0f;"), 1234, {}, true);
  ASSERT_EQ(retimed.status, Status::ok) << retimed.message;
  EXPECT_TRUE(retimed.timing);
  EXPECT_FALSE(retimed.error);
  EXPECT_EQ(retimed.validation_rounds, 0);
  EXPECT_TRUE(evaluator->healthy());
}

// --warmup-ms: the variant runs back to back for that long before it is timed, in either mode; the timing
// phase (bench_ms) then lasts at least as long, and the samples are the usual ones.
TEST_F(Evaluator, SustainedWarmupRunsTheVariantThatLongBeforeTiming) {
  for (const TimingMode mode : {TimingMode::single, TimingMode::graph}) {
    EvalSettings settings{
        .warmup = 3, .repetitions = 10, .flush_l2 = true, .timeout_ms = 10000, .timing = mode};
    const Outcome quick = make_evaluator(settings)->evaluate(variant(kCorrect), 1);
    settings.warmup_ms = 400;
    const Outcome sustained = make_evaluator(settings)->evaluate(variant(kCorrect), 1);
    ASSERT_EQ(quick.status, Status::ok) << quick.message;
    ASSERT_EQ(sustained.status, Status::ok) << sustained.message;
    std::printf(
        "%s: bench %.1f ms without the sustained warm-up, %.1f ms with 400 ms; median %.2f / %.2f us\n",
        std::string(to_string(mode)).c_str(), quick.bench_ms, sustained.bench_ms, quick.timing->median_us,
        sustained.timing->median_us);
    EXPECT_LT(quick.bench_ms, 200) << to_string(mode);
    EXPECT_GE(sustained.bench_ms, 400) << to_string(mode);
    EXPECT_LT(sustained.bench_ms, 2000) << to_string(mode);
    EXPECT_EQ(sustained.timing->samples, 10);
  }
}

// A cut (tune --cut-slow: a multiple of the best time so far): a variant whose warm-up executions are slower
// is validated as ever, then timed from those alone (no sustained warm-up, no repetitions, no L2 flush, and
// the method says why); one under the cut is timed in full.
TEST_F(Evaluator, AVariantPastTheCutIsTimedFromItsWarmupAlone) {
  for (const TimingMode mode : {TimingMode::single, TimingMode::graph, TimingMode::automatic}) {
    EvalSettings settings{
        .warmup = 3, .repetitions = 10, .flush_l2 = true, .timeout_ms = 10000, .timing = mode};
    settings.warmup_ms = 300;
    auto evaluator = make_evaluator(settings);
    const Outcome full = evaluator->evaluate(variant(kCorrect), 1);
    ASSERT_EQ(full.status, Status::ok) << full.message;
    const double best_us = full.timing->median_us;
    // The same variant against a cut far above it: timed in full.
    const Outcome under = evaluator->evaluate(variant(kCorrect), 2, {}, false, 1e6);
    ASSERT_EQ(under.status, Status::ok) << under.message;
    EXPECT_EQ(under.timing->samples, 10);
    EXPECT_TRUE(under.timing->method->cut.empty());
    // A variant far slower (20,000 dependent multiply-adds per element), cut at twice the best.
    const std::string slow =
        "float s = 0.0f; for (int k = 0; k < 20000; ++k) s = s * 0.5f + x[i]; out[i] = a * x[i] + y[i] + "
        "(s == 12345.0f ? 1.0f : 0.0f);";
    const Outcome cut = evaluator->evaluate(variant(slow), 3, {}, false, 2 * best_us);
    ASSERT_EQ(cut.status, Status::ok) << cut.message;
    ASSERT_TRUE(cut.timing && cut.timing->method);
    std::printf(
        "%s: best %.2f us (bench %.1f ms); slow variant cut: median %.2f us over %d warm-ups (bench "
        "%.1f ms): %s\n",
        std::string(to_string(mode)).c_str(), best_us, full.bench_ms, cut.timing->median_us,
        cut.timing->samples, cut.bench_ms, cut.timing->method->cut.c_str());
    EXPECT_FALSE(cut.timing->method->cut.empty()) << to_string(mode);
    EXPECT_EQ(cut.timing->samples, 3);
    EXPECT_FALSE(cut.timing->method->flush_l2);
    EXPECT_GT(cut.timing->min_us, 2 * best_us);
    EXPECT_GE(full.bench_ms, 300);  // the sustained warm-up ran for the full timing
    EXPECT_LT(cut.bench_ms, 200);   // and not for the cut one
    EXPECT_EQ(cut.validation_rounds, full.validation_rounds);  // validated all the same
  }
}

TEST_F(Evaluator, UnwrittenElementsAreNan) {
  auto evaluator = make_evaluator();
  const Outcome outcome = evaluator->evaluate(variant("if (i % 7 != 0) out[i] = a * x[i] + y[i];"), 1);
  EXPECT_EQ(outcome.status, Status::nan) << outcome.message;
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(outcome.error->non_finite, (kN + 6) / 7);
  EXPECT_FALSE(outcome.timing.has_value());
  EXPECT_NE(outcome.message.find("NaN"), std::string::npos) << outcome.message;
}

// SpecialFills add validation rounds on inputs a [-1, 1] fill never gives: a kernel that clamps large values
// passes the random rounds and fails the special one, which the reason names.
TEST_F(Evaluator, SpecialFillsCatchWhatRandomInputsMiss) {
  const std::vector<FillSpec> large{{FillSpec::Kind::random_uniform, -1000, 1000, 0},
                                    {FillSpec::Kind::constant, 0, 0, 0}};
  auto evaluator = make_evaluator({3, 10, true, 10000}, large);
  const Outcome clamped = evaluator->evaluate(variant("out[i] = fminf(a * x[i], 100.0f) + y[i];"), 1);
  EXPECT_EQ(clamped.status, Status::wrong_result) << clamped.message;
  EXPECT_NE(clamped.message.find("special inputs 1 of 2: x in [-1e+03, 1e+03]"), std::string::npos)
      << clamped.message;
  const Outcome correct = evaluator->evaluate(variant(kCorrect), 1);
  EXPECT_EQ(correct.status, Status::ok) << correct.message;
  EXPECT_EQ(correct.validation_rounds, 2 + 2);
  EXPECT_EQ(make_evaluator()->evaluate(variant("out[i] = fminf(a * x[i], 100.0f) + y[i];"), 1).status,
            Status::ok)
      << "without special fills the clamp goes unseen";
}

TEST_F(Evaluator, WrongValuesAreWrongResult) {
  auto evaluator = make_evaluator();
  const Outcome outcome = evaluator->evaluate(variant("out[i] = a * x[i] + 1.001f * y[i];"), 1);
  EXPECT_EQ(outcome.status, Status::wrong_result) << outcome.message;
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_GT(outcome.error->max_abs, 1e-5);
  EXPECT_EQ(outcome.error->non_finite, 0);
  EXPECT_NE(outcome.message.find("max_abs"), std::string::npos) << outcome.message;
}

// The driver documents CUDA_ERROR_ILLEGAL_ADDRESS as poisoning the process; the evaluator resets the
// context and either runs the next variant clean or reports itself unhealthy, never a wrong verdict.
// Run this test in its own process: a poisoned driver fails every later test.
TEST_F(Evaluator, FaultIsLaunchErrorThenRecoveryOrUnhealthy) {
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

}  // namespace
}  // namespace evotune
