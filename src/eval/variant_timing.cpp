// Timing one variant: single executions between event pairs, or CUDA-graph replays of several executions
// (settings' timing mode, core/timing_mode.hpp), the L2 flushed before each timed launch or replay if asked;
// or, for a variant whose warm-up executions are already far slower than the best so far, those alone.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <vector>

#include "core/timed_range.hpp"
#include "cuda/graph.hpp"
#include "cuda/nvtx_range.hpp"
#include "cuda/resources.hpp"
#include "eval/compare.hpp"
#include "eval/device_state.hpp"
#include "eval/evaluator_internals.hpp"
#include "eval/gpu_evaluator.hpp"

namespace evotune {
namespace {

constexpr int kGraphWarmupReplays = 2;
// The sustained warm-up runs in chunks of about this much GPU time, the host checking the clock after each.
constexpr double kSustainChunkMs = 20;
// A single launch's time between events can include a few us of launch latency that graph replays (by which
// the best so far of a short kernel was timed) hide: the cut allows for it.
constexpr double kLaunchLatencyUs = 5;

double fastest(const std::vector<double>& samples_us) {
  double best = std::numeric_limits<double>::infinity();
  for (const double us : samples_us) best = std::min(best, us);
  return best;
}

// The timing of a variant cut short: its warm-up executions' times (no L2 flush before them), and why.
TimingStats cut_short(std::vector<double> warmup_us, double cut_slow_us) {
  const double fastest_us = fastest(warmup_us);
  const std::size_t count = warmup_us.size();
  TimingStats stats = summarize(std::move(warmup_us));
  TimingMethod method;
  method.flush_l2 = false;
  char text[160];
  std::snprintf(text, sizeof text,
                "the fastest of %zu warm-up executions took %.1f us, past the cut at %.1f us", count,
                fastest_us, cut_slow_us);
  method.cut = text;
  stats.method = method;
  return stats;
}

}  // namespace

void GpuEvaluator::sustain(const std::function<void()>& run_once, double run_us) {
  if (settings_.warmup_ms <= 0) return;
  // run_us comes from single timed executions; back to back they may run faster, so the time is checked on
  // the host rather than counted in runs.
  const int chunk =
      static_cast<int>(std::clamp(std::ceil(kSustainChunkMs * 1000 / std::max(run_us, 0.1)), 1.0, 1e6));
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() <
         settings_.warmup_ms) {
    for (int i = 0; i < chunk; ++i) run_once();
    // A chunk is about kSustainChunkMs of work: far longer than that (and one launch limit) is a hang.
    wait(settings_.timeout_ms + 10 * kSustainChunkMs, "variant (sustained warm-up)");
  }
}

GpuEvaluator::Measured GpuEvaluator::time_variant(const LaunchSpec& launch, double cut_slow_us) {
  const std::vector<Step> steps = variant_steps(launch);
  return time_runs([&] { run_steps(steps); }, cut_slow_us);
}

GpuEvaluator::Measured GpuEvaluator::time_runs(const std::function<void()>& run_once, double cut_slow_us) {
  TimingMethod method;
  method.flush_l2 = settings_.flush_l2;
  if (settings_.timing == TimingMode::single && settings_.warmup_ms <= 0 && cut_slow_us <= 0) {
    for (int i = 0; i < settings_.warmup; ++i) run_once();
    return with_energy(time_single(run_once, method), run_once, 1);
  }
  std::vector<double> warmup_us = time_warmup(run_once);
  const double estimate_us = fastest(warmup_us);
  if (cut_slow_us > 0 && estimate_us > cut_slow_us + kLaunchLatencyUs)
    return {cut_short(std::move(warmup_us), cut_slow_us), std::nullopt};
  if (settings_.timing == TimingMode::single || !uses_graph(settings_.timing, estimate_us)) {
    sustain(run_once, estimate_us);
    return with_energy(time_single(run_once, method), run_once, 1);
  }
  const int executions = graph_executions_for(estimate_us);
  cuda::GraphExec graph;
  try {
    graph = cuda::GraphExec::capture(state_->stream.get(), [&] {
      for (int i = 0; i < executions; ++i) run_once();
    });
  } catch (const cuda::CudaError& e) {
    if (cuda::is_sticky(e.result())) throw;
    // Not the variant's failure: its launches ran fine one by one, they only cannot be captured.
    spdlog::debug("graph capture failed, timing single launches: {}", e.what());
    method.fallback = e.what();
    return with_energy(time_single(run_once, method), run_once, 1);
  }
  method.graph = true;
  method.graph_executions = executions;
  sustain([&] { graph.launch(state_->stream.get()); }, estimate_us * executions);
  return with_energy(
      time_graph(graph, method), [&] { graph.launch(state_->stream.get()); }, executions);
}

