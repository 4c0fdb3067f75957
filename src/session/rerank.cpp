// The rerank: compile (from the cache) the fastest configs, time them round by round, summarize, store.
#include "session/rerank.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <string>

#include "session/baseline_jobs.hpp"
#include "session/variant_compiler.hpp"
#include "session/variant_job.hpp"
#include "session/worker_setup.hpp"

namespace evotune {
namespace {

struct Candidate {
  std::int64_t config_id = 0;
  Config params;
  std::string cubin;
  std::vector<double> round_medians_us;
  std::optional<TimingMethod> method;
};

// The top configs with their binaries (through the store's compile cache); a config that does not compile
// any more is left out.
std::vector<Candidate> candidates(const RunContext& c, const std::vector<RankedResult>& top) {
  std::vector<Candidate> chosen;
  for (const RankedResult& result : top) chosen.push_back({result.config_id, result.params, {}, {}, {}});
  if (!c.compiler) return chosen;
  for (const Candidate& candidate : chosen) c.compiler->submit(candidate.params);
  std::map<std::string, std::string> cubins;
  while (auto compiled = c.compiler->take_first_ready_blocking()) {
    if (compiled->result.status == Status::ok)
      cubins[canonical_json(compiled->config)] = std::move(compiled->result.cubin);
    else
      spdlog::warn("rerank: {} no longer compiles: {}", key_value_text(compiled->config, ' '),
                   compiled->result.message);
  }
  std::erase_if(
      chosen, [&](const Candidate& candidate) { return !cubins.contains(canonical_json(candidate.params)); });
  for (Candidate& candidate : chosen) candidate.cubin = std::move(cubins[canonical_json(candidate.params)]);
  return chosen;
}

}  // namespace

std::vector<std::size_t> round_order(std::size_t count, int round) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < count; ++i) order.push_back((i + static_cast<std::size_t>(round)) % count);
  return order;
}

Remeasurement summarize_rounds(std::vector<double> round_medians_us) {
  Remeasurement r;
  r.round_medians_us = round_medians_us;
  if (round_medians_us.empty()) return r;
  std::sort(round_medians_us.begin(), round_medians_us.end());
  const std::size_t n = round_medians_us.size();
  r.median_us =
      n % 2 == 1 ? round_medians_us[n / 2] : (round_medians_us[n / 2 - 1] + round_medians_us[n / 2]) / 2;
  r.min_us = round_medians_us.front();
  r.max_us = round_medians_us.back();
  return r;
}

RerankOutcome rerank_top(const RunContext& c, int top_k, int rounds, const std::atomic<bool>* interrupt,
                         std::optional<std::chrono::steady_clock::time_point> deadline) {
  RerankOutcome outcome;
  const BestQuery fastest{.space_id = c.keys.space_id,
                          .problem_id = c.keys.problem_id,
                          .device_id = c.keys.device_id,
                          .top_k = top_k};
  const std::vector<RankedResult> top = c.store.best(fastest);
  if (top.size() < 2 || rounds < 1) return outcome;
  spdlog::info("rerank: re-timing the {} fastest configs in {} interleaved rounds", top.size(), rounds);
  std::vector<Candidate> chosen = candidates(c, top);

  TimeoutPolicy policy;
  policy.ceiling_ms = c.options.eval.timeout_ms;
  const LaunchLimit limit = launch_limit(policy, c.reference_ms, top.front().timing->median_us / 1000);
  // The baseline takes part as one more entry, index chosen.size().
  const bool with_baseline = c.baseline && c.baseline->has_value();
  const std::size_t baseline_index = chosen.size();
  std::vector<double> baseline_rounds_us;
  std::deque<std::size_t> queue;
  const std::size_t per_round = chosen.size() + (with_baseline ? 1 : 0);
  for (int round = 0; round < rounds; ++round)
    for (const std::size_t i : round_order(per_round, round)) queue.push_back(i);
  std::size_t submitted = 0;
  // Past the deadline, the rounds started are the rounds there are: the queue holds whole rounds in order.
  const auto end_at_round_boundary = [&] {
    if (!deadline || queue.empty() || submitted == 0 || submitted % per_round != 0 ||
        std::chrono::steady_clock::now() < *deadline)
      return;
    spdlog::info("rerank: time limit: {} of {} rounds", submitted / per_round, rounds);
    queue.clear();
  };
  std::map<std::int64_t, std::size_t> running;  // ticket -> candidate
  std::int64_t next_ticket = 1;
  while (!queue.empty() || !running.empty()) {
    if (interrupt && interrupt->load()) {
      outcome.interrupted = true;
      return outcome;
    }
    while (c.pool.idle() > 0 && !queue.empty()) {
      end_at_round_boundary();
      if (queue.empty()) break;
      ++submitted;
      if (queue.front() == baseline_index) {
        running.emplace(next_ticket, baseline_index);
        c.pool.submit(baseline_job(next_ticket++, (*c.baseline)->best_index, c.options.seed, c.options.eval));
        queue.pop_front();
        continue;
      }
      const Candidate& candidate = chosen[queue.front()];
      PoolJob job =
          variant_job(c, next_ticket, candidate.params, c.compiler ? &candidate.cubin : nullptr, limit);
      job.message.timing_only = true;
      running.emplace(next_ticket++, queue.front());
      queue.pop_front();
      c.pool.submit(std::move(job));
    }
    for (PoolResult& done : c.pool.collect(std::chrono::milliseconds(50))) {
      const auto it = running.find(done.ticket);
      if (it == running.end()) continue;
      if (it->second == baseline_index) {
        running.erase(it);
        if (done.outcome.status == Status::ok && done.outcome.timing)
          baseline_rounds_us.push_back(done.outcome.timing->median_us);
        else
          spdlog::warn("rerank: the baseline: {} {}", to_string(done.outcome.status), done.outcome.message);
        continue;
      }
      Candidate& candidate = chosen[it->second];
      running.erase(it);
      if (done.outcome.status != Status::ok || !done.outcome.timing) {
        ++outcome.failed;
        spdlog::warn("rerank: {}: {} {}", key_value_text(candidate.params, ' '),
                     to_string(done.outcome.status), done.outcome.message);
        continue;
      }
      candidate.round_medians_us.push_back(done.outcome.timing->median_us);
      candidate.method = done.outcome.timing->method;
    }
  }

  if (with_baseline && !baseline_rounds_us.empty())
    (*c.baseline)->reranked_us = summarize_rounds(std::move(baseline_rounds_us)).median_us;
  for (Candidate& candidate : chosen) {
    if (candidate.round_medians_us.empty()) continue;
    Remeasurement remeasured = summarize_rounds(std::move(candidate.round_medians_us));
    remeasured.method = candidate.method;
    outcome.ranked.push_back({candidate.config_id, std::move(remeasured)});
  }
  if (outcome.ranked.size() < 2) {
    outcome.ranked.clear();
    return outcome;
  }
  std::stable_sort(outcome.ranked.begin(), outcome.ranked.end(), [](const auto& a, const auto& b) {
    return a.remeasured.median_us < b.remeasured.median_us;
  });
  for (std::size_t i = 0; i < outcome.ranked.size(); ++i)
    outcome.ranked[i].remeasured.position = static_cast<int>(i + 1);
  c.store.save_rerank(c.keys.run_id, c.keys.problem_id, c.keys.device_id, outcome.ranked);
  return outcome;
}

}  // namespace evotune
