// Timing the library baseline through the worker pool, algorithm by algorithm.
#include "session/baseline_jobs.hpp"

#include <spdlog/spdlog.h>

#include <map>

#include "session/launch_timeout.hpp"

namespace evotune {

PoolJob baseline_job(std::int64_t ticket, int algorithm, std::uint64_t seed, const EvalSettings& eval) {
  PoolJob job;
  job.message.ticket = ticket;
  job.message.validation_seed = seed;
  job.message.baseline_algorithm = algorithm;
  // The library's kernels are not ours to distrust: the user's ceiling is their limit.
  const LaunchLimit limit{eval.timeout_ms, "--timeout-ms"};
  job.message.launch_limit_ms = limit.per_launch_ms;
  job.message.limit_basis = limit.basis;
  job.deadline_ms = job_deadline_ms(limit, eval);
  return job;
}

std::optional<BaselineTiming> time_baseline(WorkerPool& pool, const EvalSettings& eval, std::uint64_t seed,
                                            int candidates) {
  std::map<std::int64_t, int> running;  // ticket -> algorithm
  std::map<int, Outcome> done;
  int next = 0;
  while (next < candidates || !running.empty()) {
    while (pool.idle() > 0 && next < candidates) {
      running.emplace(next + 1, next);
      pool.submit(baseline_job(next + 1, next, seed, eval));
      ++next;
    }
    for (PoolResult& result : pool.collect(std::chrono::milliseconds(20))) {
      const auto it = running.find(result.ticket);
      if (it == running.end()) continue;
      done[it->second] = std::move(result.outcome);
      running.erase(it);
    }
  }
  BaselineTiming baseline;
  for (const auto& [algorithm, outcome] : done) {
    if (outcome.status != Status::ok || !outcome.timing) {
      // The heuristic may return fewer algorithms than asked for: past them, and for a refused problem, no
      // time.
      if (algorithm == 0) {
        spdlog::warn("baseline not timed: {}", outcome.message);
        return std::nullopt;
      }
      continue;
    }
    const double us = outcome.timing->median_us;
    const TimingMethod method = outcome.timing->method.value_or(TimingMethod{});
    if (algorithm == 0) {
      baseline.library = outcome.message;
      baseline.heuristic_us = us;
      baseline.timing_mode = method.graph ? "graph x" + std::to_string(method.graph_executions) : "single";
    }
    ++baseline.algorithms;
    if (algorithm == 0 || us < baseline.best_us) {
      baseline.best_us = us;
      baseline.best_index = algorithm;
    }
  }
  return baseline;
}

}  // namespace evotune