GpuEvaluator::Measured GpuEvaluator::with_energy(TimingStats timing, const std::function<void()>& run_once,
                                                 int executions_per_run) {
  Measured measured{timing, std::nullopt};
  if (settings_.measure_energy)
    measured.energy = measure_energy(run_once, executions_per_run, timing.median_us * executions_per_run);
  return measured;
}

std::vector<double> GpuEvaluator::time_warmup(const std::function<void()>& run_once) {
  const DeviceState& state = *state_;
  const int warmups = std::max(settings_.warmup, 1);
  const int timed = std::min(warmups, static_cast<int>(state.events.size() / 2));
  for (int i = timed; i < warmups; ++i) run_once();
  for (int i = 0; i < timed; ++i) {
    state.events[2 * i].record(state.stream.get());
    run_once();
    state.events[2 * i + 1].record(state.stream.get());
  }
  wait(settings_.timeout_ms * warmups, "variant (warm-up)");
  std::vector<double> samples_us;
  for (int i = 0; i < timed; ++i)
    samples_us.push_back(1000.0 * cuda::elapsed_ms(state.events[2 * i], state.events[2 * i + 1]));
  return samples_us;
}

void GpuEvaluator::flush_l2(int repetition) const {
  if (!settings_.flush_l2) return;
  const DeviceState& state = *state_;
  cuda::check(cuda::driver().cuMemsetD32Async(state.l2_scratch.get(), static_cast<unsigned>(repetition),
                                              state.l2_scratch.bytes() / 4, state.stream.get()),
              "cuMemsetD32Async");
}

TimingStats GpuEvaluator::time_single(const std::function<void()>& run_once, const TimingMethod& method) {
  const DeviceState& state = *state_;
  const cuda::NvtxRange timed(kTimedRangeName);  // the timed executions, and only they (evotune profile)
  for (int i = 0; i < settings_.repetitions; ++i) {
    flush_l2(i);
    state.events[2 * i].record(state.stream.get());
    run_once();
    state.events[2 * i + 1].record(state.stream.get());
  }
  wait(settings_.timeout_ms * (settings_.warmup + settings_.repetitions), "variant (timing)");
  std::vector<double> samples_us;
  for (int i = 0; i < settings_.repetitions; ++i)
    samples_us.push_back(1000.0 * cuda::elapsed_ms(state.events[2 * i], state.events[2 * i + 1]));
  TimingStats stats = summarize(std::move(samples_us));
  stats.method = method;
  return stats;
}

TimingStats GpuEvaluator::time_graph(const cuda::GraphExec& graph, const TimingMethod& method) {
  const DeviceState& state = *state_;
  for (int i = 0; i < kGraphWarmupReplays; ++i) graph.launch(state.stream.get());
  const cuda::NvtxRange timed(kTimedRangeName);
  for (int i = 0; i < settings_.repetitions; ++i) {
    flush_l2(i);
    state.events[2 * i].record(state.stream.get());
    graph.launch(state.stream.get());
    state.events[2 * i + 1].record(state.stream.get());
  }
  const int executions = method.graph_executions;
  wait(settings_.timeout_ms * executions * (kGraphWarmupReplays + settings_.repetitions), "variant (timing)");
  std::vector<double> samples_us;
  for (int i = 0; i < settings_.repetitions; ++i)
    samples_us.push_back(1000.0 * cuda::elapsed_ms(state.events[2 * i], state.events[2 * i + 1]) /
                         executions);
  TimingStats stats = summarize(std::move(samples_us));
  stats.method = method;
  return stats;
}

}  // namespace evotune
