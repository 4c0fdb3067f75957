// Energy on a real GPU: NVML's energy counter around a loop of a busy variant gives a power between the idle
// GPU's and its limit, close to what NVML's power reading says meanwhile, and an energy per execution close
// to that power times the execution's measured time.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "compile/compiler.hpp"
#include "cuda/driver.hpp"
#include "cuda/nvml.hpp"
#include "cuda/resources.hpp"
#include "eval/gpu_evaluator.hpp"
#include "gpu/saxpy_launch.hpp"

namespace evotune {
namespace energy_test {

constexpr int kN = 1 << 22;

// Right, and busy: a chain of dependent FMAs per element that the result depends on only in name.
const char* kBusyVariant = R"(
extern "C" __global__ void busy(float* out, const float* x, const float* y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = x[i];
  for (int k = 0; k < 4000; ++k) acc = fmaf(acc, 0.9999f, 1e-4f);
  out[i] = a * x[i] + y[i] + (acc == 12345.678f ? 1.0f : 0.0f);
})";

LaunchSpec saxpy_launch(const std::string& kernel) { return gpu_test::saxpy_launch(kernel, 256, kN); }

double highest(const std::vector<double>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

TEST(EnergyOnTheGpu, PowerIsPlausibleAndEnergyIsAboutPowerTimesTime) {
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  const cuda::Nvml& nvml = cuda::Nvml::system();
  if (!nvml.available()) GTEST_SKIP() << "no NVML: " << nvml.failure();
  const std::string pci = cuda::device_pci_bus_id(0);
  if (!nvml.energy_mj(pci) || !nvml.power_mw(pci))
    GTEST_SKIP() << "NVML reads no energy or power for " << pci;
  const auto state = nvml.read(pci);
  ASSERT_TRUE(state && state->power_limit_mw);
  const double limit_w = *state->power_limit_mw / 1000.0;

  Compiler compiler(cuda_include_dirs());
  const std::string arch = cuda::query_device(0).arch();
  const auto compile = [&](const char* source, const std::string& kernel) {
    const CompileResult result = compiler.compile({source, kernel + ".cu", kernel, arch, {"-std=c++17"}});
    EXPECT_EQ(result.status, Status::ok) << result.message;
    return CompiledKernel{result.cubin, saxpy_launch(kernel)};
  };
  const EvalSettings settings{.timing = TimingMode::single, .measure_energy = true, .energy_window_ms = 1500};
  std::vector<BufferSpec> buffers{{"x", DType::f32, kN, true, false, {}, {}, {}},
                                  {"y", DType::f32, kN, true, false, {}, {}, {}},
                                  {"out", DType::f32, kN, false, true, {}, {}, {}}};
  GpuEvaluator evaluator(0, buffers, compile(gpu_test::kSaxpyReference, "saxpy_ref"), Tolerances{1e-5, 1e-6},
                         settings, compiler.include_dirs());
  const CompiledKernel variant = compile(kBusyVariant, "busy");

  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double idle_w = *nvml.power_mw(pci) / 1000.0;
  // NVML's power reading, sampled from another thread while the evaluation runs (its energy loop is most
  // of it): an independent view of the same power. On recent GPUs it is an average over the last second, so
  // the highest sample, taken near the end of the 1.5 s loop, is the one that covers the loop alone.
  std::atomic<bool> running{true};
  std::vector<double> samples_w;
  std::thread sampler([&] {
    while (running) {
      if (const auto mw = nvml.power_mw(pci)) samples_w.push_back(*mw / 1000.0);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  const Outcome outcome = evaluator.evaluate(variant, 7);
  running = false;
  sampler.join();

  ASSERT_EQ(outcome.status, Status::ok) << outcome.message;
  ASSERT_TRUE(outcome.timing.has_value());
  ASSERT_TRUE(outcome.energy.has_value()) << "NVML reads an energy, but none was measured";
  const EnergyStats& energy = *outcome.energy;
  const double us = outcome.timing->median_us;
  std::printf(
      "idle %.0f W, limit %.0f W; loop of %lld executions in %.1f ms: %.1f W, %.1f uJ each (%.2f us "
      "each); NVML power while evaluating (highest of %zu samples): %.1f W\n",
      idle_w, limit_w, static_cast<long long>(energy.executions), energy.window_ms, energy.avg_power_w,
      energy.uj_per_execution, us, samples_w.size(), highest(samples_w));
  EXPECT_GE(energy.window_ms, 0.9 * settings.energy_window_ms);
  EXPECT_GT(energy.avg_power_w, idle_w);
  EXPECT_LT(energy.avg_power_w, 1.1 * limit_w);
  // Energy of one execution against the power times its separately measured time.
  EXPECT_NEAR(energy.uj_per_execution / (energy.avg_power_w * us), 1.0, 0.2);
  // The counter's power against NVML's own power reading over the same stretch.
  EXPECT_NEAR(energy.avg_power_w / highest(samples_w), 1.0, 0.25);
}

}  // namespace energy_test
}  // namespace evotune
