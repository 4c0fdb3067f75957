// The search loop: strategy -> compile (cache, all cores) -> worker pool (all GPUs) -> store -> strategy.
#include "session/search_loop.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <thread>

#include "core/error.hpp"
#include "session/progress.hpp"
#include "session/variant_job.hpp"
#include "session/worker_setup.hpp"

namespace evotune {
namespace {

using std::chrono::milliseconds;

}  // namespace

SearchLoop::SearchLoop(const RunContext& run, Strategy& strategy, std::function<std::string()> gpu_note,
                       ClaimPolicy claims)
    : c_(run),
      strategy_(strategy),
      gpu_note_(std::move(gpu_note)),
      claims_(claims),
      flops_(c_.space.flops(c_.sizes)),
      bytes_(c_.space.bytes(c_.sizes)) {
  policy_.ceiling_ms = c_.options.eval.timeout_ms;
}

std::size_t SearchLoop::in_flight() const {
  return ready_.size() + running_.size() + (c_.compiler ? c_.compiler->pending() : 0);
}

void SearchLoop::propose(std::int64_t budget, std::size_t window) {
  while (result_.proposed < budget && in_flight() < window + c_.pool.size()) {
    auto config = strategy_.next();
    if (!config) return;  // nothing until more outcomes arrive
    ++result_.proposed;
    claim(std::move(*config));
  }
}

void SearchLoop::submit(Config config) {
  if (c_.compiler)
    c_.compiler->submit(config);
  else
    ready_.push_back(Variant{std::move(config), std::nullopt, {}, {}});
}

void SearchLoop::claim(Config config) {
  const ClaimKey key{c_.store.upsert_config(c_.keys.space_id, config), c_.keys.problem_id, c_.keys.device_id};
  switch (c_.store.claim(key, c_.keys.run_id, claims_)) {
    case ClaimResult::claimed:
      submit(std::move(config));
      return;
    case ClaimResult::held:
      elsewhere_.emplace(key.config_id, std::move(config));
      return;
    case ClaimResult::measured:
      learn_stored(key, config, false);
      return;
    case ClaimResult::abandoned:
      learn_stored(key, config, true);
      return;
  }
}

// Another run's result (or this run's verdict on a config that killed other runs) reaches the strategy as
// if this run had measured it: every process's search learns from every result.
void SearchLoop::learn_stored(const ClaimKey& key, const Config& config, bool ours) {
  const auto stored = c_.store.measurement_of(key);
  if (!stored) throw Error("internal: config " + std::to_string(key.config_id) + " has no stored result");
  Outcome outcome;
  outcome.status = stored->status;
  outcome.message = stored->message;
  outcome.timing = stored->timing;
  strategy_.observe(config, outcome);
  const bool ok = outcome.status == Status::ok && outcome.timing;
  const bool improved = ok && (!best_us_ || outcome.timing->median_us < *best_us_);
  if (improved) best_us_ = outcome.timing->median_us;
  if (ours) progress_->update(ok, improved ? best_us_ : std::nullopt, "");
}

void SearchLoop::check_elsewhere() {
  const auto now = std::chrono::steady_clock::now();
  if (elsewhere_.empty() || now - last_check_ < milliseconds(250)) return;
  last_check_ = now;
  std::map<std::int64_t, Config> waiting = std::move(elsewhere_);
  elsewhere_.clear();
  for (auto& [config_id, config] : waiting) claim(std::move(config));
}

void SearchLoop::gather_compiles(milliseconds wait) {
  if (!c_.compiler) return;
  while (auto compiled = c_.compiler->take_first_ready(wait)) {
    wait = milliseconds(0);
    CompileResult& result = compiled->result;
    Variant variant{std::move(compiled->config), compiled->compile_id, result.info, std::move(result.cubin)};
    if (result.status != Status::ok) {
      Outcome outcome;
      outcome.status = result.status;
      outcome.message = result.message;
      finish(variant, std::move(outcome));
    } else {
      ready_.push_back(std::move(variant));
    }
  }
}

void SearchLoop::dispatch() {
  while (c_.pool.idle() > 0 && !ready_.empty()) {
    Variant variant = std::move(ready_.front());
    ready_.pop_front();
    const LaunchLimit limit =
        launch_limit(policy_, c_.reference_ms, best_us_ ? std::optional(*best_us_ / 1000) : std::nullopt);
    PoolJob job =
        variant_job(c_, next_ticket_++, variant.config, c_.compiler ? &variant.cubin : nullptr, limit);
    job.message.cut_slow_us = cut_slow_us();
    variant.cubin.clear();
    running_.emplace(job.message.ticket, std::move(variant));
    c_.pool.submit(std::move(job));
  }
}

double SearchLoop::cut_slow_us() const {
  const EvalSettings& eval = c_.options.eval;
  if (!best_us_ || eval.cut_slow_factor <= 0 || c_.options.objective != Objective::time ||
      eval.measure_energy)
    return 0;
  return eval.cut_slow_factor * *best_us_;
}

void SearchLoop::finish(const Variant& variant, Outcome outcome) {
  outcome.compile = variant.compile;
  MeasurementRecord record{c_.keys.run_id,     c_.store.upsert_config(c_.keys.space_id, variant.config),
                           c_.keys.problem_id, c_.keys.device_id,
                           variant.compile_id, outcome};
  if (outcome.timing && outcome.timing->median_us > 0) {
    const double seconds = outcome.timing->median_us * 1e-6;
    record.tflops = flops_ / seconds / 1e12;
    record.gbps = bytes_ / seconds / 1e9;
  }
  c_.store.record_measurement(record);
  strategy_.observe(variant.config, outcome);
  const bool ok = outcome.status == Status::ok;
  const bool improved = ok && (!best_us_ || outcome.timing->median_us < *best_us_);
  if (improved) best_us_ = outcome.timing->median_us;
  if (!ok)
    spdlog::debug("{}: {} {}", key_value_text(variant.config, ' '), to_string(outcome.status),
                  outcome.message);
  progress_->update(ok, improved ? best_us_ : std::nullopt,
                    improved ? key_value_text(variant.config, ' ') : "");
}

SearchLoop::Result SearchLoop::run(std::int64_t budget, std::int64_t expected, std::size_t window,
                                   const std::atomic<bool>* interrupt,
                                   std::optional<std::chrono::steady_clock::time_point> deadline) {
  Progress progress(expected, isatty(STDERR_FILENO) != 0);
  if (gpu_note_) progress.set_note_source(gpu_note_);
  progress_ = &progress;
  const auto start = std::chrono::steady_clock::now();
  auto last = start;
  try {
    for (;;) {
      const auto now = std::chrono::steady_clock::now();
      result_.worker_idle_ms +=
          static_cast<double>(c_.pool.idle()) * std::chrono::duration<double, std::milli>(now - last).count();
      last = now;
      if (interrupt && interrupt->load()) {
        result_.stop_reason = StopReason::interrupted;
        break;
      }
      // The first window is proposed even past the limit: a limit the set-up (drawing the candidates, the
      // reference, the baseline) used up still measures the strategy's first picks (the Seeds).
      if (deadline && now >= *deadline && !result_.time_limit_reached && result_.proposed > 0) {
        result_.time_limit_reached = true;
        spdlog::info("time limit: no more variants proposed; the {} compiling or running finish",
                     in_flight());
      }
      if (!result_.time_limit_reached) propose(budget, window);
      gather_compiles(milliseconds(0));
      dispatch();
      check_elsewhere();
      // The budget is spent, or the strategy has nothing more to propose, and no other run still evaluates
      // a config this run proposed.
      if (in_flight() == 0 && elsewhere_.empty()) break;
      if (in_flight() == 0) {
        std::this_thread::sleep_for(milliseconds(50));
        continue;
      }
      if (!running_.empty()) {
        const bool compiling = c_.compiler && c_.compiler->pending() > 0 && c_.pool.idle() > 0;
        for (auto& done : c_.pool.collect(milliseconds(compiling ? 2 : 50))) {
          auto it = running_.find(done.ticket);
          if (it == running_.end()) throw Error("internal: an answer for an unknown job");
          finish(it->second, std::move(done.outcome));
          running_.erase(it);
        }
      } else {
        gather_compiles(milliseconds(20));
      }
    }
  } catch (const Error& e) {
    result_.stop_reason = StopReason::failed;
    result_.error = e.what();
  } catch (const nlohmann::json::exception& e) {
    result_.stop_reason = StopReason::failed;
    result_.error = std::string("a malformed worker answer: ") + e.what();
  }
  progress.finish();
  progress_ = nullptr;
  result_.evaluated = progress.done();
  result_.failed = progress.failed();
  result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result_;
}

}  // namespace evotune
