// SearchLoop: asks the strategy, compiles ahead, keeps every worker busy, stores and observes each outcome.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "core/device_info.hpp"
#include "session/launch_timeout.hpp"
#include "session/progress.hpp"
#include "session/run_context.hpp"
#include "session/run_plan.hpp"
#include "session/stop_reason.hpp"
#include "session/tune_options.hpp"
#include "session/variant_compiler.hpp"
#include "space/search_space.hpp"
#include "store/store.hpp"
#include "strategy/strategy.hpp"
#include "worker/worker_pool.hpp"

namespace evotune {

class SearchLoop {
 public:
  struct Result {
    std::int64_t proposed = 0, evaluated = 0, failed = 0;
    StopReason stop_reason = StopReason::finished;  // finished, interrupted or failed
    bool time_limit_reached = false;                // no more proposals after the deadline (finished still)
    std::string error;                              // what ended it, when it failed
    double seconds = 0;
    double worker_idle_ms = 0;  // summed over the workers: time a worker had no job (the GPU waited)
  };

  // `gpu_note`: a warning for the progress line (a throttling GPU), or ""; `claims`: when another run's claim
  // on a config has expired.
  SearchLoop(const RunContext& run, Strategy& strategy, std::function<std::string()> gpu_note,
             ClaimPolicy claims);
  // Proposes at most `budget` configs (progress counts toward `expected`), keeping up to `window` compiles
  // in flight, and none after `deadline` (those in flight finish). Stops early when `interrupt` is set.
  Result run(std::int64_t budget, std::int64_t expected, std::size_t window,
             const std::atomic<bool>* interrupt,
             std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

 private:
  struct Variant {
    Config config;
    std::optional<std::int64_t> compile_id;
    CompileInfo compile;
    std::string cubin;
  };
  void propose(std::int64_t budget, std::size_t window);
  // Evaluates the config if this run can claim it; learns another run's stored result of it; or keeps it
  // in elsewhere_ while a live run evaluates it.
  void claim(Config config);
  void check_elsewhere();
  void learn_stored(const ClaimKey& key, const Config& config, bool ours);
  void submit(Config config);
  void gather_compiles(std::chrono::milliseconds wait);
  void dispatch();
  // The job's cut (JobMessage::cut_slow_us): the factor times the best time so far; 0 before a best, with
  // the cut off, or for an objective other than time (or energy measured).
  double cut_slow_us() const;
  void finish(const Variant& variant, Outcome outcome);
  std::size_t in_flight() const;

  RunContext c_;
  Strategy& strategy_;
  std::function<std::string()> gpu_note_;
  ClaimPolicy claims_;
  TimeoutPolicy policy_;
  double flops_ = 0, bytes_ = 0;  // the space's work formulas for this problem: per launch
  std::optional<double> best_us_;
  std::deque<Variant> ready_;                 // compiled (or replayed), waiting for a worker
  std::map<std::int64_t, Variant> running_;   // by ticket
  std::map<std::int64_t, Config> elsewhere_;  // by config id: proposed, but claimed by another live run
  std::chrono::steady_clock::time_point last_check_{};
  std::int64_t next_ticket_ = 1;
  Result result_;
  Progress* progress_ = nullptr;
};

}  // namespace evotune
