// Energy of one variant: NVML's total-energy counter read around a loop of its executions, timed between
// CUDA events. The counter updates every few milliseconds, so the loop starts just after it ticks and the
// second reading waits for its next tick: the difference then covers the loop and at most one update
// period of the idle GPU after it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "cuda/nvml.hpp"
#include "cuda/resources.hpp"
#include "eval/device_state.hpp"
#include "eval/gpu_evaluator.hpp"

namespace evotune {
namespace {

constexpr auto kTickWait = std::chrono::milliseconds(100);  // longest wait for the counter to move
constexpr std::int64_t kMaxRuns = 1'000'000;

// The counter's first value after `from` changes (or `from` after kTickWait); nullopt if it cannot be read.
std::optional<std::uint64_t> next_tick(const cuda::Nvml& nvml, const std::string& pci, std::uint64_t from) {
  const auto deadline = std::chrono::steady_clock::now() + kTickWait;
  for (;;) {
    const auto now = nvml.energy_mj(pci);
    if (!now) return std::nullopt;
    if (*now != from || std::chrono::steady_clock::now() > deadline) return now;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace

std::optional<EnergyStats> GpuEvaluator::measure_energy(const std::function<void()>& run_once,
                                                        int executions_per_run, double us_per_run) {
  const cuda::Nvml& nvml = cuda::Nvml::system();
  const std::string pci = cuda::device_pci_bus_id(ordinal_);
  const auto first = nvml.energy_mj(pci);
  if (!first) return std::nullopt;
  const double window_us = settings_.energy_window_ms * 1000.0;
  const std::int64_t runs =
      std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(window_us / std::max(us_per_run, 0.01))), 1,
                               kMaxRuns);
  const DeviceState& state = *state_;
  const auto start = next_tick(nvml, pci, *first);
  if (!start) return std::nullopt;
  state.events[0].record(state.stream.get());
  for (std::int64_t i = 0; i < runs; ++i) run_once();
  state.events[1].record(state.stream.get());
  wait(settings_.timeout_ms * static_cast<double>(runs * executions_per_run), "variant (energy)");
  const auto after = nvml.energy_mj(pci);
  if (!after) return std::nullopt;
  const auto end = next_tick(nvml, pci, *after);
  if (!end || *end < *start) return std::nullopt;
  EnergyStats energy;
  energy.executions = runs * executions_per_run;
  energy.window_ms = cuda::elapsed_ms(state.events[0], state.events[1]);
  const double millijoules = static_cast<double>(*end - *start);
  energy.uj_per_execution = millijoules * 1000.0 / static_cast<double>(energy.executions);
  energy.avg_power_w = energy.window_ms > 0 ? millijoules / energy.window_ms : 0;  // mJ / ms = W
  return energy;
}

}  // namespace evotune
