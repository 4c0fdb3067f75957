// Energy of one variant: the average power while it runs in a loop, from NVML's total-energy counter, times
// the time of one execution. The counter moves in steps every few milliseconds (how often depends on the
// GPU), so reading it before and after the loop would add part of a step of whatever came before or after.
// Instead a host thread watches the counter during the loop and keeps each step with the host time it was
// seen; the first and the last step seen while the GPU was busy with the loop bound an interval in which it
// did nothing else, and the energy between them over their time is the loop's power.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "cuda/nvml.hpp"
#include "cuda/resources.hpp"
#include "eval/device_state.hpp"
#include "eval/gpu_evaluator.hpp"

namespace evotune {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::duration;

constexpr std::int64_t kMaxRuns = 1'000'000;
constexpr auto kWatchInterval = std::chrono::microseconds(250);
constexpr auto kEdgeMargin =
    std::chrono::milliseconds(1);  // steps this close to the loop's ends are left out
constexpr int kAttempts = 3;       // each with twice the window, while the counter moves too seldom for it

struct CounterStep {
  Clock::time_point seen;
  std::uint64_t mj;
};

// Watches the counter from its own thread until destroyed, keeping every step.
class CounterWatch {
 public:
  CounterWatch(const cuda::Nvml& nvml, std::string pci)
      : nvml_(nvml), pci_(std::move(pci)), thread_([this] { watch(); }) {}
  ~CounterWatch() { stop(); }
  CounterWatch(const CounterWatch&) = delete;
  CounterWatch& operator=(const CounterWatch&) = delete;

  // Stops the thread; then steps() and readable() may be read.
  void stop() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
  }
  const std::vector<CounterStep>& steps() const { return steps_; }
  bool readable() const { return readable_; }

 private:
  void watch() {
    std::optional<std::uint64_t> last;
    while (!stopping_) {
      const auto now = nvml_.energy_mj(pci_);
      const auto seen = Clock::now();
      if (!now) {
        readable_ = false;
        return;
      }
      if (!last || *now != *last) steps_.push_back({seen, *now});
      last = now;
      std::this_thread::sleep_for(kWatchInterval);
    }
  }

  const cuda::Nvml& nvml_;
  std::string pci_;
  std::atomic<bool> stopping_{false};
  bool readable_ = true;
  std::vector<CounterStep> steps_;
  std::thread thread_;  // last: starts once the rest is ready
};

}  // namespace

std::optional<EnergyStats> GpuEvaluator::measure_energy(const std::function<void()>& run_once,
                                                        int executions_per_run, double us_per_run) {
  const cuda::Nvml& nvml = cuda::Nvml::system();
  const std::string pci = cuda::device_pci_bus_id(ordinal_);
  if (!nvml.energy_mj(pci)) return std::nullopt;
  const DeviceState& state = *state_;
  double window_ms = settings_.energy_window_ms;
  for (int attempt = 0; attempt < kAttempts; ++attempt, window_ms *= 2) {
    const std::int64_t runs = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(std::ceil(window_ms * 1000.0 / std::max(us_per_run, 0.01))), 1, kMaxRuns);
    CounterWatch watch(nvml, pci);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the counter's value before the loop
    const auto start = Clock::now();
    state.events[0].record(state.stream.get());
    for (std::int64_t i = 0; i < runs; ++i) run_once();
    state.events[1].record(state.stream.get());
    wait(settings_.timeout_ms * static_cast<double>(runs * executions_per_run), "variant (energy)");
    const auto end = Clock::now();
    watch.stop();
    if (!watch.readable()) return std::nullopt;
    const CounterStep* first = nullptr;
    const CounterStep* last = nullptr;
    for (const CounterStep& step : watch.steps()) {
      if (step.seen <= start + kEdgeMargin || step.seen >= end - kEdgeMargin) continue;
      if (!first) first = &step;
      last = &step;
    }
    const double loop_ms = cuda::elapsed_ms(state.events[0], state.events[1]);
    if (!first || first == last || last->mj < first->mj) continue;
    const double span_ms = duration<double, std::milli>(last->seen - first->seen).count();
    if (span_ms < 0.25 * loop_ms) continue;  // too few steps in this window: a longer one
    EnergyStats energy;
    energy.executions = runs * executions_per_run;
    energy.window_ms = loop_ms;
    energy.avg_power_w = static_cast<double>(last->mj - first->mj) / span_ms;  // mJ / ms = W
    energy.uj_per_execution = energy.avg_power_w * loop_ms * 1000.0 / static_cast<double>(energy.executions);
    return energy;
  }
  return std::nullopt;  // the counter moved too seldom to bound a stretch of the loop
}

}  // namespace evotune
